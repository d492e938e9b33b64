"""Hybrid ranking: a chunk's BM25 relevance and its semantic similarity -> one relevance; pure.

Both signals are put on an absolute [0, 1] scale, so that a relevance means the same on every
query (relevance thresholds, the answer generator's cut-offs) and no per-query normalization
depends on what else the corpus holds:

- ``keyword``: BM25 over the highest score the query could reach (``index.py``), raised by up to
  ``TITLE_WEIGHT`` when the query's words are in the chunk's document title and heading path
  (``keyword_relevance``: a field boost, as BM25F gives one: "for statement" finds the topic
  titled 'The "for" statement' before a long topic that mentions both words more often);
- ``semantic``: the cosine similarity mapped linearly from [``COSINE_FLOOR``, ``COSINE_CEILING``]
  to [0, 1] and clipped: for all-MiniLM-L6-v2, unrelated text scores below about 0.1 and a
  passage that answers a question in other words about 0.45 to 0.7.

``fuse``: ``relevance = (1 - SEMANTIC_WEIGHT) * keyword + SEMANTIC_WEIGHT * semantic`` (a convex
combination: on hybrid retrieval it beats reciprocal rank fusion and needs one weight, see Bruch
et al., "An Analysis of Fusion Functions for Hybrid Retrieval", 2023; on this project's
evaluation set too). A chunk **matches** when it shares a query word (``keyword > 0``), or when
its meaning alone is close enough (``semantic >= SEMANTIC_MATCH``): a paraphrase is found, a
random chunk that is merely "less unrelated" than others is not.

``hybrid`` adds two kinds of evidence beyond the chunk itself:

- **its document** (``with_documents``): the chunk's relevance is mixed with its document's,
  ``(1 - DOCUMENT_WEIGHT) * chunk + DOCUMENT_WEIGHT * document``, the document's being ``fuse``
  of BM25 over the whole document and the cosine to the mean of its chunk vectors. Passage and
  document evidence combined rank better than either alone (Callan, "Passage-level evidence in
  document retrieval", SIGIR 1994): a chunk of a document that is about the question as a whole
  beats a chunk that happens to share words with it in a long document about something else;
- **its best sentence** (``with_sentences``): a chunk's vector averages all its words, so a long
  chunk whose one sentence answers the question scores low. The ``RERANK_DEPTH`` best chunks
  are looked at again: ``cosine + SENTENCE_WEIGHT * max(0, best sentence - cosine)``. It only
  raises a cosine, so the chunks below the depth (which were not looked at) are not favoured.

>>> fused = fuse(np.array([0.5, 0.0, 0.0]), np.array([0.35, 0.6, 0.2]))
>>> [round(float(r), 3) for r in fused.relevance], fused.candidate.tolist()
([0.5, 0.5, 0.1], [True, True, False])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "COSINE_CEILING",
    "COSINE_FLOOR",
    "DOCUMENT_WEIGHT",
    "RERANK_DEPTH",
    "SEMANTIC_MATCH",
    "SEMANTIC_WEIGHT",
    "SENTENCE_WEIGHT",
    "TITLE_WEIGHT",
    "Fused",
    "Hybrid",
    "fuse",
    "hybrid",
    "keyword_relevance",
    "semantic_scale",
    "with_documents",
    "with_sentences",
]

SEMANTIC_WEIGHT = 0.5
COSINE_FLOOR = 0.1
COSINE_CEILING = 0.6
SEMANTIC_MATCH = 0.7  # a cosine of 0.45
TITLE_WEIGHT = 0.25
DOCUMENT_WEIGHT = 0.35
SENTENCE_WEIGHT = 0.3
RERANK_DEPTH = 100


@dataclass(frozen=True, slots=True)
class Fused:
    """Per chunk: the fused relevance in [0, 1] and whether the chunk matches the query."""

    relevance: np.ndarray
    candidate: np.ndarray


def keyword_relevance(body: np.ndarray, heading: np.ndarray) -> np.ndarray:
    """BM25 relevance of the chunks' whole text, raised by their title and heading relevance:
    ``min(1, body * (1 + TITLE_WEIGHT * heading))`` (a title match alone adds nothing)."""
    raised = np.asarray(body, dtype=np.float32) * (1.0 + TITLE_WEIGHT * np.asarray(heading))
    relevance: np.ndarray = np.minimum(raised, 1.0).astype(np.float32)
    return relevance


def semantic_scale(cosine: np.ndarray) -> np.ndarray:
    """Cosine similarities on the [0, 1] semantic scale (see the module docstring)."""
    scaled = (np.asarray(cosine, dtype=np.float32) - COSINE_FLOOR) / (COSINE_CEILING - COSINE_FLOOR)
    clipped: np.ndarray = np.clip(scaled, 0.0, 1.0).astype(np.float32)
    return clipped


def fuse(keyword: np.ndarray, cosine: np.ndarray | None) -> Fused:
    """The relevance of every chunk from its keyword relevance and, when the data store has
    vectors, its cosine similarity to the query (``None``: keyword relevance alone)."""
    keyword = np.asarray(keyword, dtype=np.float32)
    if cosine is None:
        return Fused(keyword, keyword > 0)
    semantic = semantic_scale(cosine)
    relevance = (1.0 - SEMANTIC_WEIGHT) * keyword + SEMANTIC_WEIGHT * semantic
    candidate = (keyword > 0) | (semantic >= SEMANTIC_MATCH)
    return Fused(relevance.astype(np.float32), candidate)


def with_documents(chunk: np.ndarray, document: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Chunk relevance mixed with the relevance of each chunk's document (``owner[i]`` is the
    document of chunk ``i``): ``(1 - DOCUMENT_WEIGHT) * chunk + DOCUMENT_WEIGHT * document``.

    >>> with_documents(np.array([0.6, 0.6]), np.array([1.0, 0.0]), np.array([0, 1])).round(2)
    array([0.74, 0.39], dtype=float32)
    """
    mixed = (1.0 - DOCUMENT_WEIGHT) * np.asarray(chunk) + DOCUMENT_WEIGHT * np.asarray(document)[
        np.asarray(owner)
    ]
    relevance: np.ndarray = mixed.astype(np.float32)
    return relevance


