"""Search options through Google's SearchServiceClient: snippets and extractive content in
DOCUMENTS mode, spell correction, query expansion, data store specs, facets, passed-through
fields and their documented limits."""

from __future__ import annotations

import time

import pytest
from google.api_core import exceptions
from google.cloud import discoveryengine_v1 as de

from grounding_emulator.corpus.records import Document
from grounding_emulator.search.engine import DocumentHit, SearchPage
from grounding_emulator.search.spelling import correct_query
from grounding_emulator.wire.messages.common import ChunkNames
from grounding_emulator.wire.messages.search import NO_SNIPPET, ContentOptions, search_response
from tests.conftest import PAGING_DOCUMENTS, PAGING_WORD, SECTIONS
from tests.emulator.conftest import ONCE, assert_error, serving_config, versioned_client

CHUNKS = de.SearchRequest.ContentSearchSpec.SearchResultMode.CHUNKS
DOCUMENTS = de.SearchRequest.ContentSearchSpec.SearchResultMode.DOCUMENTS
TEST_DOCS = (
    "projects/test-project/locations/global/collections/default_collection/dataStores/test-docs"
)
SUGGESTION_ONLY = {"mode": de.SearchRequest.SpellCorrectionSpec.Mode.SUGGESTION_ONLY}
AUTO_EXPANSION = {"condition": de.SearchRequest.QueryExpansionSpec.Condition.AUTO}


def search(client, query: str, **fields) -> de.SearchResponse:
    fields.setdefault("serving_config", serving_config())
    pager = client.search(request=de.SearchRequest(query=query, **fields), **ONCE)
    return next(iter(pager.pages))


def documents(client, query: str, content: dict, **fields) -> de.SearchResponse:
    spec = {"search_result_mode": DOCUMENTS, **content}
    return search(client, query, content_search_spec=spec, **fields)


def chunks(client, query: str = PAGING_WORD, **fields) -> de.SearchResponse:
    return search(client, query, content_search_spec={"search_result_mode": CHUNKS}, **fields)


# -- documents mode: only what was asked ----------------------------------------------------------


def test_documents_mode_without_specs_has_no_text(search_client):
    result = documents(search_client, "Cape Canaveral rockets", {}).results[0]
    assert result.id == "emoji"
    assert dict(result.document.derived_struct_data) == {
        "link": "https://example.com/rockets",
        "title": "Rockets 🚀",
    }


@pytest.mark.parametrize("snippet_spec", [{"return_snippet": True}, {"max_snippet_count": 1}])
def test_snippets_only_when_asked(search_client, snippet_spec):
    result = documents(search_client, "Cape Canaveral rockets", {"snippet_spec": snippet_spec})
    derived = result.results[0].document.derived_struct_data
    assert set(derived) == {"link", "title", "snippets"}
    [snippet] = derived["snippets"]
    assert dict(snippet) == {
        "snippet": "<b>Rockets</b> 🚀 <b>Rockets</b> 🚀 launch from <b>Cape Canaveral</b> 🇺🇸 "
        "every month. "
        "The astronaut crew "
        "👩‍🚀👨‍🚀 trains for years before a flight.",
        "snippet_status": "SUCCESS",
    }


@pytest.mark.parametrize(
    ("query", "document", "expected"),
    [
        (
            "東京 首都",  # a pair of the query's characters is a hit; neighbours share one <b>
            "cjk-ja",
            "<b>東京 東京</b>都は日本の<b>首都</b>です。人口は約千四百万人です。"
            "<b>東京</b>タワーは一九五八年に完成しました。",
        ),
        (
            "Páris cafés",  # decomposed accents stay inside their word's <b>
            "combining",
            "<b>Cafe\u0301s</b> The <b>cafe\u0301s</b> of <b>Pa\u0301ris</b> serve "
            "cre\u0300me bru\u0302le\u0301e. Zoe\u0308 orders a croissant every morning.",
        ),
        (
            "القاهرة عاصمة",
            "arabic",
            "<b>القاهرة القاهرة</b> هي <b>عاصمة</b> مصر. يبلغ عدد سكانها أكثر من عشرين مليون نسمة.",
        ),
    ],
)
def test_snippets_highlight_hits_in_bold_in_any_script(search_client, query, document, expected):
    """ "Snippets ... include hit highlighting in bold HTML tags" ("Get snippets and extracted
    content"); without its tags a snippet is its result's text, verbatim."""
    response = documents(search_client, query, {"snippet_spec": {"return_snippet": True}})
    [result] = [r for r in response.results if r.id == document]
    [snippet] = result.document.derived_struct_data["snippets"]
    assert dict(snippet) == {"snippet": expected, "snippet_status": "SUCCESS"}


