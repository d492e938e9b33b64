"""The search summary (``SearchRequest.ContentSearchSpec.summary_spec``): extractive,
deterministic; pure.

Google's references: the ``SummarySpec`` and ``SearchResponse.Summary`` field docs
(``google/cloud/discoveryengine/v1/search_service.proto``) and "Get search summaries"
(cloud.google.com/generative-ai-app-builder/docs/get-search-summaries).

1. **Limits**: ``summary_result_count`` is at most 10 in DOCUMENTS mode and 50 in CHUNKS mode
   ("At most 10 results for documents mode, or 50 for chunks mode, can be used to generate a
   summary"); a negative or larger value is ``INVALID_ARGUMENT``. The docs do not say what 0
   (unset) means: the emulator then uses the mode's maximum.
2. **Classify** the query (AnswerQuery's classifier, ``query_classes.py``):
   ``ignore_non_summary_seeking_query`` skips small talk and navigational queries (the field
   doc's "SFO airport" and "world cup 2026": short keyword queries that are not questions) with
   ``NON_SUMMARY_SEEKING_QUERY_IGNORED``, ``ignore_jail_breaking_query`` skips attempts to
   override instructions with ``JAIL_BREAKING_QUERY_IGNORED``, ``ignore_adversarial_query``
   skips adversarial queries with ``ADVERSARIAL_QUERY_IGNORED`` (the classifier knows them
   only in their jail-breaking form).
   Every reason that applies is reported.
3. **Sources**: the top ``summary_result_count`` results of the response ("If the number of
   results returned is less than summaryResultCount, the summary is generated from all of the
   results"): so every page has its own summary, of its own results, and citation numbers refer
   to the results of that response. A chunk result is one source chunk; a document result
   contributes its best chunks (the ones the search matched). No results:
   ``OUT_OF_DOMAIN_QUERY_IGNORED`` ("no high-relevance search results").
4. **Score and select** sentences as AnswerQuery does (``selection.py``); the
   minimum relevance applies only with ``ignore_low_relevant_content`` (its default, false:
   "all search results are used regardless of relevance"). No sentence:
   ``NO_RELEVANT_CONTENT`` ("no relevant content in the retrieved search results").
5. **Compose**: the sentences joined by spaces are ``summary_with_metadata.summary``; each is
   cited to every source result that contains it. ``references`` are the source results in rank
   order (reference ``i`` is result ``i + 1``); with ``use_semantic_chunks`` only the cited ones
   ("not all top search results will be referenced and included in the reference list"). With
   ``include_citations``, ``summary_text`` carries the field doc's in-line numbers (" [1]",
   " [2, 3]", 1-based reference numbers) before each sentence's closing punctuation, and
   ``citation_metadata`` the spans; without it, ``summary_text`` is the plain summary.

A skipped summary has ``FALLBACK_SUMMARY`` as its text ("we skip generating summaries ... and
return fallback messages instead"; the wording is the one Google's "Get answers and follow-ups"
page shows) and no ``summary_with_metadata``. The prompt preamble, model version and language
code change nothing in an extractive summary; safety attributes are never set.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from grounding_emulator.answer.engine import AnswerSpan
from grounding_emulator.answer.query_classes import (
    NON_SUMMARY_SEEKING_QUERY,
    classify_query,
    skip_reasons,
)
from grounding_emulator.answer.selection import ScoredSentence, score_sentences, select_sentences
from grounding_emulator.answer.sentences import containing_hits, sentences_of
from grounding_emulator.answer.sources import SourceDocument, result_chunks
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.errors import InvalidArgument
from grounding_emulator.limits import MAX_SUMMARY_RESULTS_CHUNKS, MAX_SUMMARY_RESULTS_DOCUMENTS
from grounding_emulator.search.engine import ChunkHit, DocumentHit, Mode, SearchPage

__all__ = [
    "FALLBACK_SUMMARY",
    "GeneratedSummary",
    "SummaryParams",
    "generate_summary",
]

FALLBACK_SUMMARY = (
    "A summary could not be generated for your search query. Here are some search results."
)
RESULT_COUNT_FIELD = "content_search_spec.summary_spec.summary_result_count"

NON_SUMMARY_SEEKING_QUERY_IGNORED = "NON_SUMMARY_SEEKING_QUERY_IGNORED"
OUT_OF_DOMAIN_QUERY_IGNORED = "OUT_OF_DOMAIN_QUERY_IGNORED"
NO_RELEVANT_CONTENT = "NO_RELEVANT_CONTENT"

_MAX_RESULTS: dict[Mode, int] = {
    "chunks": MAX_SUMMARY_RESULTS_CHUNKS,
    "documents": MAX_SUMMARY_RESULTS_DOCUMENTS,
}


@dataclass(frozen=True, slots=True)
class SummaryParams:
    """What a ``SummarySpec`` asks for, as plain values, with the search's query and mode."""

    query: str
    mode: Mode = "chunks"
    result_count: int = 0
    include_citations: bool = False
    ignore_adversarial_query: bool = False
    ignore_non_summary_seeking_query: bool = False
    ignore_low_relevant_content: bool = False
    ignore_jail_breaking_query: bool = False
    use_semantic_chunks: bool = False


