"""The drop-ins of langchain-google-community's ``VertexAIMultiTurnSearchRetriever`` and
``VertexAISearchSummaryTool`` (issue #38), on the emulator: ``DiscoveryEngineMultiTurnRetriever``
(a retriever over ConverseConversation, ``conversation_id`` as the peer's, the turn as a custom
event) and ``DiscoveryEngineSummaryTool`` (a ``BaseTool`` with ``name``, ``description`` and
``run``), each built with the peer's arguments."""

from __future__ import annotations

import re

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool
from pydantic import ValidationError

from grounding_core import ConfigurationError
from langchain_grounding import (
    DiscoveryEngineMultiTurnRetriever,
    DiscoveryEngineSummary,
    DiscoveryEngineSummaryTool,
)
from langchain_grounding.discovery_engine_multi_turn_retriever import CONVERSATION_EVENT
from tests.emulator.test_boost_control import LANGCHAIN_BOOST_SPEC

from .conftest import core_error

PROJECT = "test-project"
QUERY = "lighthouse keeper"


class Turns(BaseCallbackHandler):
    def __init__(self) -> None:
        self.turns: list[dict[str, str]] = []

    def on_custom_event(self, name, data, **kwargs):
        if name == CONVERSATION_EVENT:
            self.turns.append(data)


def multi_turn(emulator, **fields):
    return DiscoveryEngineMultiTurnRetriever(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address, **fields
    )


def test_they_are_a_langchain_retriever_and_a_langchain_tool():
    assert issubclass(DiscoveryEngineMultiTurnRetriever, BaseRetriever)
    assert issubclass(DiscoveryEngineSummaryTool, BaseTool)


@pytest.mark.parametrize("boost_spec", [None, LANGCHAIN_BOOST_SPEC], ids=["plain", "peer-boost"])
async def test_each_turn_gives_documents_with_the_peers_keys(emulator, boost_spec):
    retriever = multi_turn(emulator, boost_spec=boost_spec)
    for documents in (retriever.invoke(QUERY), await retriever.ainvoke(QUERY)):
        assert documents
        for document in documents:  # what the peer's integration test reads
            assert isinstance(document, Document)
            assert document.page_content
            assert document.metadata["id"] == document.metadata["document_id"]
            assert document.metadata["source"]
            assert document.id == document.metadata["document_name"]


def test_the_conversation_id_carries_a_conversation_on(emulator):
    turns = Turns()
    first = multi_turn(emulator).invoke(QUERY, config={"callbacks": [turns]})
    (turn,) = turns.turns
    assert first
    assert turn["summary"]
    conversation_id = turn["conversation"].rpartition("/")[2]
    follow_up = multi_turn(emulator, conversation_id=conversation_id)
    documents = follow_up.invoke("and number 131?", config={"callbacks": [turns]})
    assert turns.turns[1]["conversation"] == turn["conversation"]
    assert "lighthouse keeper number 131" in documents[0].page_content


async def test_the_turn_event_comes_with_async_too(emulator):
    turns = Turns()
    await multi_turn(emulator).ainvoke(QUERY, config={"callbacks": [turns]})
    assert len(turns.turns) == 1


def test_the_text_and_layout_options(emulator):
    (document, *_) = multi_turn(emulator, document_text="snippets").invoke(QUERY)
    (snippet,) = document.metadata["derived_struct_data"]["snippets"]
    assert document.page_content == snippet["snippet"].replace("<b>", "").replace("</b>", "")
    # The peer's layout by default: the struct data keys at the top level too.
    assert document.metadata["group"] == document.metadata["struct_data"]["group"]
    (plain, *_) = multi_turn(emulator, metadata_layout="default").invoke(QUERY)
    assert "group" not in plain.metadata


