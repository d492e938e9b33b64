"""``ChunkSearchSpec.canonical_filter``: checked as ``filter`` is, sent as
``SearchRequest.canonical_filter``, and served by the emulator (sync and async, over real
gRPC): under query expansion ``"auto"`` it decides whether the query is widened.

The query: "lighthouse" is in all 250 paging chunks; "markerz" is in none but widens to
"marker", which only the six chunks of the ``sequence`` document have (see
``tests/emulator/test_canonical_filter.py``). The LangChain and LlamaIndex retrievers take it
as an option and pass it on."""

from __future__ import annotations

import dataclasses

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    ChunkSearchSpec,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineTarget,
    InputError,
    SearchOptions,
    SearchResults,
)
from grounding_core.search import search_request
from langchain_grounding import DiscoveryEngineRetriever as LangChainRetriever
from llamaindex_grounding import DiscoveryEngineRetriever as LlamaIndexRetriever

from .emulated import PROJECT, result_of

TARGET = DiscoveryEngineTarget(project=PROJECT, data_store="test-docs")
QUERY = "lighthouse markerz"
SEQUENCE = 'group: ANY("sequence")'
ENGLISH = 'lang: ANY("en")'
EXPANDING = SearchOptions(
    k=10, filter=SEQUENCE, spell_correction="suggestion_only", query_expansion="auto"
)


def test_the_request_carries_the_canonical_filter():
    unicode = 'lang: ANY("日本語") AND NOT script: ANY("😀")'
    request = search_request(TARGET, "q", ChunkSearchSpec(filter="f", canonical_filter=unicode))
    message = de.SearchRequest.pb(request)
    assert (message.filter, message.canonical_filter) == ("f", unicode)
    # Without one, nothing is sent: Google's default (no canonical filter).
    plain = de.SearchRequest.pb(search_request(TARGET, "q", ChunkSearchSpec()))
    assert plain.canonical_filter == ""
    assert "canonical_filter" not in [field.name for field, _ in plain.ListFields()]


def test_the_spec_keeps_it_and_replace_checks_it_again():
    spec = ChunkSearchSpec(canonical_filter=ENGLISH)
    assert spec.canonical_filter == ENGLISH
    assert ChunkSearchSpec().canonical_filter == ""
    with pytest.raises(InputError) as info:
        dataclasses.replace(spec, canonical_filter=1)
    assert str(info.value) == "ChunkSearchSpec.canonical_filter must be a string, got int"
    assert info.value.field == "canonical_filter"


async def results_of(connections, asynchronous: bool, **options) -> SearchResults:
    """The search of ``QUERY`` on the test data store with ``options``, sync or async."""
    search = DiscoveryEngineChunkSearch.create(
        connections[0], data_store_id="test-docs", **{**EXPANDING, **options}
    )
    call = search.asearch_results if asynchronous else search.search_results
    return await result_of(call, QUERY)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
async def test_a_broad_canonical_filter_keeps_the_query_unexpanded(connections, asynchronous):
    # Under the filter alone the exact query matches nothing: expanded, the sequence's chunks.
    widened = await results_of(connections, asynchronous)
    assert [c.id for c in widened.chunks] == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert {c.document_id for c in widened.chunks} == {"sequence"}
    assert (widened.total_size, widened.expanded_query, widened.pinned_result_count) == (6, True, 0)
    assert widened.corrected_query == "lighthouse marker"
    # Under the canonical filter it matches 250 chunks: enough, so not expanded; the original
    # filter leaves none of them.
    kept = await results_of(connections, asynchronous, canonical_filter=ENGLISH)
    assert kept.chunks == ()
    assert (kept.total_size, kept.expanded_query, kept.pinned_result_count) == (0, False, 0)
    assert kept.corrected_query == "lighthouse marker"


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
async def test_a_narrow_canonical_filter_expands_the_query(connections, asynchronous):
    plain = await results_of(connections, asynchronous, filter="")
    assert (plain.total_size, plain.expanded_query, len(plain.chunks)) == (250, False, 10)
    assert {c.document_id for c in plain.chunks} <= {f"page-{n:02d}" for n in range(50)}
    results = await results_of(connections, asynchronous, filter="", canonical_filter=SEQUENCE)
    assert (results.total_size, results.expanded_query, len(results.chunks)) == (256, True, 10)


def langchain_search(emulator, asynchronous: bool, **options):
    retriever = LangChainRetriever(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address, **options
    )
    documents = retriever.ainvoke(QUERY) if asynchronous else retriever.invoke(QUERY)
    return retriever.search.spec, documents, lambda found: [d.metadata for d in found]


def llamaindex_search(emulator, asynchronous: bool, k: int, **options):
    retriever = LlamaIndexRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        similarity_top_k=k,
        **options,
    )
    nodes = retriever.aretrieve(QUERY) if asynchronous else retriever.retrieve(QUERY)
    return retriever.search.spec, nodes, lambda found: [n.node.metadata for n in found]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(
    "retrieve", [langchain_search, llamaindex_search], ids=["langchain", "llama"]
)
async def test_the_retrievers_pass_it(emulator, retrieve, asynchronous):
    async def found(**options):
        spec, pending, metadata_of = retrieve(emulator, asynchronous, **EXPANDING, **options)
        result = await pending if asynchronous else pending
        return spec, [(m["document_id"], m["chunk_id"]) for m in metadata_of(result)]

    # Under the filter alone the exact query matches nothing: widened, the sequence's chunks.
    spec, widened = await found()
    assert spec.canonical_filter == ""
    assert widened == [("sequence", f"c{n}") for n in range(1, 7)]
    # Under the canonical filter the exact query has 250 matches: not widened, and the
    # original filter leaves none.
    spec, kept = await found(canonical_filter=ENGLISH)
    assert spec.canonical_filter == ENGLISH
    assert kept == []
