"""Search summaries: the request, the refusals, one page fetched, the call options, the error's
resource, the component, and the conversion of the response (``grounding_core.summaries`` and
``convert.answer_from_search_summary``). The calls go to the session emulator."""

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    CallOptions,
    ChunkSearchSpec,
    DiscoveryEngineSearchSummary,
    DiscoveryEngineTarget,
    GroundedAnswer,
    InputError,
    NotFoundError,
    SearchOptions,
    SourceChunk,
    SummarySpec,
)
from grounding_core.convert import answer_from_search_summary, chunk_from_search_result
from grounding_core.summaries import (
    DEFAULT_SUMMARY_RESULT_COUNT,
    MAX_SUMMARY_RESULTS_CHUNKS,
    MAX_SUMMARY_RESULTS_DOCUMENTS,
    asearch_summary,
    search_summary,
    search_summary_request,
)

from .emulated import PROJECT, RETRYING, result_of

TARGET = DiscoveryEngineTarget(project=PROJECT, data_store="test-docs")
MODE = de.SearchRequest.ContentSearchSpec.SearchResultMode
Summary = de.SearchResponse.Summary.pb()
DOCUMENT = "projects/p/locations/global/dataStores/d/branches/default_branch/documents/doc-1"


def refusal(call, *args, **kwargs):
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    return str(info.value), info.value.field, info.value.limit


def test_the_limits_and_the_default():
    assert (MAX_SUMMARY_RESULTS_DOCUMENTS, MAX_SUMMARY_RESULTS_CHUNKS) == (10, 50)
    assert DEFAULT_SUMMARY_RESULT_COUNT == SummarySpec().result_count == 5
    assert SummarySpec(result_count=1).result_count == 1
    assert SummarySpec(result_count=50).result_count == 50


def test_spec_refusals():
    assert refusal(SummarySpec, result_count=0) == (
        "result_count must be between 1 and 50, got 0",
        "result_count",
        50,
    )
    assert refusal(SummarySpec, result_count=51)[0] == (
        "result_count must be between 1 and 50, got 51"
    )
    assert refusal(SummarySpec, result_count=True)[1] == "result_count"
    for name in ("preamble", "language_code", "model_version"):
        assert refusal(SummarySpec, **{name: None}) == (
            f"SummarySpec.{name} must be a string, got NoneType",
            name,
            None,
        )


def test_documents_mode_allows_ten_results():
    documents = ChunkSearchSpec(search_mode="documents")
    request = search_summary_request(TARGET, "q", SummarySpec(result_count=10), documents)
    assert request.content_search_spec.summary_spec.summary_result_count == 10
    assert refusal(
        search_summary_request, TARGET, "q", SummarySpec(result_count=11), documents
    ) == (
        "result_count must be between 1 and 10 in documents mode, got 11: lower it, or search "
        "in chunk mode (at most 50)",
        "result_count",
        10,
    )


def test_a_summary_request_has_every_field():
    search = ChunkSearchSpec(
        k=3, filter='lang: ANY("en")', order_by="rank", relevance_threshold="low"
    )
    summary = SummarySpec(
        result_count=4,
        include_citations=False,
        ignore_adversarial_query=True,
        ignore_non_summary_seeking_query=True,
        ignore_low_relevant_content=True,
        ignore_jail_breaking_query=True,
        preamble="p",
        language_code="de",
        model_version="stable",
        use_semantic_chunks=True,
    )
    request = search_summary_request(TARGET, "the query", summary, search)
    assert request.serving_config == TARGET.serving_config_path
    assert request.query == "the query"
    assert request.page_size == 4
    assert (request.filter, request.order_by) == ('lang: ANY("en")', "rank")
    assert request.relevance_threshold == de.SearchRequest.RelevanceThreshold.LOW
    content = request.content_search_spec
    assert content.search_result_mode == MODE.CHUNKS
    assert de.SearchRequest.ContentSearchSpec.SummarySpec.to_dict(content.summary_spec) == {
        "summary_result_count": 4,
        "include_citations": False,
        "ignore_adversarial_query": True,
        "ignore_non_summary_seeking_query": True,
        "ignore_low_relevant_content": True,
        "ignore_jail_breaking_query": True,
        "model_prompt_spec": {"preamble": "p"},
        "language_code": "de",
        "model_spec": {"version": "stable"},
        "use_semantic_chunks": True,
    }
    default = search_summary_request(TARGET, "q").content_search_spec.summary_spec
    assert (default.summary_result_count, default.include_citations) == (5, True)
    assert not default.ignore_adversarial_query
    assert not default.ignore_non_summary_seeking_query
    assert not default.ignore_low_relevant_content
    assert not default.ignore_jail_breaking_query
    assert not default.use_semantic_chunks
    assert refusal(search_summary_request, TARGET, " ")[1] == "query"


