"""A data store: documents, their chunks, the BM25 index and (optionally) the vectors, as one
immutable snapshot.

``DataStore.build`` chunks and indexes source documents, and, when given an embedder
(``embeddings.py``), embeds the chunks and their prose sentences and indexes whole documents
with BM25 too (the document evidence of hybrid ranking, ``fusion.py``); ``save``/``load``
persist a snapshot in a folder (``manifest.json``, ``documents.jsonl``, ``chunks.jsonl``,
``index/``, ``heading_index/``, ``document_index/``, ``vectors/``); the manifest, written last,
holds each file's size and checksum and the counts, which ``load`` verifies (``integrity.py``).
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from grounding_emulator.corpus.chunking import DEFAULT_MAX_CHARS, chunk_blocks
from grounding_emulator.corpus.embedding_cache import text_key
from grounding_emulator.corpus.embeddings import Embedder, passage_text, sentence_texts
from grounding_emulator.corpus.index import ChunkIndex
from grounding_emulator.corpus.integrity import file_digests, verify_files
from grounding_emulator.corpus.reading import Skipped, SourceDocument
from grounding_emulator.corpus.records import Chunk, Document
from grounding_emulator.corpus.schema import FieldType, detect_types, geolocation_of
from grounding_emulator.corpus.semantic_index import SemanticIndex
from grounding_emulator.corpus.tokens import TOKENIZER_VERSION, tokenize
from grounding_emulator.corpus.validation import check_document
from grounding_emulator.errors import CorpusError

__all__ = ["FORMAT_VERSION", "DataStore", "ProgressCallback", "flatten_struct"]

logger = logging.getLogger(__name__)

FORMAT_VERSION = 4
_MASK_CACHE_SIZE = 256

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


def flatten_struct(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested struct data as ``{"a.b": value}`` (lists and geolocations stay values).

    >>> flatten_struct({"a": {"b": 1}, "c": [1, 2]})
    {'a.b': 1, 'c': [1, 2]}
    """
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and geolocation_of(value) is None:
            flat.update(flatten_struct(value, name + "."))
        else:
            flat[name] = value
    return flat


def _document_json(document: Document) -> dict[str, Any]:
    return {
        "id": document.id,
        "uri": document.uri,
        "title": document.title,
        "content": document.content,
        "struct_data": dict(document.struct_data),
        "mime_type": document.mime_type,
        "update_time": document.update_time.isoformat() if document.update_time else None,
        "description": document.description,
    }


def _document_from_json(data: dict[str, Any]) -> Document:
    stamp = data.get("update_time")
    return Document(
        id=data["id"],
        uri=data["uri"],
        title=data["title"],
        content=data["content"],
        struct_data=data["struct_data"],
        mime_type=data["mime_type"],
        update_time=_dt.datetime.fromisoformat(stamp) if stamp else None,
        description=data.get("description", ""),
    )


def _index_text(document: Document, chunk: Chunk) -> str:
    return f"{document.title}\n{chunk.heading}\n{chunk.content}"


def _heading_text(document: Document, chunk: Chunk) -> str:
    return f"{document.title}\n{chunk.heading}"


def _document_tokens(documents: Sequence[Document], chunks: Sequence[Chunk]) -> list[list[str]]:
    """The search tokens of each whole document: its title and the text of its chunks."""
    tokens = [tokenize(d.title) for d in documents]
    for chunk in chunks:
        tokens[chunk.document_index].extend(tokenize(chunk.content))
    return tokens


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
    sources: Iterable[SourceDocument | Skipped], report: ProgressCallback
) -> tuple[list[SourceDocument], list[Skipped]]:
    """The sources that can be stored, and what was skipped (in the order met)."""
    read: list[SourceDocument] = []
    skipped: list[Skipped] = []
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
        read.append(source)
        if len(read) % 100 == 0:
            report("read", len(read), 0)
    return read, skipped


