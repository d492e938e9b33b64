"""Search calls: the request, the refusals, how many pages are fetched, the call options and the
error's resource (what ``make mutation`` found unasserted in ``grounding_core.search``). The
calls go to the session emulator; an armed zero-second delay counts the calls it serves."""

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    CallOptions,
    ChunkSearchSpec,
    DataStoreSpec,
    DeveloperKnowledgeSearchSpec,
    DiscoveryEngineTarget,
    InputError,
    NotFoundError,
    SearchResults,
    ServiceUnavailableError,
)
from grounding_core.search import (
    _results,
    asearch_chunks,
    asearch_developer_knowledge,
    boost_spec_message,
    check_query,
    developer_knowledge_request,
    search_chunks,
    search_developer_knowledge,
    search_request,
)

from .emulated import PROJECT, RETRYING, result_of

TARGET = DiscoveryEngineTarget(project=PROJECT, data_store="test-docs")
THRESHOLD = de.SearchRequest.RelevanceThreshold
MODE = de.SearchRequest.ContentSearchSpec.SearchResultMode
NO_RETRY = CallOptions(retry=None)
PAGING = "lighthouse"  # 250 chunks of the test corpus match
KNOWLEDGE = "sort a list"  # 127 chunks of the Developer Knowledge corpus match


def refusal(call, *args, **kwargs):
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    return str(info.value), info.value.field, info.value.limit


def test_check_query():
    assert check_query(" q ") == " q "
    assert check_query("q" * 5, maximum=5) == "qqqqq"
    assert refusal(check_query, 5) == ("query must be a string, got int", "query", None)
    assert refusal(check_query, " \n") == (
        "query is empty: give the text to search for",
        "query",
        None,
    )
    assert refusal(check_query, "q" * 6, maximum=5) == (
        "query has 6 characters; the API accepts at most 5: shorten it",
        "query",
        5,
    )


def test_boost_spec_message():
    assert boost_spec_message(None) is None
    boost = boost_spec_message({"condition_boost_specs": [{"condition": "x", "boost": 0.5}]})
    assert isinstance(boost, de.SearchRequest.BoostSpec)
    assert boost.condition_boost_specs[0].condition == "x"
    message, field, limit = refusal(boost_spec_message, {"nope": 1})
    assert (field, limit) == ("boost_spec", None)
    assert message.startswith("boost_spec is not a valid BoostSpec (")
    assert message.endswith(
        "); expected e.g. "
        "{'condition_boost_specs': [{'condition': 'lang: ANY(\"en\")', 'boost': 0.5}]}"
    )
    for bad in ([1], "x"):
        assert refusal(boost_spec_message, bad)[1] == "boost_spec"


@pytest.mark.parametrize(
    ("threshold", "expected"),
    [
        (None, THRESHOLD.RELEVANCE_THRESHOLD_UNSPECIFIED),
        ("lowest", THRESHOLD.LOWEST),
        ("low", THRESHOLD.LOW),
        ("medium", THRESHOLD.MEDIUM),
        ("high", THRESHOLD.HIGH),
    ],
)
def test_every_relevance_threshold(threshold, expected):
    request = search_request(TARGET, "q", ChunkSearchSpec(relevance_threshold=threshold))
    assert request.relevance_threshold == expected


def test_a_chunk_request_has_every_field():
    spec = ChunkSearchSpec(
        k=150,
        filter="f",
        order_by="o",
        num_previous_chunks=1,
        num_next_chunks=2,
        boost_spec={"condition_boost_specs": [{"condition": "c", "boost": 0.5}]},
    )
    request = search_request(TARGET, "q", spec)
    assert request.serving_config == TARGET.serving_config_path
    assert (request.query, request.page_size, request.filter, request.order_by) == (
        "q",
        100,
        "f",
        "o",
    )
    content = request.content_search_spec
    assert content.search_result_mode == MODE.CHUNKS
    assert (content.chunk_spec.num_previous_chunks, content.chunk_spec.num_next_chunks) == (1, 2)
    assert "chunk_spec" in content
    assert request.relevance_score_spec.return_relevance_score is True
    assert request.boost_spec.condition_boost_specs[0].boost == 0.5
    assert search_request(TARGET, "q", ChunkSearchSpec(k=7)).page_size == 7
    plain = search_request(TARGET, "q", ChunkSearchSpec())
    assert "chunk_spec" in plain.content_search_spec  # asked for, even with no neighbours
    assert "boost_spec" not in plain
    documents = search_request(TARGET, "q", ChunkSearchSpec(search_mode="documents"))
    assert documents.content_search_spec.search_result_mode == MODE.DOCUMENTS
    assert "chunk_spec" not in documents.content_search_spec
    assert refusal(search_request, TARGET, "", ChunkSearchSpec())[1] == "query"
    # Chunk mode asks for no snippet or extractive content, and sets no query option.
    for field in ("snippet_spec", "extractive_content_spec"):
        assert field not in plain.content_search_spec
    for field in ("spell_correction_spec", "query_expansion_spec", "relevance_filter_spec"):
        assert field not in plain
    assert (plain.language_code, plain.user_pseudo_id, plain.session) == ("", "", "")
    assert plain.canonical_filter == ""
    assert (list(plain.data_store_specs), list(plain.facet_specs)) == ([], [])


