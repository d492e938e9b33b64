"""Search components: the per-call spec, every setting of ``create``, ``replace`` and the calls
(what ``make mutation`` found unasserted in ``grounding_core.retrieval``). The calls go to the
session emulator."""

import pytest

from grounding_core import (
    CallOptions,
    ChunkSearchSpec,
    ConfigurationError,
    DeveloperKnowledgeChunkSearch,
    DeveloperKnowledgeConnection,
    DeveloperKnowledgeSearchSpec,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    DiscoveryEngineTarget,
    InputError,
    ServiceUnavailableError,
)
from grounding_core.retrieval import spec_for_call

from .emulated import result_of

PAGING = "lighthouse"
KNOWLEDGE = "sort a list"


def offline():
    return DiscoveryEngineConnection.create(project_id="p", location="eu", emulator_host="h:1")


def test_spec_for_call():
    spec = ChunkSearchSpec(k=3, filter="f", order_by="o")
    assert spec_for_call(spec, None, None) is spec
    assert spec_for_call(spec, 5, None) == ChunkSearchSpec(k=5, filter="f", order_by="o")
    assert spec_for_call(spec, None, "g") == ChunkSearchSpec(k=3, filter="g", order_by="o")
    assert spec_for_call(spec, 1, "") == ChunkSearchSpec(k=1, filter="", order_by="o")
    with pytest.raises(InputError, match="k must be >= 1"):
        spec_for_call(spec, 0, None)
    knowledge = DeveloperKnowledgeSearchSpec(k=2, filter="f")
    assert spec_for_call(knowledge, None, "g") == DeveloperKnowledgeSearchSpec(k=2, filter="g")


def test_create_passes_every_setting():
    connection = offline()
    search = DiscoveryEngineChunkSearch.create(
        connection, engine_id="e", collection="c", serving_config_id="s", k=3, filter="f"
    )
    assert search.connection is connection
    assert search.target == DiscoveryEngineTarget(
        project="p", location="eu", engine="e", collection="c", serving_config="s"
    )
    assert search.spec == ChunkSearchSpec(k=3, filter="f")
    default = DiscoveryEngineChunkSearch.create(connection, data_store_id="d")
    assert default.target == DiscoveryEngineTarget(project="p", location="eu", data_store="d")
    assert default.spec == ChunkSearchSpec()
    with pytest.raises(ConfigurationError, match="no data store and no engine"):
        DiscoveryEngineChunkSearch.create(connection)
    replaced = search.replace(k=9, order_by="o")
    assert replaced.spec == ChunkSearchSpec(k=9, filter="f", order_by="o")
    assert (replaced.connection, replaced.target) == (connection, search.target)
    knowledge_connection = DeveloperKnowledgeConnection.create(emulator_host="h:1")
    knowledge = DeveloperKnowledgeChunkSearch.create(knowledge_connection, k=2, filter="f")
    assert knowledge.connection is knowledge_connection
    assert knowledge.spec == DeveloperKnowledgeSearchSpec(k=2, filter="f")
    assert knowledge.replace(k=4).spec == DeveloperKnowledgeSearchSpec(k=4, filter="f")
    assert knowledge.replace(k=4).connection is knowledge_connection
    assert DeveloperKnowledgeChunkSearch.create(knowledge_connection).spec.k == 5


@pytest.fixture
def searches(connections):
    de_connection, dk_connection = connections
    return (
        DiscoveryEngineChunkSearch.create(de_connection, data_store_id="test-docs", k=3),
        DeveloperKnowledgeChunkSearch.create(dk_connection, k=3),
    )


async def test_the_calls_use_the_spec_the_per_call_values_and_the_options(emulator, searches):
    chunk_search, knowledge = searches
    assert len(chunk_search.search(PAGING)) == 3
    assert len(await chunk_search.asearch(PAGING)) == 3
    assert len(chunk_search.search(PAGING, k=2)) == 2
    assert len(await chunk_search.asearch(PAGING, k=2)) == 2
    even = 'group: ANY("even")'
    for chunks in (
        chunk_search.search(PAGING, filter=even),
        await chunk_search.asearch(PAGING, filter=even),
    ):
        assert len(chunks) == 3
        assert {c.struct_data["group"] for c in chunks} == {"even"}
    japanese = 'lang: ANY("ja")'  # no Japanese chunk mentions the paging word
    assert chunk_search.search(PAGING, filter=japanese) == []
    assert await chunk_search.asearch(PAGING, filter=japanese) == []
    assert len(knowledge.search(KNOWLEDGE)) == 3
    assert len(await knowledge.asearch(KNOWLEDGE)) == 3
    assert len(knowledge.search(KNOWLEDGE, k=1)) == 1
    assert len(await knowledge.asearch(KNOWLEDGE, k=1)) == 1
    nowhere = 'data_source = "nowhere"'
    assert knowledge.search(KNOWLEDGE, filter=nowhere) == []
    assert await knowledge.asearch(KNOWLEDGE, filter=nowhere) == []
    # retry=None in the connection's options: one injected failure is not retried.
    for method, call in (
        ("Search", chunk_search.search),
        ("Search", chunk_search.asearch),
        ("SearchDocumentChunks", knowledge.search),
        ("SearchDocumentChunks", knowledge.asearch),
    ):
        emulator.faults.fail(method, code="UNAVAILABLE", times=1)
        with pytest.raises(ServiceUnavailableError, match="UNAVAILABLE"):
            await result_of(call, PAGING)


async def test_search_results_use_the_spec_and_the_per_call_values(emulator, searches):
    chunk_search, _ = searches
    faceted = chunk_search.replace(facet_specs=({"facet_key": {"key": "group"}},))
    for results in (
        faceted.search_results(PAGING, k=2, filter='group: ANY("odd")'),
        await faceted.asearch_results(PAGING, k=2, filter='group: ANY("odd")'),
    ):
        assert len(results.chunks) == 2
        assert results.total_size == 125
        assert [(f.key, [(v.value, v.count) for v in f.values]) for f in results.facets] == [
            ("group", [("odd", 25)])
        ]
    plain = chunk_search.search_results(PAGING)
    assert len(plain.chunks) == 3
    assert [c.name for c in plain.chunks] == [c.name for c in chunk_search.search(PAGING)]
    assert (plain.total_size, plain.facets) == (250, ())
    emulator.faults.fail("Search", code="UNAVAILABLE", times=1)
    with pytest.raises(ServiceUnavailableError, match="UNAVAILABLE"):
        await chunk_search.asearch_results(PAGING)


def test_connect_splits_the_connection_from_the_search_settings():
    search = DiscoveryEngineChunkSearch.connect(
        project_id="p",
        location="eu",
        emulator_host="h:1",
        timeout=7.0,
        retry=None,
        engine_id="e",
        collection="c",
        serving_config_id="s",
        k=3,
        filter="f",
    )
    assert search.connection.project == "p"
    assert search.connection.location == "eu"
    assert search.connection.clients.endpoint == "h:1"
    assert search.connection.call_options == CallOptions(timeout=7.0, retry=None)
    assert search.target == DiscoveryEngineTarget(
        project="p", location="eu", engine="e", collection="c", serving_config="s"
    )
    assert search.spec == ChunkSearchSpec(k=3, filter="f")
    default = DiscoveryEngineChunkSearch.connect(project_id="p", data_store_id="d")
    assert default.target == DiscoveryEngineTarget(project="p", data_store="d")
    assert default.spec == ChunkSearchSpec()
    assert default.connection.call_options == CallOptions()
    search.connection.close()
    default.connection.close()