@dataclass(frozen=True, eq=False)
class DataStore:
    """An immutable snapshot of one data store.

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
    documents: tuple[Document, ...]
    chunks: tuple[Chunk, ...]
    index: ChunkIndex
    heading_index: ChunkIndex = field(default_factory=lambda: ChunkIndex(None, 0))
    semantic: SemanticIndex | None = None
    document_text_index: ChunkIndex = field(default_factory=lambda: ChunkIndex(None, 0))
    fingerprint: str = ""
    max_chunk_chars: int = DEFAULT_MAX_CHARS
    created: _dt.datetime = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc))
    skipped: tuple[Skipped, ...] = ()
    chunk_document: np.ndarray = field(init=False, repr=False)
    document_chunks: tuple[tuple[int, int], ...] = field(init=False, repr=False)
    document_vectors: np.ndarray | None = field(init=False, repr=False)
    _by_id: dict[str, int] = field(init=False, repr=False)
    _by_name: dict[str, int] = field(init=False, repr=False)
    _fields: frozenset[str] = field(init=False, repr=False)
    _flat: tuple[dict[str, Any], ...] = field(init=False, repr=False)
    _types: dict[str, frozenset[FieldType]] = field(init=False, repr=False)
    _masks: OrderedDict[str, np.ndarray] = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False)

    def __post_init__(self) -> None:
        setattr_ = object.__setattr__
        owner = np.fromiter((c.document_index for c in self.chunks), np.int32, len(self.chunks))
        setattr_(self, "chunk_document", owner)
        ranges = []
        counts = np.bincount(owner, minlength=len(self.documents)) if len(owner) else None
        start = 0
        for number in range(len(self.documents)):
            count = int(counts[number]) if counts is not None else 0
            ranges.append((start, start + count))
            start += count
        setattr_(self, "document_chunks", tuple(ranges))
        vectors = self.semantic.vectors if self.semantic is not None else np.zeros((0, 0))
        setattr_(self, "document_vectors", _document_vectors(vectors, owner, len(self.documents)))
        setattr_(self, "_by_id", {d.id: i for i, d in enumerate(self.documents)})
        setattr_(
            self, "_by_name", {d.developer_knowledge_name: i for i, d in enumerate(self.documents)}
        )
        flat = tuple(flatten_struct(d.struct_data) for d in self.documents)
        setattr_(self, "_flat", flat)
        setattr_(self, "_fields", frozenset(k for f in flat for k in f))
        setattr_(self, "_types", detect_types(flat))
        setattr_(self, "_masks", OrderedDict())
        setattr_(self, "_lock", threading.Lock())

    # -- lookups --------------------------------------------------------------------------------

    def document_index(self, document_id: str) -> int | None:
        """The index of the document with id ``document_id``."""
        return self._by_id.get(document_id)

    def document_by_name(self, name: str) -> Document | None:
        """The document whose Developer Knowledge name is ``name``."""
        index = self._by_name.get(name)
        return None if index is None else self.documents[index]

    @property
    def struct_fields(self) -> frozenset[str]:
        """Every (flattened) struct data field that some document has."""
        return self._fields

    @property
    def struct_types(self) -> Mapping[str, frozenset[FieldType]]:
        """The types each struct data field holds (the detected schema, ``schema.py``)."""
        return self._types

    def flat_struct(self, document_index: int) -> dict[str, Any]:
        """The flattened struct data of a document."""
        return self._flat[document_index]

    def neighbours(
        self, chunk_index: int, before: int, after: int
    ) -> tuple[tuple[Chunk, ...], tuple[Chunk, ...]]:
        """Up to ``before`` previous and ``after`` next chunks of the same document, each in
        document order."""
        first, end = self.document_chunks[self.chunks[chunk_index].document_index]
        previous = self.chunks[max(first, chunk_index - before) : chunk_index] if before else ()
        following = (
            self.chunks[chunk_index + 1 : min(end, chunk_index + 1 + after)] if after else ()
        )
        return tuple(previous), tuple(following)

    def document_mask(self, key: str, predicate: Callable[[int], bool]) -> np.ndarray:
        """A boolean array over documents (``predicate(document_index)``), cached by ``key``."""
        with self._lock:
            mask = self._masks.get(key)
            if mask is not None:
                self._masks.move_to_end(key)
                return mask
        mask = np.fromiter(
            (predicate(i) for i in range(len(self.documents))), bool, len(self.documents)
        )
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
        """
        report = on_progress or (lambda phase, done, total: None)
        read, skipped = _valid_sources(sources, report)
        report("read", len(read), len(read))
        if not read and any(not s.unsupported for s in skipped):
            reasons = "; ".join(str(s) for s in skipped[:3])
            raise CorpusError(
                f"data store {data_store_id}: no document could be ingested ({reasons}"
                f"{'; ...' if len(skipped) > 3 else ''}): fix the corpus"
            )
        documents: list[Document] = []
        chunks: list[Chunk] = []
        tokens: list[list[str]] = []
        heading_tokens: list[list[str]] = []
        passages: list[str] = []
        sentences: list[list[str]] = []
        total = len(read)
        for number, source in enumerate(read):
            document = source.document
            position = len(documents)
            documents.append(document)
            for ordinal, piece in enumerate(chunk_blocks(source.blocks, max_chars=max_chunk_chars)):
                chunk = Chunk(
                    id=f"c{ordinal + 1}",
                    document_index=position,
                    ordinal=ordinal,
                    content=piece.content,
                    heading=piece.heading,
                    page_start=piece.page_start,
                    page_end=piece.page_end,
                )
                chunks.append(chunk)
                tokens.append(tokenize(_index_text(document, chunk)))
                heading_tokens.append(tokenize(_heading_text(document, chunk)))
                if embedder is not None:
                    passages.append(passage_text(document, chunk))
                    sentences.append(sentence_texts(chunk))
            if (number + 1) % 50 == 0 or number + 1 == total:
                report("chunk", number + 1, total)
        report("index", 0, 1)
        index = ChunkIndex.build(tokens)
        heading_index = ChunkIndex.build(heading_tokens)
        document_text_index = ChunkIndex(None, 0)
        if embedder is not None:
            document_text_index = ChunkIndex.build(_document_tokens(documents, chunks))
        report("index", 1, 1)
        semantic = None
        if embedder is not None:
            semantic = _embed(embedder, passages, sentences, report)
        return cls(
            id=data_store_id,
            documents=tuple(documents),
            chunks=tuple(chunks),
            index=index,
            heading_index=heading_index,
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
            text_index = ChunkIndex.build(_document_tokens(self.documents, self.chunks))
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
        with (directory / "documents.jsonl").open("w", encoding="utf-8") as handle:
            for document in self.documents:
                handle.write(json.dumps(_document_json(document), ensure_ascii=False) + "\n")
        with (directory / "chunks.jsonl").open("w", encoding="utf-8") as handle:
            for c in self.chunks:
                row = [c.id, c.document_index, c.ordinal, c.content, c.heading]
                row += [c.page_start, c.page_end]
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
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
            with (directory / "documents.jsonl").open(encoding="utf-8") as handle:
                documents = tuple(_document_from_json(json.loads(line)) for line in handle)
            with (directory / "chunks.jsonl").open(encoding="utf-8") as handle:
                chunks = tuple(Chunk(*json.loads(line)) for line in handle)
            index = ChunkIndex.load(directory / "index")
            heading_index = ChunkIndex.load(directory / "heading_index")
            document_text_index = ChunkIndex.load(directory / "document_index")
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
    documents: Sequence[Document],
    chunks: Sequence[Chunk],
    indexes: tuple[ChunkIndex, ChunkIndex, ChunkIndex],
) -> None:
    """``CorpusError`` unless what was read has the manifest's counts: a manifest and files
    that agree with each other but not with the snapshot (an edited manifest) are refused too."""
    index, heading_index, document_text_index = indexes
    found = {
        "documents.jsonl": (len(documents), manifest["documents"], "documents"),
        "chunks.jsonl": (len(chunks), manifest["chunks"], "chunks"),
        "index/": (len(index), len(chunks), "chunks"),
        "heading_index/": (len(heading_index), len(chunks), "chunks"),
    }
    if len(document_text_index):
        found["document_index/"] = (len(document_text_index), len(documents), "documents")
    for name, (count, expected, unit) in found.items():
        if count != expected:
            raise CorpusError(f"{name} holds {count} {unit}, not {expected}")
    if chunks and chunks[-1].document_index >= len(documents):
        raise CorpusError("chunks.jsonl names documents that documents.jsonl does not hold")
