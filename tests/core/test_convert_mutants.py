"""Every field of every record ``convert`` returns, and the span repair at its edges.

Each test compares whole records (dataclass equality covers every field), so that a field
read from the wrong place, or left out, fails. The span tests cover what the repair must get
right: a claim with only one position, repeated claim text, a claim at the very start, an
offset inside a character, and the exact warnings.
"""

import datetime as dt
import logging

import pytest
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1beta as de_beta
from google.developer_knowledge_v1 import types as dk

from grounding_core.convert import (
    answer_from_developer_knowledge,
    answer_from_discovery_engine,
    answer_from_search_summary,
    chunk_from_developer_knowledge,
    chunk_from_search_result,
    grounding_result_from_response,
    search_results_from_response,
    session_from_proto,
    struct_to_dict,
)
from grounding_core.facts import build_facts
from grounding_core.metadata import chunk_metadata
from grounding_core.records import (
    AnswerCitation,
    CitedChunk,
    Claim,
    FacetValue,
    GroundedAnswer,
    GroundingResult,
    GroundingSupport,
    RankSignals,
    SearchFacet,
    SearchResults,
    Session,
    SourceChunk,
    Turn,
)

DOC = "projects/p/locations/global/collections/default_collection/dataStores/d/branches/0/documents"
LOGGER = "grounding_core.convert"
ClaimPb = de.CheckGroundingResponse.Claim


def pb(message):
    return type(message).pb(message)


def warnings(caplog):
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def check(answer, claims, cited_chunks=(), sources=()):
    response = de.CheckGroundingResponse(claims=list(claims), cited_chunks=list(cited_chunks))
    return grounding_result_from_response(answer, pb(response), build_facts(list(sources)))


# -- search results -----------------------------------------------------------------------------


def test_a_chunk_with_no_fields_set_is_all_defaults():
    result = de.SearchResponse.SearchResult(chunk=de.Chunk(name="n"))
    assert chunk_from_search_result(pb(result)) == SourceChunk(name="n", content="")


def test_a_document_named_chunks_keeps_its_id():
    name = f"{DOC}/chunks/chunks/c1"  # document "chunks", chunk "c1"
    chunk = chunk_from_search_result(pb(de.SearchResponse.SearchResult(chunk=de.Chunk(name=name))))
    assert (chunk.document_name, chunk.document_id) == (f"{DOC}/chunks", "chunks")


def test_rank_signals_default_rank_and_precomputed_values():
    result = de.SearchResponse.SearchResult(
        chunk=de.Chunk(name="n"),
        rank_signals=de.SearchResponse.SearchResult.RankSignals(
            relevance_score=0.25, precomputed_expression_values=[1.5, 2.5]
        ),
    )
    assert chunk_from_search_result(pb(result)).rank_signals == RankSignals(
        relevance_score=0.25, default_rank=0.0, precomputed_expression_values=(1.5, 2.5)
    )


def test_a_newer_api_version_carries_the_mime_type():
    result = de_beta.SearchResponse.SearchResult(
        chunk=de_beta.Chunk(
            name="n",
            document_metadata=de_beta.Chunk.DocumentMetadata(
                uri="u", title="t", mime_type="text/html"
            ),
        )
    )
    assert chunk_from_search_result(pb(result)) == SourceChunk(
        name="n", content="", uri="u", title="t", mime_type="text/html"
    )


def test_a_document_mode_result_keeps_every_field():
    result = de.SearchResponse.SearchResult(
        id="result-id",
        document=de.Document(
            name=f"{DOC}/doc-1",
            struct_data={"url": "https://example.com/1", "title": "From struct"},
            derived_struct_data={
                "extractive_segments": [{"page": 1}, {"content": "  "}, {"content": 5}],
                "extractive_answers": [{"pageNumber": "2"}, {"content": "The answer."}],
            },
            content=de.Document.Content(mime_type="text/plain"),
        ),
        model_scores={"relevance": de.DoubleList(values=[0.5])},
        rank_signals=de.SearchResponse.SearchResult.RankSignals(keyword_similarity_score=2.0),
    )
    assert chunk_from_search_result(pb(result)) == SourceChunk(
        name=f"{DOC}/doc-1",
        content="The answer.",
        id="result-id",
        document_id="result-id",
        document_name=f"{DOC}/doc-1",
        uri="https://example.com/1",
        title="From struct",
        mime_type="text/plain",
        struct_data={"url": "https://example.com/1", "title": "From struct"},
        derived_struct_data={
            "extractive_segments": [{"page": 1}, {"content": "  "}, {"content": 5}],
            "extractive_answers": [{"pageNumber": "2"}, {"content": "The answer."}],
        },
        rank_signals=RankSignals(keyword_similarity_score=2.0, default_rank=0.0),
        model_scores={"relevance": (0.5,)},
    )


