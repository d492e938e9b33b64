"""``grounding_core.metadata``: the flat, JSON-safe metadata of chunks, checks and answers.

Covers ``chunk_metadata`` in both layouts (every key, with every field set and with none),
``flat_metadata`` (struct data keys at the top level, ours winning, values copied),
``check_metadata_layout``, ``rank_signals_metadata`` (the fast path against ``to_dict``),
``neighbour_metadata``, ``grounding_metadata``, ``answer_metadata`` (reference ids it can
resolve, citation annotations), ``search_response_metadata``, ``grounding_source`` with
``FACT_ATTRIBUTE_EXCLUDES``, and the key sets the adapters read.
"""

from __future__ import annotations

import datetime as dt
import json

import numpy as np
import pytest
from google.cloud import discoveryengine_v1 as de
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_core import (
    AnswerCitation,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingResult,
    GroundingSource,
    GroundingSupport,
    InputError,
    SearchResults,
    SourceChunk,
    answer_metadata,
    chunk_metadata,
    grounding_metadata,
    grounding_source,
    search_response_metadata,
)
from grounding_core._records import (
    AnnotationMetadata,
    FacetValue,
    PageSpan,
    RankSignals,
    SearchFacet,
)
from grounding_core.metadata import (
    CHUNK_PROSE_KEYS,
    DEFAULT_METADATA_LAYOUT,
    FACT_ATTRIBUTE_EXCLUDES,
    METADATA_LAYOUTS,
    check_metadata_layout,
    flat_metadata,
    neighbour_metadata,
    rank_signals_metadata,
)
from grounding_core.search.results import chunks_from_results

FULL_CHUNK = SourceChunk(
    name="d/chunks/c1",
    content="Text",
    id="c1",
    document_id="d",
    document_name="docs/d",
    uri="https://d.example",
    title="D",
    mime_type="text/html",
    description="About d",
    data_source="d.example",
    update_time=dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.timezone.utc),
    struct_data={"k": [1]},
    derived_struct_data={"link": "https://d.example"},
    page_span=PageSpan(2, 3),
    page_identifier="2",
    previous_chunks=(SourceChunk(name="d/chunks/c0", content="Before", id="c0", title="x"),),
    next_chunks=(SourceChunk(name="d/chunks/c2", content="After", id="c2"),),
    relevance_score=0.5,
    rank_signals=RankSignals(relevance_score=0.25, custom_signals={"s": 1.5}),
    model_scores={"m": (0.1, 0.2)},
    annotation_contents=("| a |",),
    annotation_metadata=(AnnotationMetadata("TABLE", "| a |", "img"),),
    data_urls=("data:,x",),
)

FULL_METADATA = {
    "source": "https://d.example",
    "id": "d",
    "uri": "https://d.example",
    "title": "D",
    "chunk_name": "d/chunks/c1",
    "chunk_id": "c1",
    "document_id": "d",
    "document_name": "docs/d",
    "mime_type": "text/html",
    "description": "About d",
    "data_source": "d.example",
    "update_time": "2024-05-06T07:08:09+00:00",
    "relevance_score": 0.5,
    "page_start": 2,
    "page_end": 3,
    "page_identifier": "2",
    "struct_data": {"k": [1]},
    "derived_struct_data": {"link": "https://d.example"},
    "rank_signals": {"relevance_score": 0.25, "custom_signals": {"s": 1.5}},
    "model_scores": {"m": [0.1, 0.2]},
    "previous_chunks": [{"name": "d/chunks/c0", "id": "c0", "content": "Before"}],
    "next_chunks": [{"name": "d/chunks/c2", "id": "c2", "content": "After"}],
    "annotation_contents": ["| a |"],
    "annotation_metadata": [{"structure_type": "TABLE", "content": "| a |", "image_id": "img"}],
    "data_urls": ["data:,x"],
}