@pytest.fixture
def calls(emulator):
    """How many Search calls the emulator served since the fixture was set up."""
    emulator.faults.delay("Search", seconds=0)  # no delay: the calls are only counted
    start = emulator.faults.injected
    return lambda: emulator.faults.injected - start


def _summary(asynchronous):
    return asearch_summary if asynchronous else search_summary


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_one_page_is_fetched(de_clients, de_async_clients, calls, asynchronous):
    clients = de_async_clients if asynchronous else de_clients
    answer = await result_of(_summary(asynchronous), clients, TARGET, "lighthouse keeper")
    assert calls() == 1
    assert len(answer.references) == 5
    assert answer.citations
    assert not answer.skipped


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_the_options_are_used_and_the_resource_named(
    emulator, de_clients, de_async_clients, asynchronous
):
    clients = de_async_clients if asynchronous else de_clients
    emulator.faults.fail("Search", code="UNAVAILABLE", times=1)
    spec = SummarySpec(result_count=2)
    answer = await result_of(
        _summary(asynchronous), clients, TARGET, "東京 首都", spec, ChunkSearchSpec(), RETRYING
    )
    assert [r.document_id for r in answer.references] == ["cjk-ja", "cjk-zh"]
    emulator.faults.fail("Search", code="NOT_FOUND", times=1)
    with pytest.raises(NotFoundError) as info:
        await result_of(
            _summary(asynchronous),
            clients,
            TARGET,
            "東京",
            spec,
            ChunkSearchSpec(),
            CallOptions(retry=None),
        )
    assert str(info.value).startswith(f"Search on {TARGET.serving_config_path} failed: NOT_FOUND")


async def test_the_component_passes_everything_on(connections, emulator):
    connection, _ = connections
    search = ChunkSearchSpec(search_mode="documents")
    component = DiscoveryEngineSearchSummary.create(
        connection,
        engine_id="test-app",
        collection="default_collection",
        serving_config_id="default_config",
        search=search,
        result_count=3,
        include_citations=False,
    )
    assert component.target == DiscoveryEngineTarget(
        project=PROJECT, engine="test-app", serving_config="default_config"
    )
    assert component.spec == SummarySpec(result_count=3, include_citations=False)
    assert component.search is search
    answer = component.answer("Rockets launch crew")
    assert answer == await component.aanswer("Rockets launch crew")
    assert answer.citations == ()
    assert answer.references[0].name.endswith("/documents/emoji")
    assert refusal(
        DiscoveryEngineSearchSummary, connection, TARGET, SummarySpec(result_count=20), search
    )[1:] == ("result_count", 10)
    emulator.faults.fail("Search", code="UNAVAILABLE", times=1)
    with pytest.raises(Exception, match="UNAVAILABLE"):
        component.answer("x")  # the connection's options: no retry


def _response(**summary) -> object:
    response = de.SearchResponse.pb()()
    response.summary.CopyFrom(Summary(**summary))
    return response


def test_a_skipped_summary_is_its_fallback_text():
    reasons = [Summary.SummarySkippedReason.NO_RELEVANT_CONTENT, 99]
    answer = answer_from_search_summary(
        _response(summary_text="fallback", summary_skipped_reasons=reasons)
    )
    assert answer == GroundedAnswer(
        answer_text="fallback", skipped_reasons=("NO_RELEVANT_CONTENT", "99")
    )


def test_the_text_is_the_one_the_spans_index():
    metadata = {
        "summary": "Zoë runs. Bo sits.",
        "citation_metadata": {
            "citations": [
                {"start_index": 0, "end_index": 10, "sources": [{"reference_index": 1}]},
                {"start_index": 11, "end_index": 19, "sources": [{}, {"reference_index": 7}]},
            ]
        },
        "references": [
            {
                "title": "T0",
                "document": DOCUMENT,
                "uri": "https://e/0",
                "chunk_contents": [
                    {"content": "Zoë runs.", "page_identifier": "3"},
                    {"content": "Bo sits."},
                    {"content": "x", "page_identifier": "5"},
                ],
            },
            {"document": DOCUMENT + "x", "chunk_contents": [{"content": "Zoë runs."}]},
        ],
    }
    response = _response(summary_text="Zoë runs [2]. Bo sits [1].")
    response.summary.summary_with_metadata.CopyFrom(Summary.SummaryWithMetadata(**metadata))
    answer = answer_from_search_summary(response)
    assert answer.answer_text == "Zoë runs. Bo sits."
    first = SourceChunk(
        name=DOCUMENT,
        content="Zoë runs.\n\nBo sits.\n\nx",
        document_id="doc-1",
        document_name=DOCUMENT,
        uri="https://e/0",
        title="T0",
        page_identifier="3, 5",
    )
    second = SourceChunk(
        name=DOCUMENT + "x",
        content="Zoë runs.",
        document_id="doc-1x",
        document_name=DOCUMENT + "x",
    )
    assert answer.references == (first, second)
    one, two = answer.citations
    assert (one.start, one.end, one.byte_start, one.byte_end) == (0, 9, 0, 10)
    assert (one.text, one.reference_indices, one.references) == ("Zoë runs.", (1,), (second,))
    assert (two.start, two.end, two.byte_start, two.byte_end, two.text) == (
        10,
        18,
        11,
        19,
        "Bo sits.",
    )
    assert two.reference_indices == (0, 7)
    assert two.references == (first,)  # index 7 does not exist: left unresolved
    assert (answer.skipped_reasons, answer.state, answer.grounding_score) == ((), "", None)


