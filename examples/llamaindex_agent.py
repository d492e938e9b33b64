"""A LlamaIndex agent (``FunctionAgent``) whose final response is checked, cited and revised.

The agent searches Vertex AI Search with ``DiscoveryEngineSearchTool``; ``GroundedAgentWorkflow``
runs it, checks its final response with checkGrounding against the nodes the tool returned,
attaches ``CitationBlock``s (spans into the answer, the source's URL and title) and the report,
and, with ``on_ungrounded="revise"``, sends the unsupported claims back to the agent. The LLM is
an offline stand-in: LlamaIndex's ``MockFunctionCallingLLM`` scripted to search, then answer
with the best sentence of what it found (``grounding_core.extractive_answer``), adding a made-up
sentence to its first answer only. Runs offline on the emulator.

    python -m examples.llamaindex_agent
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
from llama_index.core.base.llms.types import ChatMessage, CitationBlock, ToolCallBlock
from llama_index.core.llms import MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLM

from grounding_core import extractive_answer
from grounding_emulator import EmulatorServer
from llamaindex_grounding import (
    AgentGroundingEvent,
    DiscoveryEngineRetriever,
    DiscoveryEngineSearchTool,
    GroundedAgentWorkflow,
)

QUESTION = "How does the with statement work?"
INVENTED = "The with statement was added in Python 1.0."


def stand_in_llm(messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
    """Search once with the question; then answer from the results (a made-up sentence is added
    unless the agent was asked to revise, so that the revision drops it)."""
    question = next(m.content for m in messages if m.role == MessageRole.USER) or ""
    results = [m.content or "" for m in messages if m.role == MessageRole.TOOL]
    if not results:
        call = ToolCallBlock(
            tool_call_id="call-1",
            tool_name="discovery_engine_search",
            tool_kwargs={"query": question},
        )
        return ChatMessage(role="assistant", blocks=[call])
    revising = messages[-1].role == MessageRole.USER and messages[-1].content != question
    context = "\n\n".join(results)
    answer = extractive_answer(
        f"{context}\n\nQuestion: {question}", sentences=1, invent="" if revising else INVENTED
    )
    return ChatMessage(role="assistant", content=answer)


def main() -> str:
    lines: list[str] = []
    with EmulatorServer() as emulator:  # offline; on Google Cloud, omit emulator_host
        connection = {"project_id": "my-project", "emulator_host": emulator.address}
        retriever = DiscoveryEngineRetriever(
            data_store_id="python-docs", similarity_top_k=3, **connection
        )
        agent = FunctionAgent(
            tools=[DiscoveryEngineSearchTool(retriever)],
            llm=MockFunctionCallingLLM(response_generator=stand_in_llm),
            streaming=False,
        )
        grounded = GroundedAgentWorkflow(agent, on_ungrounded="revise", **connection)

        async def run() -> Any:
            handler = grounded.run(user_msg=QUESTION)
            async for event in handler.stream_events():
                if isinstance(event, ToolCallResult):
                    lines.append(
                        f"tool {event.tool_name}: {len(event.tool_output.raw_output)} nodes"
                    )
                elif isinstance(event, AgentGroundingEvent):
                    score = event.grounding["support_score"]
                    lines.append(f"checked: support {score:.2f} -> {event.action}")
            return await handler

        output = asyncio.run(run())
        lines.append(f"answer ({output.revisions} revision): {output.response.content}")
        for block in output.response.blocks:
            if isinstance(block, CitationBlock):
                info = block.additional_location_info
                lines.append(
                    f"  [{info['start_char_idx']}:{info['end_char_idx']}] -> "
                    f"{block.title} ({block.source})"
                )
        lines.append(f"passed: {output.grounding['passed']}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
