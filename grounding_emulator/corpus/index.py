"""The BM25 index of a data store's chunks (``bm25s``, Lucene variant), and its relevance scale.

``ChunkIndex.scores(tokens)`` gives, for every chunk, the raw BM25 score and a relevance in
[0, 1]: the raw score divided by the highest score the query could reach. With the Lucene
variant a query token contributes at most its IDF to a chunk's score, so the bound is the sum of
the query tokens' IDFs (a token absent from the corpus counts with the highest IDF). A chunk that
contains every query token, often, approaches 1; one that contains a rare half of the query gets
about 0.5. The scale is absolute (not relative to the best hit), so relevance thresholds mean the
same thing on every query.

An ingest maps tokens to integer ids as it tokenizes (``Vocabulary``, shared by a snapshot's
indexes) and hands each chunk's ids to a ``PostingsBuilder``, which counts them a block of chunks
at a time into compact arrays: a million chunks' tokens never exist as Python strings or lists at
once. ``PostingsBuilder.build`` then computes bm25s' Lucene scores and its column-major matrix
with numpy, exactly as ``bm25s.BM25.index`` does (``tests/emulator/test_columns.py`` compares
the two array for array), and hands them to a ``bm25s.BM25``, which scores queries, saves and
memory-maps the index as before. bm25s' own builder walks the chunks in Python with a
``Counter`` each and needs every chunk's token list at once.
"""

from __future__ import annotations

import bisect
import itertools
import logging
import math
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path

import bm25s
import numpy as np

__all__ = ["ChunkIndex", "PostingsBuilder", "Vocabulary"]

logger = logging.getLogger(__name__)

# bm25s logs every index build at DEBUG on a logger it forces to DEBUG: keep it quieter.
logging.getLogger("bm25s").setLevel(logging.WARNING)
# The file bm25s saves an index's parameters in (none when there is no index).
_PARAMS = "params.index.json"
# Rows counted per block: bounds the temporary arrays (16 bytes a token) to a few tens of MiB.
_BLOCK_ROWS = 1 << 15
# Postings scored per step of ``build`` (float64 temporaries of this length).
_SCORE_STEP = 1 << 22


class Vocabulary:
    """Token -> integer id (first seen, first numbered), shared by the indexes of one build."""

    __slots__ = ("_ids",)

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def ids(self, tokens: Iterable[str]) -> list[int]:
        """The ids of ``tokens`` (new tokens are numbered on the way)."""
        ids = self._ids
        return [ids.setdefault(t, len(ids)) for t in tokens]

    def tokens(self) -> list[str]:
        """Every token, by id."""
        return list(self._ids)


