"""A grounding check (or a grounded answer) as a self-contained, safe HTML report.

The report shows a support-score summary, then the answer with every claim highlighted by its
support level (``gk-supported``, ``gk-weak``, ``gk-unsupported``, ``gk-not-checked``; see
``annotate`` for what "weak" means), and for each claim its cited sources: title, link and the
cited text. Hovering over a claim (or focusing it) shows its sources beside the answer; a click
pins them; Escape clears. Without JavaScript (a notebook that strips scripts) every claim's
sources are listed below the answer and each claim links to its entry.

Safe with any answer and source text:

- every piece of text is HTML-escaped after ``untrusted.printable`` (control characters made
  visible, lone surrogates and bidi overrides replaced), and ids, classes and ``data-``
  values are generated here, never taken from content;
- only ``http``/``https`` URIs become links (``untrusted.safe_href``: spaces, quotes and
  controls in the target percent-encoded; ``rel="noopener noreferrer nofollow"``); any other
  URI (``javascript:``, ``data:``, ``file:``, ``gs://``...) is shown as text;
- the CSS and JavaScript are static constants of this module; a full document carries a
  Content-Security-Policy that allows exactly them (by hash) and nothing else: no other script,
  style, image, font, frame, form or base URI.

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
from importlib import resources
from typing import TYPE_CHECKING

from .annotate import (
    DEFAULT_WEAK_BELOW,
    AnnotatedText,
    NumberedSource,
    Segment,
    SupportLevel,
    Verdict,
    annotate_answer,
    annotate_grounding,
    format_score,
    shown_verdict,
)
from .untrusted import printable, safe_href

if TYPE_CHECKING:
    from grounding_core._records import GroundedAnswer, GroundingResult, GroundingSource

LEVEL_CLASSES: dict[SupportLevel, str] = {
    "supported": "gk-supported",
    "weak": "gk-weak",
    "unsupported": "gk-unsupported",
    "not_checked": "gk-not-checked",
}

_LABELS: dict[SupportLevel, str] = {
    "supported": "supported",
    "weak": "weak",
    "unsupported": "unsupported",
    "not_checked": "not checked",
}

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


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT else flat[: _EXCERPT - 1].rstrip() + "…"


def _source_line(source: NumberedSource) -> str:
    uri = ""
    if source.uri and source.uri != source.label:
        uri = f'<span class="gk-uri">{_text(source.uri)}</span>'
    return _link(source.uri, source.label) + uri


def _prefix(text: AnnotatedText, title: str) -> str:
    """An id prefix derived from the content: stable, and distinct between reports."""
    digest = hashlib.sha256(repr((title, text)).encode("utf-8", "replace")).hexdigest()
    return f"gk-{digest[:10]}"


class _Page:
    """The parts of one report, for a check or for an answer (``kind``)."""

    def __init__(
        self,
        text: AnnotatedText,
        *,
        kind: str,
        title: str,
        question: str | None,
        weak_below: float,
        min_score: float | None,
        score_label: str,
        verdict: Verdict | None = None,
    ) -> None:
        self.text = text
        self.kind = kind
        self.title = title
        self.question = question
        self.weak_below = weak_below
        self.min_score = min_score
        self.score_label = score_label
        self.verdict = verdict
        self.prefix = _prefix(text, title)

    def label(self, level: SupportLevel) -> str:
        if self.kind == "answer":
            return "cited" if level == "supported" else _LABELS[level]
        return _LABELS[level]

    def count_label(self, level: SupportLevel, count: int) -> str:
        if self.kind == "answer":
            return _plural(count, f"{self.label(level)} segment")
        return f"{count} {self.label(level)}"

    def summary(self) -> str:
        score = self.text.score
        verdict, state = "", "gk-unknown"
        if self.verdict is not None:
            passed, verdict = self.verdict
            state = "gk-passed" if passed else "gk-failed"
        meter = ""
        if score is not None:
            low = f' low="{self.min_score:.3f}"' if self.min_score is not None else ""
            meter = f'<meter min="0" max="1"{low} optimum="1" value="{score:.3f}"></meter>'
        parts = [f"<h2>{_text(self.title)}</h2>"]
        if self.question:
            parts.append(f'<p class="gk-question">Question: {_text(self.question)}</p>')
        parts.append(
            f'<p class="gk-score {state}"><span>{_text(self.score_label)}</span> '
            f'<strong class="gk-score-value">{format_score(score)}</strong>{meter}'
            + (f'<span class="gk-verdict">{_text(verdict)}</span>' if verdict else "")
            + "</p>"
        )
        counts = self.text.counts()
        items = [
            f'<li class="gk-count {LEVEL_CLASSES[level]}" data-count="{count}">'
            f'<span class="gk-swatch"></span>{self.count_label(level, count)}</li>'
            for level, count in counts.items()
            if count or self.kind == "grounding"
        ]
        given = _plural(self.text.source_count, "reference" if self.kind == "answer" else "source")
        items.append(
            f'<li class="gk-count gk-sources-count">{given} given, '
            f"{len(self.text.sources)} cited</li>"
        )
        parts.append(f'<ul class="gk-counts">{"".join(items)}</ul>')
        return f'<header class="gk-summary">{"".join(parts)}</header>'

    def claim_title(self, segment: Segment) -> str:
        words = [self.label(segment.level)]
        if segment.score is not None:
            words.append(f"score {segment.score:.2f}")
        for number in segment.numbers:
            words.append(f"[{number}] {self.text.source(number).label}")
        return " · ".join(words)

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
        if segment.level == "unsupported":
            return "No source supports this claim."
        if segment.level == "not_checked":
            return "Not checked: the service found nothing in it to verify."
        if segment.level == "weak" and segment.score is not None:
            return (
                f"Weak support: the claim's score {segment.score:.2f} is below "
                f"{self.weak_below:.2f}."
            )
        return ""

    def detail(self, segment: Segment) -> str:
        css = LEVEL_CLASSES[segment.level]
        score = (
            f'<span class="gk-detail-score">score {segment.score:.2f}</span>'
            if segment.score is not None
            else ""
        )
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
    """The HTML report of a grounding check (see the module docstring).

    ``sources`` are the sources given to the check (their ``title`` and ``source``/``uri``
    metadata name the cited sources). ``min_support_score`` adds a passed/failed verdict;
    ``weak_below`` is the claim score under which a supported claim shows as weak.
    ``full_document=False`` gives a fragment (style, report, script) to embed in a page or a
    notebook; the full document adds the Content-Security-Policy.

    >>> from grounding_core import GroundingResult
    >>> "gk-report" in grounding_html(GroundingResult("Hello.", None), full_document=False)
    True
    """
    text = annotate_grounding(result, sources, weak_below=weak_below)
    page = _Page(
        text,
        kind="grounding",
        title=title,
        question=question,
        weak_below=weak_below,
        min_score=min_support_score,
        score_label="Support score",
        verdict=shown_verdict(result, min_support_score),
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
    text = annotate_answer(answer)
    page = _Page(
        text,
        kind="answer",
        title=title,
        question=question,
        weak_below=DEFAULT_WEAK_BELOW,
        min_score=None,
        score_label="Grounding score",
    )
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
