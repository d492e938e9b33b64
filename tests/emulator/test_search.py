"""SearchService/Search through Google's SearchServiceClient (sync and async) over gRPC."""

from __future__ import annotations

import pytest
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1alpha, discoveryengine_v1beta

from tests.conftest import PAGING_DOCUMENTS, PAGING_WORD, SECTIONS
from tests.emulator.conftest import ONCE, serving_config, versioned_client

CHUNKS = de.SearchRequest.ContentSearchSpec.SearchResultMode.CHUNKS
DOCUMENTS = de.SearchRequest.ContentSearchSpec.SearchResultMode.DOCUMENTS
PAGING_CHUNKS = PAGING_DOCUMENTS * SECTIONS


def chunk_request(query: str = PAGING_WORD, **fields) -> de.SearchRequest:
    spec = fields.pop("content_search_spec", {})
    return de.SearchRequest(
        serving_config=fields.pop("serving_config", serving_config()),
        query=query,
        content_search_spec={"search_result_mode": CHUNKS, **spec},
        relevance_score_spec={"return_relevance_score": True},
        **fields,
    )


def first_page(client, request) -> de.SearchResponse:
    pager = client.search(request=request, **ONCE)
    return next(iter(pager.pages))


def document_id(chunk_name: str) -> str:
    return chunk_name.split("/documents/")[1].split("/")[0]


def test_chunk_results_carry_every_field(search_client):
    page = first_page(search_client, chunk_request("东京 OR 東京 Tokyo 首都", page_size=5))
    top = page.results[0]
    chunk = top.chunk
    assert chunk.name == (
        "projects/test-project/locations/global/collections/default_collection/dataStores/"
        "test-docs/branches/default_branch/documents/cjk-ja/chunks/c1"
    )
    assert chunk.id == "c1"
    assert top.id == "cjk-ja"  # SearchResult.id is the searched Document's id (seed 004)
    assert "東京都は日本の首都です。" in chunk.content
    assert chunk.document_metadata.uri == "https://example.jp/tokyo"
    assert chunk.document_metadata.title == "東京について"
    assert dict(chunk.document_metadata.struct_data) == {"lang": "ja", "script": "cjk"}
    assert 0 < chunk.relevance_score <= 1
    assert top.rank_signals.keyword_similarity_score > 0
    assert top.rank_signals.default_rank == 1
    scores = [r.chunk.relevance_score for r in page.results]
    assert scores == sorted(scores, reverse=True)


def test_relevance_score_only_when_asked(search_client):
    request = chunk_request(page_size=3)
    request.relevance_score_spec.return_relevance_score = False
    pb = de.SearchResponse.pb(first_page(search_client, request))
    assert not any(r.chunk.HasField("relevance_score") for r in pb.results)
    assert all(r.rank_signals.HasField("keyword_similarity_score") for r in pb.results)


def test_every_response_has_its_own_attribution_token(search_client):
    """``SearchResponse.attribution_token``: "A unique search token", on every page."""
    request = chunk_request(page_size=2)
    first = first_page(search_client, request)
    again = first_page(search_client, request)
    request.page_token = first.next_page_token
    second = first_page(search_client, request)
    tokens = [first.attribution_token, again.attribution_token, second.attribution_token]
    assert all(tokens)
    assert len(set(tokens)) == 3


def test_pager_walks_all_250_chunks(search_client):
    pager = search_client.search(request=chunk_request(page_size=100), **ONCE)
    names = [result.chunk.name for result in pager]
    assert len(names) == PAGING_CHUNKS
    assert len(set(names)) == PAGING_CHUNKS
    assert {document_id(n) for n in names} == {f"page-{n:02d}" for n in range(PAGING_DOCUMENTS)}


def test_pages_report_total_size_and_tokens(search_client):
    pager = search_client.search(request=chunk_request(page_size=100), **ONCE)
    pages = list(pager.pages)
    assert [len(p.results) for p in pages] == [100, 100, 50]
    assert {p.total_size for p in pages} == {PAGING_CHUNKS}
    assert all(p.next_page_token for p in pages[:-1])
    assert pages[-1].next_page_token == ""


def test_small_pages_give_the_same_order(search_client):
    big = [r.chunk.name for r in search_client.search(request=chunk_request(page_size=100), **ONCE)]
    small = [r.chunk.name for r in search_client.search(request=chunk_request(page_size=7), **ONCE)]
    assert small == big


def test_offset_skips_results(search_client):
    everything = [
        r.chunk.name for r in first_page(search_client, chunk_request(page_size=40)).results
    ]
    skipped = first_page(search_client, chunk_request(page_size=10, offset=25))
    assert [r.chunk.name for r in skipped.results] == everything[25:35]
    assert skipped.results[0].rank_signals.default_rank == 26