@pytest.mark.parametrize(
    ("segments", "score"),
    [
        ([], None),
        ([{"content": "a"}], None),  # no score asked for
        ([{"content": "a", "relevanceScore": 0.25}], 0.25),
        # The best of the segments, whatever their order; non-numbers are not scores.
        ([{"relevanceScore": 0.5}, {"relevanceScore": 0.75}, {"relevanceScore": 0.1}], 0.75),
        ([{"relevanceScore": "0.9"}, {"relevanceScore": True}, "x", {"relevanceScore": 0.0}], 0.0),
        ([{"relevanceScore": -0.5}], -0.5),
    ],
)
def test_a_document_scores_as_its_best_extractive_segment(segments, score):
    chunk = _document_with({"extractive_segments": segments})
    assert chunk.relevance_score == score
    assert type(chunk.relevance_score) is (float if score is not None else type(None))


def test_answers_and_snippets_carry_no_document_score():
    chunk = _document_with(
        {"extractive_answers": [{"content": "a", "relevanceScore": 0.5}], "snippets": []}
    )
    assert chunk.relevance_score is None


def test_a_bare_document_has_empty_uri_title_and_text():
    result = de.SearchResponse.SearchResult(document=de.Document(name="n", id="i"))
    assert chunk_from_search_result(pb(result)) == SourceChunk(
        name="n", content="", id="i", document_id="i", document_name="n"
    )


def test_a_document_id_wins_over_the_result_id():
    result = de.SearchResponse.SearchResult(id="r", document=de.Document(name="n", id="d"))
    chunk = chunk_from_search_result(pb(result))
    assert (chunk.id, chunk.document_id) == ("d", "d")


def _document_with(derived):
    result = de.SearchResponse.SearchResult(
        document=de.Document(name="n", id="d", derived_struct_data=derived)
    )
    return chunk_from_search_result(pb(result))


@pytest.mark.parametrize(
    ("derived", "text"),
    [
        (
            {
                "snippets": [{"snippet": "A <b>bold</b> hit.", "snippet_status": "SUCCESS"}],
                "extractive_answers": [{"content": "An answer."}],
                "extractive_segments": [{"content": "A segment."}, {"content": "Another."}],
            },
            "A segment.\n\nAnother.",
        ),
        (
            {
                "snippets": [{"snippet": "A <b>bold</b> hit.", "snippet_status": "SUCCESS"}],
                "extractive_answers": [{"content": "An <b>answer</b>."}],
            },
            "An <b>answer</b>.",
        ),
        (
            {"snippets": [{"snippet": "A <b>bold</b> hit.", "snippet_status": "SUCCESS"}]},
            "A bold hit.",
        ),
        (
            {
                "snippets": [
                    {
                        "snippet": "No snippet is available for this page.",
                        "snippet_status": "NO_SNIPPET_AVAILABLE",
                    }
                ]
            },
            "",
        ),
    ],
    ids=["segments", "answers", "snippets", "no-snippet"],
)
def test_document_text_prefers_segments_then_answers_then_snippets(derived, text):
    chunk = _document_with(derived)
    assert chunk.content == text
    assert chunk.derived_struct_data == derived  # every part kept as it came


# Every content of a documents-mode result, each with a part to skip.
ALL_PARTS = {
    "extractive_segments": [{"content": "Seg 1."}, {"content": " "}, {"content": "Seg 2."}],
    "extractive_answers": [{"content": "Ans <b>1</b>."}, {"pageNumber": "3"}],
    "snippets": [
        {
            "snippet": "No snippet is available for this page.",
            "snippet_status": "NO_SNIPPET_AVAILABLE",
        },
        {"snippet": "A <b>bold</b> 東京 🚀 hit.", "snippet_status": "SUCCESS"},
    ],
}


def _chosen(derived, choice, struct_data=None):
    result = de.SearchResponse.SearchResult(
        document=de.Document(
            name="n", id="d", derived_struct_data=derived, struct_data=struct_data or {}
        )
    )
    return chunk_from_search_result(pb(result), choice)


