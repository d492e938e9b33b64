"""A ``SearchResponse`` as records: each result (a chunk, or a document in documents mode) as a
``SourceChunk`` with every field Google sent, the response's own values as ``SearchResults``; a
document's text is the content ``ChunkSearchSpec.document_text`` chooses."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from typing import Any

from grounding_core._convert import NO_DATA, enum_name, struct_field, struct_text
from grounding_core._records import (
    AnnotationMetadata,
    FacetValue,
    PageSpan,
    RankSignals,
    SearchFacet,
    SearchResults,
    SourceChunk,
)

from .specs import DocumentText

# Every optional score of a result's rank signals (default_rank is always sent).
_SIGNALS = (
    "keyword_similarity_score",
    "relevance_score",
    "semantic_similarity_score",
    "pctr_rank",
    "topicality_rank",
    "document_age",
    "boosting_factor",
)


def _rank_signals(result: Any) -> RankSignals | None:
    if not result.HasField("rank_signals"):
        return None
    signals = result.rank_signals
    has = signals.HasField
    return RankSignals(
        **{name: getattr(signals, name) for name in _SIGNALS if has(name)},
        default_rank=signals.default_rank,
        custom_signals={s.name: s.value for s in signals.custom_signals},
        precomputed_expression_values=tuple(signals.precomputed_expression_values),
    )


def _annotation(annotation: Any) -> AnnotationMetadata:
    content = annotation.structured_content
    return AnnotationMetadata(
        structure_type=enum_name(content, "structure_type", content.structure_type),
        content=content.content,
        image_id=annotation.image_id,
    )


def _chunk(chunk: Any, rank_signals: Any = None, model_scores: Any = NO_DATA) -> SourceChunk:
    name = chunk.name
    document_name, sep, _ = name.rpartition("/chunks/")
    document = chunk.document_metadata
    has = chunk.HasField
    page = chunk.page_span
    neighbours = chunk.chunk_metadata
    return SourceChunk(
        name=name,
        content=chunk.content,
        id=chunk.id,
        document_id=document_name.rpartition("/")[2] if sep else "",
        document_name=document_name if sep else "",
        uri=document.uri,
        title=document.title,
        struct_data=struct_field(document, "struct_data") or {},
        derived_struct_data=struct_field(chunk, "derived_struct_data") or {},
        page_span=PageSpan(page.page_start, page.page_end) if has("page_span") else None,
        previous_chunks=tuple(map(_chunk, neighbours.previous_chunks)),
        next_chunks=tuple(map(_chunk, neighbours.next_chunks)),
        relevance_score=chunk.relevance_score if has("relevance_score") else None,
        rank_signals=rank_signals,
        model_scores=model_scores or {},
        annotation_contents=tuple(chunk.annotation_contents),
        annotation_metadata=tuple(map(_annotation, chunk.annotation_metadata)),
        data_urls=tuple(chunk.data_urls),
    )


_HIGHLIGHT = re.compile(r"</?b>")
_NO_SNIPPET = "NO_SNIPPET_AVAILABLE"
# The contents of a document that hold text, in "auto"'s order: each one's key in the derived
# struct data, and the key of a part's text.
_DOCUMENT_PARTS = {
    "extractive_segments": "content",
    "extractive_answers": "content",
    "snippets": "snippet",
}


def _parts_text(derived: dict[str, Any], key: str) -> str:
    """The parts of one content joined by blank lines (blank ones, "No snippet is available"
    ones and anything but text skipped)."""
    listed = derived.get(key)
    if not isinstance(listed, list):
        return ""
    text_key = _DOCUMENT_PARTS[key]
    parts = [
        p.get(text_key, "")
        for p in listed
        if isinstance(p, dict) and p.get("snippet_status") != _NO_SNIPPET
    ]
    text = "\n\n".join(p for p in parts if isinstance(p, str) and p.strip())
    return _HIGHLIGHT.sub("", text) if key == "snippets" else text


def _document_text(
    derived: dict[str, Any], struct_data: dict[str, Any], choice: DocumentText
) -> str:
    if choice == "struct_data":
        return struct_text(struct_data)
    if choice != "auto":
        return _parts_text(derived, choice)
    for key in _DOCUMENT_PARTS:
        text = _parts_text(derived, key)
        if text:
            return text
    return struct_text(struct_data)


def _from_document(result: Any, document_text: DocumentText) -> SourceChunk:
    document = result.document
    struct_data = struct_field(document, "struct_data") or {}
    derived = struct_field(document, "derived_struct_data") or {}
    uri = derived.get("link") or struct_data.get("uri") or struct_data.get("url") or ""
    title = derived.get("title") or struct_data.get("title") or ""
    return SourceChunk(
        name=document.name,
        content=_document_text(derived, struct_data, document_text),
        id=document.id or result.id,
        document_id=document.id or result.id,
        document_name=document.name,
        uri=str(uri),
        title=str(title),
        mime_type=document.content.mime_type,
        struct_data=struct_data,
        derived_struct_data=derived,
        relevance_score=_segment_score(derived),
        rank_signals=_rank_signals(result),
        model_scores={k: tuple(v.values) for k, v in result.model_scores.items()},
    )


def _segment_score(derived: dict[str, Any]) -> float | None:
    """The best ``relevanceScore`` of a document's extractive segments (sent with
    ``return_extractive_segment_score``), else ``None``: a document has no score of its own."""
    scores = [
        s["relevanceScore"]
        for s in derived.get("extractive_segments", ())
        if isinstance(s, dict) and type(s.get("relevanceScore")) in (int, float)
    ]
    return float(max(scores)) if scores else None


def chunks_from_results(
    results: Iterable[Any], document_text: DocumentText = "auto"
) -> list[SourceChunk]:
    """Each ``SearchResponse.SearchResult`` (raw pb) in chunk or document mode as a record."""
    return [
        _chunk(
            result.chunk,
            _rank_signals(result),
            {k: tuple(v.values) for k, v in result.model_scores.items()},
        )
        if result.HasField("chunk")
        else _from_document(result, document_text)
        for result in results
    ]


def first_pages(pages: Iterable[Any], k: int) -> list[Any]:
    """The pages of a pager's ``pages`` up to the one that brings the ``k``-th result: only as
    many pages are requested as needed."""
    taken, count = [], 0
    for page in pages:
        taken.append(page)
        count += len(type(page).pb(page).results)
        if count >= k:
            break
    return taken


async def afirst_pages(pages: Any, k: int) -> list[Any]:
    """Async ``first_pages`` (an async pager's ``pages``, closed here: left open, the event loop
    would schedule a task to close it)."""
    taken, count = [], 0
    try:
        async for page in pages:
            taken.append(page)
            count += len(type(page).pb(page).results)
            if count >= k:
                break
    finally:
        await pages.aclose()
    return taken


def first_results(pages: list[Any], k: int) -> Iterable[Any]:
    """The first ``k`` results (raw pb) of ``pages``."""
    results = (result for page in pages for result in type(page).pb(page).results)
    return itertools.islice(results, k)


def _facet_value(value: Any) -> FacetValue:
    if value.WhichOneof("facet_value") == "interval":
        interval = {field.name: bound for field, bound in value.interval.ListFields()}
        return FacetValue(count=value.count, interval=interval)
    return FacetValue(count=value.count, value=value.value)


def search_results(response: Any, chunks: Sequence[SourceChunk]) -> SearchResults:
    """The response-level fields of a ``SearchResponse`` (raw pb, the first page) with the
    ``chunks`` read from its pages."""
    expansion = response.query_expansion_info
    return SearchResults(
        chunks=tuple(chunks),
        total_size=response.total_size,
        corrected_query=response.corrected_query,
        expanded_query=expansion.expanded_query,
        pinned_result_count=expansion.pinned_result_count,
        facets=tuple(
            SearchFacet(facet.key, tuple(map(_facet_value, facet.values)), facet.dynamic_facet)
            for facet in response.facets
        ),
        attribution_token=response.attribution_token,
    )