def test_documents_mode_asks_for_snippets_unless_told():
    content = search_request(TARGET, "q", ChunkSearchSpec(search_mode="documents"))
    assert content.content_search_spec.snippet_spec.return_snippet is True
    assert "extractive_content_spec" not in content.content_search_spec
    off = ChunkSearchSpec(search_mode="documents", return_snippet=False)
    assert "snippet_spec" not in search_request(TARGET, "q", off).content_search_spec
    on = ChunkSearchSpec(search_mode="documents", return_snippet=True)
    assert search_request(TARGET, "q", on).content_search_spec.snippet_spec.return_snippet


@pytest.mark.parametrize(
    ("answers", "segments"), [(2, 0), (0, 3), (5, 10)], ids=["answers", "segments", "both"]
)
def test_documents_mode_extractive_content(answers, segments):
    spec = ChunkSearchSpec(
        search_mode="documents",
        max_extractive_answer_count=answers,
        max_extractive_segment_count=segments,
        return_extractive_segment_score=bool(segments),
        num_previous_segments=1 if segments else 0,
        num_next_segments=2 if segments else 0,
    )
    extractive = search_request(TARGET, "q", spec).content_search_spec.extractive_content_spec
    assert (
        extractive.max_extractive_answer_count,
        extractive.max_extractive_segment_count,
        extractive.return_extractive_segment_score,
        extractive.num_previous_segments,
        extractive.num_next_segments,
    ) == (answers, segments, bool(segments), 1 if segments else 0, 2 if segments else 0)


def test_query_options_reach_the_request():
    spec = ChunkSearchSpec(
        spell_correction="suggestion_only",
        query_expansion="auto",
        pin_unexpanded_results=True,
        canonical_filter='lang: ANY("fr")',
        language_code="fr-CA",
        user_pseudo_id="visitor",
        session="s",
        relevance_filter_spec={"semantic_search_threshold": {"semantic_relevance_threshold": 0.5}},
        data_store_specs=(
            DataStoreSpec("test-docs", filter="f"),
            DataStoreSpec(
                "projects/1/locations/global/collections/default_collection/dataStores/x",
                boost_spec={"condition_boost_specs": [{"condition": "c", "boost": 0.25}]},
            ),
        ),
        facet_specs=({"facet_key": {"key": "lang"}, "limit": 3},),
    )
    request = search_request(TARGET, "q", spec)
    assert (
        request.spell_correction_spec.mode
        == de.SearchRequest.SpellCorrectionSpec.Mode.SUGGESTION_ONLY
    )
    assert (
        request.query_expansion_spec.condition == de.SearchRequest.QueryExpansionSpec.Condition.AUTO
    )
    assert request.query_expansion_spec.pin_unexpanded_results is True
    assert request.canonical_filter == 'lang: ANY("fr")'
    assert (request.language_code, request.user_pseudo_id, request.session) == (
        "fr-CA",
        "visitor",
        "s",
    )
    threshold = request.relevance_filter_spec.semantic_search_threshold
    assert threshold.semantic_relevance_threshold == 0.5
    first, second = request.data_store_specs
    assert first.data_store == (
        f"projects/{PROJECT}/locations/global/collections/default_collection/dataStores/test-docs"
    )
    assert (first.filter, "boost_spec" in first) == ("f", False)
    assert second.data_store.startswith("projects/1/")
    assert second.boost_spec.condition_boost_specs[0].boost == 0.25
    [facet] = request.facet_specs
    assert (facet.facet_key.key, facet.limit) == ("lang", 3)
    auto = search_request(
        TARGET, "q", ChunkSearchSpec(spell_correction="auto", query_expansion="disabled")
    )
    assert auto.spell_correction_spec.mode == de.SearchRequest.SpellCorrectionSpec.Mode.AUTO
    assert (
        auto.query_expansion_spec.condition
        == de.SearchRequest.QueryExpansionSpec.Condition.DISABLED
    )


def test_malformed_api_dicts_are_refused_by_name():
    bad_facet = ChunkSearchSpec(facet_specs=({"facet_key": {"nope": 1}},))
    message, field, limit = refusal(search_request, TARGET, "q", bad_facet)
    assert (field, limit) == ("facet_specs[0]", None)
    assert message.startswith("facet_specs[0] is not a valid FacetSpec (")
    assert message.endswith("); expected e.g. {'facet_key': {'key': 'lang'}, 'limit': 10}")
    bad_filter = ChunkSearchSpec(relevance_filter_spec={"nope": 1})
    assert refusal(search_request, TARGET, "q", bad_filter)[1] == "relevance_filter_spec"


def test_a_developer_knowledge_request():
    request = developer_knowledge_request("q", DeveloperKnowledgeSearchSpec(k=7, filter="f"))
    assert (request.query, request.page_size, request.filter) == ("q", 7, "f")
    assert refusal(developer_knowledge_request, "q" * 501, DeveloperKnowledgeSearchSpec())[2] == 500


