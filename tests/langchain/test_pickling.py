"""Every public LangChain component survives ``pickle`` (default protocol and 5) and
``copy.deepcopy`` (what multiprocessing, Ray, Celery, joblib and LangChain's own deep copies do):
same settings, the same results on the emulator (sync and async), its own clients built at its
first call; ``copy.copy`` (``model_copy``) works and shares the connection. A component holding
user objects (a chat model, a chain) pickles when they do."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from google.auth.credentials import AnonymousCredentials
from langchain.agents import create_agent
from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.runnables import Runnable, RunnablePassthrough

import langchain_grounding
from grounding_core import ConfigurationError, RetryPolicy
from langchain_grounding import (
    AnswerQueryTool,
    AsyncGroundingCallbackHandler,
    ChatDiscoveryEngineGrounded,
    DeveloperKnowledgeAnswer,
    DeveloperKnowledgeRetriever,
    DeveloperKnowledgeSearchTool,
    DiscoveryEngineAnswer,
    DiscoveryEngineMultiTurnRetriever,
    DiscoveryEngineReranker,
    DiscoveryEngineRetriever,
    DiscoveryEngineSearchTool,
    DiscoveryEngineSummary,
    DiscoveryEngineSummaryTool,
    ExtractiveChatModel,
    GroundedChain,
    GroundingCallbackHandler,
    GroundingChecker,
    GroundingMiddleware,
    QuestionCondenser,
    with_grounding,
)
from tests.core.copies import (
    WHOLE_COPIES,
    LockedCredentials,
    Row,
    check_a_shallow_copy,
    check_a_whole_copy,
)

from .conftest import PROMPT
from .test_search_tool import ToolCallingFake

PROJECT = "test-project"
QUESTION = "lighthouse keeper number 131"
DOCUMENTS = [
    Document(
        "Section 1 of document 13 talks about the lighthouse keeper number 131.",
        metadata={"rank": 13, "title": "Paging document 13"},
    )
]
ANSWER = "Section 1 of document 13 talks about the lighthouse keeper number 131."
HISTORY = [("human", "What is a generator?"), ("ai", "A function that yields.")]
RETRY = RetryPolicy(initial=0.01, maximum=0.02, deadline=9.0)

# Exported names that are not components: what a copy of a component is made of or returns.
NOT_COMPONENTS = {
    "GroundingReport": "a result record (pickled with a call's results below)",
    "UngroundedAnswerError": "an exception",
    "chunk_to_document": "a function",
}


def connection(emulator: Any) -> dict[str, Any]:
    """Connection settings that are not the defaults (a copy must keep each one)."""
    return {"emulator_host": emulator.address, "timeout": 7.5, "retry": RETRY}


def pages(documents: list[Document]) -> str:
    """The prompt's context (a named function: a lambda does not pickle)."""
    return "\n\n".join(d.page_content for d in documents)


def rag(emulator_host: str) -> Runnable[Any, str]:
    """The documented RAG chain, on the offline chat model."""
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="test-docs", k=2, emulator_host=emulator_host
    )
    context = {"context": retriever | pages, "question": RunnablePassthrough()}
    return context | PROMPT | ExtractiveChatModel(sentences=1) | StrOutputParser()


def checker(emulator: Any) -> GroundingChecker:
    return GroundingChecker(
        project_id=PROJECT,
        citation_threshold=0.5,
        user_labels={"team": "docs"},
        **connection(emulator),
    )


def answered(out: dict[str, Any]) -> dict[str, Any]:
    """An answer's output without its resource name (a new one each call)."""
    record = dataclasses.replace(out["grounded_answer"], name="")
    return {**out, "answer_name": "", "grounded_answer": record}


def note(run_id: uuid.UUID, report: Any) -> None:
    """A user's ``on_report`` callback (a named function: a lambda does not pickle)."""


def handled(handler: Any) -> Any:
    """A RAG chain's run with ``handler`` (on the handler's emulator): its report."""
    rag(handler.checker.emulator_host).invoke(QUESTION, config={"callbacks": [handler]})
    return handler.latest


async def ahandled(handler: Any) -> Any:
    await rag(handler.checker.emulator_host).ainvoke(QUESTION, config={"callbacks": [handler]})
    return handler.latest


def message_text(message: Any) -> str:
    """A chat model's answer without its run id."""
    return str(message.text)


def search_tool(emulator_host: str) -> DiscoveryEngineSearchTool:
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="test-docs", k=2, emulator_host=emulator_host
    )
    return DiscoveryEngineSearchTool(
        retriever=retriever, filter_fields={"group": "odd or even"}, allow_k=True, max_k=5
    )


TOOL_CALL = {
    "type": "tool_call",
    "id": "call-1",
    "name": "discovery_engine_search",
    "args": {"query": QUESTION, "k": 3, "filter": 'group: ANY("odd")'},
}


def tool_result(message: Any) -> tuple[Any, ...]:
    """What a tool call gives the model and the application."""
    return (message.content, message.artifact, message.status, message.tool_call_id)