EMPTY_METADATA = {
    "source": "",
    "id": "",
    "uri": "",
    "title": "",
    "chunk_name": "n",
    "chunk_id": "",
    "document_id": "",
    "document_name": "",
    "mime_type": "",
    "description": "",
    "data_source": "",
    "update_time": None,
    "relevance_score": None,
    "page_start": None,
    "page_end": None,
    "page_identifier": "",
    "struct_data": {},
    "derived_struct_data": {},
    "rank_signals": {},
    "model_scores": {},
    "previous_chunks": [],
    "next_chunks": [],
    "annotation_contents": [],
    "annotation_metadata": [],
    "data_urls": [],
}


# -- chunks ------------------------------------------------------------------------------------


def test_every_chunk_field_is_kept_in_the_default_layout():
    metadata = chunk_metadata(FULL_CHUNK)
    assert metadata == FULL_METADATA
    assert list(metadata) == list(FULL_METADATA)
    assert json.loads(json.dumps(metadata)) == metadata
    assert chunk_metadata(FULL_CHUNK, "default") == FULL_METADATA
    assert DEFAULT_METADATA_LAYOUT == "default"


def test_a_chunk_without_fields_has_every_key_empty():
    assert chunk_metadata(SourceChunk(name="n", content="c")) == EMPTY_METADATA


def test_the_metadata_is_a_copy_of_the_records_values():
    metadata = chunk_metadata(FULL_CHUNK)
    metadata["struct_data"]["new"] = 1
    metadata["derived_struct_data"]["new"] = 1
    assert "new" not in FULL_CHUNK.struct_data
    assert "new" not in FULL_CHUNK.derived_struct_data


def test_every_record_field_but_the_content_has_a_key():
    renamed = {"name": "chunk_name", "id": "chunk_id", "page_span": "page_start"}
    fields = set(SourceChunk.__dataclass_fields__) - {"content"}
    assert {renamed.get(name, name) for name in fields} <= set(EMPTY_METADATA)


def test_a_converted_search_result_gives_json_safe_metadata():
    document = "projects/p/locations/global/collections/c/dataStores/s/branches/0/documents"
    result = de.SearchResponse.SearchResult(
        id="c1",
        chunk=de.Chunk(
            name=f"{document}/doc-1/chunks/c1",
            id="c1",
            content="Généralités: 数据 🚀",
            relevance_score=-0.75,  # documented in [-1, 1]
            document_metadata=de.Chunk.DocumentMetadata(
                uri="https://example.com/doc-1",
                title="Doc one",
                struct_data={"tags": ["a", "b"], "nested": {"ok": True, "none": None}},
            ),
            page_span=de.Chunk.PageSpan(page_start=3, page_end=4),
            chunk_metadata=de.Chunk.ChunkMetadata(
                previous_chunks=[de.Chunk(name=f"{document}/doc-1/chunks/c0", id="c0")]
            ),
        ),
        model_scores={"relevance": de.DoubleList(values=[0.1, 0.2])},
        rank_signals=de.SearchResponse.SearchResult.RankSignals(
            keyword_similarity_score=1.25,
            default_rank=2,
            custom_signals=[
                de.SearchResponse.SearchResult.RankSignals.CustomSignal(name="bm25", value=1.5)
            ],
        ),
    )
    (chunk,) = chunks_from_results([de.SearchResponse.SearchResult.pb(result)])
    metadata = chunk_metadata(chunk)
    assert json.loads(json.dumps(metadata)) == metadata
    assert (metadata["source"], metadata["uri"]) == ("https://example.com/doc-1",) * 2
    assert (metadata["chunk_id"], metadata["document_id"]) == ("c1", "doc-1")
    assert (metadata["page_start"], metadata["page_end"]) == (3, 4)
    assert metadata["relevance_score"] == -0.75
    assert metadata["struct_data"] == {"tags": ["a", "b"], "nested": {"ok": True, "none": None}}
    assert metadata["rank_signals"] == {
        "keyword_similarity_score": 1.25,
        "default_rank": 2.0,
        "custom_signals": {"bm25": 1.5},
    }
    assert metadata["model_scores"] == {"relevance": [0.1, 0.2]}
    assert metadata["previous_chunks"] == [
        {"name": f"{document}/doc-1/chunks/c0", "id": "c0", "content": ""}
    ]


