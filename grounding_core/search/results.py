"""A ``SearchResponse`` as records: each result (a chunk, or a document in documents mode) as a
``SourceChunk`` with every field Google sent, the response's own values as ``SearchResults``; a
document's text is the content ``ChunkSearchSpec.document_text`` chooses."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from google.protobuf.json_format import MessageToDict

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


def _rank_signals(result: Any) -> RankSignals | None:
    if not result.HasField("rank_signals"):
        return None
    signals = result.rank_signals
    has, custom, precomputed = (
        signals.HasField,
        signals.custom_signals,
        signals.precomputed_expression_values,
    )
    # Positional, in the record's field order: this runs for every retrieved chunk.
    return RankSignals(
        signals.keyword_similarity_score if has("keyword_similarity_score") else None,
        signals.relevance_score if has("relevance_score") else None,
        signals.semantic_similarity_score if has("semantic_similarity_score") else None,
        signals.pctr_rank if has("pctr_rank") else None,
        signals.topicality_rank if has("topicality_rank") else None,
        signals.document_age if has("document_age") else None,
        signals.boosting_factor if has("boosting_factor") else None,
        signals.default_rank,
        {s.name: s.value for s in custom} if custom else {},
        tuple(precomputed) if precomputed else (),
    )


def _annotation(annotation: Any) -> AnnotationMetadata:
    content = annotation.structured_content
    return AnnotationMetadata(
        structure_type=enum_name(content, "structure_type", content.structure_type),
        content=content.content,
        image_id=annotation.image_id,
    )


_SCALARS = frozenset({str, int, float, bool, type(None)})


class _Documents:
    """Each document's struct data, the costliest part of a chunk, read once per response (100
    chunks of the built-in store: 26 documents); each chunk gets a copy of its own."""

    def __init__(self) -> None:
        # document name -> (its metadata message, its struct data, whether every value is flat)
        self._read: dict[str, tuple[Any, dict[str, Any], bool]] = {}

    def struct_data(self, name: str, document: Any) -> dict[str, Any]:
        found = self._read.get(name)
        if found is not None and found[0] == document:
            return dict(found[1]) if found[2] else copy.deepcopy(found[1])
        data = struct_field(document, "struct_data") or {}
        self._read[name] = (document, data, all(type(v) in _SCALARS for v in data.values()))
        return data


def _slot_setter(cls: type) -> Any:
    """A ``cls(*every_field)`` that sets the slots of the frozen dataclass directly: the same
    record in half the time of its ``__init__`` (the k=100 retrieval benchmark needs it)."""
    setters = tuple(cls.__dict__[f.name].__set__ for f in dataclasses.fields(cls))
    new = object.__new__

    def build(*values: Any) -> Any:
        record: Any = new(cls)
        for setter, value in zip(setters, values, strict=True):
            setter(record, value)
        return record

    return build


_source_chunk = _slot_setter(SourceChunk)


def _chunk(
    chunk: Any,
    documents: _Documents | None = None,
    rank_signals: RankSignals | None = None,
    model_scores: Any = NO_DATA,
) -> SourceChunk:
    # Each field read directly, an empty repeated field as (): this runs for every chunk.
    name = chunk.name
    document_name, sep, _ = name.rpartition("/chunks/")
    document = chunk.document_metadata
    has = chunk.HasField
    neighbours = chunk.chunk_metadata if has("chunk_metadata") else None
    contents, annotations, urls = (
        chunk.annotation_contents,
        chunk.annotation_metadata,
        chunk.data_urls,
    )
    page = chunk.page_span if has("page_span") else None
    # Every field, in the record's field order.
    return _source_chunk(  # type: ignore[no-any-return]
        name,
        chunk.content,
        chunk.id,
        document_name.rpartition("/")[2] if sep else "",
        document_name if sep else "",
        document.uri,
        document.title,
        "",  # mime_type: v1 sends none
        "",  # description
        "",  # data_source
        None,  # update_time
        (documents or _Documents()).struct_data(document_name, document),
        struct_field(chunk, "derived_struct_data") or {},
        PageSpan(page.page_start, page.page_end) if page is not None else None,
        "",  # page_identifier
        tuple(map(_chunk, neighbours.previous_chunks)) if neighbours else (),
        tuple(map(_chunk, neighbours.next_chunks)) if neighbours else (),
        chunk.relevance_score if has("relevance_score") else None,
        rank_signals,
        model_scores or {},
        tuple(contents) if contents else (),
        tuple(map(_annotation, annotations)) if annotations else (),
        tuple(urls) if urls else (),
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
    derived: dict[str, Any], struct_data: dict[str, Any], choice: DocumentText, document: Any
) -> str:
    if choice == "struct_json":  # as the peers write it: json.dumps of protobuf's dict form
        return json.dumps(MessageToDict(document.struct_data))
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
        content=_document_text(derived, struct_data, document_text, document),
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
        model_scores=_model_scores(result),
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
    documents = _Documents()
    return [
        _chunk(result.chunk, documents, _rank_signals(result), _model_scores(result))
        if result.HasField("chunk")
        else _from_document(result, document_text)
        for result in results
    ]


def _model_scores(result: Any) -> dict[str, tuple[float, ...]]:
    scores = result.model_scores
    return {k: tuple(v.values) for k, v in scores.items()} if scores else {}


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