def agent_of(middleware: GroundingMiddleware) -> Any:
    """An agent that searches once and answers, with ``middleware`` (a fresh script each run:
    the scripted model is used up by one)."""
    call = {"name": "discovery_engine_search", "args": {"query": QUESTION}, "id": "c1"}
    model = ToolCallingFake(messages=iter([AIMessage("", tool_calls=[call]), AIMessage(ANSWER)]))
    tool = search_tool(middleware.checker.emulator_host or "")
    return create_agent(model, tools=[tool], middleware=[middleware])


def agent_result(state: dict[str, Any]) -> tuple[Any, ...]:
    """An agent run's final answer and grounding (message ids are new each run)."""
    final = state["messages"][-1]
    annotations = [
        {k: v for k, v in a.items() if k != "id"} for a in final.content_blocks[0]["annotations"]
    ]
    return final.text, annotations, state["grounding"], state["grounding_revisions"]


async def aagent_run(middleware: GroundingMiddleware) -> tuple[Any, ...]:
    return agent_result(await agent_of(middleware).ainvoke({"messages": [("user", QUESTION)]}))


def reranking() -> dict[str, Any]:
    """A compressor's call and async call on two documents."""
    documents = [Document("Birds sing."), Document(ANSWER, metadata={"title": "Keeper"})]

    def ids(ranked: Any) -> Any:
        return [(d.page_content, d.metadata["rank_score"]) for d in ranked]

    async def acall(component: Any) -> Any:
        return ids(await component.acompress_documents(documents, QUESTION))

    return {"call": lambda c: ids(c.compress_documents(documents, QUESTION)), "acall": acall}


def invoking(value: Any, result: Callable[[Any], Any] = lambda out: out) -> dict[str, Any]:
    """The call and async call of a Runnable on ``value``."""

    async def acall(component: Any) -> Any:
        return result(await component.ainvoke(value))

    return {"call": lambda component: result(component.invoke(value)), "acall": acall}


ROWS: dict[str, Row] = {
    "DiscoveryEngineRetriever": Row(
        lambda e: DiscoveryEngineRetriever(
            project_id=PROJECT,
            data_store_id="test-docs",
            k=3,
            filter='group: ANY("odd")',
            credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
            **connection(e),
        ),
        **invoking(QUESTION),
    ),
    "DiscoveryEngineMultiTurnRetriever": Row(
        lambda e: DiscoveryEngineMultiTurnRetriever(
            project_id=PROJECT,
            data_store_id="test-docs",
            filter='group: ANY("odd")',
            document_text="snippets",
            **connection(e),
        ),
        **invoking(QUESTION),
    ),
    "DeveloperKnowledgeRetriever": Row(
        lambda e: DeveloperKnowledgeRetriever(k=2, **connection(e)), **invoking("generators")
    ),
    "DiscoveryEngineAnswer": Row(
        lambda e: DiscoveryEngineAnswer(
            project_id=PROJECT,
            data_store_id="test-docs",
            include_grounding_supports=True,
            **connection(e),
        ),
        **invoking(QUESTION, answered),
    ),
    "DeveloperKnowledgeAnswer": Row(
        lambda e: DeveloperKnowledgeAnswer(condenser=QuestionCondenser(), **connection(e)),
        **invoking({"query": "And how do I close it?", "chat_history": HISTORY}, answered),
    ),
    "DiscoveryEngineReranker": Row(
        lambda e: DiscoveryEngineReranker(project_id=PROJECT, top_n=2, **connection(e)),
        **reranking(),
    ),
    "DiscoveryEngineSummary": Row(
        lambda e: DiscoveryEngineSummary(
            project_id=PROJECT, data_store_id="test-docs", result_count=2, **connection(e)
        ),
        **invoking(QUESTION, answered),
    ),
    "GroundingChecker": Row(
        checker, **invoking({"answer": ANSWER, "documents": DOCUMENTS}, lambda out: out)
    ),
    "GroundingCallbackHandler": Row(
        lambda e: GroundingCallbackHandler(checker(e), on_report=note, max_reports=5),
        handled,
        ahandled,
    ),
    "AsyncGroundingCallbackHandler": Row(
        lambda e: AsyncGroundingCallbackHandler(checker(e), max_reports=5), handled, ahandled
    ),
    "GroundedChain": Row(
        lambda e: GroundedChain(chain=rag(e.address), checker=checker(e)), **invoking(QUESTION)
    ),
    "with_grounding": Row(
        lambda e: with_grounding(
            rag(e.address), project_id=PROJECT, min_support_score=0.5, **connection(e)
        ),
        **invoking(QUESTION),
    ),
    "DiscoveryEngineSearchTool": Row(
        lambda e: search_tool(e.address), **invoking(TOOL_CALL, tool_result)
    ),
    "DeveloperKnowledgeSearchTool": Row(
        lambda e: DeveloperKnowledgeSearchTool(
            retriever=DeveloperKnowledgeRetriever(k=2, **connection(e)), allow_k=True
        ),
        **invoking(
            {**TOOL_CALL, "name": "developer_knowledge_search", "args": {"query": "generators"}},
            tool_result,
        ),
    ),
    "AnswerQueryTool": Row(
        lambda e: AnswerQueryTool(
            answerer=DiscoveryEngineAnswer(
                project_id=PROJECT, data_store_id="test-docs", **connection(e)
            ),
            name="answer_docs",
        ),
        **invoking({**TOOL_CALL, "name": "answer_docs", "args": {"query": QUESTION}}, tool_result),
    ),
    "DiscoveryEngineSummaryTool": Row(
        lambda e: DiscoveryEngineSummaryTool(
            name="docs_summary",
            project_id=PROJECT,
            data_store_id="test-docs",
            result_count=2,
            **connection(e),
        ),
        **invoking({**TOOL_CALL, "name": "docs_summary", "args": {"query": QUESTION}}, tool_result),
    ),
    "GroundingMiddleware": Row(
        lambda e: GroundingMiddleware(checker(e), on_ungrounded="revise", max_revisions=1),
        lambda m: agent_result(agent_of(m).invoke({"messages": [("user", QUESTION)]})),
        aagent_run,
    ),
    "ChatDiscoveryEngineGrounded": Row(
        lambda e: ChatDiscoveryEngineGrounded(
            project_id=PROJECT, documents=DOCUMENTS, model_id="gemini-2.5-flash", **connection(e)
        ),
        **invoking(QUESTION, lambda m: (m.text, m.response_metadata["grounding"])),
    ),
    "ExtractiveChatModel": Row(
        lambda e: ExtractiveChatModel(sentences=2, invent="Generators were added in 1991."),
        **invoking(f"Context: {ANSWER} It has stairs.\n\nQuestion: {QUESTION}", message_text),
        connected=False,
    ),
    "QuestionCondenser": Row(
        lambda e: QuestionCondenser(llm=ExtractiveChatModel(), max_questions=2),
        **invoking({"query": "How do I close a file?", "chat_history": HISTORY}),
        connected=False,
    ),
}