@pytest.mark.parametrize(
    ("choice", "text"),
    [
        ("auto", "Seg 1.\n\nSeg 2."),
        ("extractive_segments", "Seg 1.\n\nSeg 2."),
        ("extractive_answers", "Ans <b>1</b>."),
        ("snippets", "A bold 東京 🚀 hit."),
        ("struct_data", "b: [1, 2]\nz: 東京"),
    ],
)
def test_document_text_is_the_chosen_content(choice, text):
    chunk = _chosen(ALL_PARTS, choice, {"z": "東京", "b": [1, 2]})
    assert chunk.content == text
    assert chunk.derived_struct_data == ALL_PARTS  # every content kept, whatever the choice
    assert chunk.struct_data == {"z": "東京", "b": [1, 2]}


@pytest.mark.parametrize(
    "choice", ["extractive_segments", "extractive_answers", "snippets", "struct_data"]
)
def test_a_result_without_the_chosen_content_has_an_empty_text(choice):
    assert _chosen({"title": "T", "link": "https://x"}, choice).content == ""


@pytest.mark.parametrize(
    ("derived", "text"),
    [
        ({"extractive_segments": "Seg.", "snippets": [{"snippet": "Snip."}]}, "Snip."),
        ({"extractive_segments": {"content": "Seg."}, "extractive_answers": 5}, "a: 1"),
        ({"extractive_segments": [{"content": "  "}]}, "a: 1"),
    ],
    ids=["string", "struct-and-number", "blank"],
)
def test_auto_passes_over_content_that_is_not_a_list_of_texts(derived, text):
    assert _chosen(derived, "auto", {"a": 1}).content == text
    assert _chosen(derived, "extractive_segments", {"a": 1}).content == ""


def test_chunk_results_ignore_the_document_text_choice():
    result = de.SearchResponse.SearchResult(chunk=de.Chunk(name="n", content="Chunk text."))
    assert chunk_from_search_result(pb(result), "struct_data").content == "Chunk text."


def test_a_negative_chunk_relevance_score_is_kept():
    # Chunk.relevance_score is documented in [-1, 1]; the emulator only sends [0, 1].
    result = de.SearchResponse.SearchResult(
        id="doc", chunk=de.Chunk(name=f"{DOC}/doc/chunks/c1", id="c1", relevance_score=-0.75)
    )
    chunk = chunk_from_search_result(pb(result))
    assert (chunk.relevance_score, chunk.id, chunk.document_id) == (-0.75, "c1", "doc")
    assert chunk_metadata(chunk)["relevance_score"] == -0.75


def test_search_results_keep_every_response_level_field():
    response = de.SearchResponse(
        total_size=42,
        corrected_query="with statement",
        attribution_token="token",
        query_expansion_info={"expanded_query": True, "pinned_result_count": 3},
        facets=[
            {
                "key": "lang",
                "values": [{"value": "en", "count": 7}, {"value": "fr", "count": 1}],
                "dynamic_facet": True,
            },
            {
                "key": "rank",
                "values": [{"interval": {"minimum": 0, "exclusive_maximum": 10}, "count": 4}],
            },
        ],
    )
    chunk = SourceChunk(name="c", content="x")
    assert search_results_from_response(pb(response), [chunk]) == SearchResults(
        chunks=(chunk,),
        total_size=42,
        corrected_query="with statement",
        expanded_query=True,
        pinned_result_count=3,
        facets=(
            SearchFacet(
                "lang",
                (FacetValue(count=7, value="en"), FacetValue(count=1, value="fr")),
                dynamic_facet=True,
            ),
            SearchFacet(
                "rank",
                (FacetValue(count=4, interval={"minimum": 0.0, "exclusive_maximum": 10.0}),),
            ),
        ),
        attribution_token="token",
    )
    assert search_results_from_response(pb(de.SearchResponse()), []) == SearchResults(())


@pytest.mark.parametrize(
    ("number", "expected"),
    [(2.0**53 - 1, 2**53 - 1), (-(2.0**53) + 1, -(2**53) + 1), (2.0**53, 2.0**53), (0.5, 0.5)],
)
def test_struct_numbers_are_ints_only_where_a_double_is_exact(number, expected):
    value = struct_to_dict(pb(de.Document(struct_data={"n": number})).struct_data)["n"]
    assert value == expected
    assert type(value) is type(expected)


