"""A data store: documents, their chunks, the BM25 index and (optionally) the vectors, as one
immutable snapshot.

``DataStore.build`` chunks and indexes source documents, and, when given an embedder
(``embeddings.py``), embeds the chunks and their prose sentences and indexes whole documents
with BM25 too (the document evidence of hybrid ranking, ``fusion.py``); ``save``/``load``
persist a snapshot in a folder (``manifest.json``, ``documents/``, ``chunks/``, ``index/``,
``heading_index/``, ``document_index/``, ``vectors/``); the manifest, written last, holds each
file's size and checksum and the counts, which ``load`` verifies (``integrity.py``).
Documents and chunks are compact columns (``columns.py``): ``build`` appends each source to them
as it reads it (the corpus is never held as records), ``load`` memory-maps them, and a record is
built when a search asks for it; ``load`` builds no per-document object at all.
``build`` stores only what can be served (``validation.py``): a document that breaks a limit is
skipped, like what the readers skip, and listed in ``skipped``. A snapshot never changes
after it is built: a re-ingest builds a new one and the store swaps the reference, so readers
always see a whole index.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from grounding_emulator.call_state import check_call
from grounding_emulator.corpus.chunking import DEFAULT_MAX_CHARS, chunk_blocks
from grounding_emulator.corpus.columns import (
    ChunkTable,
    ChunkTableBuilder,
    DocumentTable,
    DocumentTableBuilder,
    flatten_struct,
)
from grounding_emulator.corpus.embedding_cache import text_key
from grounding_emulator.corpus.embeddings import Embedder, passage_text, sentence_texts
from grounding_emulator.corpus.index import ChunkIndex, PostingsBuilder, Vocabulary
from grounding_emulator.corpus.integrity import file_digests, verify_files
from grounding_emulator.corpus.reading import Skipped, SourceDocument
from grounding_emulator.corpus.records import Chunk, Document
from grounding_emulator.corpus.schema import FieldType
from grounding_emulator.corpus.semantic_index import SemanticIndex
from grounding_emulator.corpus.tokens import TOKENIZER_VERSION, tokenize
from grounding_emulator.corpus.validation import check_document
from grounding_emulator.errors import CorpusError

__all__ = ["FORMAT_VERSION", "DataStore", "ProgressCallback", "flatten_struct"]

logger = logging.getLogger(__name__)

# 5: documents and chunks as memory-mapped columns (columns.py), not JSON lines.
FORMAT_VERSION = 5
_MASK_CACHE_SIZE = 256
# Documents a filter is evaluated on between two checks of the call (``call_state``).
_MASK_BLOCK = 1024

ProgressCallback = Callable[[str, int, int], None]
"""``on_progress(phase, done, total)``: phases ``read``, ``chunk``, ``index``, ``embed``,
``save``."""
_EMBED_BATCH = 256


def _embed(
    embedder: Embedder,
    passages: Sequence[str],
    sentences: Sequence[Sequence[str]],
    report: ProgressCallback,
) -> SemanticIndex:
    """Embed the chunks' passages and sentences, in batches (``report`` tells how far)."""
    flat = [text for group in sentences for text in group]
    texts = [*passages, *flat]
    parts = []
    for start in range(0, len(texts), _EMBED_BATCH):
        report("embed", start, len(texts))
        parts.append(embedder.embed_passages(texts[start : start + _EMBED_BATCH]))
    report("embed", len(texts), len(texts))
    vectors = np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)
    owners = np.asarray([c for c, group in enumerate(sentences) for _ in group], dtype=np.int32)
    return SemanticIndex(
        embedder,
        vectors[: len(passages)],
        vectors[len(passages) :].astype(np.float16),
        owners,
        [text_key(t) for t in flat],
    )


def _heading_text(document: Document, chunk: Chunk) -> str:
    return f"{document.title}\n{chunk.heading}"


def _document_text_index(documents: DocumentTable, chunks: ChunkTable) -> ChunkIndex:
    """BM25 over whole documents: the title and the text of the chunks of each."""
    vocabulary = Vocabulary()
    builder = PostingsBuilder(vocabulary)
    owner = chunks.document_numbers
    ends = np.searchsorted(owner, np.arange(1, len(documents) + 1), side="left").tolist()
    first = 0
    for number, end in enumerate(ends):
        ids = vocabulary.ids(tokenize(documents[number].title))
        for row in range(first, end):
            ids.extend(vocabulary.ids(tokenize(chunks[row].content)))
        builder.add(ids)
        first = end
    return builder.build()


