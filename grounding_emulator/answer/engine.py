"""The answer generator (AnswerQuery semantics): extractive, deterministic, honest; pure.

1. **Classify** the query (``query_classes.py``): a query that only makes small talk is skipped
   with ``NON_ANSWER_SEEKING_QUERY_IGNORED`` when the request sets
   ``ignore_non_answer_seeking_query``, one that tries to override instructions with
   ``JAIL_BREAKING_QUERY_IGNORED`` when it sets ``ignore_jail_breaking_query``; the classes the
   request asks about are reported either way.
2. **Retrieve** chunks: a CHUNKS search (``max_return_results`` chunks, default 10, with the
   request's filter, ordering and boosts), hybrid when the data store has vectors.
3. **Score sentences** (``answer_sentences.py``): each prose sentence of the retrieved chunks
   gets a relevance in [0, 1]: its coverage of the query (the share of the query's IDF weight
   found in its tokens), fused with its own semantic similarity to the query when the data store
   has vectors (``fusion.fuse``, the same scale as search relevance). Its **score** is the mean
   of that relevance and its chunk's relevance relative to the best chunk.
4. **Select** the best ``MAX_SENTENCES`` sentences by score (ties: better-ranked chunk, earlier
   sentence) whose relevance is at least ``MIN_SENTENCE_RELEVANCE``, skipping any sentence that
   is a near-duplicate of one already chosen. When the request sets
   ``ignore_low_relevant_content`` to false the minimum does not apply.
5. **Compose** in reading order: the chunks in the order of their best chosen sentence, each
   chunk's sentences in their order in the chunk, joined by spaces. Each sentence is cited to
   every retrieved chunk that contains it; references are those chunks, in order of first
   citation.
6. **Check**: ``grounding_score`` is the support score the grounding judge (the server's, the
   same as CheckGrounding's) gives the answer against its references, at the default citation
   threshold. With ``grounding_spec.filtering_level`` LOW (HIGH) an answer scoring below
   0.3 (0.6) is withdrawn with ``LOW_GROUNDED_ANSWER``.

When no sentence qualifies the answer is empty and ``skipped_reasons`` is
``("NO_RELEVANT_CONTENT",)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grounding_emulator.answer.query_classes import (
    JAIL_BREAKING_QUERY,
    NON_ANSWER_SEEKING_QUERY,
    classify_query,
)
from grounding_emulator.answer.sentences import (
    Sentence,
    containing_hits,
    near_duplicates,
    sentences_of,
)
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.tokens import tokenize
from grounding_emulator.errors import InvalidArgument
from grounding_emulator.grounding.check import check_answer
from grounding_emulator.grounding.judge import Fact, Judge
from grounding_emulator.limits import DEFAULT_MAX_RETURN_RESULTS
from grounding_emulator.search.engine import (
    ChunkHit,
    ConditionBoost,
    Dialect,
    SearchParams,
    chunk_hits,
    search,
)
from grounding_emulator.search.fusion import fuse

__all__ = [
    "FILTERING_THRESHOLDS",
    "MAX_SENTENCES",
    "MIN_SENTENCE_RELEVANCE",
    "AnswerParams",
    "AnswerSpan",
    "GeneratedAnswer",
    "generate_answer",
]

MAX_SENTENCES = 3
MIN_SENTENCE_RELEVANCE = 0.34
FILTERING_THRESHOLDS = {"LOW": 0.3, "HIGH": 0.6}

NO_RELEVANT_CONTENT = "NO_RELEVANT_CONTENT"
NON_ANSWER_SEEKING_QUERY_IGNORED = "NON_ANSWER_SEEKING_QUERY_IGNORED"
JAIL_BREAKING_QUERY_IGNORED = "JAIL_BREAKING_QUERY_IGNORED"
LOW_GROUNDED_ANSWER = "LOW_GROUNDED_ANSWER"


@dataclass(frozen=True, slots=True)
class AnswerParams:
    """What an AnswerQuery asks for, as plain values (``query_field`` and ``filter_field`` name
    the request fields in errors).

    ``ignore_low_relevant_content``: ``None`` when the request leaves it unset (low-relevance
    content is ignored, as when it is true). ``filtering_level``: "", "LOW" or "HIGH".
    ``classification_types``: the query classes to report.
    """

    query: str
    max_return_results: int = 0
    filter: str = ""
    order_by: str = ""
    boosts: tuple[ConditionBoost, ...] = ()
    include_citations: bool = True
    dialect: Dialect = "discovery_engine"
    query_field: str = "query.text"
    filter_field: str = "search_spec.search_params.filter"
    ignore_non_answer_seeking_query: bool = False
    ignore_jail_breaking_query: bool = False
    ignore_low_relevant_content: bool | None = None
    filtering_level: str = ""
    classification_types: tuple[str, ...] = ()


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
    """An answer: text, citations into ``references``, grounding supports and score, skip
    reasons, and the query classes asked about (``(type, positive)`` pairs)."""

    text: str
    citations: tuple[AnswerSpan, ...] = ()
    references: tuple[ChunkHit, ...] = ()
    grounding_score: float | None = None
    supports: tuple[AnswerSpan, ...] = ()
    skipped_reasons: tuple[str, ...] = ()
    query_classification: tuple[tuple[str, bool], ...] = ()


@dataclass(frozen=True, slots=True)
class _Scored:
    sentence: Sentence
    relevance: float
    score: float


def _check_params(params: AnswerParams) -> None:
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
    if params.filtering_level and params.filtering_level not in FILTERING_THRESHOLDS:
        raise InvalidArgument(
            f"grounding_spec.filtering_level must be one of {', '.join(FILTERING_THRESHOLDS)}, "
            f"got {params.filtering_level}",
            field="grounding_spec.filtering_level",
        )


def _retrieve(store: DataStore, params: AnswerParams) -> list[ChunkHit]:
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
    return list(chunk_hits(page))


def _scored(
    store: DataStore, query: str, hits: Sequence[ChunkHit], sentences: Sequence[Sentence]
) -> list[_Scored]:
    """Every sentence with its relevance and score (module docstring, step 3)."""
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
        _Scored(s, float(r), (float(r) + hits[s.hit].relevance / best) / 2)
        for s, r in zip(sentences, relevance, strict=True)
    ]


def _select(scored: Sequence[_Scored], hits: Sequence[ChunkHit], strict: bool) -> list[_Scored]:
    """The chosen sentences (module docstring, step 4), in reading order (step 5)."""
    ranked = sorted(
        scored, key=lambda s: (-s.score, hits[s.sentence.hit].rank, s.sentence.position)
    )
    chosen: list[_Scored] = []
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


def _skipped(reason: str, classification: tuple[tuple[str, bool], ...]) -> GeneratedAnswer:
    return GeneratedAnswer(text="", skipped_reasons=(reason,), query_classification=classification)


def generate_answer(store: DataStore, params: AnswerParams, judge: Judge) -> GeneratedAnswer:
    """Answer ``params.query`` from ``store``, grounded by ``judge`` (see the module
    docstring)."""
    _check_params(params)
    classes = classify_query(params.query)
    classification = tuple((kind, kind in classes) for kind in params.classification_types)
    if params.ignore_non_answer_seeking_query and NON_ANSWER_SEEKING_QUERY in classes:
        return _skipped(NON_ANSWER_SEEKING_QUERY_IGNORED, classification)
    if params.ignore_jail_breaking_query and JAIL_BREAKING_QUERY in classes:
        return _skipped(JAIL_BREAKING_QUERY_IGNORED, classification)

    hits = _retrieve(store, params)
    scored = _scored(store, params.query, hits, sentences_of(hits))
    chosen = _select(scored, hits, strict=params.ignore_low_relevant_content is not False)
    if not chosen:
        return _skipped(NO_RELEVANT_CONTENT, classification)

    references: list[int] = []
    spans: list[tuple[int, int, tuple[int, ...]]] = []
    parts: list[str] = []
    offset = 0
    for item in chosen:
        sources = containing_hits(item.sentence.text, hits) or (item.sentence.hit,)
        for source in sources:
            if source not in references:
                references.append(source)
        if parts:
            offset += 1
        end = offset + len(item.sentence.text)
        spans.append((offset, end, tuple(references.index(s) for s in sources)))
        parts.append(item.sentence.text)
        offset = end
    text = " ".join(parts)
    cited = tuple(hits[i] for i in references)

    checked = check_answer(text, [Fact(hit.chunk.content) for hit in cited], judge)
    threshold = FILTERING_THRESHOLDS.get(params.filtering_level)
    if threshold is not None and checked.support_score < threshold:
        return _skipped(LOW_GROUNDED_ANSWER, classification)
    supports = tuple(
        AnswerSpan(
            start=claim.start,
            end=claim.end,
            reference_indices=verdict.fact_indices,
            score=verdict.score,
            grounding_check_required=verdict.grounding_check_required,
        )
        for claim, verdict in zip(checked.claims, checked.verdicts, strict=True)
    )
    citations = (
        tuple(AnswerSpan(start, end, sources) for start, end, sources in spans)
        if params.include_citations
        else ()
    )
    return GeneratedAnswer(
        text=text,
        citations=citations,
        references=cited,
        grounding_score=checked.support_score,
        supports=supports,
        query_classification=classification,
    )
