"""The answer generator (AnswerQuery semantics): extractive, deterministic, honest; pure.

1. Search the data store for the query (CHUNKS mode, ``max_return_results`` chunks, the
   request's filter and boosts).
2. Split each retrieved chunk into sentences and score each sentence by the share of the query's
   IDF weight it contains (``coverage``, in [0, 1]); sentences of fewer than three words, longer
   than 400 characters, mostly not letters (code, grammar rules, doctests), without a final
   full stop (headings, fragments) or below
   ``MIN_COVERAGE`` are not answers.
3. The answer is the best ``MAX_SENTENCES`` sentences by the mean of their coverage and their
   chunk's relevance (ties: better-ranked chunk first), in the order of their chunks' ranks,
   whitespace-normalized and joined by spaces. Each sentence is cited to the chunk it was
   copied from; references are those chunks, in order of first citation.
4. ``grounding_score`` is the grounding checker's support score of the answer against its
   references (an extractive answer should score high; a low score means the checker and the
   generator disagree, and is reported as it is).

When no sentence qualifies the answer is empty and ``skipped_reasons`` is
``("NO_RELEVANT_CONTENT",)``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .claims import split_claims
from .datastore import DataStore
from .errors import InvalidArgument
from .grounding_engine import Fact, check_grounding
from .search_engine import ChunkHit, ConditionBoost, Dialect, SearchParams, chunk_hits, search
from .tokens import tokenize

__all__ = [
    "MAX_SENTENCES",
    "MIN_COVERAGE",
    "AnswerParams",
    "AnswerSpan",
    "GeneratedAnswer",
    "generate_answer",
]

MAX_SENTENCES = 3
MIN_COVERAGE = 0.34
_MIN_WORDS = 3
_MAX_SENTENCE_CHARS = 400
DEFAULT_MAX_RETURN_RESULTS = 10
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"[.!?。！？؟।][\"')\]»”’]*$")


@dataclass(frozen=True, slots=True)
class AnswerParams:
    """What an AnswerQuery asks for, as plain values (``query_field`` and ``filter_field`` name
    the request fields in errors)."""

    query: str
    max_return_results: int = 0
    filter: str = ""
    order_by: str = ""
    boosts: tuple[ConditionBoost, ...] = ()
    include_citations: bool = True
    dialect: Dialect = "discovery_engine"
    query_field: str = "query.text"
    filter_field: str = "search_spec.search_params.filter"


@dataclass(frozen=True, slots=True)
class AnswerSpan:
    """A segment of the answer (string indices, end exclusive) and the references behind it."""

    start: int
    end: int
    reference_indices: tuple[int, ...]
    score: float | None = None
    grounding_check_required: bool | None = None


@dataclass(frozen=True, slots=True)
class GeneratedAnswer:
    """An answer: text, citations into ``references``, grounding supports and score."""

    text: str
    citations: tuple[AnswerSpan, ...] = ()
    references: tuple[ChunkHit, ...] = ()
    grounding_score: float | None = None
    supports: tuple[AnswerSpan, ...] = ()
    skipped_reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Sentence:
    text: str
    coverage: float
    rank: int
    position: int
    hit: ChunkHit


def _sentences(hits: Sequence[ChunkHit], weights: dict[str, float]) -> list[_Sentence]:
    total = sum(weights.values())
    found: list[_Sentence] = []
    if total <= 0:
        return found
    for hit in hits:
        position = 0
        for paragraph in _PARAGRAPH_BREAK.split(hit.chunk.content):
            # Hard-wrapped lines belong to one sentence: join them before splitting.
            flat = " ".join(paragraph.split())
            for start, end in split_claims(flat):
                position += 1
                sentence = _score(flat[start:end], hit, position, weights, total)
                if sentence is not None:
                    found.append(sentence)
    return found


def _prose(text: str) -> bool:
    """Whether ``text`` reads as a sentence (not code, a grammar rule or a doctest)."""
    if len(text) > _MAX_SENTENCE_CHARS or ">>>" in text:
        return False
    if len(text.split()) < _MIN_WORDS and len(tokenize(text)) < _MIN_WORDS:
        return False  # too short (scripts without spaces count by tokens)
    if not _SENTENCE_END.search(text):
        return False  # a heading or a fragment
    letters = sum(1 for c in text if c.isalpha() or c.isspace())
    return letters >= 0.8 * len(text)


def _score(
    text: str, hit: ChunkHit, position: int, weights: dict[str, float], total: float
) -> _Sentence | None:
    if not _prose(text):
        return None
    present = set(tokenize(text))
    coverage = sum(w for t, w in weights.items() if t in present) / total
    return _Sentence(text, coverage, hit.rank, position, hit) if coverage >= MIN_COVERAGE else None


def generate_answer(store: DataStore, params: AnswerParams) -> GeneratedAnswer:
    """Answer ``params.query`` from ``store`` (see the module docstring)."""
    if not params.query.strip():
        raise InvalidArgument(
            f"{params.query_field} is empty: give the question to answer", field=params.query_field
        )
    if params.max_return_results < 0:
        raise InvalidArgument(
            f"search_spec.search_params.max_return_results must be >= 0, "
            f"got {params.max_return_results}",
            field="search_spec.search_params.max_return_results",
        )
    page = search(
        store,
        SearchParams(
            query=params.query,
            page_size=params.max_return_results or DEFAULT_MAX_RETURN_RESULTS,
            filter=params.filter,
            filter_field=params.filter_field,
            order_by=params.order_by,
            boosts=params.boosts,
            mode="chunks",
            dialect=params.dialect,
        ),
    )
    hits = chunk_hits(page)
    query_tokens = list(dict.fromkeys(tokenize(params.query)))
    weights = dict(zip(query_tokens, store.index.idf(query_tokens), strict=True))
    candidates = _sentences(hits, weights)
    seen: set[str] = set()
    chosen: list[_Sentence] = []
    best = max((h.relevance for h in hits), default=0.0) or 1.0
    ranked = sorted(
        candidates,
        key=lambda s: (-(s.coverage + s.hit.relevance / best) / 2, s.rank, s.position),
    )
    for sentence in ranked:
        if sentence.text not in seen:
            seen.add(sentence.text)
            chosen.append(sentence)
        if len(chosen) == MAX_SENTENCES:
            break
    if not chosen:
        return GeneratedAnswer(text="", skipped_reasons=("NO_RELEVANT_CONTENT",))
    chosen.sort(key=lambda s: (s.rank, s.position))

    references: list[ChunkHit] = []
    reference_of: dict[int, int] = {}
    spans: list[tuple[int, int, int]] = []
    parts: list[str] = []
    offset = 0
    for sentence in chosen:
        if sentence.hit.index not in reference_of:
            reference_of[sentence.hit.index] = len(references)
            references.append(sentence.hit)
        if parts:
            offset += 1
        spans.append((offset, offset + len(sentence.text), reference_of[sentence.hit.index]))
        parts.append(sentence.text)
        offset += len(sentence.text)
    text = " ".join(parts)

    outcome = check_grounding(text, [Fact(hit.chunk.content) for hit in references])
    supports = tuple(
        AnswerSpan(
            start=claim.start,
            end=claim.end,
            reference_indices=claim.fact_indices,
            score=claim.score,
            grounding_check_required=claim.grounding_check_required,
        )
        for claim in outcome.claims
    )
    citations = (
        tuple(AnswerSpan(start, end, (reference,)) for start, end, reference in spans)
        if params.include_citations
        else ()
    )
    return GeneratedAnswer(
        text=text,
        citations=citations,
        references=tuple(references),
        grounding_score=outcome.support_score,
        supports=supports,
    )