def test_no_snippet_available_for_a_document_without_text():
    document = Document(id="empty", uri="https://x/empty", title="Empty", content="")
    hit = DocumentHit(0, document, relevance=0.0, keyword_score=0.0, boost=1.0, rank=1)
    response = search_response(
        SearchPage((hit,), 1),
        ChunkNames("projects/p/locations/global/collections/default_collection/dataStores/d"),
        return_relevance_score=False,
        boosted=False,
        content=ContentOptions(snippets=True),
    )
    derived = de.SearchResponse.wrap(response).results[0].document.derived_struct_data
    assert [dict(s) for s in derived["snippets"]] == [
        {"snippet": NO_SNIPPET, "snippet_status": "NO_SNIPPET_AVAILABLE"}
    ]
    assert NO_SNIPPET == "No snippet is available for this page."


def test_extractive_segments_count_and_score(search_client):
    spec = {"extractive_content_spec": {"max_extractive_segment_count": 2}}
    result = documents(search_client, f"{PAGING_WORD} keeper", spec, page_size=1).results[0]
    segments = result.document.derived_struct_data["extractive_segments"]
    assert len(segments) == 2
    # Without return_extractive_segment_score there is no relevanceScore.
    assert [set(s) for s in segments] == [{"content", "pageNumber"}] * 2
    assert all(PAGING_WORD in s["content"] for s in segments)
    assert "extractive_answers" not in result.document.derived_struct_data
    assert "snippets" not in result.document.derived_struct_data


def test_extractive_segments_with_neighbours(search_client):
    spec = {
        "extractive_content_spec": {
            "max_extractive_segment_count": 1,
            "num_previous_segments": 1,
            "num_next_segments": 2,
        }
    }
    response = documents(search_client, "ordinal 3", spec, filter='group: ANY("sequence")')
    [segment] = response.results[0].document.derived_struct_data["extractive_segments"]
    assert segment["content"] == "Step 3\n\nStep 3 of the sequence: ordinal marker number 3 of six."
    assert [s["content"].split("\n")[0] for s in segment["previous_segments"]] == ["Step 2"]
    assert [s["content"].split("\n")[0] for s in segment["next_segments"]] == ["Step 4", "Step 5"]


def test_extractive_answers_are_verbatim_sentences(search_client):
    spec = {"extractive_content_spec": {"max_extractive_answer_count": 2}}
    result = documents(search_client, "Cape Canaveral rockets launch", spec).results[0]
    answers = [dict(a) for a in result.document.derived_struct_data["extractive_answers"]]
    assert answers == [
        {"content": "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month.", "pageNumber": ""},
        {"content": "Rockets 🚀", "pageNumber": ""},
    ]


@pytest.mark.parametrize(
    ("extractive", "field"),
    [
        ({"max_extractive_answer_count": 6}, "max_extractive_answer_count must be between 0 and 5"),
        (
            {"max_extractive_answer_count": -1},
            "max_extractive_answer_count must be between 0 and 5",
        ),
        (
            {"max_extractive_segment_count": 11},
            "max_extractive_segment_count must be between 0 and 10",
        ),
        ({"num_previous_segments": -1}, "num_previous_segments must be >= 0"),
    ],
)
def test_extractive_limits(search_client, extractive, field):
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        documents(search_client, "rockets", {"extractive_content_spec": extractive})
    assert_error(
        excinfo, exceptions.InvalidArgument, "content_search_spec.extractive_content_spec."
    )
    assert field in excinfo.value.message


# -- spell correction -----------------------------------------------------------------------------


def test_spell_correction_is_auto_by_default(search_client):
    response = chunks(search_client, "lighthuose keeper", page_size=5)
    assert response.corrected_query == "lighthouse keeper"
    assert response.total_size == PAGING_DOCUMENTS * SECTIONS


def test_spell_correction_suggestion_only_searches_the_original(search_client):
    response = chunks(search_client, "lighthuose", spell_correction_spec=SUGGESTION_ONLY)
    assert response.corrected_query == "lighthouse"
    assert response.total_size == 0
    assert list(response.results) == []


def test_correct_words_are_left_alone(search_client):
    assert chunks(search_client, "lighthouse keeper", page_size=1).corrected_query == ""
    # No frequent vocabulary word is near this one: nothing to suggest.
    assert chunks(search_client, "xylophonist", page_size=1).corrected_query == ""


# -- query expansion ------------------------------------------------------------------------------


def test_query_expansion_is_disabled_by_default(search_client):
    response = chunks(search_client, "lampi Canaveral", spell_correction_spec=SUGGESTION_ONLY)
    assert response.total_size == 1
    assert not de.SearchResponse.pb(response).HasField("query_expansion_info")


