"""What an answer or a search summary is drawn from: the chunks of search results, and a cited
document with its chunks; pure.

A chunk result is one source chunk; a document result contributes its best chunks (the ones the
search matched, best first), each ranked as its document and scored with its own relevance (an
answer reference's ``ChunkContent.relevance_score``: "The relevance of the chunk for a given
query").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.records import Document
from grounding_emulator.search.engine import ChunkHit, DocumentHit

__all__ = ["SourceDocument", "result_chunks", "source_hits"]


@dataclass(frozen=True, slots=True)
class SourceDocument:
    """A document and its chunks that a text was drawn from: a DOCUMENTS-mode reference of an
    answer (the chunks it cites), a reference of a search summary (the chunks it read)."""

    document: Document
    hits: tuple[ChunkHit, ...]


def result_chunks(store: DataStore, result: ChunkHit | DocumentHit) -> list[ChunkHit]:
    """The source chunks of one search result (module docstring)."""
    if isinstance(result, ChunkHit):
        return [result]
    first = store.document_chunks[result.document_index][0]
    return [
        ChunkHit(
            index=first + chunk.ordinal,
            chunk=chunk,
            document=result.document,
            relevance=relevance,
            keyword_score=result.keyword_score,
            boost=result.boost,
            rank=result.rank,
            semantic_score=result.semantic_score,
        )
        for chunk, relevance in zip(result.chunks, result.chunk_relevances, strict=True)
    ]


def source_hits(store: DataStore, results: Sequence[ChunkHit | DocumentHit]) -> list[ChunkHit]:
    """The source chunks of search results, in result order."""
    return [hit for result in results for hit in result_chunks(store, result)]
