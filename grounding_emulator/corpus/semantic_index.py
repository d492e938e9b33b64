"""The vectors of a data store: one per chunk, one per prose sentence of a chunk, and a query's
cosine similarity to them.

Vectors are computed at ingest (``SemanticIndex.build``) by an ``Embedder`` and persisted with
the snapshot (``save``/``load``, float16: half the disk, no loss that changes a ranking) beside
``model.txt`` (the embedder's ``model_id``):

- **chunk vectors** (``vectors.npy``, float32 rows in memory): a query costs one
  matrix-vector product over them (about 1 ms per 10k chunks) plus the query's own embedding;
- **sentence vectors** (``sentences.npy``: the chunk of each sentence, the hash of its text and
  its vector, float16 in memory), for two uses. Search: a chunk's vector is the mean of its
  words, and a long chunk that answers a question in one sentence is diluted by the rest; the
  best sentence of the best-ranked chunks lifts them (``sentence_similarities``, see
  ``fusion.with_sentences``). Answers: the answer generator ranks the sentences of the chunks it
  retrieved by their similarity to the query; ``text_similarities`` finds their vectors here
  instead of running the model on every sentence of every answer.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from grounding_emulator.corpus.embedding_cache import text_key
from grounding_emulator.corpus.embeddings import Embedder

__all__ = ["SemanticIndex"]

logger = logging.getLogger(__name__)

_VECTORS = "vectors.npy"
_SENTENCES = "sentences.npy"
_MODEL = "model.txt"


def _sentence_dtype(dimension: int) -> np.dtype:
    return np.dtype([("chunk", "<i4"), ("key", "V16"), ("vector", "<f2", (dimension,))])


class SemanticIndex:
    """Unit vectors of a fixed list of chunks (row ``i`` is chunk ``i``), of their sentences
    (``sentence_chunks[j]`` is the chunk of sentence row ``j``, non-decreasing), and their
    embedder."""

    __slots__ = (
        "_embedder",
        "_sentence_chunks",
        "_sentence_keys",
        "_sentence_rows",
        "_sentence_starts",
        "_sentences",
        "_vectors",
    )

    def __init__(
        self,
        embedder: Embedder,
        vectors: np.ndarray,
        sentence_vectors: np.ndarray | None = None,
        sentence_chunks: np.ndarray | None = None,
        sentence_keys: Sequence[bytes] = (),
    ) -> None:
        self._embedder = embedder
        self._vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self._vectors.setflags(write=False)
        dimension = self._vectors.shape[1] if self._vectors.ndim == 2 else 0
        if sentence_vectors is None or sentence_chunks is None:
            sentence_vectors = np.zeros((0, dimension), dtype=np.float16)
            sentence_chunks = np.zeros(0, dtype=np.int32)
        chunks = np.asarray(sentence_chunks, dtype=np.int32)
        if len(chunks) != len(sentence_vectors) or np.any(np.diff(chunks) < 0):
            raise ValueError("sentence rows must be one per sentence, grouped by chunk in order")
        self._sentences = np.ascontiguousarray(sentence_vectors, dtype=np.float16)
        self._sentences.setflags(write=False)
        self._sentence_chunks = chunks
        self._sentence_starts = np.searchsorted(chunks, np.arange(len(self._vectors) + 1))
        keys = [bytes(k) for k in sentence_keys]
        if len(keys) != len(chunks):
            raise ValueError("sentence rows need one text key each")
        self._sentence_keys = keys
        # A sentence found in several chunks has one vector: any of its rows will do.
        self._sentence_rows = {key: row for row, key in enumerate(keys)}

    @classmethod
    def build(
        cls,
        embedder: Embedder,
        passages: Sequence[str],
        sentences: Sequence[Sequence[str]] = (),
    ) -> SemanticIndex:
        """Embed ``passages`` (one per chunk) and ``sentences`` (per chunk, its sentences)."""
        vectors = embedder.embed_passages(passages)
        flat = [text for group in sentences for text in group]
        owners = np.asarray(
            [chunk for chunk, group in enumerate(sentences) for _ in group], dtype=np.int32
        )
        sentence_vectors = embedder.embed_passages(flat) if flat else None
        return cls(embedder, vectors, sentence_vectors, owners, [text_key(t) for t in flat])

    @property
    def embedder(self) -> Embedder:
        """The model that embeds queries (and new texts) for these vectors."""
        return self._embedder

    @property
    def model_id(self) -> str:
        """The model the vectors come from."""
        return self._embedder.model_id

    @property
    def vectors(self) -> np.ndarray:
        """The ``(chunks, dimension)`` float32 unit rows (read-only)."""
        return self._vectors

    @property
    def sentence_count(self) -> int:
        """How many sentence vectors the index holds."""
        return len(self._sentences)

    def __len__(self) -> int:
        return len(self._vectors)

    def chunk_similarities(self, query_vector: np.ndarray) -> np.ndarray:
        """The cosine similarity of a query vector to every chunk."""
        if not len(self._vectors):
            return np.zeros(0, dtype=np.float32)
        scores: np.ndarray = self._vectors @ query_vector
        return scores

    def query_vector(self, query: str) -> np.ndarray:
        """The unit vector of ``query``."""
        return np.asarray(self._embedder.embed_query(query), dtype=np.float32)

    def sentence_similarities(self, query_vector: np.ndarray, chunks: np.ndarray) -> np.ndarray:
        """For each of ``chunks`` (indexes), the highest cosine similarity of one of its
        sentences to the query vector (``nan`` for a chunk without sentence vectors)."""
        chunks = np.asarray(chunks, dtype=np.int64)
        best = np.full(len(chunks), np.nan, dtype=np.float32)
        if not len(chunks) or not len(self._sentences):
            return best
        starts = self._sentence_starts[chunks]
        ends = self._sentence_starts[chunks + 1]
        counts = ends - starts
        has = counts > 0
        if not has.any():
            return best
        counts, starts = counts[has], starts[has]
        offsets = np.cumsum(counts) - counts  # where each chunk's rows begin in ``rows``
        rows = np.arange(int(counts.sum())) + np.repeat(starts - offsets, counts)
        scores = self._sentences[rows].astype(np.float32) @ query_vector
        best[has] = np.maximum.reduceat(scores, offsets)
        return best

    def text_similarities(self, texts: Sequence[str], query_vector: np.ndarray) -> np.ndarray:
        """The cosine similarity of each of ``texts`` (e.g. the sentences of an answer) to a
        query vector: from the sentence vectors when a text is a sentence of the corpus, else
        embedded as a passage."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        rows = [self._sentence_rows.get(text_key(t), -1) for t in texts]
        scores = np.empty(len(texts), dtype=np.float32)
        known = [i for i, row in enumerate(rows) if row >= 0]
        if known:
            vectors = self._sentences[[rows[i] for i in known]].astype(np.float32)
            scores[known] = vectors @ query_vector
        missing = [i for i, row in enumerate(rows) if row < 0]
        if missing:
            embedded = self._embedder.embed_passages([texts[i] for i in missing])
            scores[missing] = embedded @ query_vector
        return scores

    # -- persistence ----------------------------------------------------------------------------

    def save(self, directory: Path) -> None:
        """Write ``vectors.npy``, ``sentences.npy`` and ``model.txt`` into ``directory``
        (created)."""
        directory.mkdir(parents=True, exist_ok=True)
        np.save(directory / _VECTORS, self._vectors.astype(np.float16))
        dimension = self._vectors.shape[1] if self._vectors.ndim == 2 else 0
        rows = np.empty(len(self._sentences), dtype=_sentence_dtype(dimension))
        rows["chunk"] = self._sentence_chunks
        rows["key"] = [np.void(k) for k in self._sentence_keys]
        rows["vector"] = self._sentences
        np.save(directory / _SENTENCES, rows, allow_pickle=False)
        (directory / _MODEL).write_text(self.model_id, encoding="utf-8")

    @staticmethod
    def saved_model(directory: Path) -> str:
        """The model id of the vectors saved in ``directory`` ("" when there are none)."""
        try:
            return (directory / _MODEL).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return ""

    @classmethod
    def load(cls, directory: Path, embedder: Embedder) -> SemanticIndex:
        """Read vectors written by ``save`` for ``embedder`` (``ValueError`` if they come from
        another model)."""
        saved = cls.saved_model(directory)
        if saved != embedder.model_id:
            raise ValueError(
                f"{directory}: the vectors come from model {saved or 'none'!r}, "
                f"not {embedder.model_id!r}"
            )
        vectors = np.load(directory / _VECTORS).astype(np.float32)
        rows = np.load(directory / _SENTENCES, allow_pickle=False)
        return cls(
            embedder,
            vectors,
            rows["vector"],
            rows["chunk"],
            [bytes(k) for k in rows["key"].tolist()],
        )