def test_a_neighbour_is_its_name_id_and_content():
    assert neighbour_metadata(FULL_CHUNK.previous_chunks[0]) == {
        "name": "d/chunks/c0",
        "id": "c0",
        "content": "Before",
    }


# -- the flat layout ---------------------------------------------------------------------------


def test_the_flat_layout_adds_the_struct_keys():
    struct = {
        "title": "Struct title",
        "id": "struct-id",
        "struct_data": "shadowed",
        "year": 2024,
        "名前": "東京 🚀",
        "tags": ["a", {"b": 1}],
    }
    chunk = SourceChunk(
        name="docs/d", content="T", document_id="d", title="Ours", struct_data=struct
    )
    default = chunk_metadata(chunk)
    flat = chunk_metadata(chunk, "flat")
    assert flat == {**default, "year": 2024, "名前": "東京 🚀", "tags": ["a", {"b": 1}]}
    # Our keys win on a clash; the struct values stay in struct_data.
    assert (flat["id"], flat["title"], flat["struct_data"]) == ("d", "Ours", struct)
    assert list(flat) == [*default, "year", "名前", "tags"]
    # The top-level values are copies: changing one changes neither struct_data nor the record.
    flat["tags"][1]["b"] = 2
    assert flat["struct_data"]["tags"] == ["a", {"b": 1}] == chunk.struct_data["tags"]
    assert flat_metadata(default, chunk) == flat | {"tags": ["a", {"b": 1}]}


def test_the_flat_layout_of_a_chunk_without_struct_data():
    chunk = SourceChunk(name="n", content="c")
    assert chunk_metadata(chunk, "flat") == EMPTY_METADATA


def test_flat_metadata_keeps_the_metadata_it_is_given():
    chunk = SourceChunk(name="n", content="c", document_id="d", struct_data={"a": 1, "b": 2})
    given = {"b": "ours"}
    assert flat_metadata(given, chunk) == {"b": "ours", "a": 1}
    assert given == {"b": "ours"}


@pytest.mark.parametrize("layout", ["default", "flat"])
def test_the_known_layouts(layout):
    assert check_metadata_layout(layout) == layout
    assert METADATA_LAYOUTS == ("default", "flat")


@pytest.mark.parametrize("bad", ["Flat", "", None, ["flat"], 0])
def test_an_unknown_layout_is_refused_naming_metadata_layout(bad):
    with pytest.raises(InputError, match="metadata_layout must be 'default' or 'flat'") as info:
        check_metadata_layout(bad)
    assert (info.value.field, info.value.limit) == ("metadata_layout", None)
    with pytest.raises(InputError, match=f"got {bad!r}".replace("[", r"\[")) as info:
        chunk_metadata(SourceChunk(name="n", content="c"), bad)
    assert (info.value.field, info.value.limit) == ("metadata_layout", None)


