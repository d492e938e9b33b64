"""DiscoveryEngineAnswerQueryEngine and DeveloperKnowledgeAnswerQueryEngine against the emulator."""

import pytest
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import Response
from llama_index.core.schema import NodeRelationship

from grounding_core import (
    ConfigurationError,
    GroundedAnswer,
    InputError,
    NotFoundError,
    answer_markdown,
)
from llamaindex_grounding import (
    DeveloperKnowledgeAnswerQueryEngine,
    DiscoveryEngineAnswerQueryEngine,
    GroundedQueryEngine,
)

from .conftest import PROJECT


def check_citations(response):
    assert isinstance(response, Response)
    answer = response.response
    citations = response.metadata["citations"]
    assert citations
    ids = [n.node.node_id for n in response.source_nodes]
    for citation in citations:
        assert answer[citation["start"] : citation["end"]] == citation["text"]
        encoded = answer.encode()[citation["byte_start"] : citation["byte_end"]]
        assert encoded.decode() == citation["text"]
        assert citation["reference_indices"]
        assert citation["source_ids"] == [ids[i] for i in citation["reference_indices"]]
    record = response.metadata["grounded_answer"]
    assert isinstance(record, GroundedAnswer)
    assert record.answer_text == answer
    assert [r.name for r in record.references] == ids


def test_class():
    assert BaseQueryEngine in DiscoveryEngineAnswerQueryEngine.__mro__
    assert BaseQueryEngine in DeveloperKnowledgeAnswerQueryEngine.__mro__


def test_discovery_engine_answer(emulator):
    engine = DiscoveryEngineAnswerQueryEngine(
        project_id=PROJECT, engine_id="python-docs-app", emulator_host=emulator.address
    )
    response = engine.query("What does the with statement do?")
    assert "with" in response.response
    check_citations(response)
    node = response.source_nodes[0].node
    assert node.metadata["source"].startswith("https://docs.python.org/")
    assert node.relationships[NodeRelationship.SOURCE].node_id == node.metadata["document_name"]
    assert response.metadata["grounding_score"] is None  # only with include_grounding_supports
    assert response.metadata["skipped_reasons"] == []
    assert "**Sources**" in answer_markdown(response.metadata["grounded_answer"])


def test_discovery_engine_answer_non_ascii(emulator):
    engine = DiscoveryEngineAnswerQueryEngine(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )
    response = engine.query("東京都は日本の首都ですか")
    assert "東京" in response.response
    check_citations(response)
    first = response.metadata["citations"][0]
    assert first["byte_end"] > first["end"]  # the spans differ on CJK text


async def test_discovery_engine_aquery_equals_query(emulator):
    engine = DiscoveryEngineAnswerQueryEngine(
        project_id=PROJECT, engine_id="test-app", emulator_host=emulator.address
    )
    asynchronous = await engine.aquery("Which keeper has number 245?")
    assert "245" in asynchronous.response
    check_citations(asynchronous)
    sync = engine.query("Which keeper has number 245?")
    assert sync.response == asynchronous.response
    assert sync.metadata["citations"] == asynchronous.metadata["citations"]


def test_no_answer_found(emulator):
    engine = DiscoveryEngineAnswerQueryEngine(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )
    response = engine.query("zeppelin quasar xylophone")
    assert response.metadata["grounded_answer"].skipped
    assert response.metadata["skipped_reasons"]
    assert response.metadata["citations"] == []


def test_an_answer_can_be_checked_again(emulator):
    engine = GroundedQueryEngine(
        DiscoveryEngineAnswerQueryEngine(
            project_id=PROJECT, engine_id="test-app", emulator_host=emulator.address
        ),
        project_id=PROJECT,
        emulator_host=emulator.address,
    )
    response = engine.query("Which keeper has number 245?")
    assert "citations" in response.metadata  # the answer's own metadata is kept
    grounding = response.metadata["grounding"]
    assert grounding["error"] is None
    for claim in grounding["claims"]:
        assert response.response[claim["start"] : claim["end"]] == claim["text"]


def test_unknown_engine(emulator):
    engine = DiscoveryEngineAnswerQueryEngine(
        project_id=PROJECT, engine_id="nope", emulator_host=emulator.address
    )
    with pytest.raises(
        NotFoundError, match=r"AnswerQuery on projects/test-project/.*/engines/nope"
    ):
        engine.query("anything")


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({}, ConfigurationError, "no data store and no engine"),
        ({"engine_id": "e", "max_return_results": 0}, InputError, "between 1 and 100"),
        ({"engine_id": "e", "search_mode": "pages"}, InputError, "search_mode must be"),
        ({"engine_id": "e", "boost_spec": "up"}, InputError, "boost_spec must be a dict"),
        (
            {"engine_id": "e", "session": "projects/p/locations/global/dataStores/d/sessions/1"},
            ConfigurationError,
            "is not a session of",
        ),
        ({"engine_id": "e", "max_rephrase_steps": 6}, InputError, "between 1 and 5"),
        ({"engine_id": "e", "user_pseudo_id": "v" * 129}, InputError, "at most 128"),
        ({"engine_id": "e", "filtering_level": "mid"}, InputError, "filtering_level must be"),
    ],
)
def test_discovery_engine_bad_configuration(emulator, kwargs, error, message):
    with pytest.raises(error, match=message):
        DiscoveryEngineAnswerQueryEngine(
            project_id=PROJECT, emulator_host=emulator.address, **kwargs
        )


def test_empty_query(emulator):
    engine = DiscoveryEngineAnswerQueryEngine(
        project_id=PROJECT, engine_id="test-app", emulator_host=emulator.address
    )
    with pytest.raises(InputError, match="query is empty"):
        engine.query("")


def test_developer_knowledge_answer(emulator):
    engine = DeveloperKnowledgeAnswerQueryEngine(emulator_host=emulator.address)
    response = engine.query("How does a for loop iterate over a sequence?")
    check_citations(response)
    assert response.source_nodes[0].node.node_id.startswith("documents/docs.python.org/")


async def test_developer_knowledge_aquery(emulator):
    engine = DeveloperKnowledgeAnswerQueryEngine(emulator_host=emulator.address)
    response = await engine.aquery("What is a lambda expression?")
    check_citations(response)


def test_developer_knowledge_bad_input(emulator):
    with pytest.raises(InputError) as built:
        DeveloperKnowledgeAnswerQueryEngine(emulator_host=emulator.address, filter="x" * 501)
    engine = DeveloperKnowledgeAnswerQueryEngine(emulator_host=emulator.address)
    with pytest.raises(InputError) as queried:
        engine.query("why " * 200)
    with pytest.raises(InputError) as set_later:
        engine.filter = "x" * 501
    assert engine.filter == ""
    for info, field in ((built, "filter"), (queried, "query"), (set_later, "filter")):
        assert (info.value.field, info.value.limit) == (field, 500)


def test_developer_knowledge_filter_can_change_between_queries(emulator):
    engine = DeveloperKnowledgeAnswerQueryEngine(emulator_host=emulator.address)
    engine.filter = 'data_source = "nowhere.example"'
    assert engine.answering.filter == 'data_source = "nowhere.example"'
    response = engine.query("What does the yield statement do?")
    assert (response.response, response.source_nodes, response.metadata["citations"]) == (
        "",
        [],
        [],
    )
