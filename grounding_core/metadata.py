"""Flat, JSON-safe metadata of records, one schema for both frameworks (``docs/metadata.md``
lists every key): documents and nodes carry ``chunk_metadata``, answers ``answer_metadata``.
Every key is always present (absent values are ``None`` or empty).
"""

from __future__ import annotations

import copy
import dataclasses
import operator
from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

from ._errors import InputError
from ._records import (
    AnswerCitation,
    Claim,
    GroundedAnswer,
    GroundingResult,
    GroundingSource,
    GroundingSupport,
    RankSignals,
    SearchResults,
    SourceChunk,
    to_jsonable,
)
from .citations import CITATION_ANNOTATIONS_KEY, answer_citations, citations_metadata

# Keys that read as prose (worth showing to an LLM or embedding); the rest is machinery.
CHUNK_PROSE_KEYS = frozenset({"title", "source", "description"})

# Chunk metadata that is bulky machinery, not a description of the source: not sent as fact
# attributes (citations map back to the caller's own objects, so nothing is lost).
FACT_ATTRIBUTE_EXCLUDES = frozenset(
    {"previous_chunks", "next_chunks", "rank_signals", "model_scores", "annotation_contents"}
    | {"annotation_metadata", "data_urls", "derived_struct_data"}
)


def _empty(value: Any) -> bool:
    # Not ``value in (None, "", [], {})``: ``==`` on an array compares element by element.
    return value is None or (isinstance(value, str | list | dict) and not value)


def grounding_source(text: str, metadata: Mapping[str, Any] | None) -> GroundingSource:
    """A source for a grounding check from a framework object's text and metadata (``None``:
    none), without empty values and the keys of ``FACT_ATTRIBUTE_EXCLUDES``."""
    if not isinstance(metadata, Mapping):
        # Anything else but None is refused, naming the source, when the facts are built.
        return GroundingSource(text, {} if metadata is None else metadata)
    kept = {k: v for k, v in metadata.items() if k not in FACT_ATTRIBUTE_EXCLUDES and not _empty(v)}
    return GroundingSource(text, kept)


def search_response_metadata(results: SearchResults) -> dict[str, Any]:
    """Every ``SearchResults`` field but the chunks, JSON-safe (the ``search_response``)."""
    return {
        field.name: to_jsonable(getattr(results, field.name))
        for field in dataclasses.fields(results)
        if field.name != "chunks"
    }


def neighbour_metadata(chunk: SourceChunk) -> dict[str, Any]:
    """A previous/next chunk, reduced to what identifies it and its text."""
    return {"name": chunk.name, "id": chunk.id, "content": chunk.content}


_RANK_SIGNAL_FIELDS = tuple(field.name for field in dataclasses.fields(RankSignals))
# Every field's value in one call (runs for every retrieved chunk).
_rank_signal_values = operator.attrgetter(*_RANK_SIGNAL_FIELDS)


def rank_signals_metadata(signals: RankSignals) -> dict[str, Any]:
    """The signals that are set, JSON-safe (built directly: it runs for every chunk)."""
    out: dict[str, Any] = {}
    for name, value in zip(_RANK_SIGNAL_FIELDS, _rank_signal_values(signals), strict=True):
        # Most signals are absent (None) or a float: those two tests first.
        if value is None:
            continue
        if type(value) is not float:
            if value == () or value == {}:
                continue
            value = to_jsonable(value)
            if value in (None, {}, []):
                continue
        out[name] = value
    return out


# How a retriever lays out a chunk's metadata: "default", our schema; "flat", that and the
# document's struct data keys at the top level, as langchain-google-community's documents have.
MetadataLayout = Literal["default", "flat"]
METADATA_LAYOUTS: tuple[MetadataLayout, ...] = get_args(MetadataLayout)
DEFAULT_METADATA_LAYOUT: MetadataLayout = "default"
# The keys of an extractive segment that langchain-google-community's documents carry.
_SEGMENT_NEIGHBOURS = ("previous_segments", "next_segments")


def check_metadata_layout(value: object) -> MetadataLayout:
    """``value`` if it is a ``MetadataLayout``, else an ``InputError``."""
    if value not in METADATA_LAYOUTS:
        raise InputError(
            f"metadata_layout must be 'default' or 'flat', got {value!r}", field="metadata_layout"
        )
    return value


def flat_metadata(metadata: dict[str, Any], chunk: SourceChunk) -> dict[str, Any]:
    """``metadata`` (``chunk``'s, in the default layout) with a copy of every top-level struct
    data key and, for a document with extractive segments, its first segment's
    ``previous_segments`` and ``next_segments``, as langchain-google-community's documents have
    them; our keys win on a clash (the struct value stays in ``struct_data``)."""
    flat = dict(metadata)
    segments = chunk.derived_struct_data.get("extractive_segments")
    if isinstance(segments, list) and segments and isinstance(segments[0], dict):
        for key in _SEGMENT_NEIGHBOURS:
            flat[key] = copy.deepcopy(segments[0].get(key, []))
    for key, value in chunk.struct_data.items():
        if key not in flat:
            flat[key] = copy.deepcopy(value)
    return flat


