"""``grounding_core.views.html``: a checked or a grounded answer as a self-contained, safe HTML
report.

Covers ``grounding_html``, ``answer_html`` and ``check_failed_html`` exactly as written
(every element, attribute, text, default, count and plural, as a full document and as a
fragment), the Content-Security-Policy (exactly the report's own script and style, by hash),
the ids (stable, distinct between reports), source excerpts cut at 160 characters, claims
without a usable span listed but not marked, and hostile answers, titles and URIs: only the
report's own elements, attributes, script and style, links only to safe URIs.
"""

from __future__ import annotations

import base64
import hashlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_core import (
    AnswerCitation,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingReport,
    GroundingResult,
    GroundingSource,
    SourceChunk,
    answer_html,
    grounding_html,
    grounding_markdown,
)
from grounding_core.views.html import (
    CONTENT_SECURITY_POLICY,
    _sha256,
    check_failed_html,
)
from grounding_core.views.untrusted import printable, safe_href
from tests.core.claims import claim_at
from tests.core.hostile_text import ANSWERS, TITLES, URIS, hostile_reports, hostile_sources
from tests.core.reports import (
    PWNED,
    Elements,
    grounded_answer,
    hostile_report,
    levels_report,
    levels_result,
)
from tests.core.reports import (
    SOURCES as REPORT_SOURCES,
)

ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "script", "div", "header", "h2", "h3",
    "p", "span", "strong", "meter", "ul", "ol", "li", "a", "aside", "blockquote", "section",
}  # fmt: skip
# The attributes the report writes (an "on..." handler, "src", "style" or "srcdoc" never).
ALLOWED_ATTRIBUTES = {
    "aria-expanded", "charset", "class", "content", "data-claim", "data-count", "data-kind",
    "data-level", "high", "href", "http-equiv", "id", "lang", "low", "max", "min", "name",
    "optimum", "rel", "target", "title", "value",
}  # fmt: skip

STYLE = re.compile(r"<style>(.*?)</style>", re.DOTALL)
SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)
PREFIX = re.compile(r'class="gk-report" id="(gk-[0-9a-f]+)"')


