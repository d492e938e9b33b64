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

``relevance = (1 - SEMANTIC_WEIGHT) * keyword + SEMANTIC_WEIGHT * semantic`` (a convex
combination: on hybrid retrieval it beats reciprocal rank fusion and needs one weight, see Bruch
et al., "An Analysis of Fusion Functions for Hybrid Retrieval", 2023).

A chunk **matches** when it shares a query word (``keyword > 0``), or when its meaning alone is
close enough (``semantic >= SEMANTIC_MATCH``): a paraphrase is found, a random chunk that is
merely "less unrelated" than others is not.

>>> fused = fuse(np.array([0.5, 0.0, 0.0]), np.array([0.35, 0.6, 0.2]))
>>> [round(float(r), 3) for r in fused.relevance], fused.candidate.tolist()
([0.5, 0.5, 0.1], [True, True, False])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "COSINE_CEILING",
    "COSINE_FLOOR",
    "SEMANTIC_MATCH",
    "SEMANTIC_WEIGHT",
    "TITLE_WEIGHT",
    "Fused",
    "fuse",
    "keyword_relevance",
    "semantic_scale",
]

SEMANTIC_WEIGHT = 0.5
COSINE_FLOOR = 0.1
COSINE_CEILING = 0.6
SEMANTIC_MATCH = 0.7  # a cosine of 0.45
TITLE_WEIGHT = 0.25


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
