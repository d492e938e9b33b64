"""The HTML report without a browser: structure, support levels, escaping, CSP, fragments."""

from __future__ import annotations

import base64
import hashlib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_core import (
    CitedChunk,
    Claim,
    GroundingReport,
    GroundingResult,
    GroundingSource,
    answer_html,
    grounding_html,
    grounding_markdown,
)
from grounding_core.html_report import CONTENT_SECURITY_POLICY, safe_href

from .reports import (
    PWNED,
    SOURCES,
    Elements,
    grounded_answer,
    hostile_report,
    levels_report,
    levels_result,
)

ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "script", "div", "header", "h2", "h3",
    "p", "span", "strong", "meter", "ul", "ol", "li", "a", "aside", "blockquote", "section",
}  # fmt: skip


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
    strict = Elements(grounding_html(levels_result(), SOURCES, weak_below=0.99))
    assert [c["data-level"] for c in claims_of(strict)][:2] == ["weak", "weak"]
    lenient = Elements(grounding_html(levels_result(), SOURCES, weak_below=0.5))
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
    markdown = grounding_markdown(result, SOURCES)
    page = Elements(grounding_html(result, SOURCES))
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


def test_safe_href():
    assert safe_href("https://example.org/a?b=c#d") == "https://example.org/a?b=c#d"
    assert safe_href("HTTP://EXAMPLE.ORG") == "HTTP://EXAMPLE.ORG"
    for uri in [
        "javascript:alert(1)",
        " https://example.org",
        "java\nscript:alert(1)",
        "data:text/html,x",
        "file:///etc/passwd",
        "gs://bucket/x.pdf",
        "https:///path-only",
        "//example.org",
        "",
    ]:
        assert safe_href(uri) is None, uri
    # Characters that could end the link or its attribute are percent-encoded.
    assert safe_href('https://example.org/"x') == "https://example.org/%22x"
    assert safe_href("https://exa mple.org") == "https://exa%20mple.org"


def test_fragment_for_notebooks():
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


def test_answer_report():
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


def test_skipped_answer_report():
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
