"""Developer Knowledge response messages: documents, chunk search, answers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.developer_knowledge_v1 import types as dk

from grounding_emulator.answer.engine import GeneratedAnswer
from grounding_emulator.corpus.records import Document
from grounding_emulator.search.engine import ChunkHit, SearchPage
from grounding_emulator.wire.messages.common import ByteOffsets

__all__ = [
    "developer_answer_response",
    "developer_batch_response",
    "developer_document",
    "developer_search_response",
]

DkDocument = dk.Document.pb()
DkSearchResponse = dk.SearchDocumentChunksResponse.pb()
DkAnswerQueryResponse = dk.AnswerQueryResponse.pb()
DkBatchGetDocumentsResponse = dk.BatchGetDocumentsResponse.pb()

_VIEW = {
    "BASIC": dk.DocumentView.DOCUMENT_VIEW_BASIC,
    "FULL": dk.DocumentView.DOCUMENT_VIEW_FULL,
    "CONTENT": dk.DocumentView.DOCUMENT_VIEW_CONTENT,
}


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
    offsets = ByteOffsets(answer.text)
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
