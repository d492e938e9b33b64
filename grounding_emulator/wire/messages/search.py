"""``SearchResponse`` messages: chunk and document results."""

from __future__ import annotations

from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.corpus.records import Chunk, Document
from grounding_emulator.search.engine import ChunkHit, DocumentHit, SearchPage
from grounding_emulator.wire.messages.common import ChunkNames, snippet

__all__ = ["search_response"]

SearchResponse = de.SearchResponse.pb()


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
        "snippets": [{"snippet": snippet(best), "snippet_status": "SUCCESS"}],
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
