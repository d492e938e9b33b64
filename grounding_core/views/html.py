"""A grounding check (or a grounded answer) as a self-contained, safe HTML report
(``docs/reports.md``).

Every claim is highlighted by its support level (``LEVEL_CLASSES``); hovering over, focusing or
clicking it shows its cited sources (without JavaScript they are listed below the answer).
Safe with any answer and source text: every piece of text is HTML-escaped after
``untrusted.printable``; ids, classes and ``data-`` values are generated here, never taken from
content; only ``http``/``https`` URIs become links (``untrusted.safe_href``, ``rel="noopener
noreferrer nofollow"``), any other is text; a full document carries a Content-Security-Policy
that allows exactly the package's ``report.css`` and ``report.js`` (by hash) and nothing else.

>>> from grounding_core import CitedChunk, Claim, GroundingResult, GroundingSource
>>> fact = CitedChunk("Paris is the capital of France.", source_index=0, fact_index=0)
>>> result = GroundingResult(
...     "Paris is the capital. <b>It</b> has 90 million people.",
...     0.5,
...     (Claim("Paris is the capital.", 0, 21, citation_indices=(0,), citations=(fact,)),
...      Claim("<b>It</b> has 90 million people.", 22, 54)),
... )
>>> sources = [GroundingSource("...", {"title": "Paris", "source": "https://example.org/p"})]
>>> page = grounding_html(result, sources, min_support_score=0.6)
>>> page.startswith("<!DOCTYPE html>"), "&lt;b&gt;It&lt;/b&gt;" in page, "<b>It" in page
(True, True, False)
>>> 'class="gk-claim gk-unsupported"' in page, 'href="https://example.org/p"' in page
(True, True)
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from .annotate import (
    DEFAULT_WEAK_BELOW,
    LEVEL_LABELS,
    SUPPORT_LEVELS,
    AnnotatedText,
    NumberedSource,
    Segment,
    SupportLevel,
    Verdict,
    annotate_answer,
    annotate_grounding,
    format_score,
    plural,
    shown_verdict,
)
from .untrusted import printable, safe_href

if TYPE_CHECKING:
    from grounding_core._records import GroundedAnswer, GroundingResult, GroundingSource

LEVEL_CLASSES = {level: "gk-" + level.replace("_", "-") for level in SUPPORT_LEVELS}

# The report's static style and script, allowed by hash in the Content-Security-Policy.
_CSS = (resources.files(__package__) / "report.css").read_text(encoding="utf-8")
_JS = (resources.files(__package__) / "report.js").read_text(encoding="utf-8")


def _sha256(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


CONTENT_SECURITY_POLICY = (
    "default-src 'none'; "
    f"style-src {_sha256(_CSS)}; "
    f"script-src {_sha256(_JS)}; "
    "img-src 'none'; font-src 'none'; connect-src 'none'; frame-src 'none'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'"
)


def _text(value: str) -> str:
    """``value`` escaped for HTML text or a quoted attribute (controls made visible first)."""
    return html.escape(printable(value), quote=True)


def _link(uri: str, label: str) -> str:
    href = safe_href(uri)
    if href is None:
        return f'<span class="gk-link-text">{_text(label)}</span>'
    return (
        f'<a class="gk-link" href="{_text(href)}" target="_blank" '
        f'rel="noopener noreferrer nofollow">{_text(label)}</a>'
    )


_EXCERPT = 160
_NOTES = {
    "unsupported": "No source supports this claim.",
    "not_checked": "Not checked: the service found nothing in it to verify.",
}


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT else flat[: _EXCERPT - 1].rstrip() + "…"


def _source_line(source: NumberedSource) -> str:
    uri = ""
    if source.uri and source.uri != source.label:
        uri = f'<span class="gk-uri">{_text(source.uri)}</span>'
    return _link(source.uri, source.label) + uri


@dataclass
class _Page:
    """The parts of one report, for a check or for an answer (``kind``)."""

    text: AnnotatedText
    kind: str
    title: str
    question: str | None
    score_label: str
    weak_below: float = DEFAULT_WEAK_BELOW
    min_score: float | None = None
    verdict: Verdict | None = None

    def __post_init__(self) -> None:
        # The ids' prefix, derived from the content: stable, and distinct between reports.
        digest = hashlib.sha256(repr((self.title, self.text)).encode("utf-8", "replace"))
        self.prefix = f"gk-{digest.hexdigest()[:10]}"

    def label(self, level: SupportLevel) -> str:
        if self.kind == "answer" and level == "supported":
            return "cited"
        return LEVEL_LABELS[level]

    def count_label(self, level: SupportLevel, count: int) -> str:
        if self.kind == "answer":
            return plural(count, f"{self.label(level)} segment")
        return f"{count} {self.label(level)}"

    def summary(self) -> str:
        score, verdict, state, meter, question = self.text.score, "", "gk-unknown", "", ""
        if self.verdict is not None:
            passed, words = self.verdict
            verdict = f'<span class="gk-verdict">{_text(words)}</span>'
            state = "gk-passed" if passed else "gk-failed"
        if score is not None:
            low = f' low="{self.min_score:.3f}"' if self.min_score is not None else ""
            meter = f'<meter min="0" max="1"{low} optimum="1" value="{score:.3f}"></meter>'
        if self.question:
            question = f'<p class="gk-question">Question: {_text(self.question)}</p>'
        items = [
            f'<li class="gk-count {LEVEL_CLASSES[level]}" data-count="{count}">'
            f'<span class="gk-swatch"></span>{self.count_label(level, count)}</li>'
            for level, count in self.text.counts().items()
            if count or self.kind == "grounding"
        ]
        given = plural(self.text.source_count, "reference" if self.kind == "answer" else "source")
        return (
            f'<header class="gk-summary"><h2>{_text(self.title)}</h2>{question}'
            f'<p class="gk-score {state}"><span>{_text(self.score_label)}</span> '
            f'<strong class="gk-score-value">{format_score(score)}</strong>{meter}{verdict}</p>'
            f'<ul class="gk-counts">{"".join(items)}<li class="gk-count gk-sources-count">'
            f"{given} given, {len(self.text.sources)} cited</li></ul></header>"
        )

    def claim_title(self, segment: Segment) -> str:
        score = [] if segment.score is None else [f"score {segment.score:.2f}"]
        cited = [f"[{n}] {self.text.source(n).label}" for n in segment.numbers]
        return " · ".join([self.label(segment.level), *score, *cited])

    def answer(self) -> str:
        out: list[str] = []
        for piece, segment in self.text.pieces():
            if segment is None:
                out.append(_text(piece))
                continue
            css = LEVEL_CLASSES[segment.level]
            out.append(
                f'<a class="gk-claim {css}" href="#{self.prefix}-c{segment.index}" '
                f'id="{self.prefix}-a{segment.index}" data-claim="{segment.index}" '
                f'data-level="{segment.level}" aria-expanded="false" '
                f'title="{_text(self.claim_title(segment))}">{_text(piece)}</a>'
            )
            out.extend(
                f'<a class="gk-ref" href="#{self.prefix}-s{n}">[{n}]</a>' for n in segment.numbers
            )
        return f'<p class="gk-answer">{"".join(out)}</p>'

    def note(self, segment: Segment) -> str:
        score = segment.score
        if segment.level == "weak" and score is not None:
            return f"Weak support: the claim's score {score:.2f} is below {self.weak_below:.2f}."
        return _NOTES.get(segment.level, "")

    def detail(self, segment: Segment) -> str:
        css = LEVEL_CLASSES[segment.level]
        score = ""
        if segment.score is not None:
            score = f'<span class="gk-detail-score">score {segment.score:.2f}</span>'
        parts = [
            f'<div class="gk-detail-head"><span class="gk-badge">'
            f"{self.label(segment.level)}</span>{score}</div>",
            f'<blockquote class="gk-claim-text">{_text(segment.text)}</blockquote>',
        ]
        if not segment.located:
            parts.append('<p class="gk-note">Not located in the answer (no span).</p>')
        note = self.note(segment)
        if note:
            parts.append(f'<p class="gk-note">{_text(note)}</p>')
        if segment.passages:
            cited = "".join(
                f'<li><span class="gk-num">[{p.number}]</span>'
                f"{_source_line(self.text.source(p.number))}"
                f'<blockquote class="gk-cited-text">{_text(p.text)}</blockquote></li>'
                for p in segment.passages
            )
            parts.append(f'<ol class="gk-cited">{cited}</ol>')
        return (
            f'<li class="gk-detail {css}" id="{self.prefix}-c{segment.index}" '
            f'data-claim="{segment.index}">{"".join(parts)}</li>'
        )

    def sources(self) -> str:
        if not self.text.sources:
            return ""
        items = "".join(
            f'<li id="{self.prefix}-s{s.number}" value="{s.number}">{_source_line(s)}'
            f'<span class="gk-excerpt">{_text(_excerpt(s.text))}</span></li>'
            for s in self.text.sources
        )
        return f'<section class="gk-sources"><h3>Sources</h3><ol>{items}</ol></section>'

    def legend(self) -> str:
        if self.kind == "answer":
            return (
                '<p class="gk-legend">Highlighted: a segment of the answer that cites the '
                "references shown with it.</p>"
            )
        return (
            '<p class="gk-legend">Supported: a source was cited for the claim. Weak: cited, but '
            f"the claim's score is below {self.weak_below:.2f} (only with claim-level scores). "
            "Unsupported: checked, no source supports it. Not checked: nothing to verify.</p>"
        )

    def fragment(self, extra: str = "") -> str:
        what = "claim" if self.kind == "grounding" else "highlighted segment"
        details = "".join(self.detail(s) for s in self.text.segments)
        body = (
            f'<div class="gk-layout"><div class="gk-main">{self.answer()}{extra}'
            f'<p class="gk-hint">Hover over or click a {what} to see its sources.</p></div>'
            f'<aside class="gk-panel"><h3>Cited sources</h3>'
            f'<p class="gk-placeholder">Hover over or click a {what} in the answer.</p>'
            f'<ol class="gk-details">{details}</ol></aside></div>'
        )
        return (
            f'<div class="gk-report" id="{self.prefix}" data-kind="{self.kind}">'
            f"{self.summary()}{body}{self.sources()}{self.legend()}</div>"
        )


def _wrap(title: str, fragment: str, *, full_document: bool) -> str:
    if not full_document:
        return f"<style>{_CSS}</style>{fragment}<script>{_JS}</script>"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_text(title)}</title><style>{_CSS}</style></head>\n"
        f"<body>{fragment}<script>{_JS}</script></body></html>\n"
    )


def grounding_html(
    result: GroundingResult,
    sources: Sequence[GroundingSource] = (),
    *,
    title: str = "Grounding report",
    question: str | None = None,
    weak_below: float = DEFAULT_WEAK_BELOW,
    min_support_score: float | None = None,
    full_document: bool = True,
) -> str:
    """The HTML report of a grounding check (sources named as ``annotate_grounding`` says).

    ``min_support_score`` adds a passed/failed verdict; ``full_document=False`` gives a fragment
    (style, report, script) to embed in a page or a notebook, without the CSP.

    >>> from grounding_core import GroundingResult
    >>> "gk-report" in grounding_html(GroundingResult("Hello.", None), full_document=False)
    True
    """
    text = annotate_grounding(result, sources, weak_below=weak_below)
    verdict = shown_verdict(result, min_support_score)
    page = _Page(
        text, "grounding", title, question, "Support score", weak_below, min_support_score, verdict
    )
    return _wrap(title, page.fragment(), full_document=full_document)


def answer_html(
    answer: GroundedAnswer,
    *,
    title: str = "Grounded answer",
    question: str | None = None,
    full_document: bool = True,
) -> str:
    """The HTML report of an ``answerQuery`` answer: cited segments and their references.

    >>> from grounding_core import GroundedAnswer
    >>> "no answer" in answer_html(GroundedAnswer("", skipped_reasons=("NO_RELEVANT_CONTENT",)))
    True
    """
    page = _Page(annotate_answer(answer), "answer", title, question, "Grounding score")
    extra = ""
    if answer.skipped:
        reasons = ", ".join(answer.skipped_reasons)
        extra += f'<p class="gk-error">The service gave no answer ({_text(reasons)}).</p>'
    if answer.related_questions:
        items = "".join(f"<li>{_text(q)}</li>" for q in answer.related_questions)
        extra += f'<h3>Related questions</h3><ul class="gk-related">{items}</ul>'
    return _wrap(title, page.fragment(extra), full_document=full_document)


def check_failed_html(
    error: str, *, title: str = "Grounding report", full_document: bool = True
) -> str:
    """The report of a check that failed (the service could not be reached, ...)."""
    fragment = (
        f'<div class="gk-report" data-kind="grounding"><header class="gk-summary">'
        f"<h2>{_text(title)}</h2></header>"
        f'<p class="gk-error">The grounding check failed: {_text(error)}</p></div>'
    )
    return _wrap(title, fragment, full_document=full_document)