@pytest.mark.parametrize(("page_size", "expected"), [(0, 50), (3, 3), (100, 100), (1000, 100)])
def test_page_size_default_and_maximum(search_client, page_size, expected):
    page = first_page(search_client, chunk_request(page_size=page_size))
    assert len(page.results) == expected


def ranks_of(search_client, filter_: str, query: str = PAGING_WORD) -> set[int]:
    pager = search_client.search(
        request=chunk_request(query, page_size=100, filter=filter_), **ONCE
    )
    return {int(document_id(r.chunk.name).split("-")[1]) for r in pager}


ALL = set(range(PAGING_DOCUMENTS))


@pytest.mark.parametrize(
    ("filter_", "expected"),
    [
        ('group: ANY("odd")', {n for n in ALL if n % 2}),
        ('tags: ANY("t1", "t3")', {n for n in ALL if n % 5 in (1, 3)}),
        ('-group: ANY("odd")', {n for n in ALL if n % 2 == 0}),
        ("rank < 5", {0, 1, 2, 3, 4}),
        ("rank >= 47", {47, 48, 49}),
        ("rank = 12", {12}),
        ("meta.level = 2", {n for n in ALL if n % 3 == 2}),
        ('group: ANY("odd") AND rank <= 9', {1, 3, 5, 7, 9}),
        ("rank < 2 OR rank > 47", {0, 1, 48, 49}),
        ('NOT tags: ANY("t0") AND rank < 6', {1, 2, 3, 4}),
        ('(rank < 2 OR rank > 47) AND group: ANY("odd")', {1, 49}),
        ('rank < 2 OR rank > 47 AND group: ANY("odd")', {0, 1, 49}),
        ('NOT group: ANY("odd") AND rank < 4', {0, 2}),
        ("rank: IN(3, 6)", {3, 4, 5}),
        ("rank: IN(3e, 6i)", {4, 5, 6}),
        ("rank: IN(*, 2) OR rank: IN(48, *)", {0, 1, 48, 49}),
    ],
)
def test_filters_on_struct_data(search_client, filter_, expected):
    assert ranks_of(search_client, filter_) == expected


def test_boost_promotes_and_buries(search_client):
    request = chunk_request(page_size=50)
    request.boost_spec = {"condition_boost_specs": [{"condition": "rank = 42", "boost": 1.0}]}
    results = first_page(search_client, request).results
    top = {document_id(r.chunk.name) for r in results[:SECTIONS]}
    assert top == {"page-42"}
    assert results[0].rank_signals.boosting_factor == pytest.approx(2.0)
    request.boost_spec = {"condition_boost_specs": [{"condition": "rank < 49", "boost": -0.5}]}
    results = first_page(search_client, request).results
    assert {document_id(r.chunk.name) for r in results[:SECTIONS]} == {"page-49"}


def test_order_by_struct_field(search_client):
    request = chunk_request(page_size=100, order_by="rank desc")
    ranks = [int(document_id(r.chunk.name)[5:]) for r in first_page(search_client, request).results]
    assert ranks == sorted(ranks, reverse=True)
    assert ranks[0] == 49


def test_relevance_threshold_drops_weak_matches(search_client):
    query = "lighthouse keeper astronaut"
    loose = first_page(search_client, chunk_request(query, page_size=100))
    strict = chunk_request(query, page_size=100)
    strict.relevance_threshold = de.SearchRequest.RelevanceThreshold.HIGH
    strict_page = first_page(search_client, strict)
    assert 0 < strict_page.total_size < loose.total_size
    assert all(r.chunk.relevance_score >= 0.35 for r in strict_page.results)


def test_chunk_spec_neighbours(search_client):
    request = chunk_request(
        "ordinal marker step 3",
        page_size=1,
        filter='group: ANY("sequence")',
        content_search_spec={"chunk_spec": {"num_previous_chunks": 2, "num_next_chunks": 3}},
    )
    chunk = first_page(search_client, request).results[0].chunk
    assert chunk.id == "c3"
    assert [c.id for c in chunk.chunk_metadata.previous_chunks] == ["c1", "c2"]
    assert [c.id for c in chunk.chunk_metadata.next_chunks] == ["c4", "c5", "c6"]
    assert "Step 4 of the sequence" in chunk.chunk_metadata.next_chunks[0].content
    assert chunk.chunk_metadata.next_chunks[0].name.endswith("/documents/sequence/chunks/c4")