def with_sentences(cosine: np.ndarray, best_sentence: np.ndarray) -> np.ndarray:
    """Chunk cosines raised by their best sentence's: ``cosine + SENTENCE_WEIGHT *
    max(0, best_sentence - cosine)`` (``nan``: no sentence, the cosine stays).

    >>> with_sentences(np.array([0.3, 0.5, 0.4]), np.array([0.7, 0.2, np.nan])).round(2)
    array([0.42, 0.5 , 0.4 ], dtype=float32)
    """
    cosine = np.asarray(cosine, dtype=np.float32)
    lift = np.nan_to_num(np.asarray(best_sentence, dtype=np.float32) - cosine, nan=0.0)
    raised: np.ndarray = (cosine + SENTENCE_WEIGHT * np.maximum(lift, 0.0)).astype(np.float32)
    return raised


@dataclass(frozen=True, slots=True)
class Hybrid:
    """Per chunk: the final relevance, whether it matches, and its cosine similarity (raised
    by its best sentence for the chunks looked at again)."""

    relevance: np.ndarray
    candidate: np.ndarray
    cosine: np.ndarray


def hybrid(
    keyword: np.ndarray,
    cosine: np.ndarray,
    document: np.ndarray | None,
    owner: np.ndarray,
    best_sentences: Callable[[np.ndarray], np.ndarray],
    *,
    eligible: np.ndarray | None = None,
) -> Hybrid:
    """The hybrid relevance of every chunk (see the module docstring).

    ``keyword`` and ``cosine`` are per chunk, ``document`` the relevance of each document
    (``None``: no document evidence), ``owner`` the document of each chunk;
    ``best_sentences(chunks)`` gives the best sentence cosine of each of those chunks (``nan``
    when it has none); ``eligible`` (e.g. a filter) limits the chunks looked at again."""
    keyword = np.asarray(keyword, dtype=np.float32)
    first = fuse(keyword, cosine)
    relevance = first.relevance
    if document is not None:
        relevance = with_documents(relevance, document, owner)
    pool = first.candidate if eligible is None else first.candidate & eligible
    chunks = np.flatnonzero(pool)
    if len(chunks) > RERANK_DEPTH:
        scores = relevance[chunks]
        top = np.lexsort((chunks, -scores))[:RERANK_DEPTH]
        chunks = np.sort(chunks[top])
    raised = np.array(cosine, dtype=np.float32)
    if len(chunks):
        raised[chunks] = with_sentences(raised[chunks], best_sentences(chunks))
    fused = fuse(keyword, raised)
    relevance = fused.relevance
    if document is not None:
        relevance = with_documents(relevance, document, owner)
    return Hybrid(relevance, fused.candidate, raised)
