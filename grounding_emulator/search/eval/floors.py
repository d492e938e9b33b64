"""The retrieval quality the built-in corpus's search must keep on the whole evaluation set, per
search mode.

A little under the measured values (``python -m benchmarks --only retrieval`` prints them), so
that a regression fails the tests and noise does not.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FLOORS", "RERANKED_CHUNKS", "Floor"]


@dataclass(frozen=True, slots=True)
class Floor:
    """The lowest acceptable ``recall@5`` and ``MRR@10`` (see ``quality.Scores``)."""

    recall_at_5: float
    mrr_at_10: float


FLOORS: dict[str, Floor] = {
    "bm25": Floor(0.80, 0.60),
    "hybrid": Floor(0.95, 0.80),
    "bm25 reranked": Floor(0.72, 0.60),
    "hybrid reranked": Floor(0.92, 0.74),
}
"""Search mode (``bm25``: without the ``semantic`` extra; ``hybrid``: with it) -> its floor;
``reranked``: the first ``RERANKED_CHUNKS`` chunks reranked by the Rank scorer
(``search/reranking.py``)."""

RERANKED_CHUNKS = 20
"""How many chunks the reranked floors rerank (the ``rerank`` benchmark's top 20)."""