def test_developer_knowledge_chunk_keeps_every_field():
    chunk = dk.DocumentChunk(
        parent="documents/docs.example.com/a/b",
        id="c2",
        content="Texte ✓",
        relevance_score=0.5,
        document=dk.Document(
            uri="https://docs.example.com/a/b",
            title="A B",
            description="About a/b",
            data_source="docs.example.com",
            update_time={"seconds": 60},
        ),
    )
    assert chunk_from_developer_knowledge(pb(chunk)) == SourceChunk(
        name="documents/docs.example.com/a/b/chunks/c2",
        content="Texte ✓",
        id="c2",
        document_id="docs.example.com/a/b",
        document_name="documents/docs.example.com/a/b",
        uri="https://docs.example.com/a/b",
        title="A B",
        description="About a/b",
        data_source="docs.example.com",
        update_time=dt.datetime(1970, 1, 1, 0, 1, tzinfo=dt.timezone.utc),
        relevance_score=0.5,
    )


# -- grounding check ----------------------------------------------------------------------------


def test_a_grounding_result_keeps_every_field():
    answer = "Paris is in France. Lyon too."
    result = check(
        answer,
        [
            ClaimPb(
                start_pos=0, end_pos=19, claim_text="Paris is in France.", citation_indices=[0]
            ),
            ClaimPb(start_pos=20, end_pos=29, claim_text="Lyon too.", citation_indices=[0]),
        ],
        [de.FactChunk(chunk_text="Paris, France", source="0", source_metadata={"k": "v"})],
        ["", "Paris, France"],
    )
    cited = CitedChunk("Paris, France", source_index=1, fact_index=0, attributes={"k": "v"})
    assert result == GroundingResult(
        answer=answer,
        support_score=None,
        claims=(
            Claim("Paris is in France.", 0, 19, 0, 19, (0,), (cited,)),
            Claim("Lyon too.", 20, 29, 20, 29, (0,), (cited,)),
        ),
        cited_chunks=(cited,),
    )


