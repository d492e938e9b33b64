"""Every public LlamaIndex component survives ``pickle`` (default protocol and 5) and
``copy.deepcopy`` (what multiprocessing, Ray, joblib and LlamaIndex's own deep copies do): same
settings, the same results on the emulator (sync and async), connections of its own (each
builds its clients at its first call); ``copy.copy`` works and shares the connection. A
component holding user objects (a query engine, an LLM) pickles when they do."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from google.auth.credentials import AnonymousCredentials
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.llms import MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

import llamaindex_grounding
from grounding_core import ConfigurationError, RetryPolicy
from llamaindex_grounding import (
    AnswerQueryTool,
    DeveloperKnowledgeAnswerQueryEngine,
    DeveloperKnowledgeChatEngine,
    DeveloperKnowledgeRetriever,
    DeveloperKnowledgeSearchTool,
    DiscoveryEngineAnswerQueryEngine,
    DiscoveryEngineChatEngine,
    DiscoveryEngineGroundedLLM,
    DiscoveryEngineReranker,
    DiscoveryEngineRetriever,
    DiscoveryEngineSearchSummaryQueryEngine,
    DiscoveryEngineSearchTool,
    ExtractiveLLM,
    GroundedAgentWorkflow,
    GroundedQueryEngine,
    GroundingEvaluator,
)
from tests.core.copies import (
    WHOLE_COPIES,
    LockedCredentials,
    Row,
    check_a_shallow_copy,
    check_a_whole_copy,
    close_all,
    connections_in,
    settings_of,
)

PROJECT = "test-project"
QUESTION = "lighthouse keeper number 131"
ANSWER = "Section 1 of document 13 talks about the lighthouse keeper number 131."
CONTEXT = f"Context information is below.\n{ANSWER} It describes the lamp.\nQuery: {QUESTION}"
RETRY = RetryPolicy(initial=0.01, maximum=0.02, deadline=9.0)

NOT_COMPONENTS = {
    "AgentGroundingEvent": "a workflow event",
    "ClaimVerdictEvent": "an instrumentation event",
    "GroundedAgentOutput": "a result record (pickled with a call's results below)",
    # It holds a LlamaIndex agent, which does not pickle (weak references): its deep copy is
    # tested below.
    "GroundedAgentWorkflow": "an agent's wrapper (deep copy only)",
    "GroundingCheckEndEvent": "an instrumentation event",
    "GroundingCheckStartEvent": "an instrumentation event",
    "SearchResponseEvent": "an instrumentation event",
    "GroundingEvaluationResult": "a result record (pickled with a call's results below)",
    "GroundingReport": "a result record",
    "UngroundedAnswerError": "an exception",
    "chunk_to_node": "a function",
    "citation_blocks": "a function",
    "cited_chat_message": "a function",
    "tool_nodes": "a function",
}


def connection(emulator: Any) -> dict[str, Any]:
    """Connection settings that are not the defaults (a copy must keep each one)."""
    return {"emulator_host": emulator.address, "timeout": 7.5, "retry": RETRY}


def retriever(emulator: Any) -> DiscoveryEngineRetriever:
    return DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        similarity_top_k=3,
        filter='group: ANY("odd")',
        credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
        **connection(emulator),
    )


def without_names(metadata: Any) -> Any:
    """Metadata without the resource names of an answer, its session and turns (new each
    call)."""
    if not isinstance(metadata, dict):
        return metadata
    out = {k: without_names(v) for k, v in metadata.items() if k not in ("answer_name", "session")}
    if "grounded_answer" in out:
        record = out["grounded_answer"]
        out["grounded_answer"] = dataclasses.replace(record, name="", session="", turns=())
    return out


def responded(response: Any) -> Any:
    """A response (or chat response) as comparable values."""
    nodes = [
        (n.node.node_id, n.node.get_content(), n.score, n.node.metadata)
        for n in response.source_nodes
    ]
    return str(response.response), nodes, without_names(response.metadata)


def nodes(found: list[Any]) -> Any:
    return [(n.node.node_id, n.node.get_content(), n.score, n.node.metadata) for n in found]


def calling(method: str, *args: Any, result: Callable[[Any], Any] = responded) -> dict[str, Any]:
    """``method`` and its async twin (``a`` + method) on ``args``."""

    async def acall(component: Any) -> Any:
        return result(await getattr(component, "a" + method)(*args))

    return {"call": lambda component: result(getattr(component, method)(*args)), "acall": acall}


def reranking() -> dict[str, Any]:
    """A postprocessor's call and async call on two nodes."""
    nodes = [
        NodeWithScore(node=TextNode(text="Birds sing.", id_="b")),
        NodeWithScore(node=TextNode(text=QUESTION, id_="q")),
    ]

    def ranked(out: Any) -> Any:
        return [(n.node.node_id, n.score) for n in out]

    async def acall(component: Any) -> Any:
        return ranked(await component.apostprocess_nodes(nodes, query_str=QUESTION))

    def call(component: Any) -> Any:
        return ranked(component.postprocess_nodes(nodes, query_str=QUESTION))

    return {"call": call, "acall": acall}


