"""The HTML reports exactly as written: every element, attribute, text and default.

Each report is compared whole, with the static stylesheet and script (checked against the
Content-Security-Policy instead) and the content-derived id prefix (checked for its form) taken
out, so that any changed tag, class, label, count, default or escape shows.
"""

import base64
import hashlib
import re

import pytest

from grounding_core.html_report import (
    CONTENT_SECURITY_POLICY,
    _sha256,
    answer_html,
    check_failed_html,
    grounding_html,
    safe_href,
)
from grounding_core.records import (
    AnswerCitation,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingResult,
    GroundingSource,
    SourceChunk,
)

from .claims import claim_at

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
SOURCES = [
    GroundingSource("Paris text " * 20, {"title": "Paris", "source": "https://p.example/a"}),
    GroundingSource("Lyon text", {"uri": "gs://bucket/lyon"}),
    GroundingSource("x", {}),
]


def claim(text: str, *sources: int, **kwargs: object) -> Claim:
    cited = (CitedChunk(SOURCES[i].text[:10], source_index=i, fact_index=i) for i in sources)
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
        SOURCES,
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


@pytest.mark.parametrize(
    "uri", ["https://x.example/?next=http://y", "https://Xyz.example/", "http://a.example"]
)
def test_safe_links_are_kept_as_they_are(uri):
    assert safe_href(uri) == uri


def test_the_csp_hash_is_the_base64_sha256_of_the_utf8_text():
    # Known values (FIPS 180-2 "abc"; "é" encoded as UTF-8).
    assert _sha256("abc") == "'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='"
    assert _sha256("é") == "'sha256-SplVfkAzw1Od4utlRyAXytX5VX96BiWgnxw/biumnEw='"


def test_no_score_shows_n_a_and_no_meter():
    page = normalized(grounding_html(GroundingResult("Hi.", None), full_document=False))
    assert (
        '<p class="gk-score gk-unknown"><span>Support score</span> '
        '<strong class="gk-score-value">n/a</strong></p>'
    ) in page
    assert "<meter" not in page
