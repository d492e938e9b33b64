"""The ranking step an engine may run over its own search results (off unless the emulator is
started with ``rerank_search``).

Google documents the Ranking API as the step that "takes in a list of documents and reranks
those documents based on how relevant the documents are to a query" ("Rerank documents for RAG
with the ranking API"); whether and how Vertex AI Search runs such a step inside its own Search
is not documented (docs/emulator.md). The emulator's option: the first ``top`` results of a query
are scored by the Rank scorer (``rank/scorer.py``: the document's title and the chunk's content,
the default model's token limit, the data store's embedder when it has one) and put first, in
the order of their scores (ties keep the search's order); the rest keep the search's order after
them. Results pinned above expanded ones (``pin_unexpanded_results``) stay above them.
"""

from __future__ import annotations

import numpy as np

from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.limits import DEFAULT_RANKING_MODEL, MAX_RANK_RECORDS
from grounding_emulator.rank.scorer import score_records

__all__ = ["check_rerank_top", "rerank"]


def check_rerank_top(value: object) -> int:
    """``value`` as the number of results to rerank: an int in 0..``MAX_RANK_RECORDS`` (the
    records one Rank request takes); 0 is off."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_RANK_RECORDS:
        raise ValueError(
            f"rerank_search must be an int from 0 (off) to {MAX_RANK_RECORDS} (the records "
            f"a Rank request takes), got {value!r}"
        )
    return value


def rerank(
    store: DataStore,
    query: str,
    first: np.ndarray,
    ranking: np.ndarray,
    pinned: np.ndarray | None,
) -> np.ndarray:
    """``ranking`` with the ``first`` results (chunk rows, in the search's order) raised above
    the rest in the order of their Rank scores; ``pinned`` marks the rows that stay above the
    others."""
    if len(first) == 0 or not query.strip():
        return ranking
    records = []
    for row in first.tolist():
        chunk = store.chunks[row]
        records.append((store.documents[chunk.document_index].title, chunk.content))
    embedder = store.semantic.embedder if store.semantic is not None else None
    scored = score_records(query, records, DEFAULT_RANKING_MODEL, embedder)
    reranked = ranking.astype(np.float64, copy=True)
    floor = float(reranked.max()) + 1.0
    # Reranked rows above the others, in the scorer's order; pinned rows a tier above both,
    # the reranked ones first.
    if pinned is not None:
        reranked[pinned] = floor + 2.0 + reranked[pinned] / floor
    for place, record in enumerate(scored):
        row = int(first[record.index])
        tier = 3.0 if pinned is not None and pinned[row] else 0.0
        reranked[row] = floor + tier + 1.0 - place / len(scored)
    return reranked