def test_query_expansion_auto_widens_a_query_with_few_results(search_client):
    response = chunks(
        search_client,
        "lampi Canaveral",
        page_size=10,
        spell_correction_spec=SUGGESTION_ONLY,
        query_expansion_spec=AUTO_EXPANSION,
    )
    # "lampi" widens to "lamp", which every paging chunk has.
    assert response.total_size == 1 + PAGING_DOCUMENTS * SECTIONS
    assert response.query_expansion_info.expanded_query is True
    assert response.query_expansion_info.pinned_result_count == 0


def test_query_expansion_pins_the_unexpanded_results(search_client):
    response = chunks(
        search_client,
        "lampi Canaveral",
        page_size=10,
        spell_correction_spec=SUGGESTION_ONLY,
        query_expansion_spec={**AUTO_EXPANSION, "pin_unexpanded_results": True},
    )
    assert response.query_expansion_info.expanded_query is True
    assert response.query_expansion_info.pinned_result_count == 1
    assert "/documents/emoji/" in response.results[0].chunk.name
    assert all("/documents/page-" in r.chunk.name for r in response.results[1:])


def test_query_expansion_not_needed_for_enough_results(search_client):
    response = chunks(search_client, page_size=10, query_expansion_spec=AUTO_EXPANSION)
    assert response.query_expansion_info.expanded_query is False
    assert response.total_size == PAGING_DOCUMENTS * SECTIONS


# -- data store specs -----------------------------------------------------------------------------


def test_data_store_spec_filter_and_boost_apply(search_client):
    response = chunks(
        search_client,
        page_size=100,
        data_store_specs=[
            {
                "data_store": TEST_DOCS,
                "filter": 'group: ANY("even")',
                "boost_spec": {
                    "condition_boost_specs": [{"condition": "rank: IN(0, 3)", "boost": 1}]
                },
            }
        ],
    )
    assert response.total_size == PAGING_DOCUMENTS * SECTIONS // 2
    assert all(
        int(r.chunk.name.split("/documents/page-")[1][:2]) % 2 == 0 for r in response.results
    )
    assert response.results[0].chunk.document_metadata.struct_data["rank"] in (0, 2)
    assert response.results[0].rank_signals.boosting_factor == 2.0


@pytest.mark.parametrize(
    ("data_store", "fragment"),
    [
        (
            TEST_DOCS.replace("test-docs", "python-docs"),
            "is not a data store of this serving config",
        ),
        ("test-docs", "is not a data store name"),
    ],
)
def test_data_store_spec_must_name_the_served_data_store(search_client, data_store, fragment):
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        chunks(search_client, data_store_specs=[{"data_store": data_store}])
    assert_error(excinfo, exceptions.InvalidArgument, "data_store_specs[0].data_store", fragment)


def test_engine_takes_the_data_store_spec_of_its_data_store(search_client):
    response = chunks(
        search_client,
        page_size=1,
        serving_config=serving_config("test-app", kind="engines"),
        data_store_specs=[{"data_store": TEST_DOCS, "filter": 'group: ANY("odd")'}],
    )
    assert response.total_size == PAGING_DOCUMENTS * SECTIONS // 2


# -- facets ---------------------------------------------------------------------------------------


def facets_of(response: de.SearchResponse) -> list[tuple[str, list]]:
    out = []
    for facet in response.facets:
        values = []
        for value in facet.values:
            pb = de.SearchResponse.Facet.FacetValue.pb(value)
            kind = pb.WhichOneof("facet_value")
            label = value.value if kind == "value" else (pb.interval.minimum, pb.interval.maximum)
            values.append((label, value.count))
        out.append((facet.key, values))
    return out


def test_text_facets_count_matching_documents(search_client):
    response = chunks(
        search_client,
        page_size=1,
        facet_specs=[
            {"facet_key": {"key": "group"}},
            {"facet_key": {"key": "tags"}, "limit": 3},
            {"facet_key": {"key": "tags", "order_by": "count desc"}, "limit": 2},
            {"facet_key": {"key": "tags", "order_by": "value desc"}, "limit": 2},
        ],
    )
    assert facets_of(response) == [
        ("group", [("even", 25), ("odd", 25)]),
        ("tags", [("paging", 50), ("t0", 10), ("t1", 10)]),
        ("tags", [("paging", 50), ("t0", 10)]),
        ("tags", [("t4", 10), ("t3", 10)]),
    ]


def test_facets_follow_the_filter_in_documents_mode(search_client):
    response = documents(
        search_client,
        PAGING_WORD,
        {},
        filter='group: ANY("even")',
        facet_specs=[{"facet_key": {"key": "group"}}],
    )
    assert facets_of(response) == [("group", [("even", 25)])]


