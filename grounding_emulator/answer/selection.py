"""Which sentences an extractive answer or search summary says: scored against the query, then
selected; pure. AnswerQuery (``engine.py``) and the search summary (``summary.py``) both
use it.

**Score**: each candidate sentence (``sentences.py``) of the source chunks gets a relevance in
[0, 1]: its coverage of the query (the share of the query's IDF weight found in its tokens),
fused with its own semantic similarity to the query when the data store has vectors
(``fusion.fuse``, the same scale as search relevance). Its **score** is the mean of that
relevance and its chunk's relevance relative to the best chunk.

**Select** the best ``MAX_SENTENCES`` sentences by score (ties: better-ranked chunk, earlier
sentence), skipping any sentence that is a near-duplicate of one already chosen and, when
``strict``, any whose relevance is below ``MIN_SENTENCE_RELEVANCE``. The chosen sentences come
in reading order: the chunks in the order of their best chosen sentence, each chunk's sentences
in their order in the chunk.

Google's answers and summaries come from a model, and its docs do not say how their text is
chosen: this rule is the emulator's own (docs/emulator.md, "What differs from Google").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grounding_emulator.answer.sentences import Sentence, near_duplicates
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.tokens import tokenize
from grounding_emulator.search.engine import ChunkHit
from grounding_emulator.search.fusion import fuse

__all__ = [
    "MAX_SENTENCES",
    "MIN_SENTENCE_RELEVANCE",
    "ScoredSentence",
    "score_sentences",
    "select_sentences",
]

MAX_SENTENCES = 3
MIN_SENTENCE_RELEVANCE = 0.34


@dataclass(frozen=True, slots=True)
class ScoredSentence:
    """A candidate sentence with its relevance to the query and its score."""

    sentence: Sentence
    relevance: float
    score: float


def score_sentences(
    store: DataStore, query: str, hits: Sequence[ChunkHit], sentences: Sequence[Sentence]
) -> list[ScoredSentence]:
    """Every sentence of ``hits`` with its relevance and score (module docstring)."""
    if not sentences:
        return []
    query_tokens = list(dict.fromkeys(tokenize(query)))
    weights = dict(zip(query_tokens, store.index.idf(query_tokens), strict=True))
    total = sum(weights.values())
    coverage = np.asarray(
        [
            sum(w for t, w in weights.items() if t in s.tokens) / total if total > 0 else 0.0
            for s in sentences
        ],
        dtype=np.float32,
    )
    cosine = None
    if store.semantic is not None:
        vector = store.semantic.query_vector(query)
        cosine = store.semantic.text_similarities([s.text for s in sentences], vector)
    relevance = fuse(coverage, cosine).relevance
    best = max((h.relevance for h in hits), default=0.0) or 1.0
    return [
        ScoredSentence(s, float(r), (float(r) + hits[s.hit].relevance / best) / 2)
        for s, r in zip(sentences, relevance, strict=True)
    ]


def select_sentences(
    scored: Sequence[ScoredSentence], hits: Sequence[ChunkHit], strict: bool
) -> list[ScoredSentence]:
    """The chosen sentences, in reading order (module docstring)."""
    ranked = sorted(
        scored, key=lambda s: (-s.score, hits[s.sentence.hit].rank, s.sentence.position)
    )
    chosen: list[ScoredSentence] = []
    for candidate in ranked:
        if strict and candidate.relevance < MIN_SENTENCE_RELEVANCE:
            continue  # ranked by score, not relevance: a later one may qualify
        if any(near_duplicates(candidate.sentence.tokens, c.sentence.tokens) for c in chosen):
            continue
        chosen.append(candidate)
        if len(chosen) == MAX_SENTENCES:
            break
    lead: dict[int, int] = {}
    for order, item in enumerate(chosen):
        lead.setdefault(item.sentence.hit, order)
    return sorted(chosen, key=lambda s: (lead[s.sentence.hit], s.sentence.position))
