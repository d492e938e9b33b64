"""``grounding_core.search.discovery_engine``: ``DiscoveryEngineChunkSearch`` and the request it
sends.

- The component: its constructor (target and spec from the keyword arguments, refusals before
  any call), ``replace``, ``repr``; building it from one flat dict of connection and search
  arguments.
- The calls (``search``, ``asearch``, ``search_results``, ``asearch_results``) against the
  session emulator over gRPC: the spec's ``k`` and ``filter`` and their per-call values, only as
  many pages of 100 fetched as ``k`` needs, the connection's call options, Google's errors
  translated (naming the serving config, chaining the cause).
- ``search_request``: every option reaches the ``SearchRequest`` field of its name (the raw
  protobuf request is the one proto-plus builds from the same values), the dict options
  (boost, facet, relevance filter) as API messages, data store specs as resource names, the
  refusals (``InputError`` naming the field); ``api_message`` and ``boost_spec``.
- ``canonical_filter`` end to end: under query expansion it decides whether a query is widened
  (sync and async), and the framework retrievers pass it on.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    DEFAULT_SEARCH_K,
    ChunkSearchSpec,
    ConfigurationError,
    DataStoreSpec,
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
    DiscoveryEngineTarget,
    InputError,
    NotFoundError,
    RetryPolicy,
    SearchResults,
    ServiceUnavailableError,
)
from grounding_core.search.discovery_engine import (
    BOOST_SPEC_EXAMPLE,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineChunkSearchArgs,
    DiscoveryEngineTargetArgs,
    _enum,
    api_message,
    boost_spec,
    search_request,
)
from grounding_core.search.results import FacetValue, SearchFacet
from grounding_core.search.specs import SearchOptions
from grounding_emulator import EmulatorServer
from tests.core.emulated import PROJECT, result_of

TARGET = DiscoveryEngineTarget(project=PROJECT, data_store="test-docs")
PAGING = "lighthouse"  # in all 250 chunks of the 50 paging documents
EVEN = 'group: ANY("even")'
JAPANESE = 'lang: ANY("ja")'  # no Japanese chunk has the paging word
THRESHOLD = de.SearchRequest.RelevanceThreshold
MODE = de.SearchRequest.ContentSearchSpec.SearchResultMode
SPELL = de.SearchRequest.SpellCorrectionSpec.Mode
SearchRequestPb = de.SearchRequest.pb()
# Retries at once: a test that injects one UNAVAILABLE passes only when the policy is used.
RETRYING = RetryPolicy(initial=0.01, maximum=0.01, deadline=5.0)
SYNC_ASYNC = pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])


def offline(**kwargs: Any) -> DiscoveryEngineConnection:
    """A connection that is never called (nothing is built before the first call)."""
    return DiscoveryEngineConnection(project_id="p", emulator_host="h:1", **kwargs)


@pytest.fixture
async def connection(emulator: EmulatorServer):
    """A connection to the session emulator without retries (a fault is not retried)."""
    made = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address, retry=None)
    yield made
    made.close()
    await made.aclose()


@pytest.fixture
async def retrying(emulator: EmulatorServer):
    """A connection to the session emulator that retries at once."""
    made = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, retry=RETRYING, timeout=5.0
    )
    yield made
    made.close()
    await made.aclose()


@pytest.fixture
def calls(emulator: EmulatorServer):
    """How many Search calls the emulator served since the fixture was set up."""
    emulator.faults.delay("Search", seconds=0)  # no delay: the calls are only counted
    start = emulator.faults.injected
    return lambda: emulator.faults.injected - start


def searching(search: DiscoveryEngineChunkSearch, asynchronous: bool, results: bool = False):
    if results:
        return search.asearch_results if asynchronous else search.search_results
    return search.asearch if asynchronous else search.search


# -- the component ------------------------------------------------------------------------------


def test_the_constructor_names_the_target_and_builds_the_spec():
    connection = offline(location="eu")
    search = DiscoveryEngineChunkSearch(
        connection,
        engine_id="e",
        collection="c",
        serving_config_id="s",
        k=3,
        filter="f",
        boost_spec={"condition_boost_specs": []},
        order_by="rank",
        num_previous_chunks=1,
        relevance_threshold="low",
    )
    assert search.connection is connection
    assert search.target == DiscoveryEngineTarget(
        project="p", location="eu", engine="e", collection="c", serving_config="s"
    )
    assert search.spec == ChunkSearchSpec(
        k=3,
        filter="f",
        boost_spec={"condition_boost_specs": []},
        order_by="rank",
        num_previous_chunks=1,
        relevance_threshold="low",
    )


def test_the_defaults_are_the_default_collection_serving_config_and_spec():
    connection = offline()
    search = DiscoveryEngineChunkSearch(connection, data_store_id="d")
    assert search.target == DiscoveryEngineTarget(project="p", data_store="d")
    assert search.target.serving_config_path == (
        "projects/p/locations/global/collections/default_collection/dataStores/d/"
        "servingConfigs/default_search"
    )
    assert search.spec == ChunkSearchSpec()
    assert search.spec.k == DEFAULT_SEARCH_K == 4
    bare = DiscoveryEngineChunkSearch(connection, data_store_id="d", collection=None)
    assert bare.target == DiscoveryEngineTarget(project="p", data_store="d", collection=None)


def test_without_a_data_store_or_engine_the_environment_names_the_data_store(monkeypatch):
    monkeypatch.setenv("GROUNDING_DATA_STORE", "from-env")
    search = DiscoveryEngineChunkSearch(offline())
    assert search.target == DiscoveryEngineTarget(project="p", data_store="from-env")


@pytest.mark.parametrize(
    ("kwargs", "error", "field", "words"),
    [
        ({}, ConfigurationError, None, "no data store and no engine"),
        ({"data_store_id": "d", "engine_id": "e"}, ConfigurationError, None, "both a data store"),
        ({"data_store_id": "a/b"}, ConfigurationError, "data_store", "data_store 'a/b'"),
        ({"engine_id": "e", "collection": None}, ConfigurationError, None, "only valid for data"),
        (
            {"data_store_id": "d", "serving_config_id": "a b"},
            ConfigurationError,
            "serving_config",
            "serving",
        ),
        ({"data_store_id": "d", "k": 0}, InputError, "k", "k must be >= 1"),
        ({"data_store_id": "d", "num_next_chunks": 4}, InputError, "num_next_chunks", "0 and 3"),
        ({"data_store_id": "d", "search_mode": "pages"}, InputError, "search_mode", "one of"),
        (
            {"data_store_id": "d", "relevance_threshold": "huge"},
            InputError,
            "relevance_threshold",
            "relevance_threshold must be one of",
        ),
        ({"data_store_id": "d", "boost_spec": "up"}, InputError, "boost_spec", "must be a dict"),
    ],
)
def test_bad_settings_are_refused_when_the_search_is_built(kwargs, error, field, words):
    with pytest.raises(error, match=words) as info:
        DiscoveryEngineChunkSearch(offline(), **kwargs)
    assert isinstance(info.value, ValueError)
    assert getattr(info.value, "field", None) == field


def test_an_unknown_option_is_named():
    with pytest.raises(TypeError, match="unexpected keyword argument 'top_k'"):
        DiscoveryEngineChunkSearch(offline(), data_store_id="d", top_k=3)  # type: ignore[call-arg]


def test_the_search_keeps_its_own_copy_of_the_boost_spec():
    boost = {"condition_boost_specs": [{"condition": "rank = 1", "boost": 1.0}]}
    search = DiscoveryEngineChunkSearch(offline(), data_store_id="d", boost_spec=boost)
    boost["condition_boost_specs"] = []
    assert search.spec.boost_spec == {
        "condition_boost_specs": [{"condition": "rank = 1", "boost": 1.0}]
    }


def test_the_repr_names_the_serving_config_k_and_endpoint():
    search = DiscoveryEngineChunkSearch(offline(), engine_id="app", k=7)
    assert repr(search) == (
        "DiscoveryEngineChunkSearch(serving_config='projects/p/locations/global/collections/"
        "default_collection/engines/app/servingConfigs/default_search', k=7, endpoint='h:1')"
    )


def test_replace_changes_spec_options_and_validates_them_again():
    connection = offline()
    search = DiscoveryEngineChunkSearch(connection, data_store_id="d", k=3, filter="f")
    replaced = search.replace(k=9, order_by="o")
    assert replaced.spec == ChunkSearchSpec(k=9, filter="f", order_by="o")
    assert replaced.connection is connection
    assert replaced.target is search.target
    assert type(replaced) is DiscoveryEngineChunkSearch
    assert search.spec == ChunkSearchSpec(k=3, filter="f")  # the original is unchanged
    documents = search.replace(k=12, search_mode="documents")
    assert (documents.spec.k, documents.spec.search_mode) == (12, "documents")
    with pytest.raises(InputError, match="need search_mode='chunks'") as info:
        documents.replace(num_next_chunks=1)
    assert info.value.field == "chunk_spec"
    with pytest.raises(InputError) as info:
        search.replace(canonical_filter=1)
    assert info.value.field == "canonical_filter"


def test_replace_keeps_the_class_of_a_subclass():
    class Mine(DiscoveryEngineChunkSearch):
        __slots__ = ()

    assert type(Mine(offline(), data_store_id="d").replace(k=2)) is Mine


def test_the_argument_sets_are_the_connection_target_and_search_options():
    assert DiscoveryEngineTargetArgs.__optional_keys__ == {
        "engine_id",
        "data_store_id",
        "collection",
        "serving_config_id",
    }
    assert DiscoveryEngineChunkSearchArgs.__optional_keys__ == (
        DiscoveryEngineConnectionArgs.__optional_keys__
        | DiscoveryEngineTargetArgs.__optional_keys__
        | SearchOptions.__optional_keys__
    )
    assert DiscoveryEngineChunkSearchArgs.__required_keys__ == frozenset()


def test_one_flat_dict_of_arguments_splits_into_connection_and_search():
    arguments: dict[str, Any] = {
        "project_id": "p",
        "location": "eu",
        "emulator_host": "h:1",
        "timeout": 7.0,
        "retry": None,
        "engine_id": "e",
        "collection": "c",
        "serving_config_id": "s",
        "k": 3,
        "filter": "f",
    }
    own = DiscoveryEngineConnectionArgs.__optional_keys__
    connection = DiscoveryEngineConnection(**{k: v for k, v in arguments.items() if k in own})
    search = DiscoveryEngineChunkSearch(
        connection, **{k: v for k, v in arguments.items() if k not in own}
    )
    assert (connection.project, connection.location, connection.endpoint) == ("p", "eu", "h:1")
    assert (connection.call_options.timeout, connection.call_options.retry) == (7.0, None)
    assert search.target == DiscoveryEngineTarget(
        project="p", location="eu", engine="e", collection="c", serving_config="s"
    )
    assert search.spec == ChunkSearchSpec(k=3, filter="f")


# -- the calls ----------------------------------------------------------------------------------


@SYNC_ASYNC
async def test_a_search_returns_the_spec_s_k_chunks(connection, asynchronous):
    search = DiscoveryEngineChunkSearch(connection, data_store_id="test-docs")
    chunks = await result_of(searching(search, asynchronous), PAGING)
    assert type(chunks) is list
    assert len(chunks) == DEFAULT_SEARCH_K
    assert all(PAGING in c.content for c in chunks)
    results = await result_of(searching(search, asynchronous, results=True), PAGING)
    assert type(results) is SearchResults
    assert list(results.chunks) == chunks


@SYNC_ASYNC
async def test_per_call_k_and_filter_override_the_spec_for_that_call(connection, asynchronous):
    search = DiscoveryEngineChunkSearch(connection, data_store_id="test-docs", k=3)
    call = searching(search, asynchronous)
    assert len(await result_of(call, PAGING, k=2)) == 2
    assert len(await result_of(call, PAGING, k=7, filter=EVEN)) == 7
    even = await result_of(call, PAGING, filter=EVEN)
    assert len(even) == 3
    assert {c.struct_data["group"] for c in even} == {"even"}
    assert await result_of(call, PAGING, filter=JAPANESE) == []
    assert (search.spec.k, search.spec.filter) == (3, "")  # the spec is left alone
    japanese = search.replace(filter=JAPANESE)
    assert await result_of(searching(japanese, asynchronous), PAGING) == []
    assert await result_of(searching(japanese, asynchronous), PAGING, k=7) == []  # filter kept
    # An empty filter is a filter: it replaces the spec's (no filter), as None does not.
    assert len(await result_of(searching(japanese, asynchronous), PAGING, filter="")) == 3
    # The spec's other options (here its facets) stay with the per-call k and filter.
    faceted = search.replace(facet_specs=({"facet_key": {"key": "group"}},))
    odd = await result_of(
        searching(faceted, asynchronous, results=True), PAGING, k=2, filter='group: ANY("odd")'
    )
    assert (len(odd.chunks), odd.total_size) == (2, 125)
    assert odd.facets == (SearchFacet("group", (FacetValue(count=25, value="odd"),)),)
    plain = await result_of(searching(search, asynchronous, results=True), PAGING)
    assert (len(plain.chunks), plain.total_size, plain.facets) == (3, 250, ())
    assert list(plain.chunks) == await result_of(call, PAGING)


async def test_sync_and_async_searches_find_the_same_chunks(connection):
    search = DiscoveryEngineChunkSearch(connection, data_store_id="test-docs", k=5)
    found = await search.asearch("lighthouse keeper number 241", filter="rank = 24")
    assert found == search.search("lighthouse keeper number 241", filter="rank = 24")
    assert {c.document_id for c in found} == {"page-24"}
    assert len(found) == 5
    assert search.search("lighthouse keeper number 131", k=3)[0].document_id == "page-13"


@SYNC_ASYNC
async def test_bad_per_call_values_are_refused_before_any_call(connection, calls, asynchronous):
    search = DiscoveryEngineChunkSearch(connection, data_store_id="test-docs")
    for kwargs, field in (({"k": 0}, "k"), ({"filter": 1}, "filter"), ({"k": True}, "k")):
        with pytest.raises(InputError) as info:
            await result_of(searching(search, asynchronous), PAGING, **kwargs)
        assert info.value.field == field
    for query, words in (("", "query is empty"), (" \n", "query is empty"), (None, "string")):
        with pytest.raises(InputError, match=words) as info:
            await result_of(searching(search, asynchronous, results=True), query)
        assert info.value.field == "query"
    assert calls() == 0


@SYNC_ASYNC
@pytest.mark.parametrize(("k", "pages"), [(7, 1), (100, 1), (101, 2), (200, 2), (300, 3)])
async def test_only_the_pages_needed_for_k_are_fetched(connection, calls, asynchronous, k, pages):
    search = DiscoveryEngineChunkSearch(connection, data_store_id="test-docs")
    chunks = await result_of(searching(search, asynchronous), PAGING, k=k)
    assert len(chunks) == min(k, 250)  # 300 asked for: the 250 there are
    assert len({c.name for c in chunks}) == len(chunks)
    assert all(PAGING in c.content for c in chunks)
    assert calls() == pages


@SYNC_ASYNC
async def test_the_connection_s_retry_policy_is_used(retrying, emulator, asynchronous):
    # One fault per connection: a sync channel closed within 0.2 s of a second UNAVAILABLE
    # (each waits for the channel to be ready) races gRPC's connectivity-polling thread.
    search = DiscoveryEngineChunkSearch(retrying, data_store_id="test-docs", k=2)
    emulator.faults.fail("Search", code="UNAVAILABLE", times=1)
    assert len(await result_of(searching(search, asynchronous), PAGING)) == 2
    assert emulator.faults.pending == 0  # the fault was met, and retried


@SYNC_ASYNC
@pytest.mark.parametrize("results", [False, True], ids=["chunks", "results"])
async def test_without_retries_an_unavailable_service_is_an_error(
    connection, emulator, asynchronous, results
):
    search = DiscoveryEngineChunkSearch(connection, data_store_id="test-docs")
    emulator.faults.fail("Search", code="UNAVAILABLE", times=1)
    with pytest.raises(ServiceUnavailableError, match="UNAVAILABLE") as info:
        await result_of(searching(search, asynchronous, results), PAGING)
    assert isinstance(info.value.__cause__, core_exceptions.ServiceUnavailable)
    assert info.value.cause is info.value.__cause__


@SYNC_ASYNC
async def test_a_missing_data_store_is_not_found_naming_the_serving_config(
    connection, asynchronous
):
    search = DiscoveryEngineChunkSearch(connection, data_store_id="no-such-store")
    path = search.target.serving_config_path
    with pytest.raises(NotFoundError, match=f"^Search on {re.escape(path)} failed: NOT_FOUND"):
        await result_of(searching(search, asynchronous), PAGING)
    with pytest.raises(NotFoundError) as info:
        await result_of(searching(search, asynchronous, results=True), PAGING)
    assert isinstance(info.value.__cause__, core_exceptions.NotFound)


@SYNC_ASYNC
async def test_an_injected_not_found_names_the_serving_config(connection, emulator, asynchronous):
    search = DiscoveryEngineChunkSearch(connection, engine_id="test-app")
    emulator.faults.fail("Search", code="NOT_FOUND", times=1)
    path = re.escape(search.target.serving_config_path)
    with pytest.raises(NotFoundError, match=f"^Search on {path} failed: NOT_FOUND") as info:
        await result_of(searching(search, asynchronous, results=True), PAGING)
    assert isinstance(info.value.__cause__, core_exceptions.NotFound)


def test_a_request_over_the_size_limit_is_refused_before_it_is_sent(connection, calls):
    search = DiscoveryEngineChunkSearch(connection, data_store_id="test-docs")
    with pytest.raises(InputError, match=r"^the Search request is ") as info:
        search.search("q" * (10 * 1024 * 1024 + 1))
    assert (info.value.field, info.value.limit) == ("request", 10 * 1024 * 1024)
    assert calls() == 0


@SYNC_ASYNC
async def test_search_results_carry_the_response_level_values(connection, asynchronous):
    search = DiscoveryEngineChunkSearch(
        connection,
        data_store_id="test-docs",
        k=3,
        spell_correction="suggestion_only",
        query_expansion="auto",
        pin_unexpanded_results=True,
        facet_specs=({"facet_key": {"key": "script"}},),
    )
    results = await result_of(searching(search, asynchronous, results=True), "lampi Canaveral")
    assert results.corrected_query == "lamp Canaveral"
    assert (results.expanded_query, results.pinned_result_count) == (True, 1)
    assert results.total_size == 251
    assert [c.document_id for c in results.chunks][:1] == ["emoji"]
    assert len(results.chunks) == 3
    assert results.facets == (SearchFacet("script", (FacetValue(count=1, value="emoji"),)),)
    assert results.attribution_token  # "A unique search token", on every response
    plain = search.replace(
        spell_correction=None, query_expansion=None, pin_unexpanded_results=False, facet_specs=()
    )
    corrected = await result_of(
        searching(plain, asynchronous, results=True), "lighthuose keeper", k=1
    )
    assert corrected.corrected_query == "lighthouse keeper"
    assert corrected.total_size == 250
    assert (corrected.expanded_query, corrected.pinned_result_count, corrected.facets) == (
        False,
        0,
        (),
    )


@SYNC_ASYNC
async def test_an_engine_search_with_a_data_store_spec_and_interval_facets(
    connection, asynchronous
):
    search = DiscoveryEngineChunkSearch(
        connection,
        engine_id="test-app",
        k=2,
        data_store_specs=(DataStoreSpec("test-docs", filter='group: ANY("odd")'),),
        facet_specs=(
            {"facet_key": {"key": "rank", "intervals": [{"minimum": 0, "exclusive_maximum": 10}]}},
        ),
    )
    results = await result_of(searching(search, asynchronous, results=True), PAGING)
    assert results.total_size == 125
    assert len(results.chunks) == 2
    assert {c.struct_data["group"] for c in results.chunks} == {"odd"}
    assert results.facets == (
        SearchFacet(
            "rank", (FacetValue(count=5, interval={"minimum": 0.0, "exclusive_maximum": 10.0}),)
        ),
    )


@SYNC_ASYNC
async def test_boost_and_filter_reach_the_service(connection, asynchronous):
    search = DiscoveryEngineChunkSearch(
        connection,
        data_store_id="test-docs",
        k=5,
        filter='tags: ANY("t2")',
        boost_spec={"condition_boost_specs": [{"condition": "rank = 17", "boost": 1.0}]},
    )
    chunks = await result_of(searching(search, asynchronous), PAGING)
    assert [c.document_id for c in chunks] == ["page-17"] * 5
    assert chunks[0].rank_signals is not None
    assert chunks[0].rank_signals.boosting_factor == 2.0


@SYNC_ASYNC
async def test_documents_mode_on_an_engine(connection, asynchronous):
    search = DiscoveryEngineChunkSearch(
        connection, engine_id="test-app", k=2, search_mode="documents"
    )
    documents = await result_of(searching(search, asynchronous), "Cape Canaveral")
    assert documents[0].document_id == "emoji"
    assert documents[0].name == documents[0].document_name
    assert documents[0].uri == "https://example.com/rockets"
    assert documents[0].title == "Rockets 🚀"
    assert "Cape Canaveral 🇺🇸" in documents[0].content


# -- the request --------------------------------------------------------------------------------


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
def test_every_relevance_threshold_reaches_the_request(threshold, expected):
    request = search_request(TARGET, "q", ChunkSearchSpec(relevance_threshold=threshold))
    assert request.relevance_threshold == expected


@pytest.mark.parametrize(("k", "page_size"), [(1, 1), (7, 7), (100, 100), (101, 100), (250, 100)])
def test_a_page_holds_k_results_and_at_most_100(k, page_size):
    assert search_request(TARGET, "q", ChunkSearchSpec(k=k)).page_size == page_size


@pytest.mark.parametrize(
    ("holder", "names", "values"),
    [
        (SearchRequestPb, ("lowest", "high"), (THRESHOLD.LOWEST, THRESHOLD.HIGH)),
        (
            SearchRequestPb.ContentSearchSpec.SearchResultMode,
            ("chunks", "documents"),
            (MODE.CHUNKS, MODE.DOCUMENTS),
        ),
        (
            SearchRequestPb.SpellCorrectionSpec,
            ("suggestion_only", "auto"),
            (SPELL.SUGGESTION_ONLY, SPELL.AUTO),
        ),
    ],
)
def test_an_option_name_is_the_api_enum_value_of_its_upper_case_name(holder, names, values):
    # The request's enum tables are built with it at import; here called anew to check it.
    assert _enum(holder, names) == dict(zip(names, values, strict=True))


def set_fields(message: Any) -> set[str]:
    return {field.name for field, _ in message.ListFields()}


def test_a_chunk_request_has_every_field_of_the_spec():
    spec = ChunkSearchSpec(
        k=150,
        filter="f",
        order_by="o",
        num_previous_chunks=1,
        num_next_chunks=2,
        boost_spec={"condition_boost_specs": [{"condition": "c", "boost": 0.5}]},
    )
    assert search_request(TARGET, " q ", spec).query == " q "  # sent as given
    request = search_request(TARGET, "what is a list?", spec)
    assert type(request) is SearchRequestPb  # the raw protobuf message
    assert request.serving_config == TARGET.serving_config_path
    assert (request.query, request.page_size, request.filter, request.order_by) == (
        "what is a list?",
        100,
        "f",
        "o",
    )
    content = request.content_search_spec
    assert content.search_result_mode == MODE.CHUNKS
    assert (content.chunk_spec.num_previous_chunks, content.chunk_spec.num_next_chunks) == (1, 2)
    assert request.relevance_score_spec.return_relevance_score is True
    assert request.boost_spec.condition_boost_specs[0].condition == "c"
    assert request.boost_spec.condition_boost_specs[0].boost == 0.5


def test_a_plain_chunk_request_asks_for_chunks_and_scores_and_nothing_else():
    request = search_request(TARGET, "q", ChunkSearchSpec())
    assert set_fields(request) == {
        "serving_config",
        "query",
        "page_size",
        "content_search_spec",
        "relevance_score_spec",
    }
    # The chunk spec is asked for even without neighbours: the mode alone sends none.
    assert set_fields(request.content_search_spec) == {"search_result_mode", "chunk_spec"}
    assert set_fields(request.content_search_spec.chunk_spec) == set()
    assert request.page_size == DEFAULT_SEARCH_K


def test_documents_mode_asks_for_snippets_unless_told_not_to():
    plain = search_request(TARGET, "q", ChunkSearchSpec(search_mode="documents", k=5))
    content = plain.content_search_spec
    assert content.search_result_mode == MODE.DOCUMENTS
    assert set_fields(content) == {"search_result_mode", "snippet_spec"}
    assert content.snippet_spec.return_snippet is True
    assert plain.page_size == 5
    assert plain.relevance_threshold == THRESHOLD.RELEVANCE_THRESHOLD_UNSPECIFIED
    # return_snippet=False: an empty snippet spec, which asks for none (Google's default).
    off = ChunkSearchSpec(search_mode="documents", return_snippet=False)
    off_content = search_request(TARGET, "q", off).content_search_spec
    assert set_fields(off_content) == {"search_result_mode", "snippet_spec"}
    assert set_fields(off_content.snippet_spec) == set()
    on = ChunkSearchSpec(search_mode="documents", return_snippet=True)
    assert search_request(TARGET, "q", on).content_search_spec.snippet_spec.return_snippet


@pytest.mark.parametrize(
    ("answers", "segments", "score", "previous", "following"),
    [(2, 0, False, 0, 0), (0, 3, True, 1, 2), (5, 10, True, 0, 7), (0, 1, False, 0, 0)],
    ids=["answers", "segments", "both", "one-segment"],
)
def test_documents_mode_asks_for_the_extractive_content(
    answers, segments, score, previous, following
):
    spec = ChunkSearchSpec(
        search_mode="documents",
        max_extractive_answer_count=answers,
        max_extractive_segment_count=segments,
        return_extractive_segment_score=score,
        num_previous_segments=previous,
        num_next_segments=following,
    )
    content = search_request(TARGET, "q", spec).content_search_spec
    assert "chunk_spec" not in set_fields(content)
    extractive = content.extractive_content_spec
    assert (
        extractive.max_extractive_answer_count,
        extractive.max_extractive_segment_count,
        extractive.return_extractive_segment_score,
        extractive.num_previous_segments,
        extractive.num_next_segments,
    ) == (answers, segments, score, previous, following)


def test_the_query_options_reach_the_request():
    spec = ChunkSearchSpec(
        spell_correction="suggestion_only",
        query_expansion="auto",
        pin_unexpanded_results=True,
        canonical_filter='lang: ANY("日本語") AND NOT script: ANY("😀")',
        language_code="fr-CA",
        user_pseudo_id="visitor",
        session="s",
        relevance_filter_spec={"semantic_search_threshold": {"semantic_relevance_threshold": 0.5}},
        facet_specs=({"facet_key": {"key": "lang"}, "limit": 3}, {"facet_key": {"key": "x"}}),
    )
    request = search_request(TARGET, "q", spec)
    assert request.spell_correction_spec.mode == SearchRequestPb.SpellCorrectionSpec.SUGGESTION_ONLY
    assert request.query_expansion_spec.condition == SearchRequestPb.QueryExpansionSpec.AUTO
    assert request.query_expansion_spec.pin_unexpanded_results is True
    assert request.canonical_filter == 'lang: ANY("日本語") AND NOT script: ANY("😀")'
    assert (request.language_code, request.user_pseudo_id, request.session) == (
        "fr-CA",
        "visitor",
        "s",
    )
    threshold = request.relevance_filter_spec.semantic_search_threshold
    assert threshold.semantic_relevance_threshold == 0.5
    assert [(f.facet_key.key, f.limit) for f in request.facet_specs] == [("lang", 3), ("x", 0)]
    other = search_request(
        TARGET, "q", ChunkSearchSpec(spell_correction="auto", query_expansion="disabled")
    )
    assert other.spell_correction_spec.mode == SearchRequestPb.SpellCorrectionSpec.AUTO
    assert other.query_expansion_spec.condition == SearchRequestPb.QueryExpansionSpec.DISABLED
    assert other.query_expansion_spec.pin_unexpanded_results is False


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (
            TARGET,
            f"projects/{PROJECT}/locations/global/collections/default_collection/dataStores/docs",
        ),
        (
            DiscoveryEngineTarget(project="p", location="eu", engine="app", collection="c"),
            "projects/p/locations/eu/collections/c/dataStores/docs",
        ),
        (
            DiscoveryEngineTarget(project="p", data_store="d", collection=None),
            "projects/p/locations/global/dataStores/docs",
        ),
    ],
    ids=["data-store", "engine", "no-collection"],
)
def test_a_data_store_id_is_named_in_the_target_s_project_location_and_collection(target, expected):
    full = "projects/1/locations/global/collections/default_collection/dataStores/x"
    spec = ChunkSearchSpec(
        data_store_specs=(
            DataStoreSpec("docs", filter="f"),
            DataStoreSpec(
                full,
                boost_spec={"condition_boost_specs": [{"condition": "c", "boost": 0.25}]},
            ),
        )
    )
    first, second = search_request(target, "q", spec).data_store_specs
    assert (first.data_store, first.filter, set_fields(first)) == (
        expected,
        "f",
        {"data_store", "filter"},
    )
    assert (second.data_store, second.filter) == (full, "")  # a full name is kept
    assert second.boost_spec.condition_boost_specs[0].condition == "c"
    assert second.boost_spec.condition_boost_specs[0].boost == 0.25


def proto_plus_request(query: str, spec: ChunkSearchSpec) -> de.SearchRequest:
    """The request built the plain, slower way: proto-plus from keyword arguments and dicts."""
    content: dict[str, Any] = {"search_result_mode": spec.search_mode.upper()}
    if spec.search_mode == "chunks":
        content["chunk_spec"] = {
            "num_previous_chunks": spec.num_previous_chunks,
            "num_next_chunks": spec.num_next_chunks,
        }
    else:
        content["snippet_spec"] = {"return_snippet": spec.return_snippet is not False}
        if spec.max_extractive_answer_count or spec.max_extractive_segment_count:
            content["extractive_content_spec"] = {
                "max_extractive_answer_count": spec.max_extractive_answer_count,
                "max_extractive_segment_count": spec.max_extractive_segment_count,
                "return_extractive_segment_score": spec.return_extractive_segment_score,
                "num_previous_segments": spec.num_previous_segments,
                "num_next_segments": spec.num_next_segments,
            }
    options: dict[str, Any] = {
        "language_code": spec.language_code,
        "user_pseudo_id": spec.user_pseudo_id,
        "session": spec.session,
        "data_store_specs": [
            {
                "data_store": d.data_store
                if d.data_store.startswith("projects/")
                else f"projects/p/locations/global/collections/default_collection/dataStores/"
                f"{d.data_store}",
                "filter": d.filter,
                **({"boost_spec": d.boost_spec} if d.boost_spec else {}),
            }
            for d in spec.data_store_specs
        ],
        "facet_specs": list(spec.facet_specs),
    }
    if spec.spell_correction is not None:
        options["spell_correction_spec"] = {"mode": spec.spell_correction.upper()}
    if spec.query_expansion is not None:
        options["query_expansion_spec"] = {
            "condition": spec.query_expansion.upper(),
            "pin_unexpanded_results": spec.pin_unexpanded_results,
        }
    if spec.relevance_filter_spec is not None:
        options["relevance_filter_spec"] = spec.relevance_filter_spec
    request = de.SearchRequest(
        serving_config="projects/p/locations/global/collections/default_collection/"
        "dataStores/docs/servingConfigs/default_search",
        relevance_threshold=(spec.relevance_threshold or "relevance_threshold_unspecified").upper(),
        query=query,
        page_size=min(spec.k, 100),
        filter=spec.filter,
        canonical_filter=spec.canonical_filter,
        order_by=spec.order_by,
        content_search_spec=content,
        relevance_score_spec={"return_relevance_score": True},
        **options,
    )
    if spec.boost_spec is not None:
        request.boost_spec = de.SearchRequest.BoostSpec(spec.boost_spec)
    return request


@pytest.mark.parametrize(
    "spec",
    [
        ChunkSearchSpec(),
        ChunkSearchSpec(k=500, num_previous_chunks=2, num_next_chunks=3),
        ChunkSearchSpec(k=3, search_mode="documents", relevance_threshold="lowest"),
        ChunkSearchSpec(filter='lang: ANY("en")', order_by="title", relevance_threshold="high"),
        ChunkSearchSpec(boost_spec={"condition_boost_specs": [{"condition": "x", "boost": 0.5}]}),
        ChunkSearchSpec(search_mode="documents", return_snippet=False),
        ChunkSearchSpec(
            search_mode="documents",
            max_extractive_answer_count=2,
            max_extractive_segment_count=3,
            return_extractive_segment_score=True,
            num_previous_segments=1,
            num_next_segments=2,
        ),
        ChunkSearchSpec(
            spell_correction="suggestion_only",
            query_expansion="auto",
            pin_unexpanded_results=True,
            canonical_filter='lang: ANY("en")',
            language_code="en-US",
            user_pseudo_id="visitor-1",
            session="projects/p/locations/global/collections/default_collection/engines/e/sessions/s",
            relevance_filter_spec={"keyword_search_threshold": {"relevance_threshold": "LOW"}},
            data_store_specs=(
                DataStoreSpec("docs", filter='lang: ANY("en")'),
                DataStoreSpec(
                    "projects/9/locations/global/collections/default_collection/dataStores/m",
                    boost_spec={"condition_boost_specs": [{"condition": "y", "boost": 1}]},
                ),
            ),
            facet_specs=({"facet_key": {"key": "lang"}, "limit": 5},),
        ),
    ],
    ids=[
        "default",
        "neighbours",
        "documents",
        "filter",
        "boost",
        "no-snippets",
        "extractive",
        "query-options",
    ],
)
def test_the_raw_request_is_the_one_proto_plus_builds(spec):
    target = DiscoveryEngineTarget(project="p", data_store="docs")
    fast = search_request(target, "what is a list?", spec)
    plain = de.SearchRequest.pb(proto_plus_request("what is a list?", spec))
    assert fast == plain
    assert fast.SerializeToString(deterministic=True) == plain.SerializeToString(deterministic=True)


@pytest.mark.parametrize(
    ("query", "words"),
    [("", "^query is empty"), ("   ", "^query is empty"), (None, "^query must be a string")],
)
def test_a_request_needs_a_query(query, words):
    with pytest.raises(InputError, match=words) as info:
        search_request(TARGET, query, ChunkSearchSpec())
    assert (info.value.field, info.value.limit) == ("query", None)


@pytest.mark.parametrize(
    ("spec", "field", "message_type", "example"),
    [
        (
            ChunkSearchSpec(boost_spec={"no_such_field": 1}),
            "boost_spec",
            "BoostSpec",
            "{'condition_boost_specs': [{'condition': 'lang: ANY(\"en\")', 'boost': 0.5}]}",
        ),
        (
            ChunkSearchSpec(facet_specs=({"facet_key": {"key": "k"}}, {"facet_key": {"nope": 1}})),
            "facet_specs[1]",
            "FacetSpec",
            "{'facet_key': {'key': 'lang'}, 'limit': 10}",
        ),
        (
            ChunkSearchSpec(relevance_filter_spec={"nope": 1}),
            "relevance_filter_spec",
            "RelevanceFilterSpec",
            "{'keyword_search_threshold': {'relevance_threshold': 'LOW'}}",
        ),
        (
            ChunkSearchSpec(
                data_store_specs=(DataStoreSpec("d", boost_spec={"condition_boost_specs": 5}),)
            ),
            "boost_spec",
            "BoostSpec",
            "{'condition_boost_specs': [{'condition': 'lang: ANY(\"en\")', 'boost': 0.5}]}",
        ),
    ],
    ids=["boost", "facet", "relevance-filter", "data-store-boost"],
)
def test_a_malformed_api_dict_is_refused_naming_its_field_and_an_example(
    spec, field, message_type, example
):
    with pytest.raises(InputError) as info:
        search_request(TARGET, "q", spec)
    message = str(info.value)
    assert message.startswith(f"{field} is not a valid {message_type} (")
    assert message.endswith(f"); expected e.g. {example}")
    assert (info.value.field, info.value.limit) == (field, None)
    assert isinstance(info.value.__cause__, ValueError | TypeError | KeyError)


def test_boost_spec_builds_the_raw_message_of_its_dict_form():
    assert boost_spec(None) is None
    boost = boost_spec({"condition_boost_specs": [{"condition": "x", "boost": 0.5}]})
    assert type(boost) is de.SearchRequest.BoostSpec.pb()
    assert [(c.condition, c.boost) for c in boost.condition_boost_specs] == [("x", 0.5)]
    assert boost_spec({}) == de.SearchRequest.BoostSpec.pb()()
    assert BOOST_SPEC_EXAMPLE == (
        "{'condition_boost_specs': [{'condition': 'lang: ANY(\"en\")', 'boost': 0.5}]}"
    )


@pytest.mark.parametrize(
    ("value", "cause"),
    [
        ([1], TypeError),
        ("x", TypeError),
        ({"nope": 1}, ValueError),  # an unknown field
        ({"condition_boost_specs": [{"boost": "high"}]}, TypeError),
        (  # an unknown enum name
            {"condition_boost_specs": [{"boost_control_spec": {"interpolation_type": "NOPE"}}]},
            KeyError,
        ),
    ],
)
def test_boost_spec_refuses_what_is_not_a_boost_spec(value, cause):
    with pytest.raises(
        InputError, match=r"^data_store_specs\[0\]\.boost_spec is not a valid"
    ) as info:
        boost_spec(value, "data_store_specs[0].boost_spec")
    assert (info.value.field, info.value.limit) == ("data_store_specs[0].boost_spec", None)
    assert type(info.value.__cause__) is cause
    with pytest.raises(InputError) as info:
        boost_spec(value)
    assert info.value.field == "boost_spec"


def test_api_message_builds_any_message_from_its_dict_form():
    facet = api_message(de.SearchRequest.FacetSpec, {"facet_key": {"key": "k"}}, "f", "e.g.")
    assert type(facet) is de.SearchRequest.FacetSpec.pb()
    assert facet.facet_key.key == "k"
    with pytest.raises(InputError) as info:
        api_message(de.SearchRequest.FacetSpec, {"limit": "x"}, "facets[2]", "EXAMPLE")
    assert str(info.value).startswith("facets[2] is not a valid FacetSpec (")
    assert str(info.value).endswith("); expected e.g. EXAMPLE")
    assert info.value.field == "facets[2]"


# -- canonical_filter end to end ----------------------------------------------------------------

# "lighthouse" is in all 250 paging chunks; "markerz" is in none but widens to "marker", which
# only the six chunks of the sequence document have (tests/emulator/test_canonical_filter.py).
EXPANDING: dict[str, Any] = {
    "k": 10,
    "filter": 'group: ANY("sequence")',
    "spell_correction": "suggestion_only",
    "query_expansion": "auto",
}
WIDENED = "lighthouse markerz"


@SYNC_ASYNC
async def test_a_broad_canonical_filter_keeps_the_query_unexpanded(connection, asynchronous):
    search = DiscoveryEngineChunkSearch(connection, data_store_id="test-docs", **EXPANDING)
    # Under the filter alone the exact query matches nothing: expanded, the sequence's chunks.
    widened = await result_of(searching(search, asynchronous, results=True), WIDENED)
    assert [c.id for c in widened.chunks] == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert {c.document_id for c in widened.chunks} == {"sequence"}
    assert (widened.total_size, widened.expanded_query, widened.pinned_result_count) == (6, True, 0)
    assert widened.corrected_query == "lighthouse marker"
    # Under the canonical filter it matches 250 chunks: enough, so not expanded; the filter
    # leaves none of them.
    english = search.replace(canonical_filter='lang: ANY("en")')
    kept = await result_of(searching(english, asynchronous, results=True), WIDENED)
    assert kept.chunks == ()
    assert (kept.total_size, kept.expanded_query, kept.pinned_result_count) == (0, False, 0)
    assert kept.corrected_query == "lighthouse marker"


@SYNC_ASYNC
async def test_a_narrow_canonical_filter_expands_the_query(connection, asynchronous):
    search = DiscoveryEngineChunkSearch(
        connection, data_store_id="test-docs", **{**EXPANDING, "filter": ""}
    )
    plain = await result_of(searching(search, asynchronous, results=True), WIDENED)
    assert (plain.total_size, plain.expanded_query, len(plain.chunks)) == (250, False, 10)
    assert {c.document_id for c in plain.chunks} <= {f"page-{n:02d}" for n in range(50)}
    narrow = search.replace(canonical_filter=EXPANDING["filter"])
    results = await result_of(searching(narrow, asynchronous, results=True), WIDENED)
    assert (results.total_size, results.expanded_query, len(results.chunks)) == (256, True, 10)


def langchain_search(emulator, asynchronous: bool, **options):
    from langchain_grounding import DiscoveryEngineRetriever

    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address, **options
    )
    found = retriever.ainvoke(WIDENED) if asynchronous else retriever.invoke(WIDENED)
    return retriever.search.spec, found, lambda documents: [d.metadata for d in documents]


def llamaindex_search(emulator, asynchronous: bool, k: int, **options):
    from llamaindex_grounding import DiscoveryEngineRetriever

    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        similarity_top_k=k,
        **options,
    )
    found = retriever.aretrieve(WIDENED) if asynchronous else retriever.retrieve(WIDENED)
    return retriever.search.spec, found, lambda nodes: [n.node.metadata for n in nodes]


@SYNC_ASYNC
@pytest.mark.parametrize("retrieve", [langchain_search, llamaindex_search], ids=["lc", "li"])
async def test_the_framework_retrievers_pass_the_canonical_filter_on(
    emulator, retrieve, asynchronous
):
    async def found(**options):
        spec, pending, metadata_of = retrieve(emulator, asynchronous, **EXPANDING, **options)
        result = await pending if asynchronous else pending
        return spec, [(m["document_id"], m["chunk_id"]) for m in metadata_of(result)]

    spec, widened = await found()
    assert spec.canonical_filter == ""
    assert widened == [("sequence", f"c{n}") for n in range(1, 7)]
    spec, kept = await found(canonical_filter='lang: ANY("en")')
    assert spec.canonical_filter == 'lang: ANY("en")'
    assert kept == []