class _Ranges(Sequence[tuple[int, int]]):
    """``(first, end)`` chunk range of each document, from ``len + 1`` chunk offsets."""

    __slots__ = ("_starts",)

    def __init__(self, starts: np.ndarray) -> None:
        self._starts = starts

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        index %= len(self)
        return int(self._starts[index]), int(self._starts[index + 1])


def _document_vectors(vectors: np.ndarray, owner: np.ndarray, count: int) -> np.ndarray | None:
    """The unit mean of each document's chunk vectors (zeros for a document without chunks);
    the chunks of a document are contiguous."""
    if vectors.ndim != 2 or not len(vectors):
        return None
    sums = np.zeros((count, vectors.shape[1]), dtype=np.float32)
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    sums[owner[starts]] = np.add.reduceat(vectors, starts, axis=0)
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    means: np.ndarray = sums / np.maximum(norms, 1e-12)
    means.setflags(write=False)
    return means


def _valid_sources(
    sources: Iterable[SourceDocument | Skipped], skipped: list[Skipped], report: ProgressCallback
) -> Iterator[SourceDocument]:
    """The sources that can be stored, one at a time; what is skipped is appended to
    ``skipped`` (in the order met)."""
    read = 0
    origins: dict[str, str] = {}
    for source in sources:
        if isinstance(source, Skipped):
            skipped.append(source)
            continue
        document = source.document
        where = source.origin or f"document {document.id!r}"
        try:
            check_document(document)
        except CorpusError as exc:
            skipped.append(Skipped(where, str(exc)))
            continue
        if document.id in origins:
            first = origins[document.id]
            skipped.append(
                Skipped(
                    where,
                    f"duplicate document id {document.id!r} (first: {first}): give each "
                    "document its own id",
                )
            )
            continue
        origins[document.id] = where
        read += 1
        yield source
        if read % 100 == 0:
            report("read", read, 0)


