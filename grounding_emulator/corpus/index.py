"""The BM25 index of a data store's chunks (``bm25s``, Lucene variant), and its relevance scale.

``ChunkIndex.scores(tokens)`` gives, for every chunk, the raw BM25 score and a relevance in
[0, 1]: the raw score divided by the highest score the query could reach. With the Lucene
variant a query token contributes at most its IDF to a chunk's score, so the bound is the sum of
the query tokens' IDFs (a token absent from the corpus counts with the highest IDF). A chunk that
contains every query token, often, approaches 1; one that contains a rare half of the query gets
about 0.5. The scale is absolute (not relative to the best hit), so relevance thresholds mean the
same thing on every query.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from pathlib import Path

import bm25s
import numpy as np

__all__ = ["ChunkIndex"]

logger = logging.getLogger(__name__)

# bm25s logs every index build at DEBUG on a logger it forces to DEBUG: keep it quieter.
logging.getLogger("bm25s").setLevel(logging.WARNING)
# The file bm25s saves an index's parameters in (none when there is no index).
_PARAMS = "params.index.json"


class ChunkIndex:
    """BM25 over a fixed list of token lists (one per chunk), persisted with ``bm25s``."""

    __slots__ = ("_bm25", "_df", "_size")

    def __init__(self, bm25: bm25s.BM25 | None, size: int) -> None:
        self._bm25 = bm25
        self._size = size
        self._df: np.ndarray | None = None
        if bm25 is not None:
            indptr = np.asarray(bm25.scores["indptr"])
            self._df = np.diff(indptr)

    @classmethod
    def build(cls, token_lists: Sequence[list[str]]) -> ChunkIndex:
        """Index ``token_lists`` (chunk ``i`` is ``token_lists[i]``). Without a single token
        (chunks of stop words only) there is nothing to index: every score is 0."""
        if not any(token_lists):
            return cls(None, len(token_lists))
        bm25 = bm25s.BM25(method="lucene")
        bm25.index(list(token_lists), show_progress=False)
        return cls(bm25, len(token_lists))

    def save(self, directory: Path) -> None:
        """Write the index into ``directory`` (created)."""
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "size").write_text(str(self._size), encoding="utf-8")
        if self._bm25 is not None:
            self._bm25.save(str(directory), show_progress=False)

    @classmethod
    def load(cls, directory: Path, *, mmap: bool = False) -> ChunkIndex:
        """Read an index written by ``save``."""
        size = int((directory / "size").read_text(encoding="utf-8"))
        if size == 0 or not (directory / _PARAMS).exists():
            return cls(None, size)
        bm25 = bm25s.BM25.load(str(directory), mmap=mmap, show_progress=False)
        return cls(bm25, size)

    def __len__(self) -> int:
        return self._size

    def _idf(self, df: np.ndarray) -> np.ndarray:
        n = self._size
        return np.log1p((n - df + 0.5) / (df + 0.5))

    def scores(self, tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(raw, relevance)`` for every chunk: BM25 scores and their [0, 1] relevance."""
        zeros = np.zeros(self._size, dtype=np.float32)
        if self._bm25 is None or self._df is None or not tokens:
            return zeros, zeros
        vocab = self._bm25.vocab_dict
        ids = [vocab[t] for t in tokens if t in vocab]
        missing = len(tokens) - len(ids)
        bound = float(self._idf(self._df[np.asarray(ids, dtype=np.int64)]).sum()) if ids else 0.0
        bound += missing * math.log1p((self._size + 0.5) / 0.5)
        if not ids or bound <= 0:
            return zeros, zeros
        raw = np.asarray(self._bm25.get_scores_from_ids(ids), dtype=np.float32)
        relevance = np.clip(raw / bound, 0.0, 1.0).astype(np.float32)
        return raw, relevance

    def has_token(self, token: str) -> bool:
        """Whether some chunk has ``token`` (spell correction and query expansion ask)."""
        return self._bm25 is not None and token in self._bm25.vocab_dict

    def tokens_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` indexed tokens that start with ``prefix`` (the most frequent first,
        then alphabetical): one pass over the vocabulary."""
        if self._bm25 is None or self._df is None:
            return []
        df = self._df
        found = [(-int(df[i]), t) for t, i in self._bm25.vocab_dict.items() if t.startswith(prefix)]
        return [t for _, t in sorted(found)[:limit]]

    def idf(self, tokens: Sequence[str]) -> list[float]:
        """The IDF of each token (a token absent from the corpus gets the highest IDF)."""
        if self._bm25 is None or self._df is None:
            return [0.0 for _ in tokens]
        vocab = self._bm25.vocab_dict
        top = math.log1p((self._size + 0.5) / 0.5)
        return [float(self._idf(self._df[vocab[t]])) if t in vocab else top for t in tokens]
