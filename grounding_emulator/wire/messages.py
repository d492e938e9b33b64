"""Engine records -> Google's response messages (raw protobuf, the fastest form to build and
serialize; see the serializer comparison in ``benchmarks/bench_emulator_scale.py``).

Every offset put into a message is in UTF-8 bytes, end exclusive, as the APIs define them.
"""

from __future__ import annotations

import datetime as _dt
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import types as dk

from grounding_emulator.answer.engine import AnswerSpan, GeneratedAnswer
from grounding_emulator.corpus.records import Chunk, Document
from grounding_emulator.grounding.check import CheckedAnswer
from grounding_emulator.grounding.judge import Fact
from grounding_emulator.search.engine import ChunkHit, DocumentHit, SearchPage

__all__ = [
    "BRANCH",
    "ChunkNames",
    "check_grounding_response",
    "developer_answer_response",
    "developer_batch_response",
    "developer_document",
    "developer_search_response",
    "discovery_answer_response",
    "search_response",
]

BRANCH = "default_branch"
SNIPPET_CHARS = 250

SearchResponse = de.SearchResponse.pb()
CheckGroundingResponse = de.CheckGroundingResponse.pb()
AnswerQueryResponse = de.AnswerQueryResponse.pb()
Answer = de.Answer.pb()
_QueryClassificationType = Answer.QueryUnderstandingInfo.QueryClassificationInfo.Type
DkDocument = dk.Document.pb()
DkSearchResponse = dk.SearchDocumentChunksResponse.pb()
DkAnswerQueryResponse = dk.AnswerQueryResponse.pb()
DkBatchGetDocumentsResponse = dk.BatchGetDocumentsResponse.pb()

_VIEW = {
    "BASIC": dk.DocumentView.DOCUMENT_VIEW_BASIC,
    "FULL": dk.DocumentView.DOCUMENT_VIEW_FULL,
    "CONTENT": dk.DocumentView.DOCUMENT_VIEW_CONTENT,
}