@dataclass(frozen=True, slots=True)
class GeneratedSummary:
    """A summary: ``text`` (``summary_text``, with in-line citation numbers when asked),
    ``summary`` (without them), citations (string spans into ``summary``, indices into
    ``references``), and the skip reasons (then ``text`` is the fallback message)."""

    text: str
    summary: str = ""
    citations: tuple[AnswerSpan, ...] = ()
    references: tuple[SourceDocument, ...] = ()
    skipped_reasons: tuple[str, ...] = ()


def _result_count(params: SummaryParams) -> int:
    maximum = _MAX_RESULTS[params.mode]
    if not 0 <= params.result_count <= maximum:
        raise InvalidArgument(
            f"{RESULT_COUNT_FIELD} must be between 0 and {maximum} in {params.mode.upper()} "
            f"mode, got {params.result_count}",
            field=RESULT_COUNT_FIELD,
        )
    return params.result_count or maximum


def _sources(
    store: DataStore, results: Sequence[ChunkHit | DocumentHit]
) -> tuple[list[ChunkHit], list[int], list[SourceDocument]]:
    """The chunks the summary reads, the result each belongs to, and each result as a
    reference."""
    units: list[ChunkHit] = []
    owners: list[int] = []
    references: list[SourceDocument] = []
    for number, result in enumerate(results):
        chunks = result_chunks(store, result)
        units.extend(chunks)
        owners.extend([number] * len(chunks))
        references.append(SourceDocument(result.document, tuple(chunks)))
    return units, owners, references


def _with_numbers(sentence: str, numbers: Sequence[int]) -> str:
    """``sentence`` with `` [n, m]`` before its closing punctuation (the field doc's form)."""
    cut = len(sentence)
    while cut and unicodedata.category(sentence[cut - 1]).startswith("P"):
        cut -= 1
    marker = " [" + ", ".join(str(n) for n in numbers) + "]"
    return sentence[:cut] + marker + sentence[cut:]


def _compose(
    chosen: Sequence[ScoredSentence],
    units: Sequence[ChunkHit],
    owners: Sequence[int],
    references: Sequence[SourceDocument],
    params: SummaryParams,
) -> GeneratedSummary:
    cited: list[tuple[int, ...]] = []
    for item in chosen:
        containing = containing_hits(item.sentence.text, units) or (item.sentence.hit,)
        cited.append(tuple(dict.fromkeys(owners[u] for u in containing)))
    listed = list(range(len(references)))
    if params.use_semantic_chunks:
        listed = sorted({result for results in cited for result in results})
    position = {result: index for index, result in enumerate(listed)}

    spans: list[AnswerSpan] = []
    plain: list[str] = []
    numbered: list[str] = []
    offset = 0
    for item, results in zip(chosen, cited, strict=True):
        text = item.sentence.text
        if plain:
            offset += 1
        indices = tuple(position[r] for r in results)
        spans.append(AnswerSpan(offset, offset + len(text), indices))
        offset += len(text)
        plain.append(text)
        numbered.append(_with_numbers(text, [i + 1 for i in indices]))
    summary = " ".join(plain)
    return GeneratedSummary(
        text=" ".join(numbered) if params.include_citations else summary,
        summary=summary,
        citations=tuple(spans) if params.include_citations else (),
        references=tuple(references[r] for r in listed),
    )


def _skipped(*reasons: str) -> GeneratedSummary:
    return GeneratedSummary(text=FALLBACK_SUMMARY, skipped_reasons=reasons)


def generate_summary(store: DataStore, params: SummaryParams, page: SearchPage) -> GeneratedSummary:
    """The summary of ``page``'s top results for ``params.query`` (see the module docstring)."""
    count = _result_count(params)
    reasons = skip_reasons(
        classify_query(params.query),
        ignore_adversarial=params.ignore_adversarial_query,
        ignore_non_seeking=params.ignore_non_summary_seeking_query,
        ignore_jail_breaking=params.ignore_jail_breaking_query,
        non_seeking_reason=NON_SUMMARY_SEEKING_QUERY_IGNORED,
        non_seeking_class=NON_SUMMARY_SEEKING_QUERY,
    )
    if reasons:
        return _skipped(*reasons)
    results = page.hits[:count]
    if not results:
        return _skipped(OUT_OF_DOMAIN_QUERY_IGNORED)
    units, owners, references = _sources(store, results)
    scored = score_sentences(store, params.query, units, sentences_of(units))
    chosen = select_sentences(scored, units, strict=params.ignore_low_relevant_content)
    if not chosen:
        return _skipped(NO_RELEVANT_CONTENT)
    return _compose(chosen, units, owners, references, params)
