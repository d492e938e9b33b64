"""Conversion of hand-built protos into records."""

import datetime as dt
import json
import logging

import pytest
from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import types as dk

from grounding_core.convert import (
    answer_from_developer_knowledge,
    answer_from_discovery_engine,
    chunk_from_developer_knowledge,
    chunk_from_search_result,
    grounding_result_from_response,
)
from grounding_core.facts import build_facts
from grounding_core.records import AnnotationMetadata, PageSpan, RankSignals

DOC = "projects/p/locations/global/collections/default_collection/dataStores/d/branches/0/documents"


def pb(message):
    return type(message).pb(message)


def spans_of(text, *parts):
    """Byte spans (start, end) of each part, found left to right."""
    encoded, out, cursor = text.encode(), [], 0
    for part in parts:
        start = encoded.index(part.encode(), cursor)
        out.append((start, start + len(part.encode())))
        cursor = start + len(part.encode())
    return out


def full_result():
    return de.SearchResponse.SearchResult(
        id="c1",
        chunk=de.Chunk(
            name=f"{DOC}/doc-1/chunks/c1",
            id="c1",
            content="Généralités: 数据 🚀",
            relevance_score=0.75,
            document_metadata=de.Chunk.DocumentMetadata(
                uri="https://example.com/doc-1",
                title="Doc one",
                struct_data={
                    "lang": "fr",
                    "year": 2024,
                    "ratio": 0.5,
                    "tags": ["a", "b"],
                    "nested": {"ok": True, "none": None},
                },
            ),
            derived_struct_data={"source": "crawler"},
            page_span=de.Chunk.PageSpan(page_start=3, page_end=4),
            chunk_metadata=de.Chunk.ChunkMetadata(
                previous_chunks=[
                    de.Chunk(name=f"{DOC}/doc-1/chunks/c0", id="c0", content="before")
                ],
                next_chunks=[de.Chunk(name=f"{DOC}/doc-1/chunks/c2", id="c2", content="after")],
            ),
            annotation_contents=["| a | b |"],
            annotation_metadata=[
                de.Chunk.AnnotationMetadata(
                    structured_content=de.Chunk.StructuredContent(
                        structure_type=de.Chunk.StructureType.CHECKBOX_STRUCTURE, content="[x]"
                    ),
                    image_id="img-1",
                )
            ],
            data_urls=["data:image/png;base64,AAAA"],
        ),
        model_scores={"relevance": de.DoubleList(values=[0.1, 0.2])},
        rank_signals=de.SearchResponse.SearchResult.RankSignals(
            keyword_similarity_score=1.25,
            semantic_similarity_score=0.5,
            default_rank=2,
            custom_signals=[
                de.SearchResponse.SearchResult.RankSignals.CustomSignal(name="bm25", value=1.5)
            ],
        ),
    )


def test_chunk_result_keeps_every_field():
    chunk = chunk_from_search_result(pb(full_result()))
    assert chunk.name == f"{DOC}/doc-1/chunks/c1"
    assert (chunk.id, chunk.document_id) == ("c1", "doc-1")
    assert chunk.document_name == f"{DOC}/doc-1"
    assert chunk.content == "Généralités: 数据 🚀"
    assert (chunk.uri, chunk.title) == ("https://example.com/doc-1", "Doc one")
    assert chunk.struct_data == {
        "lang": "fr",
        "year": 2024,
        "ratio": 0.5,
        "tags": ["a", "b"],
        "nested": {"ok": True, "none": None},
    }
    assert type(chunk.struct_data) is dict
    assert type(chunk.struct_data["tags"]) is list
    assert type(chunk.struct_data["year"]) is int
    assert chunk.derived_struct_data == {"source": "crawler"}
    assert chunk.page_span == PageSpan(3, 4)
    assert chunk.relevance_score == 0.75
    assert [c.content for c in chunk.previous_chunks] == ["before"]
    assert [c.document_id for c in chunk.next_chunks] == ["doc-1"]
    assert chunk.annotation_contents == ("| a | b |",)
    assert chunk.annotation_metadata == (AnnotationMetadata("CHECKBOX_STRUCTURE", "[x]", "img-1"),)
    assert chunk.data_urls == ("data:image/png;base64,AAAA",)
    assert chunk.model_scores == {"relevance": (0.1, 0.2)}
    assert chunk.rank_signals == RankSignals(
        keyword_similarity_score=1.25,
        semantic_similarity_score=0.5,
        default_rank=2.0,
        custom_signals={"bm25": 1.5},
    )
    as_dict = chunk.to_dict()
    assert json.loads(json.dumps(as_dict)) == as_dict
    assert as_dict["page_span"] == {"start": 3, "end": 4}
    assert as_dict["previous_chunks"][0]["content"] == "before"