class _ByteOffsets:
    """UTF-8 byte offsets of a text's string indices (Google's spans are bytes, end exclusive)."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        # _starts[i] is the byte offset of character i; one extra entry for the end.
        self._starts = [0, *itertools.accumulate(len(c.encode("utf-8")) for c in text)]

    def byte_span(self, start: int, end: int) -> tuple[int, int]:
        """The byte span of the string span ``[start, end)``."""
        return self._starts[start], self._starts[end]


class ChunkNames:
    """Resource names of the documents and chunks of one data store, in one project/location."""

    __slots__ = ("_documents",)

    def __init__(self, data_store_path: str) -> None:
        self._documents = f"{data_store_path}/branches/{BRANCH}/documents/"

    def document(self, document: Document) -> str:
        """``.../branches/default_branch/documents/{id}``."""
        return self._documents + document.id

    def chunk(self, document: Document, chunk: Chunk) -> str:
        """``.../documents/{id}/chunks/{chunk id}``."""
        return f"{self._documents}{document.id}/chunks/{chunk.id}"


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 3].rstrip() + "..."


# -- Search -------------------------------------------------------------------------------------


def _fill_chunk(
    message: Any, document: Document, chunk: Chunk, names: ChunkNames, *, metadata: bool
) -> None:
    message.name = names.chunk(document, chunk)
    message.id = chunk.id
    message.content = chunk.content
    if metadata:
        meta = message.document_metadata
        meta.uri = document.uri
        meta.title = document.title
        if document.struct_data:
            meta.struct_data.update(document.struct_data)
    if chunk.page_start is not None and chunk.page_end is not None:
        message.page_span.page_start = chunk.page_start
        message.page_span.page_end = chunk.page_end


def _rank_signals(result: Any, hit: ChunkHit | DocumentHit, boosted: bool) -> None:
    signals = result.rank_signals
    signals.keyword_similarity_score = hit.keyword_score
    signals.relevance_score = hit.relevance
    signals.default_rank = float(hit.rank)
    if hit.semantic_score is not None:
        signals.semantic_similarity_score = hit.semantic_score
    if boosted:
        signals.boosting_factor = hit.boost


def search_response(
    page: SearchPage,
    names: ChunkNames,
    *,
    return_relevance_score: bool,
    boosted: bool,
    extractive_segments: int = 0,
) -> Any:
    """A ``SearchResponse`` for a page of chunk or document hits."""
    response = SearchResponse(total_size=page.total_size, next_page_token=page.next_page_token)
    for hit in page.hits:
        result = response.results.add()
        if isinstance(hit, ChunkHit):
            result.id = hit.chunk.id
            chunk = result.chunk
            _fill_chunk(chunk, hit.document, hit.chunk, names, metadata=True)
            if return_relevance_score:
                chunk.relevance_score = hit.relevance
            for neighbour in hit.previous:
                added = chunk.chunk_metadata.previous_chunks.add()
                _fill_chunk(added, hit.document, neighbour, names, metadata=False)
            for neighbour in hit.next:
                added = chunk.chunk_metadata.next_chunks.add()
                _fill_chunk(added, hit.document, neighbour, names, metadata=False)
        else:
            _fill_document(result, hit, names, extractive_segments)
            if return_relevance_score:
                result.model_scores["relevance_score"].values.append(hit.relevance)
        _rank_signals(result, hit, boosted)
    return response


def _fill_document(result: Any, hit: DocumentHit, names: ChunkNames, segments: int) -> None:
    document = hit.document
    result.id = document.id
    message = result.document
    message.name = names.document(document)
    message.id = document.id
    message.content.mime_type = document.mime_type
    if document.struct_data:
        message.struct_data.update(document.struct_data)
    best = hit.chunks[0].content if hit.chunks else document.content
    derived: dict[str, Any] = {
        "link": document.uri,
        "title": document.title,
        "snippets": [{"snippet": _snippet(best), "snippet_status": "SUCCESS"}],
    }
    if segments:
        # Google spells these keys in camelCase (unlike "snippet_status"): mirror it.
        derived["extractive_segments"] = [
            {
                "content": chunk.content,
                "pageNumber": str(chunk.page_start) if chunk.page_start else "",
                "relevanceScore": hit.relevance,
            }
            for chunk in hit.chunks[:segments]
        ]
    message.derived_struct_data.update(derived)


# -- CheckGrounding -----------------------------------------------------------------------------


def check_grounding_response(
    answer: str, facts: Sequence[Fact], checked: CheckedAnswer, *, claim_scores: bool
) -> Any:
    """A ``CheckGroundingResponse``: claims with byte spans, cited facts as ``FactChunk``s."""
    offsets = _ByteOffsets(answer)
    response = CheckGroundingResponse(support_score=checked.support_score)
    position_of: dict[int, int] = {}
    for claim, verdict in zip(checked.claims, checked.verdicts, strict=True):
        message = response.claims.add()
        message.start_pos, message.end_pos = offsets.byte_span(claim.start, claim.end)
        message.claim_text = claim.text
        message.grounding_check_required = verdict.grounding_check_required
        if claim_scores:
            message.score = verdict.score
        if not verdict.grounding_check_required:
            continue
        for fact_index in verdict.fact_indices:
            if fact_index not in position_of:
                position_of[fact_index] = len(response.cited_chunks)
                fact = facts[fact_index]
                attributes: Mapping[str, str] = fact.attributes
                chunk = response.cited_chunks.add(
                    chunk_text=fact.text,
                    source=str(fact_index),
                    uri=attributes.get("uri", ""),
                    title=attributes.get("title", ""),
                    domain=attributes.get("domain", ""),
                )
                chunk.source_metadata.update(attributes)
                response.cited_facts.add(chunk_text=fact.text)
            message.citation_indices.append(position_of[fact_index])
    return response


# -- AnswerQuery (Discovery Engine) --------------------------------------------------------------


def _spans(target: Any, spans: Sequence[AnswerSpan], offsets: _ByteOffsets, supports: bool) -> None:
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
    offsets = _ByteOffsets(answer.text)
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


# -- Developer Knowledge ------------------------------------------------------------------------


def developer_document(document: Document, view: str, message: Any = None) -> Any:
    """A Developer Knowledge ``Document`` in ``view`` (``BASIC``, ``CONTENT`` or ``FULL``)."""
    message = message if message is not None else DkDocument()
    message.name = document.developer_knowledge_name
    message.uri = document.uri
    message.data_source = document.data_source
    message.title = document.title
    message.description = document.description
    if document.update_time is not None:
        message.update_time.FromDatetime(document.update_time)
    message.view = _VIEW[view]
    message.content_length_bytes = document.content_length_bytes
    if view != "BASIC":
        message.content = document.content
    return message


def _developer_chunk(message: Any, hit: ChunkHit, *, with_id: bool) -> None:
    message.parent = hit.document.developer_knowledge_name
    if with_id:
        message.id = hit.chunk.id
    message.content = hit.chunk.content
    developer_document(hit.document, "BASIC", message.document)
    message.relevance_score = hit.relevance


def developer_search_response(page: SearchPage) -> Any:
    """A ``SearchDocumentChunksResponse``."""
    response = DkSearchResponse(next_page_token=page.next_page_token)
    for hit in page.hits:
        if isinstance(hit, ChunkHit):
            _developer_chunk(response.results.add(), hit, with_id=True)
    return response


def developer_answer_response(answer: GeneratedAnswer) -> Any:
    """A Developer Knowledge ``AnswerQueryResponse`` (reference chunks carry no id)."""
    response = DkAnswerQueryResponse()
    message = response.answer
    message.answer_text = answer.text
    offsets = _ByteOffsets(answer.text)
    for span in answer.citations:
        citation = message.citations.add()
        citation.start_index, citation.end_index = offsets.byte_span(span.start, span.end)
        for reference in span.reference_indices:
            citation.sources.add(reference_index=reference)
    for hit in answer.references:
        chunk = message.references.add().document_reference.document_chunk
        _developer_chunk(chunk, hit, with_id=False)
    return response


def developer_batch_response(documents: Sequence[Document], view: str) -> Any:
    """A ``BatchGetDocumentsResponse`` in request order."""
    response = DkBatchGetDocumentsResponse()
    for document in documents:
        developer_document(document, view, response.documents.add())
    return response