def csp_hash(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def normalized(page: str) -> str:
    """``page`` with the stylesheet, the script, the id prefix and the CSP as placeholders."""
    (style,) = STYLE.findall(page)
    (script,) = SCRIPT.findall(page)
    assert f"style-src {csp_hash(style)};" in CONTENT_SECURITY_POLICY
    assert f"script-src {csp_hash(script)};" in CONTENT_SECURITY_POLICY
    page = SCRIPT.sub("<script></script>", STYLE.sub("<style></style>", page))
    prefix = PREFIX.search(page)
    if prefix:
        assert re.fullmatch(r"gk-[0-9a-f]{10}", prefix.group(1))
        page = page.replace(prefix.group(1), "{p}")
    return page.replace(CONTENT_SECURITY_POLICY, "{csp}")


def document(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style></style></head>\n<body>{body}"
        "<script></script></body></html>\n"
    )


def fragment(body: str) -> str:
    return f"<style></style>{body}<script></script>"


ANSWER = "Paris is big. Lyon is old. Nice has 9 M people. Hi! Nowhere."
CHECK_SOURCES = [
    GroundingSource("Paris text " * 20, {"title": "Paris", "source": "https://p.example/a"}),
    GroundingSource("Lyon text", {"uri": "gs://bucket/lyon"}),
    GroundingSource("x", {}),
]


def claim(text: str, *sources: int, **kwargs: object) -> Claim:
    cited = (CitedChunk(CHECK_SOURCES[i].text[:10], source_index=i, fact_index=i) for i in sources)
    return claim_at(ANSWER, text, *cited, **kwargs)


RESULT = GroundingResult(
    ANSWER,
    0.5,
    (
        claim("Paris is big.", 0, score=0.9),
        claim("Lyon is old.", 1, 2, score=0.7),
        claim("Nice has 9 M people.", score=0.1),
        claim("Hi!", grounding_check_required=False),
        Claim("Elsewhere."),  # no span: listed, not marked
    ),
)


def test_a_check_with_every_level_and_every_kind_of_source():
    page = grounding_html(
        RESULT,
        CHECK_SOURCES,
        title='Check <1> & "2"',
        question="Where\x07?",
        min_support_score=0.5,
        weak_below=0.75,
    )
    assert normalized(page) == document(
        "Check &lt;1&gt; &amp; &quot;2&quot;",
        (
            '<div class="gk-report" id="{p}" data-kind="grounding">'
            '<header class="gk-summary">'
            "<h2>Check &lt;1&gt; &amp; &quot;2&quot;</h2>"
            '<p class="gk-question">Question: Where\u2407?</p>'  # BEL shown as ␇
            '<p class="gk-score gk-passed">'
            '<span>Support score</span> <strong class="gk-score-value">0.50</strong>'
            '<meter min="0" max="1" low="0.500" optimum="1" value="0.500"></meter>'
            '<span class="gk-verdict">passed (minimum 0.50)</span>'
            "</p>"
            '<ul class="gk-counts">'
            '<li class="gk-count gk-supported" data-count="1">'
            '<span class="gk-swatch"></span>1 supported</li>'
            '<li class="gk-count gk-weak" data-count="1">'
            '<span class="gk-swatch"></span>1 weak</li>'
            '<li class="gk-count gk-unsupported" data-count="2">'
            '<span class="gk-swatch"></span>2 unsupported</li>'
            '<li class="gk-count gk-not-checked" data-count="1">'
            '<span class="gk-swatch"></span>1 not checked</li>'
            '<li class="gk-count gk-sources-count">3 sources given, 3 cited</li>'
            "</ul>"
            "</header>"
            '<div class="gk-layout">'
            '<div class="gk-main">'
            '<p class="gk-answer">'
            '<a class="gk-claim gk-supported" href="#{p}-c0" id="{p}-a0" data-claim="0" '
            'data-level="supported" aria-expanded="false" title="supported · score 0.90 · [1] '
            'Paris">Paris is big.</a>'
            '<a class="gk-ref" href="#{p}-s1">[1]</a> <a class="gk-claim gk-weak" href="#{p}-c1" '
            'id="{p}-a1" data-claim="1" data-level="weak" aria-expanded="false" title="weak '
            "· score "
            '0.70 · [2] gs://bucket/lyon · [3] Source 3">Lyon is old.</a>'
            '<a class="gk-ref" href="#{p}-s2">[2]</a>'
            '<a class="gk-ref" href="#{p}-s3">[3]</a> <a class="gk-claim gk-unsupported" '
            'href="#{p}-c2" id="{p}-a2" data-claim="2" data-level="unsupported" '
            'aria-expanded="false" title="unsupported · score 0.10">Nice has 9 M people.</a> <a '
            'class="gk-claim gk-not-checked" href="#{p}-c3" id="{p}-a3" data-claim="3" '
            'data-level="not_checked" aria-expanded="false" title="not checked">Hi!</a> '
            "Nowhere.</p>"
            '<p class="gk-hint">Hover over or click a claim to see its sources.</p>'
            "</div>"
            '<aside class="gk-panel">'
            "<h3>Cited sources</h3>"
            '<p class="gk-placeholder">Hover over or click a claim in the answer.</p>'
            '<ol class="gk-details">'
            '<li class="gk-detail gk-supported" id="{p}-c0" data-claim="0">'
            '<div class="gk-detail-head">'
            '<span class="gk-badge">supported</span>'
            '<span class="gk-detail-score">score 0.90</span>'
            "</div>"
            '<blockquote class="gk-claim-text">Paris is big.</blockquote>'
            '<ol class="gk-cited">'
            "<li>"
            '<span class="gk-num">[1]</span>'
            '<a class="gk-link" href="https://p.example/a" target="_blank" rel="noopener '
            "noreferrer "
            'nofollow">Paris</a>'
            '<span class="gk-uri">https://p.example/a</span>'
            '<blockquote class="gk-cited-text">Paris text</blockquote>'
            "</li>"
            "</ol>"
            "</li>"
            '<li class="gk-detail gk-weak" id="{p}-c1" data-claim="1">'
            '<div class="gk-detail-head">'
            '<span class="gk-badge">weak</span>'
            '<span class="gk-detail-score">score 0.70</span>'
            "</div>"
            '<blockquote class="gk-claim-text">Lyon is old.</blockquote>'
            '<p class="gk-note">Weak support: the claim&#x27;s score 0.70 is below 0.75.</p>'
            '<ol class="gk-cited">'
            "<li>"
            '<span class="gk-num">[2]</span>'
            '<span class="gk-link-text">gs://bucket/lyon</span>'
            '<blockquote class="gk-cited-text">Lyon text</blockquote>'
            "</li>"
            "<li>"
            '<span class="gk-num">[3]</span>'
            '<span class="gk-link-text">Source 3</span>'
            '<blockquote class="gk-cited-text">x</blockquote>'
            "</li>"
            "</ol>"
            "</li>"
            '<li class="gk-detail gk-unsupported" id="{p}-c2" data-claim="2">'
            '<div class="gk-detail-head">'
            '<span class="gk-badge">unsupported</span>'
            '<span class="gk-detail-score">score 0.10</span>'
            "</div>"
            '<blockquote class="gk-claim-text">Nice has 9 M people.</blockquote>'
            '<p class="gk-note">No source supports this claim.</p>'
            "</li>"
            '<li class="gk-detail gk-not-checked" id="{p}-c3" data-claim="3">'
            '<div class="gk-detail-head">'
            '<span class="gk-badge">not checked</span>'
            "</div>"
            '<blockquote class="gk-claim-text">Hi!</blockquote>'
            '<p class="gk-note">Not checked: the service found nothing in it to verify.</p>'
            "</li>"
            '<li class="gk-detail gk-unsupported" id="{p}-c4" data-claim="4">'
            '<div class="gk-detail-head">'
            '<span class="gk-badge">unsupported</span>'
            "</div>"
            '<blockquote class="gk-claim-text">Elsewhere.</blockquote>'
            '<p class="gk-note">Not located in the answer (no span).</p>'
            '<p class="gk-note">No source supports this claim.</p>'
            "</li>"
            "</ol>"
            "</aside>"
            "</div>"
            '<section class="gk-sources">'
            "<h3>Sources</h3>"
            "<ol>"
            '<li id="{p}-s1" value="1">'
            '<a class="gk-link" href="https://p.example/a" target="_blank" rel="noopener '
            "noreferrer "
            'nofollow">Paris</a>'
            '<span class="gk-uri">https://p.example/a</span>'
            '<span class="gk-excerpt">Paris text Paris text Paris text Paris text Paris text Paris '
            "text Paris text Paris text Paris text Paris text Paris text Paris text Paris "
            "text Paris "
            "text Paris…</span>"
            "</li>"
            '<li id="{p}-s2" value="2">'
            '<span class="gk-link-text">gs://bucket/lyon</span>'
            '<span class="gk-excerpt">Lyon text</span>'
            "</li>"
            '<li id="{p}-s3" value="3">'
            '<span class="gk-link-text">Source 3</span>'
            '<span class="gk-excerpt">x</span>'
            "</li>"
            "</ol>"
            "</section>"
            '<p class="gk-legend">Supported: a source was cited for the claim. Weak: cited, '
            "but the "
            "claim's score is below 0.75 (only with claim-level scores). Unsupported: checked, no "
            "source supports it. Not checked: nothing to verify.</p>"
            "</div>"
        ),
    )


def test_a_fragment_with_the_defaults_no_minimum_and_a_lone_surrogate():
    result = GroundingResult("Hi \ud800.", 0.25, (Claim("Hi \ud800.", 0, 5, score=0.2),))
    assert normalized(grounding_html(result, full_document=False)) == fragment(
        '<div class="gk-report" id="{p}" data-kind="grounding">'
        '<header class="gk-summary">'
        "<h2>Grounding report</h2>"
        '<p class="gk-score gk-unknown">'
        '<span>Support score</span> <strong class="gk-score-value">0.25</strong>'
        '<meter min="0" max="1" optimum="1" value="0.250"></meter>'
        "</p>"
        '<ul class="gk-counts">'
        '<li class="gk-count gk-supported" data-count="0">'
        '<span class="gk-swatch"></span>0 supported</li>'
        '<li class="gk-count gk-weak" data-count="0">'
        '<span class="gk-swatch"></span>0 weak</li>'
        '<li class="gk-count gk-unsupported" data-count="1">'
        '<span class="gk-swatch"></span>1 unsupported</li>'
        '<li class="gk-count gk-not-checked" data-count="0">'
        '<span class="gk-swatch"></span>0 not checked</li>'
        '<li class="gk-count gk-sources-count">0 sources given, 0 cited</li>'
        "</ul>"
        "</header>"
        '<div class="gk-layout">'
        '<div class="gk-main">'
        '<p class="gk-answer">'
        '<a class="gk-claim gk-unsupported" href="#{p}-c0" id="{p}-a0" data-claim="0" '
        'data-level="unsupported" aria-expanded="false" title="unsupported · score '
        '0.20">Hi \ufffd.</a>'
        "</p>"
        '<p class="gk-hint">Hover over or click a claim to see its sources.</p>'
        "</div>"
        '<aside class="gk-panel">'
        "<h3>Cited sources</h3>"
        '<p class="gk-placeholder">Hover over or click a claim in the answer.</p>'
        '<ol class="gk-details">'
        '<li class="gk-detail gk-unsupported" id="{p}-c0" data-claim="0">'
        '<div class="gk-detail-head">'
        '<span class="gk-badge">unsupported</span>'
        '<span class="gk-detail-score">score 0.20</span>'
        "</div>"
        '<blockquote class="gk-claim-text">Hi \ufffd.</blockquote>'
        '<p class="gk-note">No source supports this claim.</p>'
        "</li>"
        "</ol>"
        "</aside>"
        "</div>"
        '<p class="gk-legend">Supported: a source was cited for the claim. Weak: cited, '
        "but the "
        "claim's score is below 0.80 (only with claim-level scores). Unsupported: checked, no "
        "source supports it. Not checked: nothing to verify.</p>"
        "</div>"
    )


def test_a_failed_minimum_and_one_source_given():
    result = GroundingResult("Hi.", 0.25)
    page = normalized(
        grounding_html(result, [GroundingSource("s")], min_support_score=0.5, full_document=False)
    )
    header = page[page.index("<header") : page.index("</header>") + len("</header>")]
    assert header == (
        '<header class="gk-summary">'
        "<h2>Grounding report</h2>"
        '<p class="gk-score gk-failed">'
        '<span>Support score</span> <strong class="gk-score-value">0.25</strong>'
        '<meter min="0" max="1" low="0.500" optimum="1" value="0.250"></meter>'
        '<span class="gk-verdict">below the minimum 0.50</span>'
        "</p>"
        '<ul class="gk-counts">'
        '<li class="gk-count gk-supported" data-count="0">'
        '<span class="gk-swatch"></span>0 supported</li>'
        '<li class="gk-count gk-weak" data-count="0">'
        '<span class="gk-swatch"></span>0 weak</li>'
        '<li class="gk-count gk-unsupported" data-count="0">'
        '<span class="gk-swatch"></span>0 unsupported</li>'
        '<li class="gk-count gk-not-checked" data-count="0">'
        '<span class="gk-swatch"></span>0 not checked</li>'
        '<li class="gk-count gk-sources-count">1 source given, 0 cited</li>'
        "</ul>"
        "</header>"
    )


def test_a_grounded_answer_with_skipped_reasons_and_related_questions():
    references = (
        SourceChunk(
            name="r0", content="Paris is the capital.", title="Paris", uri="https://p.example/a"
        ),
        SourceChunk(name="r1", content="Unused", uri="gs://b/u"),
    )
    answer = GroundedAnswer(
        "Paris is big. Lyon is old.",
        (
            AnswerCitation(0, 13, 0, 13, "Paris is big.", (0,), (references[0],)),
            AnswerCitation(14, 26, 14, 26, "Lyon is old.", (), ()),
        ),
        references,
        grounding_score=0.75,
        skipped_reasons=("OUT_OF_DOMAIN", "LOW_CONFIDENCE"),
        related_questions=("Why <Lyon>?", "And Nice?"),
    )
    assert normalized(answer_html(answer, question="Paris?")) == document(
        "Grounded answer",
        (
            '<div class="gk-report" id="{p}" data-kind="answer">'
            '<header class="gk-summary">'
            "<h2>Grounded answer</h2>"
            '<p class="gk-question">Question: Paris?</p>'
            '<p class="gk-score gk-unknown">'
            '<span>Grounding score</span> <strong class="gk-score-value">0.75</strong>'
            '<meter min="0" max="1" optimum="1" value="0.750"></meter>'
            "</p>"
            '<ul class="gk-counts">'
            '<li class="gk-count gk-supported" data-count="1">'
            '<span class="gk-swatch"></span>1 cited segment</li>'
            '<li class="gk-count gk-not-checked" data-count="1">'
            '<span class="gk-swatch"></span>1 not checked segment</li>'
            '<li class="gk-count gk-sources-count">2 references given, 1 cited</li>'
            "</ul>"
            "</header>"
            '<div class="gk-layout">'
            '<div class="gk-main">'
            '<p class="gk-answer">'
            '<a class="gk-claim gk-supported" href="#{p}-c0" id="{p}-a0" data-claim="0" '
            'data-level="supported" aria-expanded="false" title="cited · [1] Paris">Paris '
            "is big.</a>"
            '<a class="gk-ref" href="#{p}-s1">[1]</a> <a class="gk-claim gk-not-checked" '
            'href="#{p}-c1" id="{p}-a1" data-claim="1" data-level="not_checked" '
            'aria-expanded="false" title="not checked">Lyon is old.</a>'
            "</p>"
            '<p class="gk-error">The service gave no answer (OUT_OF_DOMAIN, LOW_CONFIDENCE).</p>'
            "<h3>Related questions</h3>"
            '<ul class="gk-related">'
            "<li>Why &lt;Lyon&gt;?</li>"
            "<li>And Nice?</li>"
            "</ul>"
            '<p class="gk-hint">Hover over or click a highlighted segment to see its sources.</p>'
            "</div>"
            '<aside class="gk-panel">'
            "<h3>Cited sources</h3>"
            '<p class="gk-placeholder">Hover over or click a highlighted segment in the answer.</p>'
            '<ol class="gk-details">'
            '<li class="gk-detail gk-supported" id="{p}-c0" data-claim="0">'
            '<div class="gk-detail-head">'
            '<span class="gk-badge">cited</span>'
            "</div>"
            '<blockquote class="gk-claim-text">Paris is big.</blockquote>'
            '<ol class="gk-cited">'
            "<li>"
            '<span class="gk-num">[1]</span>'
            '<a class="gk-link" href="https://p.example/a" target="_blank" rel="noopener '
            "noreferrer "
            'nofollow">Paris</a>'
            '<span class="gk-uri">https://p.example/a</span>'
            '<blockquote class="gk-cited-text">Paris is the capital.</blockquote>'
            "</li>"
            "</ol>"
            "</li>"
            '<li class="gk-detail gk-not-checked" id="{p}-c1" data-claim="1">'
            '<div class="gk-detail-head">'
            '<span class="gk-badge">not checked</span>'
            "</div>"
            '<blockquote class="gk-claim-text">Lyon is old.</blockquote>'
            '<p class="gk-note">Not checked: the service found nothing in it to verify.</p>'
            "</li>"
            "</ol>"
            "</aside>"
            "</div>"
            '<section class="gk-sources">'
            "<h3>Sources</h3>"
            "<ol>"
            '<li id="{p}-s1" value="1">'
            '<a class="gk-link" href="https://p.example/a" target="_blank" rel="noopener '
            "noreferrer "
            'nofollow">Paris</a>'
            '<span class="gk-uri">https://p.example/a</span>'
            '<span class="gk-excerpt">Paris is the capital.</span>'
            "</li>"
            "</ol>"
            "</section>"
            '<p class="gk-legend">Highlighted: a segment of the answer that cites the references '
            "shown with it.</p>"
            "</div>"
        ),
    )


def test_a_failed_check_as_a_document_and_as_a_fragment():
    assert normalized(check_failed_html("ServiceError: <down>")) == document(
        "Grounding report",
        (
            '<div class="gk-report" data-kind="grounding">'
            '<header class="gk-summary">'
            "<h2>Grounding report</h2>"
            "</header>"
            '<p class="gk-error">The grounding check failed: ServiceError: &lt;down&gt;</p>'
            "</div>"
        ),
    )
    assert normalized(check_failed_html("x", title="T", full_document=False)) == fragment(
        '<div class="gk-report" data-kind="grounding">'
        '<header class="gk-summary">'
        "<h2>T</h2>"
        "</header>"
        '<p class="gk-error">The grounding check failed: x</p>'
        "</div>"
    )


def test_every_report_is_a_full_document_by_default():
    for page in (
        grounding_html(GroundingResult("a", None)),
        answer_html(GroundedAnswer("a")),
        check_failed_html("e"),
    ):
        assert page.startswith("<!DOCTYPE html>\n")
        assert page.endswith("</html>\n")


def test_the_id_prefix_depends_on_the_title_too():
    first, second = (grounding_html(RESULT, title=t) for t in ("A", "B"))
    assert PREFIX.search(first).group(1) != PREFIX.search(second).group(1)
    assert PREFIX.search(first).group(1) == PREFIX.search(grounding_html(RESULT, title="A")).group(
        1
    )


def excerpt_of(text: str) -> str:
    cited = CitedChunk(text, source_index=0, fact_index=0)
    result = GroundingResult(
        "a", 1.0, (Claim("a", 0, 1, citation_indices=(0,), citations=(cited,)),)
    )
    page = grounding_html(result, [GroundingSource(text)], full_document=False)
    (excerpt,) = re.findall(r'<span class="gk-excerpt">(.*?)</span>', page)
    return excerpt


@pytest.mark.parametrize(
    ("text", "excerpt"),
    [
        ("a" * 160, "a" * 160),
        ("a" * 161, "a" * 159 + "…"),
        ("a" * 158 + " " + "b" * 10, "a" * 158 + "…"),
        ("one\n\n two\tthree", "one two three"),
    ],
    ids=["160", "161", "cut-at-a-space", "whitespace"],
)
def test_source_excerpts_are_cut_at_160_characters(text, excerpt):
    assert excerpt_of(text) == excerpt


def test_the_csp_hash_is_the_base64_sha256_of_the_utf8_text():
    # The unit under test: the CSP is built with it once, at import (mutation testing needs it
    # run by a test). Known values (FIPS 180-2 "abc"; "é" encoded as UTF-8).
    assert _sha256("abc") == "'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='"
    assert _sha256("é") == "'sha256-SplVfkAzw1Od4utlRyAXytX5VX96BiWgnxw/biumnEw='"


def test_no_score_shows_n_a_and_no_meter():
    page = normalized(grounding_html(GroundingResult("Hi.", None), full_document=False))
    assert (
        '<p class="gk-score gk-unknown"><span>Support score</span> '
        '<strong class="gk-score-value">n/a</strong></p>'
    ) in page
    assert "<meter" not in page


# -- structure, levels, policy ----------------------------------------------------------------


def claims_of(page: Elements) -> list[dict[str, str | None]]:
    return page.with_class("gk-claim")


def test_claims_are_highlighted_by_support_level():
    page = Elements(levels_report().html())
    claims = claims_of(page)
    assert [c["class"] for c in claims] == [
        "gk-claim gk-supported",
        "gk-claim gk-weak",
        "gk-claim gk-unsupported",
        "gk-claim gk-not-checked",
    ]
    assert [c["data-level"] for c in claims] == ["supported", "weak", "unsupported", "not_checked"]
    assert [c["data-claim"] for c in claims] == ["0", "1", "2", "3"]
    # Each claim links to its entry in the list of details (which works without JavaScript).
    details = page.with_class("gk-detail")
    assert [d["id"] for d in details] == [c["href"].lstrip("#") for c in claims]
    assert claims[1]["title"] == "weak · score 0.70 · [2] Eiffel Tower"


def test_the_summary_counts_and_judges():
    page = Elements(levels_report().html())
    counts = {
        a["class"].split()[1]: int(a["data-count"])
        for a in page.with_class("gk-count")
        if "data-count" in a
    }
    assert counts == {"gk-supported": 1, "gk-weak": 1, "gk-unsupported": 1, "gk-not-checked": 1}
    assert page.tags("meter") == [
        {"min": "0", "max": "1", "low": "0.600", "optimum": "1", "value": "0.667"}
    ]
    assert page.with_class("gk-score")[0]["class"] == "gk-score gk-passed"
    text = "".join(page.text)
    assert "passed (minimum 0.60)" in text
    assert "2 sources given, 2 cited" in text


def test_the_weak_threshold_is_a_parameter():
    strict = Elements(grounding_html(levels_result(), REPORT_SOURCES, weak_below=0.99))
    assert [c["data-level"] for c in claims_of(strict)][:2] == ["weak", "weak"]
    lenient = Elements(grounding_html(levels_result(), REPORT_SOURCES, weak_below=0.5))
    assert [c["data-level"] for c in claims_of(lenient)][:2] == ["supported", "supported"]


def test_details_carry_the_cited_sources():
    page = levels_report().html()
    detail = page[page.index('id="gk-') : page.index("</li>", page.index("gk-detail gk-weak"))]
    weak = detail[detail.index("gk-detail gk-weak") :]
    assert "Eiffel Tower</a>" in weak
    assert 'href="https://en.wikipedia.org/wiki/Eiffel_Tower"' in weak
    assert "The Eiffel Tower was completed in 1889 for the World&#x27;s Fair." in weak
    assert "the claim&#x27;s score 0.70 is below 0.80" in weak
    assert "No source supports this claim." in page


def test_source_numbers_match_the_markdown():
    result = levels_result()
    markdown = grounding_markdown(result, REPORT_SOURCES)
    page = Elements(grounding_html(result, REPORT_SOURCES))
    refs = [a["href"][-2:] for a in page.with_class("gk-ref")]
    assert refs == ["s1", "s2"]
    assert "France.[1]" in markdown
    assert "1889.[2]" in markdown


def test_hostile_content_is_inert_text():
    report = hostile_report()
    page = report.html()
    parsed = Elements(page)
    assert {tag for tag, _ in parsed.elements} <= ALLOWED_TAGS
    assert parsed.tags("img") == []
    assert parsed.tags("iframe") == []
    # Exactly our own script and style, nothing from the content.
    assert len(parsed.raw["script"]) == len(parsed.raw["style"]) == 1
    assert PWNED not in parsed.raw["script"][0]
    for _, attrs in parsed.elements:
        assert not [name for name in attrs if name.startswith("on")]
        href = attrs.get("href")
        if href is not None:
            assert href.startswith(("#gk-", "https://", "http://")), href
    # The hostile text is there, as text.
    text = "".join(parsed.text)
    assert f"Safe <script>{PWNED}</script> claim." in text
    assert f'"><script>{PWNED}</script>' in text
    assert f"javascript:{PWNED}" in text
    # No link for a javascript: or data: URI; a quote in an http URI is percent-encoded.
    links = [a["href"] for a in parsed.with_class("gk-link")]
    assert links == ["https://example.org/%22onmouseover=%22alert%281%29"] * 2


def test_content_security_policy_allows_exactly_the_inline_script_and_style():
    page = levels_report().html()
    parsed = Elements(page)
    (meta,) = [m for m in parsed.tags("meta") if m.get("http-equiv") == "Content-Security-Policy"]
    assert meta["content"] == CONTENT_SECURITY_POLICY
    policy = dict([*part.split(" ", 1), ""][:2] for part in CONTENT_SECURITY_POLICY.split("; "))
    assert policy["default-src"] == "'none'"
    for tag, directive in (("script", "script-src"), ("style", "style-src")):
        digest = hashlib.sha256(parsed.raw[tag][0].encode()).digest()
        assert policy[directive] == f"'sha256-{base64.b64encode(digest).decode()}'"
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY


def test_a_fragment_for_notebooks_has_no_document_and_no_policy():
    report = levels_report()
    fragment = report._repr_html_()
    assert fragment.startswith("<style>")
    assert fragment.endswith("</script>")
    assert "<html" not in fragment
    assert "Content-Security-Policy" not in fragment  # a meta CSP only works in a <head>
    assert 'class="gk-claim gk-weak"' in fragment
    assert levels_result()._repr_html_().count('class="gk-claim ') == 4


def test_ids_are_stable_and_distinct_between_reports():
    first, again = levels_report().html(), levels_report().html()
    assert first == again
    other = hostile_report().html()
    prefix = re.search(r'id="(gk-[0-9a-f]+)"', first).group(1)
    assert prefix not in other


def test_a_failed_check_renders_its_error():
    report = GroundingReport(None, (), (), error="ServiceUnavailableError: <down>")
    page = report.html()
    assert "The grounding check failed: ServiceUnavailableError: &lt;down&gt;" in page
    assert 'class="gk-claim' not in report._repr_html_()


def test_an_answer_report_shows_its_question_and_references():
    answer = grounded_answer()
    page = Elements(answer_html(answer, question="What is yield?"))
    claims = claims_of(page)
    assert [c["data-level"] for c in claims] == ["supported", "supported"]
    text = "".join(page.text)
    assert "Question: What is yield?" in text
    assert "Generators <em>pause</em>." in text  # a reference's content, as text
    assert "2 references given, 2 cited" in text
    # In the citation's details and in the source list; the reference without a URI: no link.
    assert [a["href"] for a in page.with_class("gk-link")] == [
        "https://docs.python.org/3/reference/simple_stmts.html#yield"
    ] * 2
    assert "gk-claim gk-supported" in answer._repr_html_()


def test_a_skipped_answer_report_says_why():
    from grounding_core import GroundedAnswer

    page = answer_html(GroundedAnswer("", skipped_reasons=("NO_RELEVANT_CONTENT",)))
    assert "The service gave no answer (NO_RELEVANT_CONTENT)." in page


def test_claims_without_a_usable_span_are_listed_not_marked():
    answer = "One. Two. Three."
    cited = CitedChunk("One.", source_index=0, fact_index=0)
    claims = (
        Claim("One.", 0, 4, citation_indices=(0,), citations=(cited,)),
        Claim("Two.", None, None),  # no span from the service
        Claim("overlap", 2, 8),  # overlaps the first claim
        Claim("Three.", 10, 99),  # out of range
    )
    page = Elements(
        grounding_html(GroundingResult(answer, 0.25, claims), [GroundingSource("One.")])
    )
    assert len(claims_of(page)) == 1
    assert len(page.with_class("gk-detail")) == 4
    assert "".join(page.text).count("Not located in the answer (no span).") == 3


@settings(max_examples=60, deadline=None)
@given(
    answer=st.text(min_size=1, max_size=80),
    cut=st.integers(min_value=0, max_value=80),
    title=st.text(max_size=30),
    uri=st.text(max_size=30) | st.sampled_from(["javascript:alert(1)", "https://ok.example/x"]),
    fact=st.text(max_size=40),
)
def test_any_text_renders_as_text(answer, cut, title, uri, fact):
    cut = min(cut, len(answer))
    cited = CitedChunk(fact, source_index=0, fact_index=0)
    claims = (
        Claim(answer[:cut], 0, cut, citation_indices=(0,), citations=(cited,), score=0.7),
        Claim(answer[cut:], cut, len(answer)),
    )
    result = GroundingResult(answer, 0.5, claims)
    page = Elements(
        grounding_html(result, [GroundingSource(fact, {"title": title, "source": uri})])
    )
    assert len(page.raw["script"]) == 1
    assert len(page.raw["style"]) == 1
    for tag, attrs in page.elements:
        assert tag in ALLOWED_TAGS
        assert not [name for name in attrs if name.startswith("on")]
        href = attrs.get("href")
        assert href is None or href.startswith(("#gk-", "https://", "http://"))


# -- hostile answers, titles and URIs ---------------------------------------------------------

CSP = dict([*part.split(" ", 1), ""][:2] for part in CONTENT_SECURITY_POLICY.split("; "))


def assert_only_report_markup(page: Elements, hrefs: set[str]) -> None:
    assert {tag for tag, _ in page.elements} <= ALLOWED_TAGS
    for _, attributes in page.elements:
        assert set(attributes) <= ALLOWED_ATTRIBUTES, attributes
        href = attributes.get("href")
        if href is not None and not href.startswith("#gk-"):
            assert href in hrefs, href
    # Exactly the report's own script and style: the ones the policy allows by hash.
    assert [csp_hash(s) for s in page.raw["script"]] == [CSP["script-src"]]
    assert [csp_hash(s) for s in page.raw["style"]] == [CSP["style-src"]]


@pytest.mark.parametrize("index", range(len(ANSWERS)), ids=[f"answer-{i}" for i in range(8)])
def test_hostile_reports_are_inert(index):
    report = hostile_reports()[index]
    page = Elements(report.html(question=ANSWERS[index], title=TITLES[0]))
    links = {safe_href(s.metadata["source"]) for s in hostile_sources()} - {None}
    assert_only_report_markup(page, links)  # type: ignore[arg-type]
    assert {a["href"] for a in page.with_class("gk-link")} == links
    text = "".join(page.text)
    for title in TITLES:
        assert " ".join(printable(title).split()) in " ".join(text.split())


@pytest.mark.parametrize("uri", URIS, ids=[f"uri-{i}" for i in range(len(URIS))])
def test_every_uri_is_a_safe_link_or_text(uri):
    reference = SourceChunk(name="r", content="ref", title="T", uri=uri)
    citation = AnswerCitation(0, 6, 0, 6, "Claim.", (0,), (reference,))
    page = Elements(answer_html(GroundedAnswer("Claim.", (citation,), (reference,))))
    href = safe_href(uri)
    assert_only_report_markup(page, {href} if href else set())
    expected = [href, href] if href else []  # the cited source's panel and the source list
    assert [a["href"] for a in page.with_class("gk-link")] == expected