def test_unset_optional_fields_are_none_not_zero():
    result = de.SearchResponse.SearchResult(
        chunk=de.Chunk(name=f"{DOC}/d/chunks/c", content="x", relevance_score=0.0)
    )
    chunk = chunk_from_search_result(pb(result))
    assert chunk.relevance_score == 0.0  # set to zero is kept
    bare = chunk_from_search_result(pb(de.SearchResponse.SearchResult(chunk=de.Chunk(name="n"))))
    assert bare.relevance_score is None
    assert bare.rank_signals is None
    assert bare.page_span is None
    assert bare.struct_data == {}
    assert (bare.document_id, bare.document_name) == ("", "")


def test_document_mode_unstructured_result_uses_extractive_content():
    result = de.SearchResponse.SearchResult(
        id="doc-9",
        document=de.Document(
            name=f"{DOC}/doc-9",
            id="doc-9",
            derived_struct_data={
                "link": "gs://bucket/doc-9.pdf",
                "title": "Doc nine",
                "extractive_segments": [{"content": "Segment one."}, {"content": "Segment two."}],
                "snippets": [{"snippet": "a snippet"}],
            },
            content=de.Document.Content(mime_type="application/pdf", uri="gs://bucket/doc-9.pdf"),
        ),
    )
    chunk = chunk_from_search_result(pb(result))
    assert chunk.content == "Segment one.\n\nSegment two."
    assert (chunk.uri, chunk.title, chunk.mime_type) == (
        "gs://bucket/doc-9.pdf",
        "Doc nine",
        "application/pdf",
    )
    assert (chunk.name, chunk.document_id) == (f"{DOC}/doc-9", "doc-9")


def test_document_mode_snippets_then_struct_data():
    snippet = de.SearchResponse.SearchResult(
        document=de.Document(name="n", id="i", derived_struct_data={"snippets": [{"snippet": "s"}]})
    )
    assert chunk_from_search_result(pb(snippet)).content == "s"
    structured = de.SearchResponse.SearchResult(
        document=de.Document(
            name="n", id="i", struct_data={"title": "Widget", "price": 12, "uri": "https://w"}
        )
    )
    chunk = chunk_from_search_result(pb(structured))
    assert chunk.content == "price: 12\ntitle: Widget\nuri: https://w"
    assert (chunk.title, chunk.uri) == ("Widget", "https://w")


def test_developer_knowledge_chunk():
    chunk = dk.DocumentChunk(
        parent="documents/docs.cloud.google.com/storage/docs/creating-buckets",
        id="c7",
        content="Create a bucket ✓",
        relevance_score=0.9,
        document=dk.Document(
            uri="https://docs.cloud.google.com/storage/docs/creating-buckets",
            title="Create buckets",
            description="How to create",
            data_source="docs.cloud.google.com",
            update_time={"seconds": 1_700_000_000},
        ),
    )
    record = chunk_from_developer_knowledge(pb(chunk))
    assert record.name == (
        "documents/docs.cloud.google.com/storage/docs/creating-buckets/chunks/c7"
    )
    assert record.document_id == "docs.cloud.google.com/storage/docs/creating-buckets"
    assert record.data_source == "docs.cloud.google.com"
    assert record.update_time == dt.datetime.fromtimestamp(1_700_000_000, dt.timezone.utc)
    assert record.relevance_score == 0.9
    assert record.to_dict()["update_time"] == "2023-11-14T22:13:20+00:00"


NON_ASCII_ANSWER = "東京は日本の首都です。 Paris 🇫🇷 est la capitale. مرحبا بكم في القاهرة."
CLAIMS = ["東京は日本の首都です。", "Paris 🇫🇷 est la capitale.", "مرحبا بكم في القاهرة."]


