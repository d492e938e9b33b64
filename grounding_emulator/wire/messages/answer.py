"""Discovery Engine ``AnswerQueryResponse`` messages."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.answer.engine import AnswerSpan, GeneratedAnswer
from grounding_emulator.wire.messages.common import ByteOffsets, ChunkNames

__all__ = ["discovery_answer_response"]

AnswerQueryResponse = de.AnswerQueryResponse.pb()
Answer = de.Answer.pb()
_QueryClassificationType = Answer.QueryUnderstandingInfo.QueryClassificationInfo.Type


def _spans(target: Any, spans: Sequence[AnswerSpan], offsets: ByteOffsets, supports: bool) -> None:
    for span in spans:
        message = target.add()
        message.start_index, message.end_index = offsets.byte_span(span.start, span.end)
        for reference in span.reference_indices:
            message.sources.add(reference_id=str(reference))
        if supports:
            if span.score is not None:
                message.grounding_score = span.score
            if span.grounding_check_required is not None:
                message.grounding_check_required = span.grounding_check_required


def discovery_answer_response(
    answer: GeneratedAnswer,
    names: ChunkNames,
    *,
    answer_name: str,
    include_grounding_supports: bool,
    now: _dt.datetime,
) -> Any:
    """An ``AnswerQueryResponse`` whose references are chunk infos."""
    response = AnswerQueryResponse()
    message = response.answer
    message.name = answer_name
    message.state = Answer.State.SUCCEEDED
    message.answer_text = answer.text
    message.create_time.FromDatetime(now)
    message.complete_time.FromDatetime(now)
    if answer.grounding_score is not None:
        message.grounding_score = answer.grounding_score
    offsets = ByteOffsets(answer.text)
    _spans(message.citations, answer.citations, offsets, supports=False)
    if include_grounding_supports:
        _spans(message.grounding_supports, answer.supports, offsets, supports=True)
    for hit in answer.references:
        info = message.references.add().chunk_info
        info.chunk = names.chunk(hit.document, hit.chunk)
        info.content = hit.chunk.content
        info.relevance_score = hit.relevance
        meta = info.document_metadata
        meta.document = names.document(hit.document)
        meta.uri = hit.document.uri
        meta.title = hit.document.title
        if hit.chunk.page_start is not None:
            meta.page_identifier = str(hit.chunk.page_start)
        if hit.document.struct_data:
            meta.struct_data.update(hit.document.struct_data)
    for reason in answer.skipped_reasons:
        message.answer_skipped_reasons.append(Answer.AnswerSkippedReason.Value(reason))
    for kind, positive in answer.query_classification:
        info = message.query_understanding_info.query_classification_info.add()
        info.type_ = _QueryClassificationType.Value(kind)
        info.positive = positive
    return response
