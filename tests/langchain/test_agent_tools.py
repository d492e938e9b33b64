"""The LangChain Developer Knowledge search tool and answerQuery tool (issue #18) on the
emulator: what the model reads, the artifact, the schema, the model's errors, async, and an
agent whose answer comes from the answer tool, checked by the middleware."""

from __future__ import annotations

import asyncio

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from pydantic import ValidationError

from grounding_core import ConfigurationError
from grounding_core.agents import answer_tool_text
from langchain_grounding import (
    AnswerQueryTool,
    DeveloperKnowledgeRetriever,
    DeveloperKnowledgeSearchTool,
    DiscoveryEngineAnswer,
    DiscoveryEngineRetriever,
    GroundingMiddleware,
)

from .conftest import core_error
from .test_search_tool import QUERY, ToolCallingFake, call

PROJECT = "test-project"


@pytest.fixture
def answerer(emulator):
    return DiscoveryEngineAnswer(
        project_id=PROJECT, engine_id="test-app", emulator_host=emulator.address
    )


@pytest.fixture
def dk(emulator):
    return DeveloperKnowledgeRetriever(k=2, emulator_host=emulator.address)


def properties(tool):
    return set(tool.tool_call_schema.model_json_schema()["properties"])


def test_developer_knowledge_search_reads_numbered_sources(dk):
    tool = DeveloperKnowledgeSearchTool(retriever=dk)
    message = tool.invoke(call(tool, {"query": "with statement"}))
    documents = dk.invoke("with statement")
    assert message.artifact == documents
    assert message.content.startswith(f"[1] {documents[0].metadata['title']} (")
    assert message.content.count("\n\n[") == len(documents) - 1
    assert (tool.name, properties(tool)) == ("developer_knowledge_search", {"query"})
    assert tool.description.startswith("Search Google's developer documentation")


def test_developer_knowledge_filter_and_k_only_when_allowed(dk):
    tool = DeveloperKnowledgeSearchTool(retriever=dk, allow_filter=True, allow_k=True, max_k=3)
    assert properties(tool) == {"query", "filter", "k"}
    schema = tool.tool_call_schema.model_json_schema()["properties"]
    assert schema["filter"]["description"].startswith("An AIP-160 filter expression")
    assert schema["k"]["maximum"] == 3
    message = tool.invoke(call(tool, {"query": "with statement", "k": 1}))
    assert len(message.artifact) == 1
    message = tool.invoke(call(tool, {"query": "with statement", "k": 4}))
    assert message.status == "error"
    assert "k" in message.content


def test_the_answer_tool_gives_the_cited_answer_and_its_references(answerer):
    tool = AnswerQueryTool(answerer=answerer)
    message = tool.invoke(call(tool, {"query": QUERY}))
    out = answerer.invoke(QUERY)
    assert message.content == answer_tool_text(out["grounded_answer"])
    assert "[1]" in message.content
    assert "\n\nSources:\n[1] " in message.content
    assert message.artifact == out["documents"]
    assert (tool.name, properties(tool)) == ("answer_query", {"query"})
    assert message.status == "success"


def test_the_answer_tool_tells_the_model_of_a_query_the_api_refuses(answerer):
    tool = AnswerQueryTool(answerer=answerer)
    message = tool.invoke(call(tool, {"query": "   "}))
    assert message.status == "error"
    assert message.content.startswith("answer_query failed: ")
    assert "query" in message.content


async def test_the_tools_run_on_the_async_client_without_mixing(answerer, dk):
    answer_tool = AnswerQueryTool(answerer=answerer)
    dk_tool = DeveloperKnowledgeSearchTool(retriever=dk)
    messages = await asyncio.gather(
        answer_tool.ainvoke(call(answer_tool, {"query": QUERY}, "a")),
        dk_tool.ainvoke(call(dk_tool, {"query": "with statement"}, "b")),
    )
    assert [m.tool_call_id for m in messages] == ["a", "b"]
    assert messages[0].artifact == (await answerer.ainvoke(QUERY))["documents"]
    assert messages[1].artifact == await dk.ainvoke("with statement")


def test_configuration_errors_name_the_argument(answerer, dk, emulator):
    # pydantic wraps a validator's ConfigurationError in its ValidationError.
    with pytest.raises(ValidationError) as info:
        DeveloperKnowledgeSearchTool(retriever=dk, allow_k=True, max_k=1)
    error = core_error(info.value)
    assert isinstance(error, ConfigurationError)
    assert "max_k (1) is below the retriever's default k" in str(error)
    with pytest.raises(ValidationError, match="answerer"):
        AnswerQueryTool(answerer=dk)
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )
    with pytest.raises(ValidationError, match="retriever"):
        DeveloperKnowledgeSearchTool(retriever=retriever)


def test_an_agent_answering_from_the_answer_tool_is_checked_against_its_references(
    answerer, emulator
):
    tool = AnswerQueryTool(answerer=answerer)
    answer = answerer.invoke(QUERY)["answer"]
    model = ToolCallingFake(
        messages=iter(
            [
                AIMessage(
                    "", tool_calls=[{"name": tool.name, "args": {"query": QUERY}, "id": "1"}]
                ),
                AIMessage(answer),
            ]
        )
    )
    middleware = GroundingMiddleware(project_id=PROJECT, emulator_host=emulator.address)
    state = create_agent(model, tools=[tool], middleware=[middleware]).invoke(
        {"messages": [("user", QUERY)]}
    )
    grounding = state["grounding"]
    assert grounding["passed"] is True
    assert grounding["source_ids"] == [d.id for d in state["messages"][-2].artifact]
    annotations = state["messages"][-1].content_blocks[0]["annotations"]
    assert annotations
    for annotation in annotations:
        assert answer[annotation["start_index"] : annotation["end_index"]]
