"""Reading AnswerQuery's responses: an ``Answer`` as a ``GroundedAnswer`` (citations with string
and UTF-8 byte spans, references as ``SourceChunk``s), a ``Session`` as a ``Session`` record,
and StreamAnswerQuery's responses as the answer's new text and the final record.

Google's *Stream answers* page says "each response contains one sentence of the answer" but not
whether the last one carries the whole answer: ``AnswerAssembler`` reads both (a text that
begins with the text so far carries the answer so far; any other is the next part).

>>> assembler = AnswerAssembler()
>>> pb = de.AnswerQueryResponse.pb
>>> assembler.add(pb(de.AnswerQueryResponse(answer={"answer_text": "One. ", "state": 4})))
'One. '
>>> final = de.AnswerQueryResponse(answer={"answer_text": "One. Two.", "state": 3})
>>> assembler.add(pb(final)), assembler.answer().answer_text, assembler.answer().state
('Two.', 'One. Two.', 'SUCCEEDED')
"""

from __future__ import annotations

import dataclasses
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_core._convert import (
    enum_name,
    optional,
    segments,
    skipped_reasons,
    struct_field,
    struct_text,
    timestamp,
    unique_names,
)
from grounding_core._records import (
    AnswerCitation,
    GroundedAnswer,
    GroundingSupport,
    Session,
    SourceChunk,
    Turn,
)


def _discovery_engine_reference(reference: Any) -> SourceChunk:
    kind = reference.WhichOneof("content")
    if kind == "chunk_info":
        info = reference.chunk_info
        meta = info.document_metadata
        return SourceChunk(
            name=info.chunk,
            content=info.content,
            id=info.chunk.rpartition("/")[2],
            document_id=meta.document.rpartition("/")[2],
            document_name=meta.document,
            uri=meta.uri,
            title=meta.title,
            page_identifier=meta.page_identifier,
            struct_data=struct_field(meta, "struct_data"),
            relevance_score=optional(info, "relevance_score"),
        )
    if kind == "unstructured_document_info":
        info = reference.unstructured_document_info
        contents = list(info.chunk_contents)
        scores = [c.relevance_score for c in contents if c.HasField("relevance_score")]
        return SourceChunk(
            name=info.document,
            content="\n\n".join(c.content for c in contents),
            document_id=info.document.rpartition("/")[2],
            document_name=info.document,
            uri=info.uri,
            title=info.title,
            page_identifier=", ".join(c.page_identifier for c in contents if c.page_identifier),
            struct_data=struct_field(info, "struct_data"),
            relevance_score=max(scores) if scores else None,
        )
    if kind == "structured_document_info":
        info = reference.structured_document_info
        struct_data = struct_field(info, "struct_data")
        return SourceChunk(
            name=info.document,
            content=struct_text(struct_data),
            document_id=info.document.rpartition("/")[2],
            document_name=info.document,
            uri=info.uri,
            title=info.title,
            struct_data=struct_data,
        )
    return SourceChunk(name="", content="")


def answer_from_discovery_engine(answer: Any, *, session: str = "") -> GroundedAnswer:
    """A Discovery Engine ``Answer`` (raw pb) as a record."""
    text = answer.answer_text
    references = unique_names([_discovery_engine_reference(r) for r in answer.references])

    def indices(item: Any) -> tuple[int, ...]:
        # Discovery Engine names references by their position, as a decimal string.
        ids = [source.reference_id for source in item.sources]
        return tuple(int(i) if i.isdigit() else -1 for i in ids)

    def cited(what: str) -> Any:
        return segments(
            text, getattr(answer, what), what=what, indices=indices, references=references
        )

    return GroundedAnswer(
        answer_text=text,
        citations=tuple(AnswerCitation(**fields) for _, fields in cited("citations")),
        references=references,
        grounding_score=optional(answer, "grounding_score"),
        grounding_supports=tuple(
            GroundingSupport(
                **fields,
                score=optional(item, "grounding_score"),
                grounding_check_required=optional(item, "grounding_check_required"),
            )
            for item, fields in cited("grounding_supports")
        ),
        state=enum_name(answer, "state", answer.state),
        skipped_reasons=skipped_reasons(
            text,
            (enum_name(answer, "answer_skipped_reasons", r) for r in answer.answer_skipped_reasons),
        ),
        related_questions=tuple(answer.related_questions),
        name=answer.name,
        session=session,
    )


def session_from_proto(session: Any) -> Session:
    """A Discovery Engine ``Session`` (raw pb) as a record; a turn's ``detailed_answer`` only
    when the service sent one (``GetSession`` with ``include_answer_details``)."""
    return Session(
        name=session.name,
        display_name=session.display_name,
        state=enum_name(session, "state", session.state),
        user_pseudo_id=session.user_pseudo_id,
        turns=tuple(_turn(turn, session.name) for turn in session.turns),
        labels=tuple(session.labels),
        start_time=timestamp(session, "start_time"),
        end_time=timestamp(session, "end_time"),
        is_pinned=session.is_pinned,
    )


def _turn(turn: Any, session: str) -> Turn:
    details = None
    if turn.HasField("detailed_answer"):
        details = answer_from_discovery_engine(turn.detailed_answer, session=session)
    return Turn(turn.query.text, turn.query.query_id, turn.answer, details)


def discovery_engine_answer(pb: Any) -> GroundedAnswer:
    """A Discovery Engine ``AnswerQueryResponse`` (raw pb) as a record, with its session's
    turns."""
    answer = answer_from_discovery_engine(pb.answer, session=pb.session.name)
    turns = tuple(_turn(turn, pb.session.name) for turn in pb.session.turns)
    return dataclasses.replace(answer, turns=turns)


class AnswerAssembler:
    """Reads StreamAnswerQuery's responses into the new text of each and the final record."""

    def __init__(self) -> None:
        self.text = ""
        self._last: Any = None
        self._session: Any = None

    def add(self, response: Any) -> str:
        """The new answer text of ``response`` (a raw ``AnswerQueryResponse``; "" if none)."""
        self._last = response
        if response.HasField("session"):
            self._session = response.session
        part: str = response.answer.answer_text
        delta = part[len(self.text) :] if part.startswith(self.text) else part
        self.text += delta
        return delta

    def answer(self) -> GroundedAnswer:
        """The answer of the last response, with the whole text (an empty stream: no text)."""
        final = de.AnswerQueryResponse.pb()()
        if self._last is not None:
            final.CopyFrom(self._last)
        final.answer.answer_text = self.text
        if self._session is not None:
            final.session.CopyFrom(self._session)
        return discovery_engine_answer(final)