def test_chunk_spec_stops_at_document_edges(search_client):
    request = chunk_request(
        "ordinal marker step 1",
        page_size=1,
        filter='group: ANY("sequence")',
        content_search_spec={"chunk_spec": {"num_previous_chunks": 3, "num_next_chunks": 1}},
    )
    chunk = first_page(search_client, request).results[0].chunk
    assert chunk.id == "c1"
    assert list(chunk.chunk_metadata.previous_chunks) == []
    assert [c.id for c in chunk.chunk_metadata.next_chunks] == ["c2"]


def test_documents_mode(search_client):
    request = de.SearchRequest(
        serving_config=serving_config(),
        query="Cape Canaveral rockets",
        page_size=3,
        content_search_spec={
            "search_result_mode": DOCUMENTS,
            "snippet_spec": {"return_snippet": True},
            "extractive_content_spec": {
                "max_extractive_segment_count": 1,
                "return_extractive_segment_score": True,
            },
        },
    )
    result = first_page(search_client, request).results[0]
    pb = de.SearchResponse.SearchResult.pb(result)
    assert not pb.HasField("chunk")
    assert result.id == result.document.id == "emoji"
    assert result.document.name.endswith(
        "/dataStores/test-docs/branches/default_branch/documents/emoji"
    )
    assert dict(result.document.struct_data) == {"lang": "en", "script": "emoji"}
    derived = result.document.derived_struct_data
    assert derived["link"] == "https://example.com/rockets"
    assert derived["title"] == "Rockets 🚀"
    assert "<b>Cape Canaveral</b> 🇺🇸" in derived["snippets"][0]["snippet"]
    assert derived["snippets"][0]["snippet_status"] == "SUCCESS"
    segment = derived["extractive_segments"][0]
    assert "👩‍🚀👨‍🚀" in segment["content"]
    # Google's keys for extractive segments are camelCase (the peers read them so).
    assert set(segment) == {"content", "pageNumber", "relevanceScore"}
    assert 0 < segment["relevanceScore"] <= 1


def test_unset_mode_means_documents(search_client):
    request = de.SearchRequest(serving_config=serving_config(), query="Zoë croissant")
    result = first_page(search_client, request).results[0]
    assert result.document.id == "combining"


@pytest.mark.parametrize(
    ("query", "document"),
    [
        ("東京タワー", "cjk-ja"),
        ("故宫", "cjk-zh"),
        ("عاصمة مصر", "arabic"),
        ("cafés Paris", "combining"),
        ("cafe\u0301s", "combining"),
        ("astronaut crew", "emoji"),
    ],
)
def test_non_ascii_queries(search_client, query, document):
    page = first_page(search_client, chunk_request(query, page_size=3))
    assert document_id(page.results[0].chunk.name) == document


def test_empty_query_lists_every_chunk_that_passes_the_filter(search_client):
    request = chunk_request("", page_size=100, filter='script: ANY("cjk", "arabic")')
    names = [r.chunk.name for r in search_client.search(request=request, **ONCE)]
    assert sorted(document_id(n) for n in names) == ["arabic", "cjk-ja", "cjk-zh"]


@pytest.mark.parametrize(
    "name",
    [
        serving_config("test-app", kind="engines"),
        serving_config("test-app", kind="engines", serving_config_id="default_config"),
        serving_config(collection=None),
        serving_config(project="123456789", location="eu"),
    ],
)
def test_serving_config_forms(search_client, name):
    page = first_page(search_client, chunk_request(page_size=5, serving_config=name))
    assert page.total_size == PAGING_CHUNKS
    expected_prefix = name.split("/collections/")[0].split("/dataStores/")[0]
    assert page.results[0].chunk.name.startswith(
        expected_prefix + "/collections/default_collection"
    )
    assert "/dataStores/test-docs/" in page.results[0].chunk.name


@pytest.mark.parametrize("module", [discoveryengine_v1beta, discoveryengine_v1alpha])
def test_v1beta_and_v1alpha_services(emulator, search_client, module):
    client = versioned_client(module, "SearchServiceClient", emulator.address)
    mode = module.SearchRequest.ContentSearchSpec.SearchResultMode.CHUNKS
    request = module.SearchRequest(
        serving_config=serving_config(),
        query="astronaut crew",
        page_size=3,
        content_search_spec={"search_result_mode": mode},
    )
    results = list(next(iter(client.search(request=request, **ONCE).pages)).results)
    v1 = first_page(search_client, chunk_request("astronaut crew", page_size=3)).results
    assert [r.chunk.name for r in results] == [r.chunk.name for r in v1]
    assert results[0].chunk.document_metadata.uri == "https://example.com/rockets"
    client.transport.close()


async def test_async_client_pages(de_async_connection):
    client = de_async_connection.async_client(de.SearchServiceAsyncClient)
    pager = await client.search(request=chunk_request(page_size=100), **ONCE)
    names = [result.chunk.name async for result in pager]
    assert len(set(names)) == PAGING_CHUNKS