def chatting(message: str) -> dict[str, Any]:
    """A chat engine's first turn (reset first: the engine keeps the conversation)."""

    async def acall(engine: Any) -> Any:
        engine.reset()
        return responded(await engine.achat(message))

    def call(engine: Any) -> Any:
        engine.reset()
        return responded(engine.chat(message))

    return {"call": call, "acall": acall}


def evaluating(evaluator: Any) -> Any:
    return evaluator.evaluate(query=QUESTION, response=ANSWER, contexts=[ANSWER])


async def aevaluating(evaluator: Any) -> Any:
    return await evaluator.aevaluate(query=QUESTION, response=ANSWER, contexts=[ANSWER])


def _searching_llm(messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
    """A tool-calling LLM's script: search, then answer with the first result's sentence."""
    if not any(m.role == MessageRole.TOOL for m in messages):
        call = ToolCallBlock(
            tool_call_id="c1", tool_name="discovery_engine_search", tool_kwargs={"query": QUESTION}
        )
        return ChatMessage(role="assistant", blocks=[call])
    return ChatMessage(role="assistant", content=ANSWER)


def tool_output(output: Any) -> Any:
    """A tool's output as comparable values: what the LLM reads, and the nodes."""
    return output.tool_name, output.content, output.is_error, nodes(output.raw_output)


def tool_calling(**arguments: Any) -> dict[str, Any]:
    """A tool's call and async call, as an agent makes them (by name)."""

    async def acall(tool: Any) -> Any:
        return tool_output(await tool.acall(**arguments))

    return {"call": lambda tool: tool_output(tool.call(**arguments)), "acall": acall}


ROWS: dict[str, Row] = {
    "DiscoveryEngineRetriever": Row(retriever, **calling("retrieve", QUESTION, result=nodes)),
    "DeveloperKnowledgeRetriever": Row(
        lambda e: DeveloperKnowledgeRetriever(similarity_top_k=2, **connection(e)),
        **calling("retrieve", "python generators", result=nodes),
    ),
    "DiscoveryEngineAnswerQueryEngine": Row(
        lambda e: DiscoveryEngineAnswerQueryEngine(
            project_id=PROJECT,
            data_store_id="test-docs",
            include_grounding_supports=True,
            **connection(e),
        ),
        **calling("query", QUESTION),
    ),
    "DeveloperKnowledgeAnswerQueryEngine": Row(
        lambda e: DeveloperKnowledgeAnswerQueryEngine(**connection(e)),
        **calling("query", "What does yield do?"),
    ),
    "DiscoveryEngineReranker": Row(
        lambda e: DiscoveryEngineReranker(project_id=PROJECT, top_n=2, **connection(e)),
        **reranking(),
    ),
    "DiscoveryEngineSearchSummaryQueryEngine": Row(
        lambda e: DiscoveryEngineSearchSummaryQueryEngine(
            project_id=PROJECT, data_store_id="test-docs", result_count=2, **connection(e)
        ),
        **calling("query", QUESTION),
    ),
    "DiscoveryEngineChatEngine": Row(
        lambda e: DiscoveryEngineChatEngine(
            project_id=PROJECT, data_store_id="test-docs", **connection(e)
        ),
        **chatting(QUESTION),
    ),
    "DeveloperKnowledgeChatEngine": Row(
        lambda e: DeveloperKnowledgeChatEngine(**connection(e)), **chatting("What is yield?")
    ),
    "GroundedQueryEngine": Row(
        lambda e: GroundedQueryEngine(
            RetrieverQueryEngine.from_args(retriever(e), llm=ExtractiveLLM(sentences=1)),
            project_id=PROJECT,
            citation_threshold=0.5,
            user_labels={"team": "docs"},
            **connection(e),
        ),
        **calling("query", QUESTION),
    ),
    "GroundingEvaluator": Row(
        lambda e: GroundingEvaluator(project_id=PROJECT, min_support_score=0.5, **connection(e)),
        evaluating,
        aevaluating,
    ),
    "DiscoveryEngineSearchTool": Row(
        lambda e: DiscoveryEngineSearchTool(
            retriever(e), filter_fields={"group": "odd or even"}, allow_k=True, max_k=5
        ),
        **tool_calling(query=QUESTION, k=2, filter='group: ANY("odd")'),
    ),
    "DeveloperKnowledgeSearchTool": Row(
        lambda e: DeveloperKnowledgeSearchTool(
            DeveloperKnowledgeRetriever(similarity_top_k=2, **connection(e)), allow_k=True
        ),
        **tool_calling(query="python generators", k=1),
    ),
    "AnswerQueryTool": Row(
        lambda e: AnswerQueryTool(
            DiscoveryEngineAnswerQueryEngine(
                project_id=PROJECT, data_store_id="test-docs", **connection(e)
            ),
            name="answer_docs",
        ),
        **tool_calling(query=QUESTION),
    ),
    "DiscoveryEngineGroundedLLM": Row(
        lambda e: DiscoveryEngineGroundedLLM(
            project_id=PROJECT, engine_id="test-app", max_result_count=2, **connection(e)
        ),
        **calling(
            "complete", QUESTION, result=lambda out: (out.text, out.additional_kwargs["grounding"])
        ),
    ),
    "ExtractiveLLM": Row(
        lambda e: ExtractiveLLM(sentences=2, invent="Generators were added in 1991."),
        **calling("complete", CONTEXT, result=lambda out: out.text),
        connected=False,
    ),
}


def test_every_exported_component_has_a_row():
    assert set(ROWS) | set(NOT_COMPONENTS) == set(llamaindex_grounding.__all__)
    assert not set(ROWS) & set(NOT_COMPONENTS)


@pytest.mark.parametrize("how", list(WHOLE_COPIES))
@pytest.mark.parametrize("name", list(ROWS))
async def test_a_copy_keeps_the_settings_works_and_has_its_own_connections(emulator, name, how):
    await check_a_whole_copy(ROWS[name], emulator, WHOLE_COPIES[how])


@pytest.mark.parametrize("name", [name for name, row in ROWS.items() if row.connected])
async def test_a_shallow_copy_works_and_shares_the_connection(emulator, name):
    await check_a_shallow_copy(ROWS[name], emulator)


def test_a_chat_engine_copy_continues_the_conversation(emulator):
    engine = ROWS["DeveloperKnowledgeChatEngine"].build(emulator)
    engine.chat("What is yield?")
    copied = WHOLE_COPIES["pickle"](engine)
    assert copied.chat_history == engine.chat_history
    assert len(copied.chat_history) == 2
    assert responded(copied.chat("And in a generator?")) == responded(
        engine.chat("And in a generator?")
    )
    copied.answering.connection.close()
    engine.answering.connection.close()


def test_credentials_that_cannot_be_pickled_are_named(emulator):
    evaluator = GroundingEvaluator(
        project_id=PROJECT, emulator_host=emulator.address, credentials=LockedCredentials()
    )
    with pytest.raises(ConfigurationError, match=r"^credentials \(LockedCredentials\) cannot be"):
        WHOLE_COPIES["pickle"](evaluator)


async def test_a_deep_copy_of_an_agent_workflow_works_and_has_its_own_connections(emulator):
    def build() -> GroundedAgentWorkflow:
        tool = DiscoveryEngineSearchTool(retriever(emulator))
        llm = MockFunctionCallingLLM(response_generator=_searching_llm)
        agent = FunctionAgent(tools=[tool], llm=llm, streaming=False)
        return GroundedAgentWorkflow(
            agent, project_id=PROJECT, on_ungrounded="revise", **connection(emulator)
        )

    async def grounding(workflow: GroundedAgentWorkflow) -> Any:
        output = await workflow.run(user_msg=QUESTION)
        return output.response.content, output.grounding, nodes(output.nodes)

    original = build()
    expected = await grounding(original)
    copied = copy.deepcopy(original)
    try:
        # The workflow's own state holds LlamaIndex's runtime caches: its parts are compared.
        assert repr(copied) == repr(original)  # the agent's class, the check's settings
        assert settings_of(copied.agent.tools) == settings_of(original.agent.tools)
        held = {id(connection) for connection in connections_in(original)}
        copies = {id(connection) for connection in connections_in(copied)}
        assert len(copies) == len(held) == 2  # the check's and the tool's
        assert not copies & held
        assert await grounding(copied) == expected
        assert expected[1]["passed"] is True
    finally:
        await close_all(original, copied)