# -- rank signals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("signals", "metadata"),
    [
        (RankSignals(), {}),
        (RankSignals(relevance_score=0.0), {"relevance_score": 0.0}),
        (
            RankSignals(relevance_score=0.5, default_rank=1.0),
            {"relevance_score": 0.5, "default_rank": 1.0},
        ),
        (RankSignals(pctr_rank=1), {"pctr_rank": 1}),  # an int from a caller is kept
        (RankSignals(custom_signals={}), {}),
        (RankSignals(custom_signals={"s": 0.0}), {"custom_signals": {"s": 0.0}}),
        (RankSignals(precomputed_expression_values=()), {}),
        (RankSignals(precomputed_expression_values=[]), {}),  # a list from a caller
        (
            RankSignals(precomputed_expression_values=[0.5]),
            {"precomputed_expression_values": [0.5]},
        ),
        (
            RankSignals(precomputed_expression_values=(1.0, 2.0)),
            {"precomputed_expression_values": [1.0, 2.0]},
        ),
        (
            RankSignals(
                keyword_similarity_score=1.0,
                relevance_score=2.0,
                semantic_similarity_score=3.0,
                pctr_rank=4.0,
                topicality_rank=5.0,
                document_age=6.0,
                boosting_factor=7.0,
                default_rank=8.0,
            ),
            {
                "keyword_similarity_score": 1.0,
                "relevance_score": 2.0,
                "semantic_similarity_score": 3.0,
                "pctr_rank": 4.0,
                "topicality_rank": 5.0,
                "document_age": 6.0,
                "boosting_factor": 7.0,
                "default_rank": 8.0,
            },
        ),
    ],
    ids=[
        "none",
        "zero",
        "two",
        "int",
        "no-custom",
        "custom",
        "no-values",
        "an-empty-list",
        "a-list",
        "values",
        "every-float",
    ],
)
def test_rank_signals_metadata_keeps_the_signals_that_are_set(signals, metadata):
    assert rank_signals_metadata(signals) == metadata
    assert list(rank_signals_metadata(signals)) == list(metadata)


SCORES = st.none() | st.floats(allow_nan=False, width=32)


@settings(max_examples=60, deadline=None)
@given(
    st.builds(
        RankSignals,
        keyword_similarity_score=SCORES,
        relevance_score=SCORES,
        semantic_similarity_score=SCORES,
        pctr_rank=SCORES,
        topicality_rank=SCORES,
        document_age=SCORES,
        boosting_factor=SCORES,
        default_rank=SCORES,
        custom_signals=st.dictionaries(st.text(max_size=5), st.floats(allow_nan=False), max_size=3),
        precomputed_expression_values=st.lists(st.floats(allow_nan=False), max_size=3).map(tuple),
    )
)
def test_rank_signals_metadata_is_to_dict_without_empty_values(signals):
    expected = {k: v for k, v in signals.to_dict().items() if v not in (None, {}, [])}
    assert rank_signals_metadata(signals) == expected


# -- grounding sources -------------------------------------------------------------------------


def test_the_fact_attribute_excludes_are_the_bulky_keys():
    assert (
        frozenset(
            {
                "previous_chunks",
                "next_chunks",
                "rank_signals",
                "model_scores",
                "annotation_contents",
                "annotation_metadata",
                "data_urls",
                "derived_struct_data",
            }
        )
        == FACT_ATTRIBUTE_EXCLUDES
    )
    assert frozenset({"title", "source", "description"}) == CHUNK_PROSE_KEYS


@pytest.mark.parametrize("key", sorted(FACT_ATTRIBUTE_EXCLUDES))
def test_a_grounding_source_leaves_out_each_bulky_key(key):
    assert grounding_source("t", {key: ["x"], "title": "T"}) == GroundingSource("t", {"title": "T"})


def test_a_grounding_source_keeps_its_text_and_drops_empty_values():
    source = grounding_source(
        "Fact ✓", {"title": "T", "empty": "", "none": None, "l": [], "d": {}, "n": 0, "f": False}
    )
    assert source == GroundingSource("Fact ✓", {"title": "T", "n": 0, "f": False})


def test_a_grounding_source_of_a_chunks_metadata_keeps_its_description():
    source = grounding_source(FULL_CHUNK.content, chunk_metadata(FULL_CHUNK))
    assert source.text == "Text"
    assert set(source.metadata) == set(FULL_METADATA) - FACT_ATTRIBUTE_EXCLUDES
    assert source.metadata["struct_data"] == {"k": [1]}


