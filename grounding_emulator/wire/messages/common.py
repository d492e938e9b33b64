"""What the message builders share: UTF-8 byte offsets, resource names."""

from __future__ import annotations

import itertools

from grounding_emulator.corpus.records import Chunk, Document

__all__ = ["BRANCH", "ByteOffsets", "ChunkNames"]

BRANCH = "default_branch"


class ByteOffsets:
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