def grounding_response(answer, claims, **overrides):
    spans = spans_of(answer, *claims)
    return de.CheckGroundingResponse(
        support_score=overrides.get("support_score", 0.66),
        cited_chunks=[
            de.FactChunk(chunk_text="Tokyo fact", source="0", source_metadata={"uri": "u0"}),
            de.FactChunk(chunk_text="Paris fact", source="1", uri="u2", title="T2", domain="d2"),
        ],
        cited_facts=[de.CheckGroundingResponse.CheckGroundingFactChunk(chunk_text="Tokyo fact")],
        claims=[
            de.CheckGroundingResponse.Claim(
                start_pos=s, end_pos=e, claim_text=c, citation_indices=idx, score=0.5
            )
            for (s, e), c, idx in zip(spans, claims, [[0], [1], []], strict=True)
        ],
    )


def test_grounding_claim_spans_slice_a_non_ascii_answer():
    facts = build_facts(["Tokyo fact", "   ", "Paris fact"])  # the empty source is skipped
    response = grounding_response(NON_ASCII_ANSWER, CLAIMS)
    result = grounding_result_from_response(NON_ASCII_ANSWER, pb(response), facts)
    assert result.support_score == pytest.approx(0.66)
    assert [c.text for c in result.claims] == CLAIMS
    encoded = NON_ASCII_ANSWER.encode()
    for claim in result.claims:
        assert NON_ASCII_ANSWER[claim.start : claim.end] == claim.text
        assert encoded[claim.byte_start : claim.byte_end].decode() == claim.text
    # Citations resolve to the caller's sources: fact 1 came from source 2 (source 1 was empty).
    assert [c.source_indices for c in result.claims] == [(0,), (2,), ()]
    assert [c.status for c in result.claims] == ["supported", "supported", "unsupported"]
    paris = result.claims[1].citations[0]
    assert (paris.fact_index, paris.uri, paris.title, paris.domain) == (1, "u2", "T2", "d2")
    assert result.cited_chunks[0].attributes == {"uri": "u0"}
    assert result.cited_facts == ("Tokyo fact",)
    assert result.unsupported_claims == (result.claims[2],)
    as_dict = json.loads(json.dumps(result.to_dict()))
    assert as_dict["claims"][1]["citations"][0]["source_index"] == 2


def test_claim_score_and_not_checked_claims():
    answer = "Hello! Water boils at 100 °C."
    response = de.CheckGroundingResponse(
        claims=[
            de.CheckGroundingResponse.Claim(
                start_pos=0, end_pos=6, claim_text="Hello!", grounding_check_required=False
            ),
            de.CheckGroundingResponse.Claim(
                start_pos=7,
                end_pos=len(answer.encode()),
                claim_text="Water boils at 100 °C.",
                score=0.25,
            ),
        ]
    )
    result = grounding_result_from_response(answer, pb(response), build_facts(["x"]))
    assert result.support_score is None
    assert result.claims[0].status == "not_checked"
    assert result.claims[0].score is None
    assert result.claims[1].score == 0.25
    assert result.claims[1].text == answer[result.claims[1].start : result.claims[1].end]
    assert result.checked_claims == (result.claims[1],)


def test_claim_without_span_keeps_its_text():
    response = de.CheckGroundingResponse(
        claims=[de.CheckGroundingResponse.Claim(claim_text="No span.")]
    )
    claim = grounding_result_from_response("No span.", pb(response), build_facts([])).claims[0]
    assert (claim.start, claim.end, claim.byte_start, claim.byte_end) == (None,) * 4
    assert claim.text == "No span."


def test_bad_claim_offsets_are_repaired_from_the_claim_text(caplog):
    answer = "Ünïcödé first. Second ✓ claim."
    # A buggy server that counted characters instead of bytes:
    start = answer.index("Second")
    response = de.CheckGroundingResponse(
        claims=[
            de.CheckGroundingResponse.Claim(
                start_pos=start, end_pos=start + 15, claim_text="Second ✓ claim."
            )
        ]
    )
    with caplog.at_level(logging.WARNING, logger="grounding_core.convert"):
        claim = grounding_result_from_response(answer, pb(response), build_facts([])).claims[0]
    assert answer[claim.start : claim.end] == "Second ✓ claim."
    assert answer.encode()[claim.byte_start : claim.byte_end].decode() == "Second ✓ claim."
    assert "claims[0] start_pos/end_pos" in caplog.text
    assert "not to the claim text 'Second ✓ claim.'" in caplog.text