def test_references_resolve_to_the_chunk_results():
    response = de.SearchResponse.pb()()
    chunk = response.results.add().chunk
    chunk.name = DOCUMENT + "/chunks/c2"
    chunk.content = "Zoë runs."
    chunk.relevance_score = 0.5
    other = response.results.add().chunk
    other.name = DOCUMENT + "/chunks/c3"
    other.content = "Bo sits."
    document = response.results.add().document
    document.name = DOCUMENT
    metadata = response.summary.summary_with_metadata
    metadata.summary = "Zoë runs."
    metadata.references.add(document=DOCUMENT, chunk_contents=[{"content": "Zoë runs."}])
    metadata.references.add(
        document=DOCUMENT, chunk_contents=[{"content": "x"}, {"content": "Bo sits."}]
    )
    metadata.references.add(document=DOCUMENT + "/other", chunk_contents=[{"content": "Bo sits."}])
    answer = answer_from_search_summary(response)
    first, second, third = answer.references
    assert first == chunk_from_search_result(response.results[0])
    assert first.relevance_score == 0.5
    assert second == chunk_from_search_result(response.results[1])
    assert third.name == DOCUMENT + "/other"  # another document's chunk does not match


def test_search_options_as_a_dict_and_their_refusals():
    to_spec = DiscoveryEngineSearchSummary.search_spec
    spec = ChunkSearchSpec(search_mode="documents")
    assert to_spec(spec) is spec
    assert to_spec({"search_mode": "documents", "filter": "f"}) == ChunkSearchSpec(
        search_mode="documents", filter="f"
    )
    assert to_spec({}) == ChunkSearchSpec()
    assert refusal(to_spec, ["filter"]) == (
        "search must be a ChunkSearchSpec or a dict of its options, e.g. "
        "{'filter': 'lang: ANY(\"en\")', 'search_mode': 'documents'}, got list",
        "search",
        None,
    )
    names = ", ".join(sorted(SearchOptions.__optional_keys__))
    assert "filter, " in names
    assert refusal(to_spec, {"zz": 1, "colour": 2, "filter": "f"}) == (
        f"search has no option 'colour': the options are ChunkSearchSpec's fields ({names})",
        "search.colour",
        None,
    )


def test_a_text_option_names_the_type_it_got():
    assert refusal(SummarySpec, preamble=3) == (
        "SummarySpec.preamble must be a string, got int",
        "preamble",
        None,
    )


def test_connect_splits_the_connection_from_the_summary_settings():
    summarizing = DiscoveryEngineSearchSummary.connect(
        project_id="p",
        location="eu",
        emulator_host="h:1",
        timeout=7.0,
        retry=None,
        data_store_id="d",
        collection="c",
        serving_config_id="s",
        search={"search_mode": "documents"},
        result_count=3,
        preamble="be brief",
    )
    assert summarizing.connection.project == "p"
    assert summarizing.connection.location == "eu"
    assert summarizing.connection.clients.endpoint == "h:1"
    assert summarizing.connection.call_options == CallOptions(timeout=7.0, retry=None)
    assert summarizing.target == DiscoveryEngineTarget(
        project="p", location="eu", data_store="d", collection="c", serving_config="s"
    )
    assert summarizing.spec == SummarySpec(result_count=3, preamble="be brief")
    assert summarizing.search == ChunkSearchSpec(search_mode="documents")
    default = DiscoveryEngineSearchSummary.connect(project_id="p", data_store_id="d")
    assert default.target == DiscoveryEngineTarget(project="p", data_store="d")
    assert (default.spec, default.search) == (SummarySpec(), ChunkSearchSpec())
    assert default.connection.call_options == CallOptions()
    summarizing.connection.close()
    default.connection.close()


async def test_the_async_component_uses_the_connection_options(connections, emulator):
    connection, _ = connections
    component = DiscoveryEngineSearchSummary.create(connection, data_store_id="test-docs")
    assert component.target == TARGET
    emulator.faults.fail("Search", code="UNAVAILABLE", times=1)
    with pytest.raises(Exception, match="UNAVAILABLE"):
        await component.aanswer("x")  # the connection's options: no retry
