"""``grounding_core.answers.responses``: AnswerQuery's responses as records.

Covers ``answer_from_discovery_engine`` (every field of the answer; citations and grounding
supports as string and UTF-8 byte spans, repaired with a warning when they do not fit the
text; references of all three kinds, each with a name no other reference has; the skip
reasons, ``EMPTY_ANSWER`` for an answer without text or reason; related questions),
``session_from_proto``, ``discovery_engine_answer`` (the session and its turns) and
``AnswerAssembler`` (a stream's parts or growing answer, its new text and the final record).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    AnswerCitation,
    GroundedAnswer,
    GroundingSupport,
    Session,
    SourceChunk,
    Turn,
)
from grounding_core.answers.responses import (
    AnswerAssembler,
    answer_from_discovery_engine,
    discovery_engine_answer,
    session_from_proto,
)

DOC = "projects/p/locations/global/collections/default_collection/dataStores/d/branches/0/documents"
SPAN_LOGGER = "grounding_core._convert"
Reference = de.Answer.Reference
Unstructured = Reference.UnstructuredDocumentInfo


def pb(message):
    return type(message).pb(message)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == SPAN_LOGGER]


def byte_span(text: str, part: str) -> tuple[int, int]:
    start = text.index(part)
    return len(text[:start].encode()), len(text[: start + len(part)].encode())


def chunk_reference() -> de.Answer.Reference:
    return Reference(
        chunk_info=Reference.ChunkInfo(
            chunk=f"{DOC}/lists/chunks/c3",
            content="Lists are mutable.",
            relevance_score=0.75,
            document_metadata=Reference.ChunkInfo.DocumentMetadata(
                document=f"{DOC}/lists",
                uri="https://docs.python.org/lists",
                title="Lists",
                page_identifier="4",
                struct_data={"section": "stdtypes"},
            ),
        )
    )


CHUNK_RECORD = SourceChunk(
    name=f"{DOC}/lists/chunks/c3",
    content="Lists are mutable.",
    id="c3",
    document_id="lists",
    document_name=f"{DOC}/lists",
    uri="https://docs.python.org/lists",
    title="Lists",
    page_identifier="4",
    struct_data={"section": "stdtypes"},
    relevance_score=0.75,
)


# -- references ------------------------------------------------------------------------------


def test_every_reference_kind_keeps_every_field():
    answer = de.Answer(
        references=[
            chunk_reference(),
            Reference(
                unstructured_document_info=Unstructured(
                    document=f"{DOC}/tuples",
                    uri="https://t",
                    title="Tuples",
                    struct_data={"k": 1},
                    chunk_contents=[
                        Unstructured.ChunkContent(
                            content="One.", page_identifier="1", relevance_score=0.25
                        ),
                        Unstructured.ChunkContent(content="Two."),
                        Unstructured.ChunkContent(
                            content="Three.", page_identifier="3", relevance_score=0.5
                        ),
                    ],
                )
            ),
            Reference(
                structured_document_info=Reference.StructuredDocumentInfo(
                    document=f"{DOC}/row-1",
                    struct_data={"name": "tuple", "a": 1},
                    title="Row",
                    uri="u",
                )
            ),
            Reference(),
        ]
    )
    assert answer_from_discovery_engine(pb(answer)).references == (
        CHUNK_RECORD,
        SourceChunk(
            name=f"{DOC}/tuples",
            content="One.\n\nTwo.\n\nThree.",
            document_id="tuples",
            document_name=f"{DOC}/tuples",
            uri="https://t",
            title="Tuples",
            page_identifier="1, 3",  # the pages that have an identifier
            struct_data={"k": 1},
            relevance_score=0.5,  # the best of the chunks' scores
        ),
        SourceChunk(
            name=f"{DOC}/row-1",
            content="a: 1\nname: tuple",  # the struct data, sorted by key
            document_id="row-1",
            document_name=f"{DOC}/row-1",
            uri="u",
            title="Row",
            struct_data={"name": "tuple", "a": 1},
        ),
        SourceChunk(name="", content=""),
    )


@pytest.mark.parametrize(
    ("contents", "score"),
    [
        ([], None),
        ([Unstructured.ChunkContent(content="a")], None),
        ([Unstructured.ChunkContent(content="a", relevance_score=0.0)], 0.0),
        (
            [
                Unstructured.ChunkContent(content="a", relevance_score=0.75),
                Unstructured.ChunkContent(content="b", relevance_score=0.25),
            ],
            0.75,
        ),
    ],
)
def test_a_document_reference_scores_as_its_best_chunk(contents, score):
    answer = de.Answer(
        references=[Reference(unstructured_document_info=Unstructured(chunk_contents=contents))]
    )
    (reference,) = answer_from_discovery_engine(pb(answer)).references
    assert reference.relevance_score == score


def test_a_chunk_reference_without_a_score_has_none():
    reference = Reference(chunk_info=Reference.ChunkInfo(chunk=f"{DOC}/d/chunks/c", content="x"))
    (record,) = answer_from_discovery_engine(pb(de.Answer(references=[reference]))).references
    assert (record.relevance_score, record.struct_data, record.document_id) == (None, {}, "")


def unstructured(name: str, content: str) -> de.Answer.Reference:
    return Reference(
        unstructured_document_info=Unstructured(
            document=name, chunk_contents=[Unstructured.ChunkContent(content=content)]
        )
    )


def test_references_sharing_a_name_get_the_content_digest_and_then_a_number():
    taken = f"{DOC}/x#{digest('One.')}~2"
    answer = de.Answer(
        answer_text="One.",
        references=[
            unstructured(f"{DOC}/x", "One."),
            unstructured(taken, "Other."),  # a unique name that looks like a numbered one
            unstructured(f"{DOC}/x", "Two."),
            unstructured(f"{DOC}/x", "One."),
            unstructured(f"{DOC}/y", "One."),
            Reference(),
            Reference(),
        ],
    )
    result = answer_from_discovery_engine(pb(answer))
    x = f"{DOC}/x#{digest('One.')}"
    assert [r.name for r in result.references] == [
        x,
        taken,
        f"{DOC}/x#{digest('Two.')}",
        f"{x}~3",
        f"{DOC}/y",
        f"#{digest('')}",
        f"#{digest('')}~2",
    ]
    # Only the name changes: the document it belongs to is the same.
    assert {r.document_name for r in result.references[:4:2]} == {f"{DOC}/x"}


# -- answers ---------------------------------------------------------------------------------


def test_an_answer_keeps_every_field(caplog):
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
        references=[chunk_reference()],
        answer_skipped_reasons=[de.Answer.AnswerSkippedReason.OUT_OF_DOMAIN_QUERY_IGNORED],
        related_questions=["Et toi ?", "Et lui ?"],
    )
    with caplog.at_level(logging.WARNING, logger=SPAN_LOGGER):
        result = answer_from_discovery_engine(pb(answer), session="s")
    assert result == GroundedAnswer(
        answer_text=text,
        citations=(AnswerCitation(0, 6, 0, 7, "Ça va.", (0,), (CHUNK_RECORD,)),),
        references=(CHUNK_RECORD,),
        grounding_score=0.5,
        grounding_supports=(
            GroundingSupport(7, 17, 8, 19, "Très bien.", 0.25, False, (0,), (CHUNK_RECORD,)),
        ),
        state="SUCCEEDED",
        skipped_reasons=("OUT_OF_DOMAIN_QUERY_IGNORED",),
        related_questions=("Et toi ?", "Et lui ?"),
        name="answers/a1",
        session="s",
    )
    assert warnings(caplog) == []
    assert json.loads(json.dumps(result.to_dict()))["citations"][0]["text"] == "Ça va."


def test_an_empty_answer_message_is_an_empty_answer():
    assert answer_from_discovery_engine(pb(de.Answer())) == GroundedAnswer(
        answer_text="", state="STATE_UNSPECIFIED", skipped_reasons=("EMPTY_ANSWER",)
    )


ANSWER = "Python 🐍 lists are mutable. Tuples are not. Sets are unordered."


def test_citations_in_any_script_cite_references_of_every_kind():
    first, second = "Python 🐍 lists are mutable.", "Tuples are not."
    answer = de.Answer(
        answer_text=ANSWER,
        citations=[
            de.Answer.Citation(
                start_index=byte_span(ANSWER, first)[0],
                end_index=byte_span(ANSWER, first)[1],
                sources=[de.Answer.CitationSource(reference_id="0")],
            ),
            de.Answer.Citation(
                start_index=byte_span(ANSWER, second)[0],
                end_index=byte_span(ANSWER, second)[1],
                sources=[
                    de.Answer.CitationSource(reference_id="1"),
                    de.Answer.CitationSource(reference_id="2"),
                ],
            ),
        ],
        grounding_supports=[
            de.Answer.GroundingSupport(
                start_index=byte_span(ANSWER, second)[0],
                end_index=byte_span(ANSWER, second)[1],
                sources=[de.Answer.CitationSource(reference_id="1")],
            )
        ],
        references=[
            chunk_reference(),
            unstructured(f"{DOC}/tuples", "Tuples are immutable."),
            Reference(
                structured_document_info=Reference.StructuredDocumentInfo(
                    document=f"{DOC}/row-1", struct_data={"name": "tuple"}, title="Row"
                )
            ),
        ],
    )
    result = answer_from_discovery_engine(pb(answer))
    one, two = result.citations
    assert (one.start, one.end, one.text) == (0, len(first), first)
    assert ANSWER.encode()[one.byte_start : one.byte_end].decode() == first
    assert one.references == (result.references[0],)
    assert (two.reference_indices, two.references) == ((1, 2), result.references[1:])
    assert ANSWER[two.start : two.end] == two.text == second
    (support,) = result.grounding_supports
    assert (support.text, support.reference_indices) == (second, (1,))
    # Unset fields of a support are unknown, not zero or False.
    assert (support.score, support.grounding_check_required) == (None, None)


def test_a_support_score_of_zero_and_a_check_not_required_are_kept():
    answer = de.Answer(
        answer_text="abc",
        grounding_score=0.0,
        grounding_supports=[
            de.Answer.GroundingSupport(
                start_index=0, end_index=3, grounding_score=0.0, grounding_check_required=True
            )
        ],
    )
    result = answer_from_discovery_engine(pb(answer))
    assert result.grounding_score == 0.0
    assert (
        result.grounding_supports[0].score,
        result.grounding_supports[0].grounding_check_required,
    ) == (0.0, True)


def test_an_unknown_reference_id_is_kept_and_left_unresolved(caplog):
    answer = de.Answer(
        answer_text="abc",
        citations=[
            de.Answer.Citation(
                start_index=0,
                end_index=3,
                sources=[
                    de.Answer.CitationSource(reference_id="x"),
                    de.Answer.CitationSource(reference_id="1"),
                    de.Answer.CitationSource(reference_id="0"),
                ],
            )
        ],
        references=[chunk_reference()],
    )
    with caplog.at_level(logging.WARNING, logger=SPAN_LOGGER):
        (citation,) = answer_from_discovery_engine(pb(answer)).citations
    assert citation.reference_indices == (-1, 1, 0)
    assert citation.references == (CHUNK_RECORD,)
    assert [w.split(",")[0] for w in warnings(caplog)] == [
        "citations[0].sources points at index -1",
        "citations[0].sources points at index 1",
    ]


def test_bad_spans_of_answer_segments_are_repaired_and_named_in_the_warning(caplog):
    answer = de.Answer(
        answer_text="日本",
        citations=[de.Answer.Citation(start_index=1, end_index=3)],
        grounding_supports=[de.Answer.GroundingSupport(start_index=0, end_index=9)],
    )
    with caplog.at_level(logging.WARNING, logger=SPAN_LOGGER):
        result = answer_from_discovery_engine(pb(answer))
    citation, support = result.citations[0], result.grounding_supports[0]
    assert (citation.start, citation.end, citation.byte_start, citation.byte_end) == (0, 1, 0, 3)
    assert (citation.text, support.text) == ("日", "日本")
    assert (support.start, support.end) == (0, 2)
    first, second = warnings(caplog)
    assert first.startswith("citations[0]: the service sent bytes [1, 3)")
    assert "using characters [0, 1) instead" in first
    assert second.startswith("grounding_supports[0]: the service sent bytes [0, 9)")
    assert "using characters [0, 2) instead" in second


def test_an_unknown_state_is_kept_as_its_number():
    answer = pb(de.Answer(answer_text="x"))
    answer.state = 99
    answer.answer_skipped_reasons.append(77)
    result = answer_from_discovery_engine(answer)
    assert (result.state, result.skipped_reasons) == ("99", ("77",))


@pytest.mark.parametrize(
    ("text", "reasons", "expected"),
    [
        ("", [], ("EMPTY_ANSWER",)),
        (" \n", [], ("EMPTY_ANSWER",)),
        ("Yes.", [], ()),
        ("", [de.Answer.AnswerSkippedReason.NO_RELEVANT_CONTENT], ("NO_RELEVANT_CONTENT",)),
        (
            "A summary could not be generated.",
            [de.Answer.AnswerSkippedReason.NO_RELEVANT_CONTENT],
            ("NO_RELEVANT_CONTENT",),
        ),
        (
            "",
            [
                de.Answer.AnswerSkippedReason.ADVERSARIAL_QUERY_IGNORED,
                de.Answer.AnswerSkippedReason.JAIL_BREAKING_QUERY_IGNORED,
            ],
            ("ADVERSARIAL_QUERY_IGNORED", "JAIL_BREAKING_QUERY_IGNORED"),
        ),
    ],
)
def test_the_skip_reasons_or_empty_answer_for_an_answer_without_text_or_reason(
    text, reasons, expected
):
    result = answer_from_discovery_engine(
        pb(de.Answer(answer_text=text, answer_skipped_reasons=reasons))
    )
    assert result.skipped_reasons == expected
    assert result.skipped is bool(expected)


# -- sessions --------------------------------------------------------------------------------

SESSION = "projects/p/locations/global/collections/default_collection/engines/e/sessions/9"


def test_a_session_keeps_every_field():
    session = de.Session.pb()(
        name=SESSION,
        display_name="Zoë",
        state=de.Session.State.IN_PROGRESS,
        user_pseudo_id="visitor",
        labels=["a", "b"],
        is_pinned=True,
        turns=[
            {"query": {"text": "q1", "query_id": "i1"}, "answer": f"{SESSION}/answers/1"},
            {
                "query": {"text": "q2"},
                "answer": f"{SESSION}/answers/2",
                "detailed_answer": {"name": f"{SESSION}/answers/2", "answer_text": "A."},
            },
        ],
    )
    session.start_time.FromDatetime(dt.datetime(2026, 1, 2, 3, 4, 5))
    session.end_time.FromDatetime(dt.datetime(2026, 1, 2, 3, 4, 6))
    assert session_from_proto(session) == Session(
        name=SESSION,
        display_name="Zoë",
        state="IN_PROGRESS",
        user_pseudo_id="visitor",
        turns=(
            Turn(query="q1", query_id="i1", answer=f"{SESSION}/answers/1"),
            Turn(
                query="q2",
                answer=f"{SESSION}/answers/2",
                detailed_answer=GroundedAnswer(
                    answer_text="A.",
                    name=f"{SESSION}/answers/2",
                    session=SESSION,
                    state="STATE_UNSPECIFIED",
                ),
            ),
        ),
        labels=("a", "b"),
        start_time=dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc),
        end_time=dt.datetime(2026, 1, 2, 3, 4, 6, tzinfo=dt.timezone.utc),
        is_pinned=True,
    )


def test_a_bare_session_has_no_times_and_no_turns():
    assert session_from_proto(de.Session.pb()(name=SESSION)) == Session(
        name=SESSION, state="STATE_UNSPECIFIED"
    )
    assert Session(name=SESSION).id == "9"


def test_a_turn_with_an_empty_detailed_answer_has_one():
    session = de.Session.pb()(name=SESSION, turns=[{"query": {"text": "q"}, "detailed_answer": {}}])
    (turn,) = session_from_proto(session).turns
    assert turn.detailed_answer == GroundedAnswer(
        "", state="STATE_UNSPECIFIED", skipped_reasons=("EMPTY_ANSWER",), session=SESSION
    )


def test_the_response_session_and_its_turns_reach_the_answer():
    response = de.AnswerQueryResponse(
        answer=de.Answer(answer_text="Yes.", state=de.Answer.State.SUCCEEDED),
        session=de.Session(name=SESSION),
    )
    answer = discovery_engine_answer(pb(response))
    assert (answer.answer_text, answer.session, answer.state, answer.turns) == (
        "Yes.",
        SESSION,
        "SUCCEEDED",
        (),
    )
    response.session.turns.append(
        de.Session.Turn(query=de.Query(text="Why?", query_id="q1"), answer=f"{SESSION}/answers/a1")
    )
    answer = discovery_engine_answer(pb(response))
    assert answer.turns == (Turn(query="Why?", query_id="q1", answer=f"{SESSION}/answers/a1"),)
    assert (answer.answer_text, answer.session) == ("Yes.", SESSION)
    sessionless = discovery_engine_answer(pb(de.AnswerQueryResponse(answer={"answer_text": "x"})))
    assert (sessionless.session, sessionless.turns) == ("", ())


def test_a_turns_detailed_answer_in_a_response_is_of_the_response_session():
    response = de.AnswerQueryResponse(
        answer={"answer_text": "Yes."},
        session={"name": SESSION, "turns": [{"query": {"text": "q"}, "detailed_answer": {}}]},
    )
    (turn,) = discovery_engine_answer(pb(response)).turns
    assert turn.detailed_answer.session == SESSION


# -- the assembler of a stream ---------------------------------------------------------------

STREAMING, SUCCEEDED = de.Answer.State.STREAMING, de.Answer.State.SUCCEEDED


def response(text, state=STREAMING, **fields):
    answer = fields.pop("answer", {})
    return pb(
        de.AnswerQueryResponse(answer={"answer_text": text, "state": state, **answer}, **fields)
    )


def test_parts_then_a_final_whole_answer():
    assembler = AnswerAssembler()
    assert assembler.add(response("Zürich is in Switzerland. ")) == "Zürich is in Switzerland. "
    assert assembler.add(response("東京は首都です。")) == "東京は首都です。"
    whole = "Zürich is in Switzerland. 東京は首都です。"
    assert assembler.text == whole
    citation = {"start_index": 27, "end_index": 51, "sources": [{"reference_id": "0"}]}
    final = response(
        whole,
        SUCCEEDED,
        answer={
            "citations": [citation],
            "references": [{"chunk_info": {"chunk": "c", "content": "東京は首都です。"}}],
        },
    )
    assert assembler.add(final) == ""
    answer = assembler.answer()
    assert (answer.answer_text, answer.state) == (whole, "SUCCEEDED")
    (cited,) = answer.citations
    assert (cited.start, cited.end, cited.byte_start, cited.byte_end) == (26, 34, 27, 51)
    assert whole[cited.start : cited.end] == "東京は首都です。"
    assert cited.references == (SourceChunk(name="c", content="東京は首都です。", id="c"),)


def test_a_final_part_and_a_growing_answer():
    parts = AnswerAssembler()
    assert [parts.add(response("One. ")), parts.add(response("Two.", SUCCEEDED))] == [
        "One. ",
        "Two.",
    ]
    assert (parts.answer().answer_text, parts.answer().state) == ("One. Two.", "SUCCEEDED")
    growing = AnswerAssembler()
    deltas = [growing.add(response(t)) for t in ("A 😀", "A 😀 b.", "A 😀 b. C.")]
    assert deltas == ["A 😀", " b.", " C."]
    assert growing.answer().answer_text == "A 😀 b. C."
    assert growing.answer().state == "STREAMING"  # the stream ended before SUCCEEDED


def test_a_response_without_text_adds_nothing():
    assembler = AnswerAssembler()
    assert assembler.add(response("")) == ""
    assert assembler.add(response("A.")) == "A."
    assert assembler.add(response("")) == ""
    assert assembler.answer().answer_text == "A."


def test_an_empty_stream_is_an_empty_answer():
    assert AnswerAssembler().answer() == GroundedAnswer(
        "", state="STATE_UNSPECIFIED", skipped_reasons=("EMPTY_ANSWER",)
    )


def test_the_session_of_an_earlier_response_is_kept():
    assembler = AnswerAssembler()
    assembler.add(pb(de.AnswerQueryResponse(session={"name": "s/1"})))
    assembler.add(response("Done.", SUCCEEDED))
    assert assembler.answer().session == "s/1"
    turned = AnswerAssembler()
    turned.add(response("A.", session={"name": "s/1"}))
    turned.add(
        response("A. B.", SUCCEEDED, session={"name": "s/2", "turns": [{"query": {"text": "q"}}]})
    )
    answer = turned.answer()
    assert (answer.session, answer.turns) == ("s/2", (Turn(query="q"),))