def test_offsets_beyond_the_text_without_known_text_snap_into_it(caplog):
    answer = "日本"
    response = de.CheckGroundingResponse(
        claims=[de.CheckGroundingResponse.Claim(start_pos=1, end_pos=99, claim_text="zzz")]
    )
    with caplog.at_level(logging.WARNING):
        claim = grounding_result_from_response(answer, pb(response), build_facts([])).claims[0]
    assert (claim.start, claim.end) == (0, 2)
    assert (claim.byte_start, claim.byte_end) == (0, 6)
    assert "bytes [1, 99), which do not fit the text" in caplog.text


def test_out_of_range_citation_index_is_reported_not_dropped(caplog):
    response = de.CheckGroundingResponse(
        cited_chunks=[de.FactChunk(chunk_text="f", source="0")],
        claims=[
            de.CheckGroundingResponse.Claim(
                start_pos=0, end_pos=2, claim_text="ok", citation_indices=[0, 5]
            )
        ],
    )
    with caplog.at_level(logging.WARNING):
        claim = grounding_result_from_response("ok", pb(response), build_facts(["f"])).claims[0]
    assert claim.citation_indices == (0, 5)
    assert len(claim.citations) == 1
    assert "points at index 5, but only 1 exist" in caplog.text


def test_fact_with_unknown_source_has_no_source_index():
    response = de.CheckGroundingResponse(
        cited_chunks=[
            de.FactChunk(chunk_text="web", source="google-search"),
            de.FactChunk(chunk_text="x", source="7"),
        ]
    )
    result = grounding_result_from_response("a", pb(response), build_facts(["f"]))
    assert [(c.fact_index, c.source_index) for c in result.cited_chunks] == [
        (None, None),
        (7, None),
    ]


ANSWER = "Python 🐍 lists are mutable. Tuples are not. Sets are unordered."


def test_discovery_engine_answer_with_every_reference_kind():
    spans = spans_of(ANSWER, "Python 🐍 lists are mutable.", "Tuples are not.")
    answer = de.Answer(
        name="projects/p/locations/global/collections/c/engines/e/sessions/s/answers/a",
        state=de.Answer.State.SUCCEEDED,
        answer_text=ANSWER,
        grounding_score=0.8,
        citations=[
            de.Answer.Citation(
                start_index=spans[0][0],
                end_index=spans[0][1],
                sources=[de.Answer.CitationSource(reference_id="0")],
            ),
            de.Answer.Citation(
                start_index=spans[1][0],
                end_index=spans[1][1],
                sources=[
                    de.Answer.CitationSource(reference_id="1"),
                    de.Answer.CitationSource(reference_id="2"),
                ],
            ),
        ],
        grounding_supports=[
            de.Answer.GroundingSupport(
                start_index=spans[1][0],
                end_index=spans[1][1],
                grounding_score=0.9,
                grounding_check_required=True,
                sources=[de.Answer.CitationSource(reference_id="1")],
            )
        ],
        references=[
            de.Answer.Reference(
                chunk_info=de.Answer.Reference.ChunkInfo(
                    chunk=f"{DOC}/lists/chunks/c3",
                    content="Lists are mutable sequences.",
                    relevance_score=0.7,
                    document_metadata=de.Answer.Reference.ChunkInfo.DocumentMetadata(
                        document=f"{DOC}/lists",
                        uri="https://docs.python.org/3/library/stdtypes.html#lists",
                        title="Lists",
                        page_identifier="4",
                        struct_data={"section": "stdtypes"},
                    ),
                )
            ),
            de.Answer.Reference(
                unstructured_document_info=de.Answer.Reference.UnstructuredDocumentInfo(
                    document=f"{DOC}/tuples",
                    uri="https://t",
                    title="Tuples",
                    chunk_contents=[
                        de.Answer.Reference.UnstructuredDocumentInfo.ChunkContent(
                            content="Tuples are immutable.",
                            page_identifier="1",
                            relevance_score=0.4,
                        ),
                        de.Answer.Reference.UnstructuredDocumentInfo.ChunkContent(
                            content="They hold anything.", page_identifier="2", relevance_score=0.6
                        ),
                    ],
                )
            ),
            de.Answer.Reference(
                structured_document_info=de.Answer.Reference.StructuredDocumentInfo(
                    document=f"{DOC}/row-1", struct_data={"name": "tuple"}, title="Row", uri="u"
                )
            ),
        ],
        related_questions=["What is a set?"],
    )
    result = answer_from_discovery_engine(pb(answer), session="sess")
    assert result.answer_text == ANSWER
    assert result.grounding_score == pytest.approx(0.8)
    assert result.state == "SUCCEEDED"
    assert not result.skipped
    assert result.session == "sess"
    assert result.related_questions == ("What is a set?",)
    first, second = result.citations
    assert ANSWER[first.start : first.end] == first.text == "Python 🐍 lists are mutable."
    assert ANSWER.encode()[first.byte_start : first.byte_end].decode() == first.text
    assert first.references[0].uri == "https://docs.python.org/3/library/stdtypes.html#lists"
    assert second.reference_indices == (1, 2)
    assert [r.title for r in second.references] == ["Tuples", "Row"]
    chunk_ref, unstructured, structured = result.references
    assert (chunk_ref.id, chunk_ref.document_id, chunk_ref.page_identifier) == ("c3", "lists", "4")
    assert chunk_ref.struct_data == {"section": "stdtypes"}
    assert unstructured.content == "Tuples are immutable.\n\nThey hold anything."
    assert unstructured.page_identifier == "1, 2"
    assert unstructured.relevance_score == pytest.approx(0.6)
    assert structured.content == "name: tuple"
    (support,) = result.grounding_supports
    assert support.text == "Tuples are not."
    assert support.score == pytest.approx(0.9)
    assert support.grounding_check_required is True
    assert json.loads(json.dumps(result.to_dict()))["citations"][0]["text"] == first.text


