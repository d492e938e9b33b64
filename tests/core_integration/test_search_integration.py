"""The core's search functions against the emulator, over real gRPC (sync and async)."""

from __future__ import annotations

from grounding_core import (
    ChunkSearchSpec,
    DataStoreSpec,
    DeveloperKnowledgeSearchSpec,
    DiscoveryEngineTarget,
    FacetValue,
    SearchFacet,
    asearch_chunks,
    asearch_developer_knowledge,
    asearch_results,
    search_chunks,
    search_developer_knowledge,
    search_results,
)
from tests.conftest import PROJECT


def test_search_chunks_fills_every_record_field(de_clients, test_target):
    chunks = search_chunks(
        de_clients,
        test_target,
        "ordinal marker step 3",
        ChunkSearchSpec(
            k=1, filter='group: ANY("sequence")', num_previous_chunks=1, num_next_chunks=2
        ),
    )
    (chunk,) = chunks
    assert chunk.name.endswith(
        "/dataStores/test-docs/branches/default_branch/documents/sequence/chunks/c3"
    )
    assert chunk.id == "c3"
    assert chunk.document_id == "sequence"
    assert chunk.document_name.endswith("/documents/sequence")
    assert chunk.uri == "https://example.com/sequence"
    assert chunk.title == "Sequence"
    assert chunk.struct_data == {"lang": "en", "group": "sequence"}
    assert [c.id for c in chunk.previous_chunks] == ["c2"]
    assert [c.id for c in chunk.next_chunks] == ["c4", "c5"]
    assert "Step 4" in chunk.next_chunks[0].content
    assert 0 < chunk.relevance_score <= 1
    assert chunk.rank_signals.keyword_similarity_score > 0
    assert chunk.page_span is None


def test_k_beyond_one_page_collects_several_pages(de_clients, test_target):
    chunks = search_chunks(de_clients, test_target, "lighthouse", ChunkSearchSpec(k=230))
    assert len(chunks) == 230
    assert len({c.name for c in chunks}) == 230


def test_engine_target_and_documents_mode(de_clients):
    target = DiscoveryEngineTarget(project=PROJECT, engine="test-app")
    documents = search_chunks(
        de_clients, target, "Cape Canaveral", ChunkSearchSpec(k=2, search_mode="documents")
    )
    assert documents[0].document_id == "emoji"
    assert documents[0].uri == "https://example.com/rockets"
    assert documents[0].title == "Rockets 🚀"
    assert "Cape Canaveral 🇺🇸" in documents[0].content


def test_boost_and_filter_through_the_core(de_clients, test_target):
    spec = ChunkSearchSpec(
        k=5,
        filter='tags: ANY("t2")',
        boost_spec={"condition_boost_specs": [{"condition": "rank = 17", "boost": 1.0}]},
    )
    chunks = search_chunks(de_clients, test_target, "lighthouse", spec)
    assert {c.document_id for c in chunks} == {"page-17"}
    assert chunks[0].rank_signals.boosting_factor == 2.0


async def test_asearch_chunks(de_async_clients, builtin_target):
    chunks = await asearch_chunks(
        de_async_clients, builtin_target, "assert statement", ChunkSearchSpec(k=3)
    )
    assert chunks[0].uri.endswith("/reference/simple_stmts.html#assert")
    assert chunks[0].struct_data["topic"] == "assert"


def test_search_developer_knowledge(dk_clients):
    chunks = search_developer_knowledge(
        dk_clients,
        "context manager with statement",
        DeveloperKnowledgeSearchSpec(k=7, filter='data_source = "docs.python.org"'),
    )
    assert len(chunks) == 7
    top = chunks[0]
    assert top.data_source == "docs.python.org"
    assert top.name == f"{top.document_name}/chunks/{top.id}"
    assert top.document_name == "documents/" + top.uri.removeprefix("https://")
    assert top.update_time is not None
    assert 0 < top.relevance_score <= 1


async def test_asearch_developer_knowledge(dk_async_clients):
    chunks = await asearch_developer_knowledge(
        dk_async_clients, "yield statement", DeveloperKnowledgeSearchSpec(k=3)
    )
    assert any(c.uri.endswith("simple_stmts.html#yield") for c in chunks)


