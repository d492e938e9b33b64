"""The answer generator (AnswerQuery semantics): extractive, deterministic, honest; pure.

1. **Classify** the query (``query_classes.py``): every skip the request asks for that applies
   is reported, in the order of ``Answer.AnswerSkippedReason``: ``ADVERSARIAL_QUERY_IGNORED``
   (``ignore_adversarial_query``; the emulator's adversarial queries are the jail-breaking
   ones), ``NON_ANSWER_SEEKING_QUERY_IGNORED`` (``ignore_non_answer_seeking_query``: small
   talk), ``JAIL_BREAKING_QUERY_IGNORED`` (``ignore_jail_breaking_query``: attempts to override
   instructions); the classes the request asks about are reported either way. Classification
   reads the query as asked.
2. **Rephrase** a follow-up with the earlier queries of its session (``rephrase.py``; on by
   default, off with ``query_rephraser_spec.disable``) and, unless the request sets
   ``disable_spell_correction``, correct its spelling (``search/spelling.py``, the search's);
   retrieval and sentence scoring use the query searched.
3. **Retrieve** (``max_return_results`` results, default 10, with the request's filter, ordering
   and boosts; hybrid when the data store has vectors): chunks in CHUNKS mode, documents in
   DOCUMENTS mode ("If unspecified, the search result mode defaults to DOCUMENTS",
   ``SearchParams.search_result_mode``), whose best chunks (the ones the search matched) are
   read, ranked as their document.
4. **Score sentences** (``selection.py``): each prose sentence of the retrieved chunks
   (``sentences.py``) gets a relevance (its coverage of the query, fused with its semantic
   similarity when the data store has vectors) and a score (the mean of that relevance and its
   chunk's relevance relative to the best chunk).
5. **Select** (``selection.py``) the best ``MAX_SENTENCES`` sentences by score whose relevance is
   at least ``MIN_SENTENCE_RELEVANCE``, skipping near-duplicates. When the request sets
   ``ignore_low_relevant_content`` to false the minimum does not apply.
6. **Compose** in reading order: the chunks in the order of their best chosen sentence, each
   chunk's sentences in their order in the chunk, joined by spaces. Each sentence is cited to
   every retrieved chunk that contains it. References, in order of first citation, are those
   chunks in CHUNKS mode, and their documents in DOCUMENTS mode (each with its cited chunks).
7. **Check**: ``grounding_score`` is the support score the grounding judge (the server's, the
   same as CheckGrounding's) gives the answer against its references (one fact per reference:
   its cited chunks), at the default citation threshold. With ``grounding_spec.filtering_level``
   LOW (HIGH) an answer scoring below 0.3 (0.6) is withdrawn with ``LOW_GROUNDED_ANSWER``.
8. **Related questions** (``related_questions_spec.enable``, ``related.py``): the sections of
   the retrieved chunks the answer does not cite.

When no sentence qualifies the answer is empty and ``skipped_reasons`` is
``("NO_RELEVANT_CONTENT",)``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from grounding_emulator.answer.query_classes import classify_query, skip_reasons
from grounding_emulator.answer.related import related_questions
from grounding_emulator.answer.rephrase import rephrase
from grounding_emulator.answer.selection import ScoredSentence, score_sentences, select_sentences
from grounding_emulator.answer.sentences import containing_hits, sentences_of
from grounding_emulator.answer.sources import SourceDocument, source_hits
from grounding_emulator.call_state import check_call
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.errors import InvalidArgument
from grounding_emulator.grounding.check import check_answer
from grounding_emulator.grounding.judge import Fact, Judge
from grounding_emulator.limits import DEFAULT_MAX_RETURN_RESULTS, MAX_REPHRASE_STEPS
from grounding_emulator.search.engine import (
    ChunkHit,
    ConditionBoost,
    Dialect,
    Mode,
    SearchParams,
    search,
)

__all__ = [
    "FILTERING_THRESHOLDS",
    "AnswerParams",
    "AnswerSpan",
    "GeneratedAnswer",
    "generate_answer",
]

FILTERING_THRESHOLDS = {"LOW": 0.3, "HIGH": 0.6}

NO_RELEVANT_CONTENT = "NO_RELEVANT_CONTENT"
NON_ANSWER_SEEKING_QUERY_IGNORED = "NON_ANSWER_SEEKING_QUERY_IGNORED"
LOW_GROUNDED_ANSWER = "LOW_GROUNDED_ANSWER"


@dataclass(frozen=True, slots=True)
class AnswerParams:
    """What an AnswerQuery asks for, as plain values (``query_field`` and ``filter_field`` name
    the request fields in errors).

    ``ignore_low_relevant_content``: ``None`` when the request leaves it unset (low-relevance
    content is ignored, as when it is true). ``filtering_level``: "", "LOW" or "HIGH".
    ``classification_types``: the query classes to report. ``mode``: what is searched and
    referenced (the Discovery Engine servicer maps Google's unspecified mode to documents).
    ``history``: the earlier queries of the session, oldest first; ``rephrase`` and
    ``max_rephrase_steps`` (< 1: one step) are the query rephraser's; ``spell_correction``
    searches with a corrected query (``search/spelling.py``; AnswerQuery's default, off with
    ``disable_spell_correction``); ``data_store_filters`` the ``(field, filter)`` pairs of the
    data store specs; ``rerank_top`` reranks the first results searched (the emulator's
    ``rerank_search`` option, ``search/reranking.py``).
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
    ignore_adversarial_query: bool = False
    mode: Mode = "chunks"
    rerank_top: int = 0
    data_store_filters: tuple[tuple[str, str], ...] = ()
    history: tuple[str, ...] = ()
    rephrase: bool = True
    max_rephrase_steps: int = 0
    spell_correction: bool = False
    related_questions: bool = False


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
    """An answer: text, citations and grounding supports, grounding score, skip reasons, the
    query classes asked about (``(type, positive)`` pairs), the query searched when it is not
    the query asked (rephrased, or spell-corrected), and the related questions.

    ``references`` are the cited chunks, in order of first citation. In CHUNKS mode they are the
    references the spans index into; in DOCUMENTS mode the spans index into ``documents``.
    ``parts`` are the answer's sentences as StreamAnswerQuery sends them, each with the space
    that follows it: they join to ``text``.
    """

    text: str
    citations: tuple[AnswerSpan, ...] = ()
    references: tuple[ChunkHit, ...] = ()
    documents: tuple[SourceDocument, ...] = ()
    grounding_score: float | None = None
    supports: tuple[AnswerSpan, ...] = ()
    skipped_reasons: tuple[str, ...] = ()
    query_classification: tuple[tuple[str, bool], ...] = ()
    searched_query: str = ""
    related_questions: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()


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
    if params.max_rephrase_steps > MAX_REPHRASE_STEPS:
        field = "query_understanding_spec.query_rephraser_spec.max_rephrase_steps"
        raise InvalidArgument(
            f'{field} is at most {MAX_REPHRASE_STEPS} ("The max number is 5 steps"), '
            f"got {params.max_rephrase_steps}",
            field=field,
        )


def _retrieve(store: DataStore, params: AnswerParams, query: str) -> tuple[list[ChunkHit], str]:
    """The chunks the answer reads (module docstring, step 3) and the query searched."""
    page = search(
        store,
        SearchParams(
            query=query,
            page_size=params.max_return_results or DEFAULT_MAX_RETURN_RESULTS,
            filter=params.filter,
            filter_field=params.filter_field,
            order_by=params.order_by,
            boosts=params.boosts,
            mode=params.mode,
            dialect=params.dialect,
            data_store_filters=params.data_store_filters,
            spell_correction="AUTO" if params.spell_correction else "",
            rerank_top=params.rerank_top,
        ),
    )
    return source_hits(store, page.hits), page.query or query


def _skipped(reasons: tuple[str, ...], answer: GeneratedAnswer) -> GeneratedAnswer:
    return GeneratedAnswer(
        text="",
        skipped_reasons=reasons,
        query_classification=answer.query_classification,
        searched_query=answer.searched_query,
    )


def _searched_query(params: AnswerParams) -> str:
    if not params.rephrase or not params.history:
        return params.query
    return rephrase(params.query, params.history, max(1, params.max_rephrase_steps))


def _compose(
    chosen: Sequence[ScoredSentence], hits: Sequence[ChunkHit], documents_mode: bool
) -> tuple[str, list[tuple[int, int, tuple[int, ...]]], list[list[int]]]:
    """The text, its spans (with the references each cites) and the references (each the hits
    it stands for: one chunk, or a document's cited chunks), step 6."""
    units: list[object] = []  # one key per reference: a hit, or a document
    members: list[list[int]] = []
    spans: list[tuple[int, int, tuple[int, ...]]] = []
    parts: list[str] = []
    offset = 0
    for item in chosen:
        cited: list[int] = []
        for source in containing_hits(item.sentence.text, hits) or (item.sentence.hit,):
            key = hits[source].document.id if documents_mode else source
            if key not in units:
                units.append(key)
                members.append([])
            unit = units.index(key)
            if source not in members[unit]:
                members[unit].append(source)
            if unit not in cited:
                cited.append(unit)
        if parts:
            offset += 1
        end = offset + len(item.sentence.text)
        spans.append((offset, end, tuple(cited)))
        parts.append(item.sentence.text)
        offset = end
    return " ".join(parts), spans, members


def generate_answer(store: DataStore, params: AnswerParams, judge: Judge) -> GeneratedAnswer:
    """Answer ``params.query`` from ``store``, grounded by ``judge`` (see the module
    docstring)."""
    _check_params(params)
    classes = classify_query(params.query)
    query = _searched_query(params)
    understood = GeneratedAnswer(
        text="",
        query_classification=tuple((k, k in classes) for k in params.classification_types),
        searched_query=query if query != params.query else "",
    )
    reasons = skip_reasons(
        classes,
        ignore_adversarial=params.ignore_adversarial_query,
        ignore_non_seeking=params.ignore_non_answer_seeking_query,
        ignore_jail_breaking=params.ignore_jail_breaking_query,
        non_seeking_reason=NON_ANSWER_SEEKING_QUERY_IGNORED,
    )
    if reasons:
        return _skipped(reasons, understood)

    hits, query = _retrieve(store, params, query)
    if query != params.query:
        understood = dataclasses.replace(understood, searched_query=query)
    check_call("scoring the results' sentences")
    scored = score_sentences(store, query, hits, sentences_of(hits))
    chosen = select_sentences(scored, hits, strict=params.ignore_low_relevant_content is not False)
    if not chosen:
        return _skipped((NO_RELEVANT_CONTENT,), understood)

    documents_mode = params.mode == "documents"
    text, spans, members = _compose(chosen, hits, documents_mode)
    facts = [Fact("\n\n".join(hits[i].chunk.content for i in unit)) for unit in members]
    checked = check_answer(text, facts, judge)
    threshold = FILTERING_THRESHOLDS.get(params.filtering_level)
    if threshold is not None and checked.support_score < threshold:
        return _skipped((LOW_GROUNDED_ANSWER,), understood)
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
    cited = [i for unit in members for i in unit]
    related: tuple[str, ...] = ()
    if params.related_questions:
        related = tuple(
            related_questions(
                [h.chunk.heading for h in hits], [h.document.title for h in hits], set(cited)
            )
        )
    return GeneratedAnswer(
        text=text,
        citations=citations,
        references=tuple(hits[i] for i in cited),
        documents=(
            tuple(
                SourceDocument(hits[unit[0]].document, tuple(hits[i] for i in unit))
                for unit in members
            )
            if documents_mode
            else ()
        ),
        grounding_score=checked.support_score,
        supports=supports,
        query_classification=understood.query_classification,
        searched_query=understood.searched_query,
        related_questions=related,
        parts=tuple(
            text[start : spans[i + 1][0] if i + 1 < len(spans) else len(text)]
            for i, (start, _end, _sources) in enumerate(spans)
        ),
    )