def test_numerical_facets_need_intervals(search_client):
    intervals = [{"minimum": 0, "maximum": 9}, {"minimum": 10, "maximum": 19}]
    response = chunks(
        search_client,
        page_size=1,
        facet_specs=[{"facet_key": {"key": "rank", "intervals": intervals}}],
    )
    assert facets_of(response) == [("rank", [((0.0, 9.0), 10), ((10.0, 19.0), 10)])]
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        chunks(search_client, facet_specs=[{"facet_key": {"key": "rank"}}])
    assert_error(excinfo, exceptions.InvalidArgument, "facet_specs[0].facet_key.intervals")


def test_facet_limits(search_client):
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        chunks(search_client, facet_specs=[{"facet_key": {"key": "group"}, "limit": -1}])
    assert_error(excinfo, exceptions.InvalidArgument, "facet_specs[0].limit must be >= 0")
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        chunks(search_client, facet_specs=[{"facet_key": {"key": "group"}}] * 101)
    assert_error(excinfo, exceptions.InvalidArgument, "facet_specs has 101 values; at most 100")


# -- passed through -------------------------------------------------------------------------------


def test_passed_through_fields_are_accepted(search_client):
    plain = chunks(search_client, page_size=3)
    response = chunks(
        search_client,
        page_size=3,
        user_pseudo_id="u" * 128,
        language_code="en-US",
        session="projects/test-project/locations/global/collections/default_collection/"
        "engines/test-app/sessions/-",
        relevance_filter_spec={
            "keyword_search_threshold": {"relevance_threshold": "LOW"},
            "semantic_search_threshold": {"semantic_relevance_threshold": 0.5},
        },
    )
    assert [r.chunk.name for r in response.results] == [r.chunk.name for r in plain.results]


def test_user_pseudo_id_limit(search_client):
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        chunks(search_client, user_pseudo_id="u" * 129)
    assert_error(excinfo, exceptions.InvalidArgument, "user_pseudo_id has 129 characters")


def test_semantic_relevance_threshold_range(search_client):
    spec = {"semantic_search_threshold": {"semantic_relevance_threshold": 1.5}}
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        chunks(search_client, relevance_filter_spec=spec)
    assert_error(
        excinfo,
        exceptions.InvalidArgument,
        "relevance_filter_spec.semantic_search_threshold.semantic_relevance_threshold",
    )


# -- the spelling rule, on the engine's data store --------------------------------------------


def test_spelling_rule_and_bounded_work(emulator):
    store = emulator.store.get("test-docs")
    # One edit (a letter left out, swapped, replaced); a moved letter in a long word; case folded.
    assert correct_query(store, "Keper") == "keeper"
    assert correct_query(store, "lighthuose") == "lighthouse"
    assert correct_query(store, "lmap") == "lamp"
    assert correct_query(store, "lighhouset") == "lighthouse"
    assert correct_query(store, "kpeeer") is None  # a moved letter in a short word
    # Short words, digits, stop words and known words are left alone.
    assert correct_query(store, "lmp t9x9 the lamp") is None
    # A long query of unknown words costs dictionary probes per word, not a scan.
    started = time.perf_counter()
    assert correct_query(store, " ".join(["qzxwvut"] * 2000)) is None
    assert time.perf_counter() - started < 5


def test_search_sessions_must_exist(emulator, search_client):
    sessions = versioned_client(de, "SessionServiceClient", emulator.address)
    parent = TEST_DOCS
    created = sessions.create_session(parent=parent, session={}, **ONCE)
    sessions.transport.close()
    assert chunks(search_client, page_size=1, session=created.name).total_size == 250
    assert chunks(search_client, page_size=1, session=f"{parent}/sessions/-").total_size == 250
    with pytest.raises(exceptions.NotFound) as excinfo:
        chunks(search_client, session=f"{parent}/sessions/123456789")
    assert_error(excinfo, exceptions.NotFound, f"session '{parent}/sessions/123456789' not found")
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        chunks(search_client, session="my-session")
    assert_error(excinfo, exceptions.InvalidArgument, "session 'my-session' is not a session name")


def test_text_facet_values_can_be_restricted(search_client):
    response = chunks(
        search_client,
        page_size=1,
        facet_specs=[
            {"facet_key": {"key": "tags", "restricted_values": ["t1", "t9"]}},
            {"facet_key": {"key": "tags", "prefixes": ["T"], "case_insensitive": True}},
            {"facet_key": {"key": "tags", "contains": ["gin"]}},
            {"facet_key": {"key": "tags", "prefixes": ["T"]}},
        ],
    )
    assert facets_of(response) == [
        ("tags", [("t1", 10)]),
        ("tags", [("t0", 10), ("t1", 10), ("t2", 10), ("t3", 10), ("t4", 10)]),
        ("tags", [("paging", 50)]),
        ("tags", []),
    ]
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        chunks(search_client, facet_specs=[{"facet_key": {"key": "tags", "prefixes": ["t"] * 11}}])
    assert_error(excinfo, exceptions.InvalidArgument, "facet_specs[0].facet_key.prefixes has 11")
