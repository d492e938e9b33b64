"""The chunk vectors of a data store, and a query's cosine similarity to each chunk.

Vectors are computed at ingest (``SemanticIndex.build``) by an ``Embedder`` and persisted with
the snapshot as ``vectors.npy`` (float16: half the disk, no loss that changes a ranking) beside
``model.txt`` (the embedder's ``model_id``). In memory they are float32 rows: a query costs one
matrix-vector product (about 1 ms per 10k chunks) plus the query's own embedding.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .embeddings import Embedder

__all__ = ["SemanticIndex"]

logger = logging.getLogger(__name__)

_VECTORS = "vectors.npy"
_MODEL = "model.txt"


class SemanticIndex:
    """Unit vectors of a fixed list of chunks (row ``i`` is chunk ``i``) and their embedder."""

    __slots__ = ("_embedder", "_vectors")

    def __init__(self, embedder: Embedder, vectors: np.ndarray) -> None:
        self._embedder = embedder
        self._vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self._vectors.setflags(write=False)

    @classmethod
    def build(cls, embedder: Embedder, passages: Sequence[str]) -> SemanticIndex:
        """Embed ``passages`` (one per chunk)."""
        return cls(embedder, embedder.embed_passages(passages))

    @property
    def model_id(self) -> str:
        """The model the vectors come from."""
        return self._embedder.model_id

    @property
    def vectors(self) -> np.ndarray:
        """The ``(chunks, dimension)`` float32 unit rows (read-only)."""
        return self._vectors

    def __len__(self) -> int:
        return len(self._vectors)

    def similarities(self, query: str) -> np.ndarray:
        """The cosine similarity of ``query`` to every chunk, in [-1, 1]."""
        if not len(self._vectors):
            return np.zeros(0, dtype=np.float32)
        scores: np.ndarray = self._vectors @ self.query_vector(query)
        return scores

    def query_vector(self, query: str) -> np.ndarray:
        """The unit vector of ``query``."""
        return np.asarray(self._embedder.embed_query(query), dtype=np.float32)

    def text_similarities(self, texts: Sequence[str], query_vector: np.ndarray) -> np.ndarray:
        """The cosine similarity of each of ``texts`` (embedded as passages, e.g. the sentences
        of an answer) to a query vector."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        scores: np.ndarray = self._embedder.embed_passages(texts) @ query_vector
        return scores

    def save(self, directory: Path) -> None:
        """Write ``vectors.npy`` and ``model.txt`` into ``directory`` (created)."""
        directory.mkdir(parents=True, exist_ok=True)
        np.save(directory / _VECTORS, self._vectors.astype(np.float16))
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
        vectors = np.load(directory / _VECTORS)
        return cls(embedder, vectors.astype(np.float32))