def test_every_exported_component_has_a_row():
    assert set(ROWS) | set(NOT_COMPONENTS) == set(langchain_grounding.__all__)
    assert not set(ROWS) & set(NOT_COMPONENTS)


@pytest.mark.parametrize("how", list(WHOLE_COPIES))
@pytest.mark.parametrize("name", list(ROWS))
async def test_a_copy_keeps_the_settings_works_and_builds_its_own_clients(emulator, name, how):
    await check_a_whole_copy(ROWS[name], emulator, WHOLE_COPIES[how])


@pytest.mark.parametrize("name", [name for name, row in ROWS.items() if row.connected])
async def test_a_shallow_copy_works_and_shares_the_connection(emulator, name):
    await check_a_shallow_copy(ROWS[name], emulator)


def test_a_model_copy_with_a_new_setting_builds_its_own_connection(emulator):
    retriever = ROWS["DiscoveryEngineRetriever"].build(emulator)
    copied = retriever.model_copy()
    copied.timeout = 3.0  # assigning a connection field rebuilds the copy's connection
    assert copied.connection is not retriever.connection
    assert copied.connection.call_options.timeout == 3.0
    assert retriever.connection.call_options.timeout == 7.5
    assert copied.invoke(QUESTION) == retriever.invoke(QUESTION)
    copied.connection.close()
    retriever.connection.close()


@pytest.mark.parametrize("how", ["pickle", "pickle-5"])
def test_credentials_that_cannot_be_pickled_are_named(emulator, how):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        credentials=LockedCredentials(),
    )
    with pytest.raises(ConfigurationError, match=r"^credentials \(LockedCredentials\) cannot be"):
        WHOLE_COPIES[how](retriever)
    handler = GroundingCallbackHandler(
        project_id=PROJECT, emulator_host=emulator.address, credentials=LockedCredentials()
    )
    with pytest.raises(ConfigurationError, match="give credentials that pickle"):
        WHOLE_COPIES[how](handler)


def test_a_pickled_handler_starts_with_no_run_in_flight(emulator):
    handler = ROWS["GroundingCallbackHandler"].build(emulator)
    handled(handler)
    root, child = uuid.uuid4(), uuid.uuid4()  # a run in flight: its retriever has returned
    handler.on_chain_start(None, {}, run_id=root)
    handler.on_retriever_start(None, QUESTION, run_id=child, parent_run_id=root)
    handler.on_retriever_end(DOCUMENTS, run_id=child, parent_run_id=root)
    copied = WHOLE_COPIES["pickle"](handler)
    assert list(copied.reports.values()) == list(handler.reports.values())
    assert copied.latest == handler.latest
    for each in (handler, copied):
        each.on_chain_end(ANSWER, run_id=root)
    assert handler.reports[root].sources == tuple(DOCUMENTS)
    assert copied.reports[root].sources == ()  # the copy collected nothing for that run