def test_documents_mode_text_comes_from_what_was_asked(de_clients, test_target):
    query = "Cape Canaveral rockets launch"
    snippet_only = search_chunks(
        de_clients, test_target, query, ChunkSearchSpec(k=1, search_mode="documents")
    )[0]
    assert set(snippet_only.derived_struct_data) == {"link", "title", "snippets"}
    assert snippet_only.content == snippet_only.derived_struct_data["snippets"][0]["snippet"]
    answers = ChunkSearchSpec(k=1, search_mode="documents", max_extractive_answer_count=1)
    answer = search_chunks(de_clients, test_target, query, answers)[0]
    assert answer.content == "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month."
    assert answer.derived_struct_data["extractive_answers"] == [
        {"content": answer.content, "pageNumber": ""}
    ]
    segments = ChunkSearchSpec(
        k=1,
        search_mode="documents",
        max_extractive_answer_count=1,
        max_extractive_segment_count=1,
        return_extractive_segment_score=True,
    )
    segment = search_chunks(de_clients, test_target, query, segments)[0]
    # Extractive segments win over answers and snippets; every part is kept as it came.
    [kept] = segment.derived_struct_data["extractive_segments"]
    assert segment.content == kept["content"]
    assert 0 < kept["relevanceScore"] <= 1
    assert set(segment.derived_struct_data) == {
        "link",
        "title",
        "snippets",
        "extractive_answers",
        "extractive_segments",
    }
    bare = ChunkSearchSpec(k=1, search_mode="documents", return_snippet=False)
    nothing = search_chunks(de_clients, test_target, query, bare)[0]
    assert nothing.content == "lang: en\nscript: emoji"  # no text asked for: the struct data


def test_chunk_records_take_their_ids_from_the_chunk(de_clients, test_target):
    # SearchResult.id is the document's id (seed 004); the record's id stays the chunk's.
    [chunk] = search_chunks(de_clients, test_target, "Cape Canaveral", ChunkSearchSpec(k=1))
    assert (chunk.id, chunk.document_id) == ("c1", "emoji")
    assert chunk.name.endswith("/documents/emoji/chunks/c1")


def test_search_results_carry_the_response_level_values(de_clients, test_target):
    results = search_results(
        de_clients,
        test_target,
        "lampi Canaveral",
        ChunkSearchSpec(
            k=3,
            spell_correction="suggestion_only",
            query_expansion="auto",
            pin_unexpanded_results=True,
            facet_specs=({"facet_key": {"key": "script"}},),
        ),
    )
    assert results.corrected_query == "lamp Canaveral"
    assert (results.expanded_query, results.pinned_result_count) == (True, 1)
    assert results.total_size == 251
    assert results.chunks[0].document_id == "emoji"
    assert len(results.chunks) == 3
    assert results.facets == (SearchFacet("script", (FacetValue(count=1, value="emoji"),)),)
    assert isinstance(results.attribution_token, str)
    corrected = search_results(de_clients, test_target, "lighthuose keeper", ChunkSearchSpec(k=1))
    assert corrected.corrected_query == "lighthouse keeper"
    assert corrected.total_size == 250
    assert (corrected.expanded_query, corrected.pinned_result_count, corrected.facets) == (
        False,
        0,
        (),
    )


async def test_asearch_results_with_a_data_store_spec(de_async_clients):
    target = DiscoveryEngineTarget(project=PROJECT, engine="test-app")
    spec = ChunkSearchSpec(
        k=2,
        data_store_specs=(DataStoreSpec("test-docs", filter='group: ANY("odd")'),),
        facet_specs=(
            {"facet_key": {"key": "rank", "intervals": [{"minimum": 0, "exclusive_maximum": 10}]}},
        ),
    )
    results = await asearch_results(de_async_clients, target, "lighthouse", spec)
    assert results.total_size == 125
    assert {c.struct_data["group"] for c in results.chunks} == {"odd"}
    assert results.facets == (
        SearchFacet(
            "rank", (FacetValue(count=5, interval={"minimum": 0.0, "exclusive_maximum": 10.0}),)
        ),
    )