class PostingsBuilder:
    """The token ids of each row (chunk or document) of an index, counted a block at a time.

    ``add`` one row after the other, then ``build`` the ``ChunkIndex``.
    """

    __slots__ = ("_blocks", "_lengths", "_pending", "_pending_lengths", "_vocabulary")

    def __init__(self, vocabulary: Vocabulary) -> None:
        self._vocabulary = vocabulary
        self._pending = array("i")
        self._pending_lengths = array("q")
        self._lengths = array("q")
        # Per block: the token id and the term frequency of each (row, token) pair, in row then
        # token order, and the number of pairs of each row.
        self._blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def __len__(self) -> int:
        return len(self._lengths) + len(self._pending_lengths)

    def add(self, ids: Sequence[int]) -> None:
        """Append a row holding the tokens ``ids`` (repeats count)."""
        self._pending.extend(ids)
        self._pending_lengths.append(len(ids))
        if len(self._pending_lengths) >= _BLOCK_ROWS:
            self._flush()

    def _flush(self) -> None:
        if not self._pending_lengths:
            return
        lengths = np.array(self._pending_lengths, dtype=np.int64)
        ids = np.array(self._pending, dtype=np.int64)
        self._lengths.extend(self._pending_lengths)
        self._pending, self._pending_lengths = array("i"), array("q")
        rows = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        keys, counts = np.unique((rows << 32) | ids, return_counts=True)
        pairs = np.bincount(keys >> 32, minlength=len(lengths)).astype(np.int32)
        tokens = (keys & 0xFFFFFFFF).astype(np.int32)
        self._blocks.append((tokens, counts.astype(np.float32), pairs))

    def build(self) -> ChunkIndex:
        """The BM25 index of the rows added (each block is freed once scored). Without a
        single token (rows of stop words only) there is nothing to index: every score is 0."""
        self._flush()
        size = len(self._lengths)
        blocks, self._blocks = self._blocks, []
        if not any(len(tokens) for tokens, _, _ in blocks):
            return ChunkIndex(None, size)
        bm25 = bm25s.BM25(method="lucene")
        # Only the tokens of these rows make the index's vocabulary (as bm25s would have it).
        df_all = np.zeros(len(self._vocabulary), dtype=np.int64)
        for tokens, _, _ in blocks:
            df_all += np.bincount(tokens, minlength=len(df_all))
        used = np.flatnonzero(df_all)
        remap = np.zeros(len(df_all), dtype=np.int32)
        remap[used] = np.arange(len(used), dtype=np.int32)
        df = df_all[used]
        # bm25s computes each IDF with math.log and stores it as float32; so does this.
        idf_of = {d: math.log(1 + (size - d + 0.5) / (d + 0.5)) for d in np.unique(df).tolist()}
        idf = np.asarray([idf_of[d] for d in df.tolist()], dtype=np.float32)
        lengths = np.frombuffer(self._lengths, dtype=np.int64)
        # bm25s: tf / (k1 * ((1 - b) + b * l_d / l_avg) + tf), l_avg a float64 mean.
        norm = bm25.k1 * ((1 - bm25.b) + bm25.b * lengths / lengths.mean())
        indptr = np.zeros(len(used) + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])
        free = indptr[:-1].copy()
        data = np.empty(int(indptr[-1]), dtype=np.float32)
        indices = np.empty(int(indptr[-1]), dtype=np.int32)
        first_row = 0
        while blocks:
            tokens, tf, pairs = blocks.pop(0)
            tokens = remap[tokens]
            rows = first_row + np.repeat(np.arange(len(pairs), dtype=np.int32), pairs)
            first_row += len(pairs)
            scores = np.empty(len(tokens), dtype=np.float32)
            for at in range(0, len(tokens), _SCORE_STEP):
                part = slice(at, at + _SCORE_STEP)
                scores[part] = idf[tokens[part]] * (tf[part] / (norm[rows[part]] + tf[part]))
            # Column-major, rows ascending in a column: a stable sort by token of pairs that
            # are in row order, then each pair goes to the next free slot of its column.
            order = np.argsort(tokens, kind="stable")
            ordered = tokens[order]
            starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
            rank = np.arange(len(ordered)) - np.repeat(starts, np.diff(np.r_[starts, len(ordered)]))
            slots = free[ordered] + rank
            indices[slots] = rows[order]
            data[slots] = scores[order]
            free += np.bincount(tokens, minlength=len(free))
        words = self._vocabulary.tokens()
        vocab = {words[old]: new for new, old in enumerate(used.tolist())}
        # bm25s.BM25.index adds an empty token at the end of the vocabulary.
        vocab.setdefault("", len(vocab))
        bm25.scores = {"data": data, "indices": indices, "indptr": indptr, "num_docs": size}
        bm25.vocab_dict = vocab
        bm25.unique_token_ids_set = set(vocab.values())
        bm25.nonoccurrence_array = None  # Lucene scores have no non-occurrence term
        return ChunkIndex(bm25, size)


class ChunkIndex:
    """BM25 over a fixed list of token lists (one per chunk), persisted with ``bm25s``."""

    __slots__ = ("_bm25", "_df", "_size", "_sorted")

    def __init__(self, bm25: bm25s.BM25 | None, size: int) -> None:
        self._bm25 = bm25
        self._size = size
        self._df: np.ndarray | None = None
        self._sorted: list[str] | None = None
        if bm25 is not None:
            indptr = np.asarray(bm25.scores["indptr"])
            self._df = np.diff(indptr)

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
        then alphabetical): a binary search of the sorted vocabulary (sorted at the first
        call), then the tokens that share the prefix, not a pass over every token."""
        if self._bm25 is None or self._df is None:
            return []
        if self._sorted is None:
            self._sorted = sorted(self._bm25.vocab_dict)  # a race sorts twice, to the same list
        tokens, vocab, df = self._sorted, self._bm25.vocab_dict, self._df
        found = []
        for token in itertools.islice(tokens, bisect.bisect_left(tokens, prefix), None):
            if not token.startswith(prefix):
                break
            found.append((-int(df[vocab[token]]), token))
        return [t for _, t in sorted(found)[:limit]]

    def idf(self, tokens: Sequence[str]) -> list[float]:
        """The IDF of each token (a token absent from the corpus gets the highest IDF)."""
        if self._bm25 is None or self._df is None:
            return [0.0 for _ in tokens]
        vocab = self._bm25.vocab_dict
        top = math.log1p((self._size + 0.5) / 0.5)
        return [float(self._idf(self._df[vocab[t]])) if t in vocab else top for t in tokens]
