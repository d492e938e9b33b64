"""``SearchResponse`` messages: chunk and document results, facets, spell correction and query
expansion."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.corpus.records import Chunk, Document
from grounding_emulator.search.engine import ChunkHit, DocumentHit, SearchPage
from grounding_emulator.search.extractive import extractive_answers
from grounding_emulator.search.facets import Interval
from grounding_emulator.search.snippets import snippet
from grounding_emulator.wire.messages.common import ChunkNames

__all__ = ["NO_SNIPPET", "ContentOptions", "search_response"]

SearchResponse = de.SearchResponse.pb()
# SnippetSpec.return_snippet: what Google sends when no snippet can be generated.
NO_SNIPPET = "No snippet is available for this page."


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


@dataclass(frozen=True, slots=True)
class ContentOptions:
    """What a DOCUMENTS-mode result carries besides the document (``ContentSearchSpec``):
    snippets when ``snippet_spec.return_snippet`` is set, up to ``extractive_segments`` segments
    (with ``relevanceScore`` only when ``segment_scores``), up to ``extractive_answers`` answers
    for ``query``."""

    snippets: bool = False
    extractive_segments: int = 0
    segment_scores: bool = False
    extractive_answers: int = 0
    query: str = ""


def search_response(
    page: SearchPage,
    names: ChunkNames,
    *,
    return_relevance_score: bool,
    boosted: bool,
    content: ContentOptions = ContentOptions(),
    query_expansion: bool = False,
) -> Any:
    """A ``SearchResponse`` for a page of chunk or document hits.

    In CHUNKS mode ``SearchResult.id`` is the searched document's id and ``chunk`` the chunk
    (Google's ``SearchResult`` reference: "id: Document.id of the searched Document"). The
    response carries ``corrected_query`` when a spell correction was found,
    ``query_expansion_info`` when expansion was asked for (``pinned_result_count`` "only ...
    when expansion happens and pin_unexpanded_results is set"), and the facets asked for.
    """
    response = SearchResponse(total_size=page.total_size, next_page_token=page.next_page_token)
    if page.corrected_query:
        response.corrected_query = page.corrected_query
    if query_expansion:
        info = response.query_expansion_info
        info.expanded_query = page.expanded
        if page.pinned_result_count:
            info.pinned_result_count = page.pinned_result_count
    for facet in page.facets:
        message = response.facets.add(key=facet.key)
        for value, count in facet.values:
            added = message.values.add(count=count)
            if isinstance(value, str):
                added.value = value
            else:
                _fill_interval(added.interval, value)
    for hit in page.hits:
        result = response.results.add()
        if isinstance(hit, ChunkHit):
            result.id = hit.document.id
            chunk = result.chunk
            _fill_chunk(chunk, hit.document, hit.chunk, names, metadata=True)
            if return_relevance_score:
                chunk.relevance_score = hit.relevance
            for neighbour in hit.previous:
                added_chunk = chunk.chunk_metadata.previous_chunks.add()
                _fill_chunk(added_chunk, hit.document, neighbour, names, metadata=False)
            for neighbour in hit.next:
                added_chunk = chunk.chunk_metadata.next_chunks.add()
                _fill_chunk(added_chunk, hit.document, neighbour, names, metadata=False)
        else:
            _fill_document(result, hit, names, content)
            if return_relevance_score:
                result.model_scores["relevance_score"].values.append(hit.relevance)
        _rank_signals(result, hit, boosted)
    return response


def _fill_interval(message: Any, interval: Interval) -> None:
    for field in ("minimum", "exclusive_minimum", "maximum", "exclusive_maximum"):
        value = getattr(interval, field)
        if value is not None:
            setattr(message, field, value)


def _page_number(chunk: Chunk) -> str:
    return str(chunk.page_start) if chunk.page_start else ""


def _segment(chunk: Chunk) -> dict[str, Any]:
    return {"content": chunk.content, "pageNumber": _page_number(chunk)}


def _fill_document(
    result: Any, hit: DocumentHit, names: ChunkNames, content: ContentOptions
) -> None:
    """A DOCUMENTS-mode result: only what ``content`` asks for ("Get snippets and extracted
    content"; snippets with hit highlighting, ``search/snippets.py``;
    ``SnippetSpec.return_snippet``: "If no snippet can be generated, we return 'No
    snippet is available for this page.' A snippet_status with SUCCESS or NO_SNIPPET_AVAILABLE
    will also be returned"). Google spells the extractive keys in camelCase (``pageNumber``,
    ``relevanceScore``) and the snippet keys in snake case: mirrored."""
    document = hit.document
    result.id = document.id
    message = result.document
    message.name = names.document(document)
    message.id = document.id
    message.content.mime_type = document.mime_type
    if document.struct_data:
        message.struct_data.update(document.struct_data)
    derived: dict[str, Any] = {"link": document.uri, "title": document.title}
    if content.snippets:
        best = hit.chunks[0].content if hit.chunks else document.content
        derived["snippets"] = (
            [{"snippet": snippet(best, content.query), "snippet_status": "SUCCESS"}]
            if best.strip()
            else [{"snippet": NO_SNIPPET, "snippet_status": "NO_SNIPPET_AVAILABLE"}]
        )
    if content.extractive_answers:
        answers = extractive_answers(content.query, hit.chunks, content.extractive_answers)
        if answers:
            derived["extractive_answers"] = [
                {"content": a.content, "pageNumber": str(a.page) if a.page else ""} for a in answers
            ]
    if content.extractive_segments and hit.chunks:
        segments = []
        for number, chunk in enumerate(hit.chunks[: content.extractive_segments]):
            segment = _segment(chunk)
            if content.segment_scores:
                # "Relevance scores are based on the similarity of the query to the extracted
                # segment": the segment's chunk's.
                segment["relevanceScore"] = hit.chunk_relevances[number]
            if hit.neighbours:
                previous, following = hit.neighbours[number]
                segment["previous_segments"] = [_segment(c) for c in previous]
                segment["next_segments"] = [_segment(c) for c in following]
            segments.append(segment)
        derived["extractive_segments"] = segments
    message.derived_struct_data.update(derived)
