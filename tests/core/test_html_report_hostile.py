"""The HTML report against the same hostile answers, titles and URIs as the Markdown and the
terminal: only the report's own elements, script and style; links only to safe URIs."""

from __future__ import annotations

import pytest

from grounding_core import AnswerCitation, GroundedAnswer, SourceChunk, answer_html
from grounding_core.html_report import _CSS, _JS
from grounding_core.untrusted import printable, safe_href
from tests.core.hostile_text import ANSWERS, TITLES, URIS, hostile_reports, hostile_sources
from tests.core.reports import Elements
from tests.core.test_html_report import ALLOWED_TAGS

# The attributes the report writes (an "on..." handler, "src", "style" or "srcdoc" never).
ALLOWED_ATTRIBUTES = {
    "aria-expanded", "charset", "class", "content", "data-claim", "data-count", "data-kind",
    "data-level", "high", "href", "http-equiv", "id", "lang", "low", "max", "min", "name",
    "optimum", "rel", "target", "title", "value",
}  # fmt: skip


def assert_only_report_markup(page: Elements, hrefs: set[str]) -> None:
    assert {tag for tag, _ in page.elements} <= ALLOWED_TAGS
    for _, attributes in page.elements:
        assert set(attributes) <= ALLOWED_ATTRIBUTES, attributes
        href = attributes.get("href")
        if href is not None and not href.startswith("#gk-"):
            assert href in hrefs, href
    assert page.raw == {"script": [_JS], "style": [_CSS]}


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