def test_the_peers_names_work_with_a_warning(emulator):
    with pytest.warns(DeprecationWarning, match="VertexAIMultiTurnSearchRetriever's") as record:
        retriever = multi_turn(emulator, location_id="global", engine_data_type=2, beta=False)
    message = str(record[0].message)
    assert "`engine_data_type=2` is ignored here: a turn's results carry a snippet" in message
    assert "`beta=False` is the peer's default, and changes nothing here" in message
    assert retriever.invoke(QUERY)
    with pytest.raises(ValidationError, match="Google's multi-turn search serves unstructured"):
        multi_turn(emulator, engine_data_type=1)


@pytest.mark.parametrize(
    ("fields", "name"),
    [
        ({"conversation_id": "a/b"}, "conversation_id"),
        ({"boost_spec": {"condition_boost_specs": [{"nope": 1}]}}, "boost_spec"),
    ],
)
def test_bad_settings_fail_at_construction(emulator, fields, name):
    with pytest.raises(ValidationError) as info:
        multi_turn(emulator, **fields)
    error = core_error(info.value)
    assert (type(error), error.field) == (ConfigurationError, name)


# -- the summary tool -------------------------------------------------------------------------


def test_the_summary_tool_as_the_peers_test_builds_and_runs_it(emulator, monkeypatch):
    monkeypatch.setenv("DISCOVERYENGINE_EMULATOR_HOST", emulator.address)
    tool = DiscoveryEngineSummaryTool(
        name="vertex-search",
        description="Vertex Search Tool",
        project_id=PROJECT,
        data_store_id="test-docs",
    )
    assert (tool.name, tool.description) == ("vertex-search", "Vertex Search Tool")
    response = tool.run(QUERY)
    assert isinstance(response, str)
    # The summary with a [n] after each cited segment, as Google's summary_text has them.
    out = tool.answerer.invoke(QUERY)
    assert re.sub(r"\[\d\]", "", response) == out["answer"]
    assert response.count("[") == len(out["citations"]) > 0


def test_the_summary_tool_searches_as_the_peers_did(emulator):
    tool = DiscoveryEngineSummaryTool(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )
    search = tool.answerer.search
    assert (tool.answerer.result_count, search.search_mode) == (3, "documents")
    assert (search.max_extractive_segment_count, search.num_next_segments) == (1, 1)
    assert (search.spell_correction, search.query_expansion) == ("auto", "disabled")
    ours = DiscoveryEngineSummaryTool(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        result_count=2,
        filter='group: ANY("odd")',
    )
    assert (ours.answerer.result_count, ours.answerer.search.filter) == (2, 'group: ANY("odd")')


async def test_a_tool_call_gives_the_summary_and_its_documents(emulator):
    tool = DiscoveryEngineSummaryTool(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )
    assert tool.name == "discovery_engine_summary"
    call = {"type": "tool_call", "id": "1", "name": tool.name, "args": {"query": QUERY}}
    message = await tool.ainvoke(call)
    assert re.sub(r"\[\d\]", "", message.content) == tool.answerer.invoke(QUERY)["answer"]
    assert message.artifact
    assert all(isinstance(d, Document) for d in message.artifact)


def test_the_summary_tool_takes_the_peers_summary_names(emulator):
    with pytest.warns(DeprecationWarning, match="VertexAISearchSummaryTool's"):
        tool = DiscoveryEngineSummaryTool(
            name="summary",
            description="d",
            project_id=PROJECT,
            data_store_id="test-docs",
            emulator_host=emulator.address,
            summary_result_count=2,
            summary_include_citations=False,
        )
    spec = tool.answerer.answering.spec
    assert (spec.result_count, spec.include_citations) == (2, False)


def test_a_summary_of_yours_or_its_arguments_not_both(emulator):
    summary = DiscoveryEngineSummary(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )
    assert DiscoveryEngineSummaryTool(answerer=summary).answerer is summary
    with pytest.raises(ValidationError, match="unknown argument 'data_store_id'"):
        DiscoveryEngineSummaryTool(answerer=summary, data_store_id="test-docs")
    with pytest.raises(ValidationError, match=r"unknown argument 'reslt_count' \(did you mean"):
        DiscoveryEngineSummaryTool(project_id=PROJECT, data_store_id="d", reslt_count=2)