def test_a_grounding_source_of_odd_metadata():
    # == on an array compares element-wise: emptiness is checked without it.
    array = np.array([0, 0])
    source = grounding_source("t", {"a": array, "b": [], "c": {}, "d": (), "e": False})
    assert source.metadata["a"] is array
    assert {k: v for k, v in source.metadata.items() if k != "a"} == {"d": (), "e": False}
    # None is no metadata; anything else is kept, for the facts to refuse naming the source.
    assert grounding_source("t", None) == GroundingSource("t", {})
    assert grounding_source("t", ["x"]) == GroundingSource("t", ["x"])  # type: ignore[arg-type]


# -- checks, answers, search responses --------------------------------------------------------


def test_grounding_metadata_has_every_key():
    cited = CitedChunk("Fact", source_index=1, fact_index=0, attributes={"k": "v"}, uri="u")
    again = CitedChunk("Fact 2", source_index=1, fact_index=1)
    result = GroundingResult(
        "Oui. Non.",
        0.5,
        (
            Claim("Oui.", 0, 4, 0, 4, (0, 1), (cited, again), score=0.9),
            Claim("Non.", 5, 9, 5, 9, score=0.1),
            Claim("Hm.", grounding_check_required=False),
        ),
        (cited,),
    )
    metadata = grounding_metadata(result)
    assert json.loads(json.dumps(metadata)) == metadata
    assert metadata == {
        "support_score": 0.5,
        "claims": [
            {
                "text": "Oui.",
                "start": 0,
                "end": 4,
                "byte_start": 0,
                "byte_end": 4,
                "status": "supported",
                "score": 0.9,
                "grounding_check_required": True,
                "citation_indices": [0, 1],
                "source_indices": [1],
            },
            {
                "text": "Non.",
                "start": 5,
                "end": 9,
                "byte_start": 5,
                "byte_end": 9,
                "status": "unsupported",
                "score": 0.1,
                "grounding_check_required": True,
                "citation_indices": [],
                "source_indices": [],
            },
            {
                "text": "Hm.",
                "start": None,
                "end": None,
                "byte_start": None,
                "byte_end": None,
                "status": "not_checked",
                "score": None,
                "grounding_check_required": False,
                "citation_indices": [],
                "source_indices": [],
            },
        ],
        "cited_chunks": [
            {
                "text": "Fact",
                "source_index": 1,
                "fact_index": 0,
                "attributes": {"k": "v"},
                "uri": "u",
                "title": "",
                "domain": "",
            }
        ],
        "unsupported_claims": 1,
    }


def test_the_grounding_metadata_of_no_claims():
    assert grounding_metadata(GroundingResult("", None)) == {
        "support_score": None,
        "claims": [],
        "cited_chunks": [],
        "unsupported_claims": 0,
    }


def test_the_spans_of_a_claim_slice_the_answer_in_any_script():
    answer = "Paris est la capitale ✓. 日本 😀. e\u0301 fin."
    claims = []
    for text in ("Paris est la capitale ✓.", "日本 😀.", "e\u0301 fin."):
        start = answer.index(text)
        byte_start = len(answer[:start].encode())
        claims.append(
            Claim(text, start, start + len(text), byte_start, byte_start + len(text.encode()))
        )
    for claim in grounding_metadata(GroundingResult(answer, 0.5, tuple(claims)))["claims"]:
        assert answer[claim["start"] : claim["end"]] == claim["text"]
        assert answer.encode()[claim["byte_start"] : claim["byte_end"]].decode() == claim["text"]


