"""Discovery Engine ``AnswerQueryResponse`` messages (``Answer``, v1 reference).

- ``grounding_score`` and ``grounding_supports`` only with
  ``grounding_spec.include_grounding_supports`` ("When this field is set to true, returned
  answer will have grounding_score and will contain GroundingSupports for each claim").
- References: ``chunk_info`` in CHUNKS mode; in DOCUMENTS mode ``unstructured_document_info``
  (document, uri, title, the cited chunks as ``chunk_contents``, struct data). Google answers
  from structured documents with ``structured_document_info``; the emulator's answers are made
  of text sentences, so it never sends one.
- A query searched that is not the query asked (rephrased with the session's earlier turns,
  or spell-corrected) is reported as the answer's one step, a search action with the query
  searched (``Answer.Step.Action.SearchAction.query``: "The query to search"): v1's
  ``QueryUnderstandingInfo`` has no field for it.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.answer.engine import AnswerSpan, GeneratedAnswer
from grounding_emulator.answer.sources import SourceDocument
from grounding_emulator.search.engine import ChunkHit
from grounding_emulator.wire.messages.common import ByteOffsets, ChunkNames

__all__ = ["discovery_answer_response", "discovery_answer_stream"]

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


def _chunk_info(reference: Any, hit: ChunkHit, names: ChunkNames) -> None:
    info = reference.chunk_info
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


def _document_info(reference: Any, cited: SourceDocument, names: ChunkNames) -> None:
    document = cited.document
    info = reference.unstructured_document_info
    info.document, info.uri, info.title = names.document(document), document.uri, document.title
    for hit in cited.hits:
        content = info.chunk_contents.add(content=hit.chunk.content, relevance_score=hit.relevance)
        if hit.chunk.page_start is not None:
            content.page_identifier = str(hit.chunk.page_start)
    if document.struct_data:
        info.struct_data.update(document.struct_data)


def discovery_answer_response(
    answer: GeneratedAnswer,
    names: ChunkNames,
    *,
    answer_name: str,
    include_grounding_supports: bool,
    now: _dt.datetime,
) -> Any:
    """An ``AnswerQueryResponse`` (see the module docstring)."""
    response = AnswerQueryResponse()
    message = response.answer
    message.name = answer_name
    message.state = Answer.State.SUCCEEDED
    message.answer_text = answer.text
    message.create_time.FromDatetime(now)
    message.complete_time.FromDatetime(now)
    offsets = ByteOffsets(answer.text)
    _spans(message.citations, answer.citations, offsets, supports=False)
    if include_grounding_supports:
        if answer.grounding_score is not None:
            message.grounding_score = answer.grounding_score
        _spans(message.grounding_supports, answer.supports, offsets, supports=True)
    if answer.documents:
        for cited in answer.documents:
            _document_info(message.references.add(), cited, names)
    else:
        for hit in answer.references:
            _chunk_info(message.references.add(), hit, names)
    message.related_questions.extend(answer.related_questions)
    if answer.searched_query:
        step = message.steps.add(state=Answer.Step.State.SUCCEEDED)
        step.description = "Searched for the rephrased or spell-corrected query"
        step.actions.add().search_action.query = answer.searched_query
    for reason in answer.skipped_reasons:
        message.answer_skipped_reasons.append(Answer.AnswerSkippedReason.Value(reason))
    for kind, positive in answer.query_classification:
        info = message.query_understanding_info.query_classification_info.add()
        info.type_ = _QueryClassificationType.Value(kind)
        info.positive = positive
    return response


def discovery_answer_stream(answer: GeneratedAnswer, final: Any) -> list[Any]:
    """The responses of a ``StreamAnswerQuery`` ("It takes one AnswerQueryRequest and returns
    multiple AnswerQueryResponse messages in a stream"; "the generated answer is broken into
    multiple parts that are sent in sequence ... Typically, each response contains one sentence
    of the answer", *Stream answers*): one response per sentence of the answer (``parts``),
    named, in state ``STREAMING`` ("Answer generation is currently in progress"), then
    ``final``, the whole answer as ``AnswerQuery`` gives it (state ``SUCCEEDED``), whose
    citations index its own ``answer_text``. Every response has ``final``'s
    ``answer_query_token``. What the final response's ``answer_text`` holds (the whole answer
    or its last part) Google's pages do not say: docs/emulator.md."""
    responses = []
    for part in answer.parts:
        response = AnswerQueryResponse(answer_query_token=final.answer_query_token)
        message = response.answer
        message.name = final.answer.name
        message.state = Answer.State.STREAMING
        message.answer_text = part
        message.create_time.CopyFrom(final.answer.create_time)
        responses.append(response)
    return [*responses, final]
