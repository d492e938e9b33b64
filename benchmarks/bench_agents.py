"""What grounding costs an agent: the same agent run with and without the check of its answer.

On one emulator (a child process), each agent searches once with our search tool and answers
with the offline stand-in model, taking turns (``benchmarks.timing.interleaved``):

- LangChain: ``create_agent(ExtractiveChatModel(), tools=[search])`` against the same agent with
  ``middleware=[GroundingMiddleware(...)]`` (``invoke``, Google's sync client);
- LlamaIndex: a ``FunctionAgent`` (a scripted ``MockFunctionCallingLLM`` that searches, then
  answers with the best sentence found) against ``GroundedAgentWorkflow`` over it (``await
  run``, on one event loop, Google's async client);
- the check alone (``GroundingChecker.check`` of the same answer against the same documents):
  what the middleware must add at least, one checkGrounding call.

The overhead per final answer is the difference of the two agents' medians; the ratio says what
share of an agent's run the check is (the emulator answers in a few milliseconds: against
Google, and a real model, the check is a far smaller share).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from langchain.agents import create_agent
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.llms import MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLM

import langchain_grounding as lc
import llamaindex_grounding as li
from benchmarks.common import Row
from benchmarks.emulator_process import EmulatorProcess
from benchmarks.timing import interleaved, median_ms
from grounding_core import extractive_answer
from grounding_emulator import BUILTIN_DATA_STORE

NAME = "agents"
PROJECT = "bench"
DATA_STORE = BUILTIN_DATA_STORE
QUESTION = "How does the with statement work?"


def _stand_in(messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
    """Search with the question, then answer with the best sentence of the results."""
    question = next(m.content for m in messages if m.role == MessageRole.USER) or ""
    results = [m.content or "" for m in messages if m.role == MessageRole.TOOL]
    if not results:
        call = ToolCallBlock(
            tool_call_id="c1", tool_name="discovery_engine_search", tool_kwargs={"query": question}
        )
        return ChatMessage(role="assistant", blocks=[call])
    prompt = "\n\n".join(results) + f"\n\nQuestion: {question}"
    return ChatMessage(role="assistant", content=extractive_answer(prompt, sentences=1))


def _langchain(address: str) -> dict[str, Callable[[], object]]:
    connection = {"project_id": PROJECT, "emulator_host": address}
    retriever = lc.DiscoveryEngineRetriever(data_store_id=DATA_STORE, k=5, **connection)
    tool = lc.DiscoveryEngineSearchTool(retriever=retriever)
    model = lc.ExtractiveChatModel(sentences=1)
    bare = create_agent(model, tools=[tool])
    grounded = create_agent(model, tools=[tool], middleware=[lc.GroundingMiddleware(**connection)])
    ask = {"messages": [("user", QUESTION)]}
    state = grounded.invoke(ask)
    if not state["grounding"]["passed"]:
        raise AssertionError(f"the benchmark's answer should pass: {state['grounding']}")
    checker = lc.GroundingChecker(**connection)
    answer, documents = state["messages"][-1].text, state["messages"][-2].artifact
    return {
        "LangChain agent": lambda: bare.invoke(ask),
        "LangChain agent + GroundingMiddleware": lambda: grounded.invoke(ask),
        "LangChain check alone": lambda: checker.check(answer, documents),
    }


def _llamaindex(address: str, loop: asyncio.AbstractEventLoop) -> dict[str, Callable[[], object]]:
    connection = {"project_id": PROJECT, "emulator_host": address}
    retriever = li.DiscoveryEngineRetriever(
        data_store_id=DATA_STORE, similarity_top_k=5, **connection
    )
    tool = li.DiscoveryEngineSearchTool(retriever)
    llm = MockFunctionCallingLLM(response_generator=_stand_in)
    agent = FunctionAgent(tools=[tool], llm=llm, streaming=False)
    grounded = li.GroundedAgentWorkflow(agent, **connection)

    async def ask(workflow: Any) -> Any:
        return await workflow.run(user_msg=QUESTION)  # a workflow runs inside the loop

    output = loop.run_until_complete(ask(grounded))
    if not output.grounding["passed"]:
        raise AssertionError(f"the benchmark's answer should pass: {output.grounding}")
    return {
        "LlamaIndex agent": lambda: loop.run_until_complete(ask(agent)),
        "LlamaIndex agent + GroundedAgentWorkflow": lambda: loop.run_until_complete(ask(grounded)),
    }


def run(quick: bool = False) -> list[Row]:
    """The agents' medians, with and without the check (``quick``: a few runs each)."""
    rounds, block = (2, 1) if quick else (30, 3)
    loop = asyncio.new_event_loop()
    try:
        with EmulatorProcess() as emulator:
            contenders = {**_langchain(emulator.address), **_llamaindex(emulator.address, loop)}
            p50 = {
                name: median_ms(samples)
                for name, samples in interleaved(contenders, rounds=rounds, block=block).items()
            }
    finally:
        loop.close()
    case = "one search, one final answer"
    return [
        Row(NAME, case, "LangChain agent p50", p50["LangChain agent"], "ms"),
        Row(
            NAME, case, "+ GroundingMiddleware p50",
            p50["LangChain agent + GroundingMiddleware"], "ms",
            p50["LangChain agent"], "same agent, no middleware",
        ),
        Row(NAME, case, "LangChain checkGrounding alone p50", p50["LangChain check alone"], "ms"),
        Row(NAME, case, "LlamaIndex agent p50", p50["LlamaIndex agent"], "ms"),
        Row(
            NAME, case, "GroundedAgentWorkflow p50",
            p50["LlamaIndex agent + GroundedAgentWorkflow"], "ms",
            p50["LlamaIndex agent"], "same agent, unwrapped",
        ),
    ]  # fmt: skip


if __name__ == "__main__":
    for row in run():
        print(row)