def test_answer_metadata_names_the_references_it_can_resolve():
    first = SourceChunk(name="docs/c0", content="Zero", uri="https://0", title="Z")
    second = SourceChunk(name="docs/c1", content="One")
    answer = GroundedAnswer(
        "Ça. Là.",
        # Reference 0, one past the end (2) and an unknown one (-1): only 0 has an id.
        (AnswerCitation(0, 3, 0, 4, "Ça.", (0, 2, -1), (first,)),),
        (first, second),
        grounding_score=0.75,
        grounding_supports=(GroundingSupport(4, 7, 5, 9, "Là.", 0.5, True, (1, 5), (second,)),),
        state="SUCCEEDED",
        skipped_reasons=("LOW",),
        related_questions=("Et ?",),
        name="answers/a",
        session="sessions/s",
    )
    metadata = answer_metadata(answer)
    assert json.loads(json.dumps(metadata)) == metadata
    assert metadata == {
        "grounding_score": 0.75,
        "citations": [
            {
                "text": "Ça.",
                "start": 0,
                "end": 3,
                "byte_start": 0,
                "byte_end": 4,
                "reference_indices": [0, 2, -1],
                "source_ids": ["docs/c0"],
            }
        ],
        "grounding_supports": [
            {
                "text": "Là.",
                "start": 4,
                "end": 7,
                "byte_start": 5,
                "byte_end": 9,
                "reference_indices": [1, 5],
                "source_ids": ["docs/c1"],
                "score": 0.5,
                "grounding_check_required": True,
            }
        ],
        "state": "SUCCEEDED",
        "skipped_reasons": ["LOW"],
        "related_questions": ["Et ?"],
        "answer_name": "answers/a",
        "session": "sessions/s",
        # Only the citations (not the grounding supports) are citation annotations.
        "citation_annotations": [
            {
                "start_index": 0,
                "end_index": 3,
                "cited_text": "Zero",
                "source_index": 0,
                "source_id": "docs/c0",
                "url": "https://0",
                "title": "Z",
                "claim_index": None,
            }
        ],
    }


def test_the_metadata_of_a_skipped_answer_has_every_key():
    assert answer_metadata(GroundedAnswer("", skipped_reasons=("NO_RELEVANT_CONTENT",))) == {
        "grounding_score": None,
        "citations": [],
        "grounding_supports": [],
        "state": "",
        "skipped_reasons": ["NO_RELEVANT_CONTENT"],
        "related_questions": [],
        "answer_name": "",
        "session": "",
        "citation_annotations": [],
    }


def test_a_grounding_support_without_a_score_keeps_its_none():
    support = GroundingSupport(0, 3, 0, 3, "Oui")
    (item,) = answer_metadata(GroundedAnswer("Oui", grounding_supports=(support,)))[
        "grounding_supports"
    ]
    assert (item["score"], item["grounding_check_required"], item["source_ids"]) == (None, None, [])


def test_the_search_response_metadata_is_every_field_but_the_chunks():
    results = SearchResults(
        (SourceChunk(name="c", content="Zoë"),),
        total_size=3,
        corrected_query="with",
        expanded_query=True,
        pinned_result_count=1,
        facets=(
            SearchFacet("lang", (FacetValue(2, value="en"),), dynamic_facet=True),
            SearchFacet("year", (FacetValue(1, interval={"minimum": 2000.0}),)),
        ),
        attribution_token="t",
    )
    metadata = search_response_metadata(results)
    assert json.loads(json.dumps(metadata)) == metadata
    assert metadata == {
        "total_size": 3,
        "corrected_query": "with",
        "expanded_query": True,
        "pinned_result_count": 1,
        "facets": [
            {
                "key": "lang",
                "values": [{"count": 2, "value": "en", "interval": {}}],
                "dynamic_facet": True,
            },
            {
                "key": "year",
                "values": [{"count": 1, "value": "", "interval": {"minimum": 2000.0}}],
                "dynamic_facet": False,
            },
        ],
        "attribution_token": "t",
    }
    assert search_response_metadata(SearchResults(())) == {
        "total_size": 0,
        "corrected_query": "",
        "expanded_query": False,
        "pinned_result_count": 0,
        "facets": [],
        "attribution_token": "",
    }
