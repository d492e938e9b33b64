"""The core's search and answer components (what both adapters wrap) against the emulator."""

from __future__ import annotations

import dataclasses

import pytest

from grounding_core import (
    DEFAULT_DEVELOPER_KNOWLEDGE_K,
    DEFAULT_MAX_RETURN_RESULTS,
    DEFAULT_RETRY,
    DEFAULT_SEARCH_K,
    DEFAULT_TIMEOUT,
    AnswerSpec,
    CallOptions,
    ChunkSearchSpec,
    ConfigurationError,
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeChunkSearch,
    DeveloperKnowledgeConnection,
    DeveloperKnowledgeSearchSpec,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    InputError,
    answer_query,
    search_chunks,
)
from tests.conftest import PROJECT, TEST_DATA_STORE


@pytest.fixture
def connection(emulator):
    return DiscoveryEngineConnection.create(project_id=PROJECT, emulator_host=emulator.address)


@pytest.fixture
def dk_connection(emulator):
    return DeveloperKnowledgeConnection.create(emulator_host=emulator.address)


def test_connection_defaults_are_the_core_defaults(connection, dk_connection):
    assert connection.call_options == CallOptions(timeout=DEFAULT_TIMEOUT, retry=DEFAULT_RETRY)
    assert dk_connection.call_options == CallOptions()
    assert (DEFAULT_TIMEOUT, DEFAULT_RETRY.deadline) == (30.0, 60.0)
    assert (connection.project, connection.location) == (PROJECT, "global")
    assert connection.grounding_config_path("g") == (
        f"projects/{PROJECT}/locations/global/groundingConfigs/g"
    )


def test_chunk_search_create_builds_target_and_spec(connection):
    search = DiscoveryEngineChunkSearch.create(
        connection,
        engine_id="test-app",
        serving_config_id="cfg",
        filter='lang: ANY("en")',
        boost_spec={"condition_boost_specs": []},
        order_by="rank",
        num_previous_chunks=1,
        relevance_threshold="low",
    )
    assert search.connection is connection
    assert search.target == connection.target(engine_id="test-app", serving_config_id="cfg")
    assert search.spec == ChunkSearchSpec(
        filter='lang: ANY("en")',
        boost_spec={"condition_boost_specs": []},
        order_by="rank",
        num_previous_chunks=1,
        relevance_threshold="low",
        search_mode="chunks",
    )


def test_chunk_search_keeps_its_own_copy_of_the_boost_spec(connection):
    boost = {"condition_boost_specs": [{"condition": "rank = 1", "boost": 1.0}]}
    search = DiscoveryEngineChunkSearch.create(connection, data_store_id="d", boost_spec=boost)
    boost["condition_boost_specs"] = []
    assert search.spec.boost_spec == {
        "condition_boost_specs": [{"condition": "rank = 1", "boost": 1.0}]
    }


def test_chunk_search_matches_the_search_function(connection, de_clients, test_target):
    search = DiscoveryEngineChunkSearch.create(connection, data_store_id=TEST_DATA_STORE, k=3)
    chunks = search.search("lighthouse keeper number 131")
    expected = search_chunks(de_clients, test_target, "lighthouse keeper number 131", search.spec)
    assert chunks == expected
    assert len(chunks) == 3
    assert chunks[0].document_id == "page-13"


def test_per_call_k_and_filter_leave_the_spec_alone(connection):
    search = DiscoveryEngineChunkSearch.create(
        connection, data_store_id=TEST_DATA_STORE, k=DEFAULT_SEARCH_K
    )
    odd = search.search("lighthouse", k=7, filter='group: ANY("odd")')
    assert len(odd) == 7
    assert {c.struct_data["group"] for c in odd} == {"odd"}
    assert (search.spec.k, search.spec.filter) == (DEFAULT_SEARCH_K, "")
    assert len(search.search("lighthouse")) == DEFAULT_SEARCH_K
    with pytest.raises(InputError, match="k must be >= 1, got 0"):
        search.search("lighthouse", k=0)


def test_replace_validates_again(connection):
    search = DiscoveryEngineChunkSearch.create(connection, data_store_id=TEST_DATA_STORE)
    wider = search.replace(k=12, search_mode="documents")
    assert (wider.spec.k, wider.spec.search_mode, search.spec.k) == (12, "documents", 10)
    assert wider.target is search.target
    with pytest.raises(InputError, match="need search_mode='chunks'"):
        wider.replace(num_next_chunks=1)


async def test_asearch_matches_search(connection):
    search = DiscoveryEngineChunkSearch.create(connection, data_store_id=TEST_DATA_STORE, k=5)
    asynchronous = await search.asearch("lighthouse keeper number 241", filter="rank = 24")
    sync = search.search("lighthouse keeper number 241", filter="rank = 24")
    assert asynchronous == sync
    assert {c.document_id for c in sync} == {"page-24"}
    await connection.aclose()