@dataclass(frozen=True, eq=False)
class DataStore:
    """An immutable snapshot of one data store.

    ``documents`` and ``chunks`` are sequences of records built on access from compact columns
    (``columns.py``; ``DocumentTable.from_records`` makes one of records).
    Chunks of a document are contiguous and in document order: ``chunk_document[i]`` is the
    document index of chunk ``i``, ``document_chunks[d]`` the ``(first, end)`` chunk range of
    document ``d``. ``heading_index`` is BM25 over each chunk's document title and heading path
    alone (a title match is strong evidence, ``fusion.keyword_relevance``). ``semantic`` holds
    the chunk and sentence vectors when the snapshot was built with an embedder (hybrid
    search), else ``None`` (BM25 search); then ``document_text_index`` is BM25 over whole
    documents (row ``d`` is document ``d``) and ``document_vectors`` the unit mean of each
    document's chunk vectors. ``skipped`` lists what the ingest left out, and why.
    """

    id: str
    documents: DocumentTable
    chunks: ChunkTable
    index: ChunkIndex
    heading_index: ChunkIndex = field(default_factory=lambda: ChunkIndex(None, 0))
    semantic: SemanticIndex | None = None
    document_text_index: ChunkIndex = field(default_factory=lambda: ChunkIndex(None, 0))
    fingerprint: str = ""
    max_chunk_chars: int = DEFAULT_MAX_CHARS
    created: _dt.datetime = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc))
    skipped: tuple[Skipped, ...] = ()
    chunk_document: np.ndarray = field(init=False, repr=False)
    document_chunks: Sequence[tuple[int, int]] = field(init=False, repr=False)
    document_vectors: np.ndarray | None = field(init=False, repr=False)
    _masks: OrderedDict[str, np.ndarray] = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False)

    def __post_init__(self) -> None:
        setattr_ = object.__setattr__
        # A contiguous copy (4 bytes a chunk): every search indexes masks and boosts with it.
        owner = np.ascontiguousarray(self.chunks.document_numbers, dtype=np.int32)
        owner.setflags(write=False)
        setattr_(self, "chunk_document", owner)
        starts = np.zeros(len(self.documents) + 1, dtype=np.int64)
        if len(owner):
            np.cumsum(np.bincount(owner, minlength=len(self.documents)), out=starts[1:])
        setattr_(self, "document_chunks", _Ranges(starts))
        vectors = self.semantic.vectors if self.semantic is not None else np.zeros((0, 0))
        setattr_(self, "document_vectors", _document_vectors(vectors, owner, len(self.documents)))
        setattr_(self, "_masks", OrderedDict())
        setattr_(self, "_lock", threading.Lock())

    # -- lookups --------------------------------------------------------------------------------

    def document_index(self, document_id: str) -> int | None:
        """The index of the document with id ``document_id``."""
        return self.documents.index_of(document_id)

    def document_by_name(self, name: str) -> Document | None:
        """The document whose Developer Knowledge name is ``name``."""
        index = self.documents.index_of_name(name)
        return None if index is None else self.documents[index]

    @property
    def struct_fields(self) -> frozenset[str]:
        """Every (flattened) struct data field that some document has."""
        return frozenset(self.documents.struct_types)

    @property
    def struct_types(self) -> Mapping[str, frozenset[FieldType]]:
        """The types each struct data field holds (the detected schema, ``schema.py``)."""
        return self.documents.struct_types

    def flat_struct(self, document_index: int) -> dict[str, Any]:
        """The flattened struct data of a document."""
        return flatten_struct(self.documents.struct(document_index))

    def neighbours(
        self, chunk_index: int, before: int, after: int
    ) -> tuple[tuple[Chunk, ...], tuple[Chunk, ...]]:
        """Up to ``before`` previous and ``after`` next chunks of the same document, each in
        document order."""
        if not before and not after:  # what most searches ask: no chunk to read
            return (), ()
        first, end = self.document_chunks[int(self.chunk_document[chunk_index])]
        previous = self.chunks[max(first, chunk_index - before) : chunk_index] if before else ()
        following = (
            self.chunks[chunk_index + 1 : min(end, chunk_index + 1 + after)] if after else ()
        )
        return previous, following

    def document_mask(self, key: str, predicate: Callable[[int], bool]) -> np.ndarray:
        """A boolean array over documents (``predicate(document_index)``), cached by ``key``."""
        with self._lock:
            mask = self._masks.get(key)
            if mask is not None:
                self._masks.move_to_end(key)
                return mask
        count = len(self.documents)
        mask = np.empty(count, dtype=bool)
        for start in range(0, count, _MASK_BLOCK):  # a call no longer wanted stops between blocks
            check_call("matching documents", start, count)
            end = min(count, start + _MASK_BLOCK)
            mask[start:end] = np.fromiter((predicate(i) for i in range(start, end)), bool)
        mask.setflags(write=False)
        with self._lock:
            self._masks[key] = mask
            while len(self._masks) > _MASK_CACHE_SIZE:
                self._masks.popitem(last=False)
        return mask

    # -- building -------------------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        data_store_id: str,
        sources: Iterable[SourceDocument | Skipped],
        *,
        max_chunk_chars: int = DEFAULT_MAX_CHARS,
        fingerprint: str = "",
        on_progress: ProgressCallback | None = None,
        embedder: Embedder | None = None,
    ) -> DataStore:
        """Chunk and index ``sources``; with an ``embedder``, embed every chunk too.

        A source whose document breaks a limit (``validation.check_document``) or repeats an id is
        skipped, and listed in ``skipped`` with the ``Skipped`` records among ``sources``; when
        nothing is left of sources that were not all empty, that is a ``CorpusError``.
        Sources are read one at a time: each is chunked, tokenized (to integer ids) and
        appended to the columns before the next is read.
        """
        report = on_progress or (lambda phase, done, total: None)
        total = len(sources) if isinstance(sources, Sized) else 0
        skipped: list[Skipped] = []
        documents = DocumentTableBuilder()
        chunks = ChunkTableBuilder()
        vocabulary = Vocabulary()
        index = PostingsBuilder(vocabulary)
        heading_index = PostingsBuilder(vocabulary)
        document_index = PostingsBuilder(vocabulary) if embedder is not None else None
        passages: list[str] = []
        sentences: list[list[str]] = []
        count = 0
        for source in _valid_sources(sources, skipped, report):
            document = source.document
            documents.add(document)
            # Tokens of title + heading, once per heading: the index text of a chunk is
            # "title\nheading\ncontent", whose tokens are those of "title\nheading" and of
            # the content (BM25 counts tokens, their order does not matter).
            headings: dict[str, list[int]] = {}
            whole = vocabulary.ids(tokenize(document.title)) if document_index is not None else []
            for ordinal, piece in enumerate(chunk_blocks(source.blocks, max_chars=max_chunk_chars)):
                chunk = Chunk(
                    id=f"c{ordinal + 1}",
                    document_index=count,
                    ordinal=ordinal,
                    content=piece.content,
                    heading=piece.heading,
                    page_start=piece.page_start,
                    page_end=piece.page_end,
                )
                chunks.add(chunk)
                heading_ids = headings.get(chunk.heading)
                if heading_ids is None:
                    heading_text = _heading_text(document, chunk)
                    heading_ids = headings[chunk.heading] = vocabulary.ids(tokenize(heading_text))
                content_ids = vocabulary.ids(tokenize(chunk.content))
                heading_index.add(heading_ids)
                index.add(heading_ids + content_ids)
                if embedder is not None:
                    whole.extend(content_ids)
                    passages.append(passage_text(document, chunk))
                    sentences.append(sentence_texts(chunk))
            if document_index is not None:
                document_index.add(whole)
            count += 1
            if count % 50 == 0:
                report("chunk", count, total)
        report("read", count, count)
        report("chunk", count, count)
        if not count and any(not s.unsupported for s in skipped):
            reasons = "; ".join(str(s) for s in skipped[:3])
            raise CorpusError(
                f"data store {data_store_id}: no document could be ingested ({reasons}"
                f"{'; ...' if len(skipped) > 3 else ''}): fix the corpus"
            )
        report("index", 0, 1)
        built = index.build()
        built_headings = heading_index.build()
        document_text_index = ChunkIndex(None, 0)
        if document_index is not None:
            document_text_index = document_index.build()
        report("index", 1, 1)
        semantic = None
        if embedder is not None:
            semantic = _embed(embedder, passages, sentences, report)
        return cls(
            id=data_store_id,
            documents=documents.table(),
            chunks=chunks.table(),
            index=built,
            heading_index=built_headings,
            semantic=semantic,
            document_text_index=document_text_index,
            fingerprint=fingerprint,
            max_chunk_chars=max_chunk_chars,
            skipped=tuple(skipped),
        )

    def with_semantic(self, semantic: SemanticIndex) -> DataStore:
        """This snapshot with other vectors (one per chunk), and the whole-document BM25 index
        that hybrid ranking needs (built if this snapshot has none)."""
        text_index = self.document_text_index
        if len(text_index) != len(self.documents):
            text_index = _document_text_index(self.documents, self.chunks)
        return replace(self, semantic=semantic, document_text_index=text_index)

    # -- persistence ----------------------------------------------------------------------------

    @property
    def embedding_model(self) -> str:
        """The model of the chunk vectors ("" for a BM25-only snapshot)."""
        return self.semantic.model_id if self.semantic is not None else ""

    def manifest(self) -> dict[str, Any]:
        """What ``manifest.json`` records: format, tokenizer, embedding model, fingerprint,
        counts, what was skipped (``save`` adds each file's size and checksum)."""
        return {
            "format": FORMAT_VERSION,
            "tokenizer": TOKENIZER_VERSION,
            "embedding_model": self.embedding_model,
            "data_store": self.id,
            "fingerprint": self.fingerprint,
            "max_chunk_chars": self.max_chunk_chars,
            "documents": len(self.documents),
            "chunks": len(self.chunks),
            "created": self.created.isoformat(),
            "skipped": [[s.where, s.reason, s.unsupported] for s in self.skipped],
        }

    def save(self, directory: Path) -> None:
        """Write the snapshot into ``directory`` (which must not exist yet)."""
        directory.mkdir(parents=True)
        self.documents.save(directory / "documents")
        self.chunks.save(directory / "chunks")
        self.index.save(directory / "index")
        self.heading_index.save(directory / "heading_index")
        self.document_text_index.save(directory / "document_index")
        if self.semantic is not None:
            self.semantic.save(directory / "vectors")
        # The manifest is written last, and whole (a folder without one is incomplete).
        manifest = {**self.manifest(), "files": file_digests(directory)}
        pending = directory / ".manifest.json.tmp"
        pending.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        os.replace(pending, directory / "manifest.json")

    @staticmethod
    def read_manifest(directory: Path) -> dict[str, Any]:
        """The manifest of a saved snapshot (``CorpusError`` if missing or unreadable)."""
        try:
            manifest: dict[str, Any] = json.loads(
                (directory / "manifest.json").read_text(encoding="utf-8")
            )
        except (OSError, json.JSONDecodeError) as exc:
            raise CorpusError(f"{directory} holds no complete data store ({exc})") from exc
        return manifest

    @classmethod
    def load(cls, directory: Path, *, embedder: Embedder | None = None) -> DataStore:
        """Read a snapshot written by ``save``, after checking every file against the
        manifest's sizes and checksums and the counts read against its counts (a
        ``CorpusError`` naming the file otherwise); its chunk vectors are read when they come
        from ``embedder``'s model (else the snapshot searches with BM25 alone)."""
        manifest = cls.read_manifest(directory)
        if manifest.get("format") != FORMAT_VERSION:
            raise CorpusError(
                f"{directory}: index format {manifest.get('format')} is not {FORMAT_VERSION} "
                "(written by another version)"
            )
        try:
            verify_files(directory, manifest["files"])
            documents = DocumentTable.load(directory / "documents", manifest["documents"])
            chunks = ChunkTable.load(directory / "chunks", manifest["chunks"])
            # Memory-mapped: a search reads the posting lists of its query tokens only.
            index = ChunkIndex.load(directory / "index", mmap=True)
            heading_index = ChunkIndex.load(directory / "heading_index", mmap=True)
            document_text_index = ChunkIndex.load(directory / "document_index", mmap=True)
            semantic = None
            saved_model = manifest.get("embedding_model") or ""
            if embedder is not None and saved_model == embedder.model_id:
                semantic = SemanticIndex.load(directory / "vectors", embedder)
            elif saved_model:
                logger.info(
                    "%s: chunk vectors of %s not used (embedder: %s)",
                    directory,
                    saved_model,
                    embedder.model_id if embedder is not None else "none",
                )
            _check_counts(manifest, documents, chunks, (index, heading_index, document_text_index))
            if semantic is not None and len(semantic.vectors) != len(chunks):
                raise CorpusError(f"vectors/ holds {len(semantic.vectors)} chunk vectors")
            skipped = tuple(Skipped(w, r, bool(u)) for w, r, u in manifest.get("skipped", ()))
            created = _dt.datetime.fromisoformat(manifest["created"])
        except (OSError, ValueError, KeyError, TypeError, CorpusError) as exc:
            raise CorpusError(f"{directory}: cannot read the saved data store ({exc})") from exc
        return cls(
            id=manifest["data_store"],
            documents=documents,
            chunks=chunks,
            index=index,
            heading_index=heading_index,
            semantic=semantic,
            document_text_index=document_text_index,
            fingerprint=manifest.get("fingerprint", ""),
            max_chunk_chars=manifest.get("max_chunk_chars", DEFAULT_MAX_CHARS),
            created=created,
            skipped=skipped,
        )


def _check_counts(
    manifest: Mapping[str, Any],
    documents: DocumentTable,
    chunks: ChunkTable,
    indexes: tuple[ChunkIndex, ChunkIndex, ChunkIndex],
) -> None:
    """``CorpusError`` unless what was read has the manifest's counts: a manifest and files
    that agree with each other but not with the snapshot (an edited manifest) are refused too.
    (The tables were loaded with the manifest's counts, which their loaders check.)"""
    index, heading_index, document_text_index = indexes
    found = {
        "index/": (len(index), len(chunks), "chunks"),
        "heading_index/": (len(heading_index), len(chunks), "chunks"),
    }
    if len(document_text_index):
        found["document_index/"] = (len(document_text_index), len(documents), "documents")
    for name, (count, expected, unit) in found.items():
        if count != expected:
            raise CorpusError(f"{name} holds {count} {unit}, not {expected}")
    owner = chunks.document_numbers
    if len(owner) and (
        int(owner[-1]) >= len(documents) or int(owner[0]) < 0 or bool((np.diff(owner) < 0).any())
    ):
        raise CorpusError(
            "chunks/numbers.npy names documents that documents/ does not hold, or out of order"
        )
