"""Scores of records against a query, as ``RankService.Rank`` gives them; pure and deterministic.

Google's ranking models score each (query, record) pair ("the ranking API can give you precise
scores for how well a document answers a given query"), so a record's score here depends on
the query and that record alone, never on the other records of the request: batches of records
ranked in separate requests keep comparable scores.

- **Truncation** ("If the combined length of the title and content exceeds the model's token
  limit, the extra content is truncated"): the title, then the content, up to the model's
  tokens (``limits.truncate_tokens``; 512 for versions 003 and earlier and the ``512`` models,
  1024 for version 004 and the ``default``/``fast`` models).
- **Lexical evidence**: the share of the query's search terms (``corpus/tokens.py``) the
  content has, the share its title has, and how often the content repeats them (a saturating
  term frequency), weighted 0.45, 0.25 and 0.30.
- **Semantic similarity**, when the ``semantic`` extra's embedder is given: the cosine of the
  query's and the record's vectors (negative counts as 0), averaged with the lexical evidence.
- The score is rounded to 2 decimal places, and a score that rounds to 0 is 0.0001
  (``RankingRecord.score``: "The score will be rounded to 2 decimal places. If the score is
  close to 0, it will be rounded to 0.0001 to avoid returning unset").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grounding_emulator.call_state import checked
from grounding_emulator.corpus.embeddings import Embedder
from grounding_emulator.corpus.tokens import tokenize
from grounding_emulator.limits import estimate_tokens, truncate_tokens

__all__ = ["MIN_SCORE", "ScoredRecord", "model_tokens", "score_records"]

MIN_SCORE = 0.0001
_CONTENT, _TITLE, _FREQUENCY = 0.45, 0.25, 0.30
_SATURATION = 1.2


@dataclass(frozen=True, slots=True)
class ScoredRecord:
    """A record's position in the request and its score."""

    index: int
    score: float


def model_tokens(model: str) -> int:
    """The tokens a record may have for ``model`` (its version: 004, ``latest`` of the
    ``default``/``fast`` models, 1024; older versions and the ``512`` models, 512)."""
    if model.startswith("semantic-ranker-512") or model.endswith(("-001", "-002", "-003")):
        return 512
    return 1024


def _lexical(query_terms: set[str], title: str, content: str) -> float:
    if not query_terms:
        return 0.0
    content_counts = Counter(tokenize(content))
    # The record's terms are walked, never the query's: a long query costs no more per record.
    shared = [t for t in content_counts if t in query_terms]
    in_content = len(shared)
    in_title = len(query_terms.intersection(tokenize(title)))
    frequency = sum(content_counts[t] / (content_counts[t] + _SATURATION) for t in shared)
    size = len(query_terms)
    return (_CONTENT * in_content + _TITLE * in_title + _FREQUENCY * frequency) / size


def score_records(
    query: str,
    records: Sequence[tuple[str, str]],
    model: str,
    embedder: Embedder | None = None,
) -> list[ScoredRecord]:
    """The ``(title, content)`` records scored against ``query``, best first (ties keep the
    request's order)."""
    limit = model_tokens(model)
    texts = []
    for title, content in checked(records, "record truncated"):
        kept_title = truncate_tokens(title, limit)
        texts.append((kept_title, truncate_tokens(content, limit - estimate_tokens(kept_title))))
    query_terms = set(tokenize(query))
    scores = [_lexical(query_terms, t, c) for t, c in checked(texts, "record scored")]
    if embedder is not None and texts:
        vectors = embedder.embed_passages([f"{t}\n{c}".strip() for t, c in texts])
        similarity = np.clip(vectors @ embedder.embed_query(query), 0.0, 1.0)
        scores = [(s + float(v)) / 2 for s, v in zip(scores, similarity, strict=True)]
    rounded = [max(MIN_SCORE, round(min(1.0, s), 2)) for s in scores]
    order = sorted(range(len(rounded)), key=lambda i: -rounded[i])
    return [ScoredRecord(i, rounded[i]) for i in order]
