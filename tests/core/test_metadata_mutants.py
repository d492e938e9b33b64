"""The metadata of chunks, checks and answers, compared whole: every key and every value."""

import datetime as dt

import numpy as np
import pytest

from grounding_core.errors import InputError
from grounding_core.metadata import (
    answer_metadata,
    check_metadata_layout,
    chunk_metadata,
    flat_metadata,
    grounding_metadata,
    grounding_source,
    search_response_metadata,
)
from grounding_core.records import (
    AnnotationMetadata,
    AnswerCitation,
    CitedChunk,
    Claim,
    FacetValue,
    GroundedAnswer,
    GroundingResult,
    GroundingSource,
    GroundingSupport,
    PageSpan,
    RankSignals,
    SearchFacet,
    SearchResults,
    SourceChunk,
)


def test_every_chunk_field_is_kept():
    chunk = SourceChunk(
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
        previous_chunks=(SourceChunk(name="d/chunks/c0", content="Before", id="c0"),),
        next_chunks=(SourceChunk(name="d/chunks/c2", content="After", id="c2"),),
        relevance_score=0.5,
        rank_signals=RankSignals(relevance_score=0.25, custom_signals={"s": 1.5}),
        model_scores={"m": (0.1, 0.2)},
        annotation_contents=("| a |",),
        annotation_metadata=(AnnotationMetadata("TABLE", "| a |", "img"),),
        data_urls=("data:,x",),
    )
    assert chunk_metadata(chunk) == {
        "source": "https://d.example",
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


def test_the_flat_layout_adds_the_struct_keys_and_the_document_id():
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
    assert flat == {
        **default,
        "id": "d",
        "year": 2024,
        "名前": "東京 🚀",
        "tags": ["a", {"b": 1}],
    }
    # Our keys win on a clash; the struct values stay in struct_data.
    assert (flat["title"], flat["struct_data"]) == ("Ours", struct)
    assert list(flat)[: len(default) + 1] == [*default, "id"]
    # The top-level values are copies: changing one changes neither struct_data nor the record.
    flat["tags"][1]["b"] = 2
    assert flat["struct_data"]["tags"] == ["a", {"b": 1}] == chunk.struct_data["tags"]
    assert chunk_metadata(chunk, "default") == default
    assert flat_metadata(default, chunk) == flat | {"tags": ["a", {"b": 1}]}


def test_the_flat_layout_of_a_chunk_without_struct_data():
    chunk = SourceChunk(name="n", content="c")
    assert chunk_metadata(chunk, "flat") == {**chunk_metadata(chunk), "id": ""}


def test_check_metadata_layout():
    assert check_metadata_layout("default") == "default"
    assert check_metadata_layout("flat") == "flat"


@pytest.mark.parametrize("bad", ["Flat", None, ["flat"]])
def test_an_unknown_metadata_layout_is_refused(bad):
    message = f"metadata_layout must be 'default' or 'flat', got {bad!r}"
    with pytest.raises(InputError) as info:
        check_metadata_layout(bad)
    assert (str(info.value), info.value.field) == (message, "metadata_layout")
    with pytest.raises(InputError) as info:
        chunk_metadata(SourceChunk(name="n", content="c"), bad)
    assert (str(info.value), info.value.field) == (message, "metadata_layout")


def test_a_grounding_source_keeps_its_text_and_drops_empty_and_bulky_values():
    source = grounding_source(
        "Fact ✓", {"title": "T", "empty": "", "none": None, "next_chunks": [{"a": 1}], "n": 0}
    )
    assert source == GroundingSource("Fact ✓", {"title": "T", "n": 0})


def test_a_grounding_source_of_odd_metadata():
    # == on an array compares element-wise: emptiness is checked without it.
    array = np.array([0, 0])
    source = grounding_source("t", {"a": array, "b": [], "c": {}, "d": (), "e": False})
    assert source.metadata["a"] is array
    assert {k: v for k, v in source.metadata.items() if k != "a"} == {"d": (), "e": False}
    # None is no metadata; anything else is kept for build_facts to refuse with its index.
    assert grounding_source("t", None) == GroundingSource("t", {})
    assert grounding_source("t", ["x"]) == GroundingSource("t", ["x"])  # type: ignore[arg-type]


def test_grounding_metadata_has_every_key():
    cited = CitedChunk("Fact", source_index=1, fact_index=0, attributes={"k": "v"}, uri="u")
    result = GroundingResult(
        "Oui. Non.",
        0.5,
        (
            Claim("Oui.", 0, 4, 0, 4, (0,), (cited,), score=0.9),
            Claim("Non.", 5, 9, 5, 9, score=0.1),
            Claim("Hm.", grounding_check_required=False),
        ),
        (cited,),
    )
    assert grounding_metadata(result) == {
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
                "citation_indices": [0],
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


def test_answer_metadata_names_the_references_it_can_resolve():
    first = SourceChunk(name="docs/c0", content="Zero")
    second = SourceChunk(name="docs/c1", content="One")
    answer = GroundedAnswer(
        "Ça. Là.",
        # Reference 0, one past the end (2) and an unknown one (-1): only 0 has an id.
        (AnswerCitation(0, 3, 0, 4, "Ça.", (0, 2, -1), (first,)),),
        (first, second),
        grounding_score=0.75,
        grounding_supports=(GroundingSupport(4, 7, 5, 9, "Là.", 0.5, True, (1,), (second,)),),
        state="SUCCEEDED",
        skipped_reasons=("LOW",),
        related_questions=("Et ?",),
        name="answers/a",
        session="sessions/s",
    )
    assert answer_metadata(answer) == {
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
                "reference_indices": [1],
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
        "citation_annotations": [
            {
                "start_index": 0,
                "end_index": 3,
                "cited_text": "Zero",
                "source_index": 0,
                "source_id": "docs/c0",
                "url": "",
                "title": "",
                "claim_index": None,
            }
        ],
    }


def test_the_search_response_metadata_is_every_field_but_the_chunks():
    results = SearchResults(
        (SourceChunk(name="c", content="Zoë"),),
        total_size=3,
        corrected_query="with",
        expanded_query=True,
        pinned_result_count=1,
        facets=(SearchFacet("lang", (FacetValue(2, value="en"),), dynamic_facet=True),),
        attribution_token="t",
    )
    assert search_response_metadata(results) == {
        "total_size": 3,
        "corrected_query": "with",
        "expanded_query": True,
        "pinned_result_count": 1,
        "facets": [
            {
                "key": "lang",
                "values": [{"count": 2, "value": "en", "interval": {}}],
                "dynamic_facet": True,
            }
        ],
        "attribution_token": "t",
    }