@pytest.fixture
def calls(emulator):
    """How many calls the emulator served since the fixture was set up."""
    for method in ("Search", "SearchDocumentChunks"):
        emulator.faults.delay(method, seconds=0)  # no delay: the calls are only counted
    start = emulator.faults.injected
    return lambda: emulator.faults.injected - start


def _search(asynchronous):
    return asearch_chunks if asynchronous else search_chunks


def _knowledge(asynchronous):
    return asearch_developer_knowledge if asynchronous else search_developer_knowledge


@pytest.mark.parametrize("asynchronous", [False, True])
@pytest.mark.parametrize(("k", "pages"), [(7, 1), (100, 1), (101, 2), (200, 2), (300, 3)])
async def test_only_the_pages_needed_are_fetched(
    de_clients, de_async_clients, calls, asynchronous, k, pages
):
    clients = de_async_clients if asynchronous else de_clients
    chunks = await result_of(_search(asynchronous), clients, TARGET, PAGING, ChunkSearchSpec(k=k))
    assert len(chunks) == min(k, 250)
    assert len({c.name for c in chunks}) == len(chunks)
    assert all(PAGING in c.content for c in chunks)
    assert calls() == pages


@pytest.mark.parametrize("asynchronous", [False, True])
@pytest.mark.parametrize(("k", "pages"), [(3, 1), (100, 1), (101, 2), (200, 2)])
async def test_only_the_knowledge_pages_needed_are_fetched(
    dk_clients, dk_async_clients, calls, asynchronous, k, pages
):
    clients = dk_async_clients if asynchronous else dk_clients
    spec = DeveloperKnowledgeSearchSpec(k=k)
    chunks = await result_of(_knowledge(asynchronous), clients, KNOWLEDGE, spec)
    assert len(chunks) == min(k, 127)
    assert all(c.name.startswith("documents/docs.python.org/") for c in chunks)
    assert calls() == pages


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_searches_use_the_options_and_name_the_resource(
    emulator, de_clients, de_async_clients, dk_clients, dk_async_clients, asynchronous
):
    de_side = de_async_clients if asynchronous else de_clients
    dk_side = dk_async_clients if asynchronous else dk_clients
    emulator.faults.fail("Search", code="UNAVAILABLE", times=1)
    chunks = await result_of(
        _search(asynchronous), de_side, TARGET, PAGING, ChunkSearchSpec(k=2), RETRYING
    )
    assert len(chunks) == 2
    emulator.faults.fail("SearchDocumentChunks", code="UNAVAILABLE", times=1)
    spec = DeveloperKnowledgeSearchSpec(k=2)
    assert len(await result_of(_knowledge(asynchronous), dk_side, KNOWLEDGE, spec, RETRYING)) == 2
    no_retry = CallOptions(retry=None)
    emulator.faults.fail("Search", code="NOT_FOUND", times=1)
    with pytest.raises(NotFoundError) as info:
        await result_of(_search(asynchronous), de_side, TARGET, PAGING, ChunkSearchSpec(), no_retry)
    assert str(info.value).startswith(f"Search on {TARGET.serving_config_path} failed: NOT_FOUND")
    emulator.faults.fail("SearchDocumentChunks", code="NOT_FOUND", times=1)
    with pytest.raises(NotFoundError) as info:
        await result_of(_knowledge(asynchronous), dk_side, KNOWLEDGE, spec, no_retry)
    assert str(info.value).startswith(
        "SearchDocumentChunks on the Developer Knowledge corpus failed: NOT_FOUND"
    )


async def test_the_default_spec_asks_for_ten_and_five(de_clients, de_async_clients, dk_clients):
    assert len(search_chunks(de_clients, TARGET, PAGING)) == 10
    assert len(await asearch_chunks(de_async_clients, TARGET, PAGING)) == 10
    assert len(search_developer_knowledge(dk_clients, KNOWLEDGE)) == 5


def test_a_malformed_relevance_filter_names_an_example():
    bad_filter = ChunkSearchSpec(relevance_filter_spec={"nope": 1})
    message, field, limit = refusal(search_request, TARGET, "q", bad_filter)
    assert (field, limit) == ("relevance_filter_spec", None)
    assert message.startswith("relevance_filter_spec is not a valid RelevanceFilterSpec (")
    assert message.endswith(
        "); expected e.g. {'keyword_search_threshold': {'relevance_threshold': 'LOW'}}"
    )


def test_no_page_is_no_result():
    assert _results([], ChunkSearchSpec(k=5)) == SearchResults(())


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_searches_pass_no_retry_on(emulator, de_clients, de_async_clients, asynchronous):
    clients = de_async_clients if asynchronous else de_clients
    emulator.faults.fail("Search", code="UNAVAILABLE", times=1)
    with pytest.raises(ServiceUnavailableError, match="UNAVAILABLE"):
        await result_of(
            _search(asynchronous), clients, TARGET, PAGING, ChunkSearchSpec(k=2), NO_RETRY
        )