def chunk_metadata(
    chunk: SourceChunk, layout: MetadataLayout = DEFAULT_METADATA_LAYOUT
) -> dict[str, Any]:
    """Every field of ``chunk`` but its content, as JSON-safe values; ``source`` is its URI,
    ``id`` its document's id (where the peers put it). ``layout="flat"``: ``flat_metadata`` of
    that.

    >>> chunk_metadata(SourceChunk(name="n", content="c", uri="https://x"))["source"]
    'https://x'
    """
    signals = chunk.rank_signals
    page = chunk.page_span
    metadata: dict[str, Any] = {
        "source": chunk.uri,
        "id": chunk.document_id,
        "uri": chunk.uri,
        "title": chunk.title,
        "chunk_name": chunk.name,
        "chunk_id": chunk.id,
        "document_id": chunk.document_id,
        "document_name": chunk.document_name,
        "mime_type": chunk.mime_type,
        "description": chunk.description,
        "data_source": chunk.data_source,
        "update_time": chunk.update_time.isoformat() if chunk.update_time else None,
        "relevance_score": chunk.relevance_score,
        "page_start": page.start if page else None,
        "page_end": page.end if page else None,
        "page_identifier": chunk.page_identifier,
        "struct_data": dict(chunk.struct_data),
        "derived_struct_data": dict(chunk.derived_struct_data),
        "rank_signals": rank_signals_metadata(signals) if signals else {},
        # Most of these are empty: a comprehension only where there is something to convert.
        "model_scores": (
            {k: list(v) for k, v in chunk.model_scores.items()} if chunk.model_scores else {}
        ),
        "previous_chunks": (
            [neighbour_metadata(c) for c in chunk.previous_chunks] if chunk.previous_chunks else []
        ),
        "next_chunks": (
            [neighbour_metadata(c) for c in chunk.next_chunks] if chunk.next_chunks else []
        ),
        "annotation_contents": list(chunk.annotation_contents),
        "annotation_metadata": (
            [a.to_dict() for a in chunk.annotation_metadata] if chunk.annotation_metadata else []
        ),
        "data_urls": list(chunk.data_urls),
    }
    if layout == DEFAULT_METADATA_LAYOUT:
        return metadata
    check_metadata_layout(layout)
    return flat_metadata(metadata, chunk)


def span_metadata(item: Claim | AnswerCitation | GroundingSupport) -> dict[str, Any]:
    """A cited segment's text and its string and UTF-8 byte spans."""
    return {key: getattr(item, key) for key in ("text", "start", "end", "byte_start", "byte_end")}


def grounding_metadata(result: GroundingResult) -> dict[str, Any]:
    """A grounding result as JSON-safe metadata: support score, claims with both spans, the
    sources each claim cites (as positions in the checked sources) and the cited chunks."""
    return {
        "support_score": result.support_score,
        "claims": [
            {
                **span_metadata(claim),
                "status": claim.status,
                "score": claim.score,
                "grounding_check_required": claim.grounding_check_required,
                "citation_indices": list(claim.citation_indices),
                "source_indices": list(claim.source_indices),
            }
            for claim in result.claims
        ],
        "cited_chunks": [chunk.to_dict() for chunk in result.cited_chunks],
        "unsupported_claims": len(result.unsupported_claims),
    }


def _references_metadata(
    item: AnswerCitation | GroundingSupport, source_ids: Sequence[str]
) -> dict[str, Any]:
    return {
        **span_metadata(item),
        "reference_indices": list(item.reference_indices),
        "source_ids": [source_ids[i] for i in item.reference_indices if 0 <= i < len(source_ids)],
    }


def answer_metadata(answer: GroundedAnswer) -> dict[str, Any]:
    """An answerQuery result's metadata: grounding score, citations and grounding supports with
    both spans, their references' positions (``reference_indices``) and ids (``source_ids``:
    the chunk names), skipped reasons, session, and ``citation_annotations``.

    >>> ref = SourceChunk(name="docs/c1", content="Sets hold unique items.")
    >>> cite = AnswerCitation(0, 5, 0, 5, "Sets.", (0,), (ref,))
    >>> answer_metadata(GroundedAnswer("Sets.", (cite,), (ref,)))["citations"][0]["source_ids"]
    ['docs/c1']
    """
    source_ids = [reference.name for reference in answer.references]
    return {
        "grounding_score": answer.grounding_score,
        "citations": [_references_metadata(c, source_ids) for c in answer.citations],
        "grounding_supports": [
            {
                **_references_metadata(s, source_ids),
                "score": s.score,
                "grounding_check_required": s.grounding_check_required,
            }
            for s in answer.grounding_supports
        ],
        "state": answer.state,
        "skipped_reasons": list(answer.skipped_reasons),
        "related_questions": list(answer.related_questions),
        "answer_name": answer.name,
        "session": answer.session,
        CITATION_ANNOTATIONS_KEY: citations_metadata(answer_citations(answer)),
    }
