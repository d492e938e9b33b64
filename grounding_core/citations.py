"""Citation spans: each supported claim (or answer citation) paired with one source it cites.

What the frameworks' standard citation types are built from (LangChain's ``Citation``
annotations, LlamaIndex's ``CitationBlock``), and what the metadata carries under
``citation_annotations``: a claim of checkGrounding (``report_citations``) or a cited segment
of answerQuery (``answer_citations``), ``answer[span.start:span.end]`` in any script.

>>> from grounding_core import CitedChunk, Claim, GroundingReport, GroundingResult, GroundingSource
>>> fact = GroundingSource("Paris is the capital of France.", {"uri": "https://a", "title": "A"})
>>> cited = CitedChunk(fact.text, source_index=0, fact_index=0)
>>> claim = Claim("Paris is the capital.", 0, 21, 0, 21, (0,), (cited,))
>>> report = GroundingReport(GroundingResult(claim.text, 1.0, (claim,)), ("doc",), (fact,))
>>> [span.metadata() for span in report_citations(report)]  # doctest: +NORMALIZE_WHITESPACE
[{'start_index': 0, 'end_index': 21, 'cited_text': 'Paris is the capital of France.',
  'source_index': 0, 'source_id': '0', 'url': 'https://a', 'title': 'A', 'claim_index': 0}]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ._records import CitedChunk, GroundedAnswer, GroundingSource

if TYPE_CHECKING:
    from .grounding.report import GroundingReport

CITATION_ANNOTATIONS_KEY = "citation_annotations"
"""The metadata key of the citation spans, in a report's and an answer's metadata."""

URL_KEYS = ("uri", "url", "source")
"""Where a source's metadata holds its address, first found wins: our chunks carry ``uri`` (and
``source``, the same), other loaders ``url`` or ``source``."""


@dataclass(frozen=True, slots=True)
class CitationSpan:
    """One supported claim (or answer citation) and one source it cites: ``source_index`` is
    its position in the checked sources (or the answer's references); ``claim_index`` is
    ``None`` for an answerQuery citation."""

    start: int
    end: int
    cited_text: str
    source_index: int
    source_id: str
    url: str
    title: str
    claim_index: int | None

    def metadata(self) -> dict[str, Any]:
        """The span as JSON-safe metadata, keyed as LangChain's ``Citation`` names them."""
        return {
            "start_index": self.start,
            "end_index": self.end,
            "cited_text": self.cited_text,
            "source_index": self.source_index,
            "source_id": self.source_id,
            "url": self.url,
            "title": self.title,
            "claim_index": self.claim_index,
        }


def _text_value(metadata: Mapping[str, Any], keys: Iterable[str]) -> str:
    for key in keys:
        value = metadata.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def source_url(metadata: Mapping[str, Any]) -> str:
    """A source's address from its metadata (``URL_KEYS``), ``""`` when it has none."""
    return _text_value(metadata, URL_KEYS)


def source_title(metadata: Mapping[str, Any]) -> str:
    """A source's title from its metadata, ``""`` when it has none."""
    return _text_value(metadata, ("title",))


def report_citations(report: GroundingReport[Any]) -> tuple[CitationSpan, ...]:
    """One span per supported claim and cited source, claims in answer order (not for a claim
    without a usable span, nor for a source the report was not given)."""
    result = report.result
    if result is None:
        return ()
    count, given = len(report.sources), report.grounding_sources
    spans: list[CitationSpan] = []
    for claim_index, claim in enumerate(result.claims):
        start, end = claim.start, claim.end
        if claim.status != "supported" or start is None or end is None:
            continue
        if not 0 <= start < end <= len(result.answer):
            continue
        cited_by_source: dict[int, CitedChunk] = {}
        for cited in claim.citations:
            if cited.source_index is not None and cited.source_index < count:
                cited_by_source.setdefault(cited.source_index, cited)
        for i, cited in cited_by_source.items():
            source = given[i] if i < len(given) else GroundingSource(cited.text)
            url = cited.uri or source_url(source.metadata)
            title = cited.title or source_title(source.metadata)
            text, source_id = cited.text or source.text, report.source_ids[i]
            spans.append(CitationSpan(start, end, text, i, source_id, url, title, claim_index))
    return tuple(spans)


def answer_citations(answer: GroundedAnswer) -> tuple[CitationSpan, ...]:
    """One span per answerQuery citation and reference it cites (references outside the
    answer's list, and empty segments, are left out)."""
    references, length = answer.references, len(answer.answer_text)
    spans: list[CitationSpan] = []
    for citation in answer.citations:
        start, end = citation.start, citation.end
        if not 0 <= start < end <= length:
            continue
        for i in dict.fromkeys(citation.reference_indices):
            if 0 <= i < len(references):
                ref = references[i]
                spans.append(
                    CitationSpan(start, end, ref.content, i, ref.name, ref.uri, ref.title, None)
                )
    return tuple(spans)


def citations_metadata(spans: Iterable[CitationSpan]) -> list[dict[str, Any]]:
    """The spans as metadata (``CitationSpan.metadata``), in order."""
    return [span.metadata() for span in spans]


def segment_spans(
    spans: Iterable[CitationSpan], lengths: Sequence[int]
) -> list[list[CitationSpan]]:
    """The spans of a text made of consecutive segments of ``lengths`` characters (a message's
    text blocks), per segment: each span clipped to every segment it overlaps, its indices
    made relative to that segment. A span across two segments gives one part in each.

    >>> span = CitationSpan(2, 7, "cited", 0, "0", "", "", 0)
    >>> [[(s.start, s.end) for s in parts] for parts in segment_spans([span], [4, 0, 6])]
    [[(2, 4)], [], [(0, 3)]]
    """
    spans = tuple(spans)
    parts: list[list[CitationSpan]] = []
    offset = 0
    for length in lengths:
        end = offset + length
        clipped = ((span, max(span.start, offset), min(span.end, end)) for span in spans)
        parts.append(
            [
                replace(span, start=start - offset, end=stop - offset)
                for span, start, stop in clipped
                if start < stop
            ]
        )
        offset = end
    return parts