@pytest.mark.parametrize(
    ("kwargs", "error", "field", "message"),
    [
        ({}, ConfigurationError, None, "no data store and no engine"),
        ({"data_store_id": "d", "engine_id": "e"}, ConfigurationError, None, "both a data store"),
        ({"data_store_id": "a/b"}, ConfigurationError, None, "data_store 'a/b'"),
        ({"engine_id": "e", "collection": None}, ConfigurationError, None, "only valid for data"),
        ({"data_store_id": "d", "k": 0}, InputError, "k", "k must be >= 1"),
        ({"data_store_id": "d", "num_next_chunks": 4}, InputError, "num_next_chunks", "0 and 3"),
        ({"data_store_id": "d", "search_mode": "pages"}, InputError, "search_mode", "search_mode"),
        (
            {"data_store_id": "d", "relevance_threshold": "huge"},
            InputError,
            "relevance_threshold",
            "relevance_threshold must be one of",
        ),
        ({"data_store_id": "d", "boost_spec": "up"}, InputError, "boost_spec", "must be a dict"),
    ],
)
def test_chunk_search_refuses_bad_settings(connection, kwargs, error, field, message):
    with pytest.raises(error, match=message) as info:
        DiscoveryEngineChunkSearch.create(connection, **kwargs)
    assert isinstance(info.value, ValueError)
    if field is not None:
        assert info.value.field == field


def test_an_unknown_option_is_named(connection, dk_connection):
    with pytest.raises(TypeError, match="unexpected keyword argument 'top_k'"):
        DiscoveryEngineChunkSearch.create(connection, data_store_id="d", top_k=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'mode'"):
        DiscoveryEngineAnswerQuery.create(connection, engine_id="e", mode="chunks")
    with pytest.raises(TypeError, match="unexpected keyword argument 'order_by'"):
        DeveloperKnowledgeChunkSearch.create(dk_connection, order_by="x")


def test_developer_knowledge_chunk_search(dk_connection, dk_clients):
    search = DeveloperKnowledgeChunkSearch.create(dk_connection)
    assert search.spec == DeveloperKnowledgeSearchSpec(k=DEFAULT_DEVELOPER_KNOWLEDGE_K)
    chunks = search.search("yield statement", k=2, filter='data_source = "docs.python.org"')
    assert len(chunks) == 2
    assert {c.data_source for c in chunks} == {"docs.python.org"}
    assert len(search.search("yield statement")) == DEFAULT_DEVELOPER_KNOWLEDGE_K
    assert search.replace(k=1).spec.k == 1
    with pytest.raises(InputError, match="filter has 501 characters"):
        DeveloperKnowledgeChunkSearch.create(dk_connection, filter="f" * 501)


async def test_developer_knowledge_asearch(dk_connection):
    search = DeveloperKnowledgeChunkSearch.create(dk_connection, k=3)
    asynchronous = await search.asearch("context manager with statement")
    assert asynchronous == search.search("context manager with statement")
    assert len(asynchronous) == 3
    await dk_connection.aclose()


def test_answer_query_create_builds_target_and_spec(connection):
    options = {
        "include_citations": False,
        "filter": "rank = 3",
        "boost_spec": {"condition_boost_specs": []},
        "order_by": "rank",
        "search_mode": "documents",
        "preamble": "Be brief.",
        "model_version": "stable",
        "answer_language_code": "en",
        "include_grounding_supports": True,
        "ignore_adversarial_query": True,
        "related_questions": True,
        "session": "s1",
    }
    answering = DiscoveryEngineAnswerQuery.create(connection, engine_id="test-app", **options)
    assert answering.target == connection.target(engine_id="test-app")
    assert answering.spec == AnswerSpec(**options)
    assert answering.spec.max_return_results == DEFAULT_MAX_RETURN_RESULTS == 10
    assert answering.spec.session == "s1"


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"data_store_id": "d", "session": "projects/p/locations/global/engines/e/sessions/1"},
            ConfigurationError,
            "is not a session of",
        ),
        ({"engine_id": "e", "max_return_results": 0}, InputError, "between 1 and 100"),
        ({"engine_id": "e", "search_mode": "pages"}, InputError, "search_mode must be"),
        ({}, ConfigurationError, "no data store and no engine"),
    ],
)
def test_answer_query_refuses_bad_settings(connection, kwargs, error, message):
    with pytest.raises(error, match=message):
        DiscoveryEngineAnswerQuery.create(connection, **kwargs)


async def test_answer_and_aanswer(connection, de_clients):
    answering = DiscoveryEngineAnswerQuery.create(connection, engine_id="python-docs-app")
    sync = answering.answer("What does the yield statement do?")
    asynchronous = await answering.aanswer("What does the yield statement do?")
    direct = answer_query(
        de_clients, answering.target, "What does the yield statement do?", answering.spec
    )
    # The service names every answer anew; everything else is the same answer.
    assert dataclasses.replace(sync, name="") == dataclasses.replace(asynchronous, name="")
    assert dataclasses.replace(sync, name="") == dataclasses.replace(direct, name="")
    assert sync.references[0].uri.endswith("simple_stmts.html#yield")
    await connection.aclose()


async def test_developer_knowledge_answer_query(dk_connection):
    answering = DeveloperKnowledgeAnswerQuery(dk_connection, 'data_source = "docs.python.org"')
    sync = answering.answer("What does the yield statement do?")
    assert sync == await answering.aanswer("What does the yield statement do?")
    assert sync.citations
    assert {r.data_source for r in sync.references} == {"docs.python.org"}
    with pytest.raises(InputError, match="filter must be a string of at most 500") as info:
        DeveloperKnowledgeAnswerQuery(dk_connection, "f" * 501)
    assert info.value.field == "filter"
    await dk_connection.aclose()
