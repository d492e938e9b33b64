"""The retrieval evaluation set over the built-in corpus, and its metrics.

``retrieval_eval.jsonl`` (shipped with this package) holds natural questions about the Python
language reference (the emulator's built-in ``python-docs`` data store), most of them
paraphrased (they avoid the words of the text that answers them), each with the ids of the
documents that answer it.
Splits, each written before the design it judges:

- ``design``: written before the first hybrid retrieval was designed, and looked at while
  designing it (and its second version);
- ``heldout``: written after the first design was settled; looked at while designing the second
  (document evidence, sentence vectors), as a check of what the design split suggested;
- ``heldout2``: written before the second design was started (more questions about the smaller
  topics, every document that answers labeled), and not looked at until it was settled;
- ``heldout3``: written after the second design was settled, by a writer who saw the corpus
  and the earlier questions but no ranking (detail questions on topics the others cover
  little, every document that answers labeled), before the third design (a second embedding
  model) was started, and not looked at until it was settled.

A search returns chunks; a question's ranking is its distinct documents in the order of their
best chunk. Metrics, averaged over questions:

- ``recall@5``: the share of questions with a relevant document among the first five;
- ``MRR@10``: the reciprocal rank of the first relevant document among the first ten (0 when
  there is none).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.search.engine import ChunkHit, SearchParams, chunk_hits, search

__all__ = [
    "EVAL_FILE",
    "SPLITS",
    "Question",
    "Scores",
    "distinct_documents",
    "evaluate",
    "load_questions",
    "ranked_documents",
    "score_rankings",
]

EVAL_FILE = Path(__file__).with_name("retrieval_eval.jsonl")
_CHUNKS_SEARCHED = 50


@dataclass(frozen=True, slots=True)
class Question:
    """One labeled question."""

    id: str
    split: str
    question: str
    relevant: tuple[str, ...]
    paraphrased: bool


@dataclass(frozen=True, slots=True)
class Scores:
    """The metrics of one run over some questions; ``misses`` are the ids of the questions with
    no relevant document in the first five."""

    count: int
    recall_at_5: float
    mrr_at_10: float
    misses: tuple[str, ...]


def load_questions(path: Path = EVAL_FILE, split: str | None = None) -> list[Question]:
    """The questions of the evaluation set (of one split, when given)."""
    questions = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                questions.append(
                    Question(
                        row["id"],
                        row["split"],
                        row["question"],
                        tuple(row["relevant"]),
                        row["paraphrased"],
                    )
                )
    return [q for q in questions if split is None or q.split == split]


SPLITS = (
    ("design", "design"),
    ("heldout", "held-out"),
    ("heldout2", "held-out 2"),
    ("heldout3", "held-out 3"),
)
"""The splits and their names in reports."""


def ranked_documents(
    snapshot: DataStore,
    query: str,
    limit: int = 10,
    *,
    chunks: int = _CHUNKS_SEARCHED,
    rerank_top: int = 0,
) -> list[str]:
    """The first ``limit`` distinct document ids of a CHUNKS search of ``chunks`` chunks, in
    order of their best chunk (the first ``rerank_top`` chunks reranked, ``search/reranking.py``,
    when it is not 0)."""
    params = SearchParams(query=query, page_size=chunks, mode="chunks", rerank_top=rerank_top)
    return distinct_documents(chunk_hits(search(snapshot, params)), limit)


def distinct_documents(hits: Sequence[ChunkHit], limit: int = 10) -> list[str]:
    """The first ``limit`` distinct document ids of ``hits``, in order of their best chunk."""
    return list(dict.fromkeys(hit.document.id for hit in hits))[:limit]


def evaluate(
    snapshot: DataStore,
    questions: Sequence[Question],
    *,
    chunks: int = _CHUNKS_SEARCHED,
    rerank_top: int = 0,
) -> Scores:
    """recall@5 and MRR@10 of ``snapshot``'s search over ``questions`` (``chunks`` and
    ``rerank_top`` as in ``ranked_documents``)."""
    rankings = [
        ranked_documents(snapshot, q.question, chunks=chunks, rerank_top=rerank_top)
        for q in questions
    ]
    return score_rankings(questions, rankings)


def score_rankings(questions: Sequence[Question], rankings: Sequence[Sequence[str]]) -> Scores:
    """recall@5 and MRR@10 of ``rankings`` (per question, its document ids, best first)."""
    found = 0
    reciprocal = 0.0
    misses = []
    for question, ranked in zip(questions, rankings, strict=True):
        position = next((i for i, d in enumerate(ranked) if d in question.relevant), None)
        if position is not None and position < 5:
            found += 1
        else:
            misses.append(question.id)
        if position is not None:
            reciprocal += 1.0 / (position + 1)
    count = len(questions)
    return Scores(
        count,
        found / count if count else 0.0,
        reciprocal / count if count else 0.0,
        tuple(misses),
    )
