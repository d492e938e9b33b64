"""The LangChain search tool against the emulator, through Google's clients: the model reads
numbered sources, the Documents are the tool message's artifact, the agent's arguments are
checked, and a ``create_agent`` agent's answer is checked against what the tool returned."""

import asyncio
import json
import re

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk
from pydantic import ValidationError

from grounding_core import ConfigurationError
from langchain_grounding import (
    DiscoveryEngineRetriever,
    DiscoveryEngineSearchTool,
    GroundingChecker,
)

from .conftest import core_error

PROJECT = "test-project"
QUERY = "lighthouse keeper number 131"
KEEPER = "Section 1 of document 13 talks about the lighthouse keeper number 131."
MADE_UP = "The lighthouse was painted bright purple in 1850."


@pytest.fixture
def retriever(emulator):
    return DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="test-docs", k=2, emulator_host=emulator.address
    )


def call(tool, args, call_id="call-1"):
    return {"type": "tool_call", "id": call_id, "name": tool.name, "args": args}


def test_the_model_reads_numbered_sources_and_the_documents_are_the_artifact(retriever):
    tool = DiscoveryEngineSearchTool(retriever=retriever)
    message = tool.invoke(call(tool, {"query": QUERY}))
    documents = retriever.invoke(QUERY)
    assert isinstance(message, ToolMessage)
    assert (message.status, message.tool_call_id, message.name) == (
        "success",
        "call-1",
        "discovery_engine_search",
    )
    assert [d.id for d in message.artifact] == [d.id for d in documents]
    assert [d.metadata for d in message.artifact] == [d.metadata for d in documents]
    assert message.content.startswith("[1] Paging document 13 (https://example.com/paging/13)\n")
    assert KEEPER in message.content
    assert "\n\n[2] " in message.content
    assert set(tool.tool_call_schema.model_json_schema()["properties"]) == {"query"}
    assert "data store test-docs" in tool.description


def test_filter_and_k_only_when_allowed_and_checked(retriever):
    tool = DiscoveryEngineSearchTool(
        retriever=retriever, filter_fields={"lang": "the language"}, allow_k=True, max_k=3
    )
    properties = tool.tool_call_schema.model_json_schema()["properties"]
    assert set(properties) == {"query", "filter", "k"}
    assert (properties["k"]["minimum"], properties["k"]["maximum"], properties["k"]["default"]) == (
        1,
        3,
        2,
    )
    assert "Filterable fields: lang (the language)." in tool.description
    assert len(tool.invoke(call(tool, {"query": QUERY, "k": 1})).artifact) == 1
    assert len(tool.invoke(call(tool, {"query": QUERY, "k": 3})).artifact) == 3
    too_many = tool.invoke(call(tool, {"query": QUERY, "k": 4}))
    assert too_many.status == "error"
    assert too_many.content == (
        "Invalid arguments for discovery_engine_search: k: Input should be less than or equal "
        "to 3. Call it again with valid arguments."
    )
    bad = tool.invoke(call(tool, {"query": QUERY, "filter": "bogus (("}))
    assert bad.status == "error"
    assert "filter is malformed" in bad.content
    assert retriever.k == 2  # the shared retriever never changes


def test_the_model_filter_narrows_the_retrievers_own(emulator):
    own = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="python-docs",
        k=5,
        filter='category: ANY("statements")',
        emulator_host=emulator.address,
    )
    tool = DiscoveryEngineSearchTool(retriever=own, filter_fields={"category": "kind"})
    both = tool.invoke(
        call(tool, {"query": "with statement", "filter": 'category: ANY("nothing")'})
    )
    assert both.status == "success"
    assert both.artifact == []
    assert both.content == "No sources were found for this query."


def test_ainvoke_runs_on_the_async_client_and_calls_do_not_mix(retriever):
    tool = DiscoveryEngineSearchTool(retriever=retriever, allow_k=True)

    async def run():
        return await asyncio.gather(
            tool.ainvoke(call(tool, {"query": QUERY, "k": 1}, "a")),
            tool.ainvoke(call(tool, {"query": "lighthouse keeper number 2", "k": 2}, "b")),
        )

    first, second = asyncio.run(run())
    assert (first.tool_call_id, len(first.artifact)) == ("a", 1)
    assert (second.tool_call_id, len(second.artifact)) == ("b", 2)
    assert first.artifact[0].metadata["title"] == "Paging document 13"