def test_a_citation_index_one_past_the_end_is_left_unresolved(caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = check(
            "ok",
            [ClaimPb(start_pos=0, end_pos=2, claim_text="ok", citation_indices=[1])],
            [de.FactChunk(chunk_text="f", source="0")],
            ["f"],
        )
    assert result.claims[0].citations == ()
    assert warnings(caplog) == [
        "claims[0].citation_indices points at index 1, but only 1 exist; left unresolved"
    ]


@pytest.mark.parametrize("field", ["start_pos", "end_pos"])
def test_a_claim_with_only_one_position_has_no_span(field, caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = check("Hello there.", [ClaimPb(claim_text="Hello there.", **{field: 3})])
    assert result.claims == (Claim("Hello there."),)
    assert warnings(caplog) == []


def test_valid_spans_log_nothing(caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = check(
            "ab. ab.",
            [
                ClaimPb(start_pos=4, end_pos=7, claim_text="ab."),
                ClaimPb(start_pos=0, end_pos=3, claim_text="ab."),
            ],
        )
    assert [(c.start, c.end) for c in result.claims] == [(4, 7), (0, 3)]
    assert warnings(caplog) == []


def test_repeated_claim_text_is_repaired_to_the_next_occurrence(caplog):
    # Offsets counted in characters: every claim after the "é" is off by one byte.
    answer = "é. Yes. Yes. Yes."
    claims = [ClaimPb(start_pos=0, end_pos=3, claim_text="é.")] + [
        ClaimPb(start_pos=s, end_pos=s + 4, claim_text="Yes.") for s in (3, 8, 13)
    ]
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = check(answer, claims)
    assert [(c.start, c.end) for c in result.claims] == [(0, 2), (3, 7), (8, 12), (13, 17)]
    assert [(c.byte_start, c.byte_end) for c in result.claims] == [
        (0, 3),
        (4, 8),
        (9, 13),
        (14, 18),
    ]
    assert warnings(caplog) == [
        "claims[1] start_pos/end_pos: the service sent bytes [3, 7), which slice to ' Yes', not "
        "to the claim text 'Yes.'; using characters [3, 7) instead",
        "claims[2] start_pos/end_pos: the service sent bytes [8, 12), which slice to ' Yes', not "
        "to the claim text 'Yes.'; using characters [8, 12) instead",
        "claims[3] start_pos/end_pos: the service sent bytes [13, 17), which slice to ' Yes', "
        "not to the claim text 'Yes.'; using characters [13, 17) instead",
    ]


def test_repeated_text_after_a_valid_span_is_searched_after_it():
    result = check(
        "ab. ab. cd.",
        [
            ClaimPb(start_pos=0, end_pos=3, claim_text="ab."),
            ClaimPb(start_pos=8, end_pos=11, claim_text="ab."),  # slices "cd."
        ],
    )
    assert [(c.start, c.end) for c in result.claims] == [(0, 3), (4, 7)]


def test_claim_text_only_before_the_cursor_is_found_from_the_start():
    result = check(
        "A. A. B.",
        [
            ClaimPb(start_pos=6, end_pos=8, claim_text="B."),
            ClaimPb(start_pos=6, end_pos=8, claim_text="A."),  # slices "B."
        ],
    )
    assert [(c.start, c.end) for c in result.claims] == [(6, 8), (0, 2)]


def test_a_claim_at_the_very_start_is_repaired_to_the_start(caplog):
    answer = "Ünï. Rest."  # bytes: Ü 0..2, n 2..3, ï 3..5
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = check(answer, [ClaimPb(start_pos=0, end_pos=4, claim_text="Ünï.")])
    claim = result.claims[0]
    assert (claim.start, claim.end, claim.byte_start, claim.byte_end) == (0, 4, 0, 6)
    assert warnings(caplog) == [
        "claims[0] start_pos/end_pos: the service sent bytes [0, 4), which do not fit the text "
        "(byte offset 4 falls inside the 2-byte character 'ï' (U+00EF) at string index 2, which "
        "spans bytes 3..5); using characters [0, 4) instead"
    ]


def test_a_valid_span_with_text_found_at_the_start_is_moved_there():
    result = check("ab. cd.", [ClaimPb(start_pos=4, end_pos=7, claim_text="ab.")])
    assert (result.claims[0].start, result.claims[0].end) == (0, 3)


def test_a_valid_span_whose_claim_text_is_nowhere_is_kept_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = check("ab. cd.", [ClaimPb(start_pos=4, end_pos=7, claim_text="xy.")])
    assert (result.claims[0].start, result.claims[0].end) == (4, 7)
    assert warnings(caplog) == [
        "claims[0] start_pos/end_pos: bytes [4, 7) slice to 'cd.', not to the claim text 'xy.'"
    ]


@pytest.mark.parametrize(
    ("byte_start", "byte_end", "span"),
    [(0, 2, (0, 1)), (1, 4, (0, 2)), (4, 5, (1, 2)), (2, 2, (0, 1))],
)
def test_offsets_inside_characters_round_outwards(byte_start, byte_end, span):
    result = check("日本", [ClaimPb(start_pos=byte_start, end_pos=byte_end, claim_text="zz")])
    assert (result.claims[0].start, result.claims[0].end) == span


# -- answers ------------------------------------------------------------------------------------


def reference_chunk_info():
    return de.Answer.Reference(
        chunk_info=de.Answer.Reference.ChunkInfo(
            chunk=f"{DOC}/lists/chunks/c3",
            content="Lists are mutable.",
            relevance_score=0.7,
            document_metadata=de.Answer.Reference.ChunkInfo.DocumentMetadata(
                document=f"{DOC}/lists",
                uri="https://docs.python.org/lists",
                title="Lists",
                page_identifier="4",
                struct_data={"section": "stdtypes"},
            ),
        )
    )


def test_every_reference_kind_keeps_every_field():
    unstructured = de.Answer.Reference.UnstructuredDocumentInfo
    answer = de.Answer(
        references=[
            reference_chunk_info(),
            de.Answer.Reference(
                unstructured_document_info=unstructured(
                    document=f"{DOC}/tuples",
                    uri="https://t",
                    title="Tuples",
                    struct_data={"k": 1},
                    chunk_contents=[
                        unstructured.ChunkContent(content="One.", page_identifier="1"),
                        unstructured.ChunkContent(content="Two."),
                    ],
                )
            ),
            de.Answer.Reference(
                structured_document_info=de.Answer.Reference.StructuredDocumentInfo(
                    document=f"{DOC}/row-1", struct_data={"name": "tuple"}, title="Row", uri="u"
                )
            ),
            de.Answer.Reference(),
        ]
    )
    assert answer_from_discovery_engine(pb(answer)).references == (
        SourceChunk(
            name=f"{DOC}/lists/chunks/c3",
            content="Lists are mutable.",
            id="c3",
            document_id="lists",
            document_name=f"{DOC}/lists",
            uri="https://docs.python.org/lists",
            title="Lists",
            page_identifier="4",
            struct_data={"section": "stdtypes"},
            relevance_score=pytest.approx(0.7),
        ),
        SourceChunk(
            name=f"{DOC}/tuples",
            content="One.\n\nTwo.",
            document_id="tuples",
            document_name=f"{DOC}/tuples",
            uri="https://t",
            title="Tuples",
            page_identifier="1",
            struct_data={"k": 1},
            relevance_score=None,
        ),
        SourceChunk(
            name=f"{DOC}/row-1",
            content="name: tuple",
            document_id="row-1",
            document_name=f"{DOC}/row-1",
            uri="u",
            title="Row",
            struct_data={"name": "tuple"},
        ),
        SourceChunk(name="", content=""),
    )


def test_a_discovery_engine_answer_keeps_every_field(caplog):
    text = "Ça va. Très bien."
    answer = de.Answer(
        name="answers/a1",
        answer_text=text,
        state=de.Answer.State.SUCCEEDED,
        grounding_score=0.5,
        citations=[
            de.Answer.Citation(
                start_index=0, end_index=7, sources=[de.Answer.CitationSource(reference_id="0")]
            )
        ],
        grounding_supports=[
            de.Answer.GroundingSupport(
                start_index=8,
                end_index=19,
                grounding_score=0.25,
                grounding_check_required=False,
                sources=[de.Answer.CitationSource(reference_id="0")],
            )
        ],
        references=[reference_chunk_info()],
        answer_skipped_reasons=[de.Answer.AnswerSkippedReason.OUT_OF_DOMAIN_QUERY_IGNORED],
        related_questions=["Et toi ?"],
    )
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = answer_from_discovery_engine(pb(answer))
    reference = result.references[0]
    assert result == GroundedAnswer(
        answer_text=text,
        citations=(AnswerCitation(0, 6, 0, 7, "Ça va.", (0,), (reference,)),),
        references=(reference,),
        grounding_score=0.5,
        grounding_supports=(
            GroundingSupport(7, 17, 8, 19, "Très bien.", 0.25, False, (0,), (reference,)),
        ),
        state="SUCCEEDED",
        skipped_reasons=("OUT_OF_DOMAIN_QUERY_IGNORED",),
        related_questions=("Et toi ?",),
        name="answers/a1",
        session="",
    )
    assert warnings(caplog) == []


def test_an_unknown_enum_value_is_kept_as_its_number():
    answer = pb(de.Answer(answer_text="x"))
    answer.state = 99
    assert answer_from_discovery_engine(answer).state == "99"


def test_bad_spans_of_answer_segments_are_named_in_the_warning(caplog):
    answer = de.Answer(
        answer_text="日本",
        citations=[de.Answer.Citation(start_index=1, end_index=3)],
        grounding_supports=[de.Answer.GroundingSupport(start_index=0, end_index=9)],
    )
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = answer_from_discovery_engine(pb(answer), session="s")
    assert (result.citations[0].start, result.citations[0].end) == (0, 1)
    assert result.session == "s"
    assert warnings(caplog) == [
        "citations[0]: the service sent bytes [1, 3), which do not fit the text (byte offset 1 "
        "falls inside the 3-byte character '日' (U+65E5) at string index 0, which spans bytes "
        "0..3); using characters [0, 1) instead",
        "grounding_supports[0]: the service sent bytes [0, 9), which do not fit the text (byte "
        "offset 9 is outside the text (0..6 bytes, 2 characters)); using characters [0, 2) "
        "instead",
    ]


def test_a_developer_knowledge_answer_keeps_every_field(caplog):
    chunk = dk.DocumentChunk(parent="documents/d", content="Bucket ✓", id="c1")
    answer = dk.Answer(
        answer_text="✓ Yes. 日本",
        citations=[
            dk.Answer.AnswerCitation(
                start_index=0,
                end_index=7,
                sources=[dk.Answer.CitationSource(reference_index=0)],
            ),
            dk.Answer.AnswerCitation(start_index=10, end_index=12),
        ],
        references=[
            dk.Answer.AnswerReference(
                document_reference=dk.Answer.DocumentReference(document_chunk=chunk)
            )
        ],
    )
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = answer_from_developer_knowledge(pb(answer))
    reference = SourceChunk(
        name="documents/d/chunks/c1",
        content="Bucket ✓",
        id="c1",
        document_id="d",
        document_name="documents/d",
    )
    assert result == GroundedAnswer(
        answer_text="✓ Yes. 日本",
        citations=(
            AnswerCitation(0, 5, 0, 7, "✓ Yes", (0,), (reference,)),
            AnswerCitation(7, 8, 9, 12, "日", (), ()),
        ),
        references=(reference,),
        state="SUCCEEDED",
    )
    assert warnings(caplog) == [
        "citations[1]: the service sent bytes [10, 12), which do not fit the text (byte offset "
        "10 falls inside the 3-byte character '日' (U+65E5) at string index 7, which spans bytes "
        "9..12); using characters [7, 8) instead"
    ]


def test_a_first_claim_repaired_to_text_at_the_very_start():
    # The first claim's bytes slice other text; its text is at 0 and again later.
    result = check("ab. ab.", [ClaimPb(start_pos=1, end_pos=4, claim_text="ab.")])
    assert (result.claims[0].start, result.claims[0].end) == (0, 3)


def test_every_field_of_a_session():
    name = "projects/p/locations/global/collections/default_collection/engines/e/sessions/9"
    session = de.Session.pb()(
        name=name,
        display_name="Zoë",
        state=de.Session.State.IN_PROGRESS,
        user_pseudo_id="visitor",
        labels=["a", "b"],
        is_pinned=True,
        turns=[
            {"query": {"text": "q1", "query_id": "i1"}, "answer": f"{name}/answers/1"},
            {
                "query": {"text": "q2"},
                "answer": f"{name}/answers/2",
                "detailed_answer": {"name": f"{name}/answers/2", "answer_text": "A."},
            },
        ],
    )
    session.start_time.FromDatetime(dt.datetime(2026, 1, 2, 3, 4, 5))
    session.end_time.FromDatetime(dt.datetime(2026, 1, 2, 3, 4, 6))
    assert session_from_proto(session) == Session(
        name=name,
        display_name="Zoë",
        state="IN_PROGRESS",
        user_pseudo_id="visitor",
        turns=(
            Turn(query="q1", query_id="i1", answer=f"{name}/answers/1"),
            Turn(
                query="q2",
                answer=f"{name}/answers/2",
                detailed_answer=GroundedAnswer(
                    answer_text="A.",
                    name=f"{name}/answers/2",
                    session=name,
                    state="STATE_UNSPECIFIED",
                ),
            ),
        ),
        labels=("a", "b"),
        start_time=dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc),
        end_time=dt.datetime(2026, 1, 2, 3, 4, 6, tzinfo=dt.timezone.utc),
        is_pinned=True,
    )
    assert session_from_proto(de.Session.pb()(name=name)) == Session(
        name=name, state="STATE_UNSPECIFIED"
    )


def test_an_unresolved_summary_reference_is_named_in_the_warning(caplog):
    Summary = de.SearchResponse.Summary.pb()
    response = de.SearchResponse.pb()()
    metadata = Summary.SummaryWithMetadata(
        summary="Zoë runs.",
        citation_metadata={
            "citations": [{"start_index": 0, "end_index": 10, "sources": [{"reference_index": 3}]}]
        },
        references=[{"document": DOC + "/x", "chunk_contents": [{"content": "Zoë runs."}]}],
    )
    response.summary.summary_with_metadata.CopyFrom(metadata)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        answer = answer_from_search_summary(response)
    assert answer.citations[0].references == ()
    assert [r.getMessage() for r in caplog.records] == [
        "summary citations[0].sources points at index 3, but only 1 exist; left unresolved"
    ]


# -- unique reference names and declined answers (issue 16, point 12) -------------------------


def _digest(text):
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _dk_reference(content, parent="documents/d", id=""):
    chunk = dk.DocumentChunk(parent=parent, content=content, id=id)
    return dk.Answer.AnswerReference(
        document_reference=dk.Answer.DocumentReference(document_chunk=chunk)
    )


def test_developer_references_are_named_by_document_and_content():
    answer = dk.Answer(
        answer_text="A. B.",
        references=[
            _dk_reference("A."),
            _dk_reference("B."),
            _dk_reference("A."),
            _dk_reference("A.", id="c9"),
            _dk_reference("A."),
        ],
    )
    names = [r.name for r in answer_from_developer_knowledge(pb(answer)).references]
    a, b = f"documents/d#{_digest('A.')}", f"documents/d#{_digest('B.')}"
    # The same content thrice: numbered on its later occurrences; a chunk id wins.
    assert names == [a, b, f"{a}~2", "documents/d/chunks/c9", f"{a}~3"]


def test_shared_names_get_the_content_digest_and_then_a_number():
    unstructured = de.Answer.Reference.UnstructuredDocumentInfo

    def document(name, content):
        return de.Answer.Reference(
            unstructured_document_info=unstructured(
                document=name, chunk_contents=[unstructured.ChunkContent(content=content)]
            )
        )

    taken = f"{DOC}/x#{_digest('One.')}~2"
    answer = de.Answer(
        answer_text="One.",
        references=[
            document(f"{DOC}/x", "One."),
            document(taken, "Other."),  # a unique name that looks like a numbered one
            document(f"{DOC}/x", "Two."),
            document(f"{DOC}/x", "One."),
            document(f"{DOC}/y", "One."),
            de.Answer.Reference(),
            de.Answer.Reference(),
        ],
    )
    names = [r.name for r in answer_from_discovery_engine(pb(answer)).references]
    x = f"{DOC}/x#{_digest('One.')}"
    assert names == [
        x,
        taken,
        f"{DOC}/x#{_digest('Two.')}",
        f"{DOC}/x#{_digest('One.')}~3",
        f"{DOC}/y",
        f"#{_digest('')}",
        f"#{_digest('')}~2",
    ]


def test_summary_references_of_one_document_are_told_apart():
    Summary = de.SearchResponse.Summary.pb()
    response = de.SearchResponse.pb()()
    metadata = Summary.SummaryWithMetadata(
        summary="Zoë runs. Zoë stops.",
        references=[
            {"document": DOC + "/x", "chunk_contents": [{"content": "Zoë runs."}]},
            {"document": DOC + "/x", "chunk_contents": [{"content": "Zoë stops."}]},
        ],
    )
    response.summary.summary_with_metadata.CopyFrom(metadata)
    names = [r.name for r in answer_from_search_summary(response).references]
    assert names == [f"{DOC}/x#{_digest('Zoë runs.')}", f"{DOC}/x#{_digest('Zoë stops.')}"]


@pytest.mark.parametrize(
    ("text", "reasons", "expected"),
    [
        ("", [], ("EMPTY_ANSWER",)),
        (" \n", [], ("EMPTY_ANSWER",)),
        ("Yes.", [], ()),
        ("", [de.Answer.AnswerSkippedReason.NO_RELEVANT_CONTENT], ("NO_RELEVANT_CONTENT",)),
    ],
)
def test_an_answer_without_text_or_reason_is_skipped_as_empty(text, reasons, expected):
    answer = de.Answer(answer_text=text, answer_skipped_reasons=reasons)
    assert answer_from_discovery_engine(pb(answer)).skipped_reasons == expected


@pytest.mark.parametrize(
    ("text", "expected"), [("", ("EMPTY_ANSWER",)), (" ", ("EMPTY_ANSWER",)), ("Yes.", ())]
)
def test_a_developer_answer_without_text_is_skipped_as_empty(text, expected):
    developer = answer_from_developer_knowledge(pb(dk.Answer(answer_text=text)))
    assert (developer.state, developer.skipped_reasons) == ("SUCCEEDED", expected)


def test_an_empty_summary_without_a_reason_is_skipped_as_empty():
    response = de.SearchResponse.pb()()
    assert answer_from_search_summary(response).skipped_reasons == ("EMPTY_ANSWER",)
    response.summary.summary_text = "A summary."
    assert answer_from_search_summary(response).skipped_reasons == ()
    response.summary.summary_text = ""
    response.summary.summary_skipped_reasons.append(
        de.SearchResponse.Summary.SummarySkippedReason.OUT_OF_DOMAIN_QUERY_IGNORED
    )
    assert answer_from_search_summary(response).skipped_reasons == ("OUT_OF_DOMAIN_QUERY_IGNORED",)