def test_skipped_discovery_engine_answer():
    answer = de.Answer(
        state=de.Answer.State.SUCCEEDED,
        answer_text="A summary could not be generated.",
        answer_skipped_reasons=[de.Answer.AnswerSkippedReason.NO_RELEVANT_CONTENT],
    )
    result = answer_from_discovery_engine(pb(answer))
    assert result.skipped
    assert result.skipped_reasons == ("NO_RELEVANT_CONTENT",)
    assert result.grounding_score is None


def test_unknown_reference_id_is_reported(caplog):
    answer = de.Answer(
        answer_text="abc",
        citations=[
            de.Answer.Citation(
                start_index=0, end_index=3, sources=[de.Answer.CitationSource(reference_id="x")]
            )
        ],
    )
    with caplog.at_level(logging.WARNING):
        result = answer_from_discovery_engine(pb(answer))
    assert result.citations[0].reference_indices == (-1,)
    assert result.citations[0].references == ()
    assert "citations[0].sources points at index -1" in caplog.text


def test_developer_knowledge_answer():
    text = "Créez un bucket avec gcloud. ✅ Done."
    spans = spans_of(text, "Créez un bucket avec gcloud.", "✅ Done.")
    chunk = dk.DocumentChunk(
        parent="documents/docs.cloud.google.com/storage/docs/creating-buckets",
        content="gcloud storage buckets create",
        document=dk.Document(uri="https://docs.cloud.google.com/storage/docs/creating-buckets"),
    )
    answer = dk.Answer(
        answer_text=text,
        citations=[
            dk.Answer.AnswerCitation(
                start_index=s,
                end_index=e,
                sources=[dk.Answer.CitationSource(reference_index=0)],
            )
            for s, e in spans
        ],
        references=[
            dk.Answer.AnswerReference(
                document_reference=dk.Answer.DocumentReference(document_chunk=chunk)
            )
        ],
    )
    result = answer_from_developer_knowledge(pb(answer))
    assert [c.text for c in result.citations] == ["Créez un bucket avec gcloud.", "✅ Done."]
    for citation in result.citations:
        assert text[citation.start : citation.end] == citation.text
        # No chunk id in answer references: the document and the digest of the content.
        assert citation.references[0].name == f"{chunk.parent}#55e511bb759dba8b"
        assert citation.references[0].id == ""
    assert result.references[0].uri.endswith("creating-buckets")


def test_valid_span_with_other_text_and_no_match_is_kept_with_a_warning(caplog):
    response = de.CheckGroundingResponse(
        claims=[de.CheckGroundingResponse.Claim(start_pos=0, end_pos=5, claim_text="Hello  world")]
    )
    with caplog.at_level(logging.WARNING):
        claim = grounding_result_from_response(
            "Hello world.", pb(response), build_facts([])
        ).claims[0]
    assert (claim.start, claim.end) == (0, 5)
    assert "not to the claim text" in caplog.text