def test_the_search_is_a_child_retriever_run(retriever):
    class Runs(BaseCallbackHandler):
        def __init__(self):
            self.events = []

        def on_tool_start(self, serialized, input_str, *, run_id, **kwargs):
            self.events.append(("tool", run_id))

        def on_retriever_start(self, serialized, query, *, run_id, parent_run_id=None, **kwargs):
            self.events.append(("retriever", parent_run_id))

    runs = Runs()
    tool = DiscoveryEngineSearchTool(retriever=retriever)
    tool.invoke(call(tool, {"query": QUERY}), config={"callbacks": [runs]})
    (kind, tool_run), (child, parent) = runs.events
    assert (kind, child, parent) == ("tool", "retriever", tool_run)


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"allow_k": True, "max_k": 101}, "max_k must be an int from 1 to 100"),
        ({"allow_k": True, "max_k": 1}, "max_k (1) is below the retriever's default k (2)"),
        ({"filter_fields": {}}, "filter_fields is empty"),
    ],
)
def test_configuration_errors_name_the_argument(retriever, fields, words):
    # pydantic wraps the ConfigurationError of the tool's validator.
    with pytest.raises(ValidationError) as info:
        DiscoveryEngineSearchTool(retriever=retriever, **fields)
    error = core_error(info.value)
    assert isinstance(error, ConfigurationError)
    assert words in str(error)


def test_an_unknown_argument_is_named(retriever):
    with pytest.raises(ValidationError, match="'max_K'"):
        DiscoveryEngineSearchTool(retriever=retriever, max_K=3)


class ToolCallingFake(GenericFakeChatModel):
    """``GenericFakeChatModel`` with the ``bind_tools`` an agent calls (the script says which
    tool calls it makes), streaming its tool calls too (its parent streams only the text)."""

    def bind_tools(self, tools, **kwargs):
        return self

    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        result = self._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        message = result.generations[0].message
        if message.tool_calls:
            calls = [
                tool_call_chunk(name=c["name"], args=json.dumps(c["args"]), id=c["id"], index=i)
                for i, c in enumerate(message.tool_calls)
            ]
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=calls))
            return
        for token in re.findall(r"\S+\s*|\s+", message.content) or [""]:
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=token))
            if run_manager:
                run_manager.on_llm_new_token(token, chunk=chunk)
            yield chunk


def scripted(final_answer):
    return ToolCallingFake(
        messages=iter(
            [
                AIMessage(
                    "",
                    tool_calls=[
                        {"name": "discovery_engine_search", "args": {"query": QUERY}, "id": "c1"}
                    ],
                ),
                AIMessage(final_answer),
            ]
        )
    )


def test_a_create_agent_agent_searches_and_its_answer_is_checked(emulator, retriever):
    tool = DiscoveryEngineSearchTool(retriever=retriever)
    agent = create_agent(scripted(f"{KEEPER} {MADE_UP}"), tools=[tool])
    state = agent.invoke({"messages": [("user", "Who is keeper 131?")]})
    tool_message, final = state["messages"][-2:]
    assert isinstance(tool_message, ToolMessage)
    assert tool_message.content.startswith("[1] Paging document 13")
    documents = tool_message.artifact
    checker = GroundingChecker(project_id=PROJECT, emulator_host=emulator.address)
    report = checker.invoke({"answer": final, "documents": documents})["grounding"]
    assert [c.status for c in report.claims] == ["supported", "unsupported"]
    assert report.claims[1].text == MADE_UP
    (span,) = report.metadata()["citation_annotations"]
    assert (span["start_index"], span["end_index"], span["url"]) == (
        0,
        len(KEEPER),
        "https://example.com/paging/13",
    )


def test_the_repr_shows_the_tool_once(retriever):
    text = repr(DiscoveryEngineSearchTool(retriever=retriever, name="docs_search"))
    assert text.startswith("DiscoveryEngineSearchTool(")
    assert text.count("DiscoveryEngineSearchTool(") == 1
    assert "handle_validation_error=functools.partial(" in text
