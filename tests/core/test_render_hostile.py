"""Markdown of hostile answers, titles and URIs through a real CommonMark renderer
(markdown-it-py, raw HTML passed through as CommonMark does): the rendered HTML holds only the
elements the report makes, and every text shows as the text it is."""

from __future__ import annotations

import html
import re

import pytest
from markdown_it import MarkdownIt

from grounding_core import (
    AnswerCitation,
    GroundedAnswer,
    GroundingReport,
    GroundingSource,
    SourceChunk,
    answer_markdown,
)
from grounding_core.untrusted import one_line, safe_href
from tests.core.hostile_text import ANSWERS, TITLES, URIS, hostile_result, hostile_sources
from tests.core.reports import Elements

# What the Markdown means to make (a hard line break is harmless and can come from text).
ALLOWED = {"p", "ol", "li", "a", "strong", "br"}
RENDERERS = {
    "commonmark": MarkdownIt("commonmark"),
    "gfm-like": MarkdownIt("gfm-like"),  # tables, strikethrough, bare URLs linked
}


def report(answer: str, sources: tuple[GroundingSource, ...]) -> GroundingReport[GroundingSource]:
    return GroundingReport(hostile_result(answer, sources), sources, sources)


def assert_only_report_markup(page: Elements) -> None:
    for tag, attributes in page.elements:
        assert tag in ALLOWED, (tag, attributes)
        if tag == "a":
            assert list(attributes) == ["href"], attributes
            assert re.match(r"https?://[^/?#]", attributes["href"] or ""), attributes
        else:
            assert attributes == {}, (tag, attributes)


def items(markdown: str) -> list[str]:
    """The text of each source entry, as a reader sees it."""
    found = re.findall(r"<li>(.*?)</li>", RENDERERS["commonmark"].render(markdown), re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", item)) for item in found]


@pytest.mark.parametrize("renderer", RENDERERS)
@pytest.mark.parametrize("answer", ANSWERS, ids=[f"answer-{i}" for i in range(len(ANSWERS))])
def test_hostile_reports_render_to_report_markup_only(answer, renderer):
    sources = hostile_sources()
    page = Elements(RENDERERS[renderer].render(report(answer, sources).markdown()))
    assert_only_report_markup(page)
    assert page.raw == {"script": [], "style": []}
    hrefs = [safe_href(s.metadata["source"]) for s in sources]
    # The only links are the sources' safe URIs (as the renderer normalises them, "[" as
    # "%5B"): no marker and no answer text is a link (but GFM links bare http(s) URLs).
    normalise = RENDERERS[renderer].normalizeLink
    links = [a["href"] for a in page.tags("a")]
    if renderer == "commonmark":
        assert links == [normalise(h) for h in hrefs if h]


@pytest.mark.parametrize("answer", ANSWERS, ids=[f"answer-{i}" for i in range(len(ANSWERS))])
def test_the_answer_shows_as_its_own_text_with_its_markers(answer):
    sources = hostile_sources()[:2]
    body = report(answer, sources).markdown().split("\n\n**Sources**\n\n")[0]
    shown = " ".join(html.unescape("".join(Elements(MarkdownIt().render(body)).text)).split())
    cut = answer.index(".") + 1
    unsupported = " [unsupported]" if answer[cut:].strip() else ""
    assert shown == one_line(answer[:cut] + "[1][2]" + answer[cut:] + unsupported)


@pytest.mark.parametrize("title", TITLES, ids=[f"title-{i}" for i in range(len(TITLES))])
def test_every_title_shows_as_its_own_text(title):
    sources = (GroundingSource("fact", {"title": title, "source": "gs://b/o"}),)
    markdown = report("Claim.", sources).markdown()
    assert_only_report_markup(Elements(RENDERERS["commonmark"].render(markdown)))
    assert_only_report_markup(Elements(RENDERERS["gfm-like"].render(markdown)))
    assert items(markdown) == [f"{one_line(title)} (gs://b/o)"]


@pytest.mark.parametrize("uri", URIS, ids=[f"uri-{i}" for i in range(len(URIS))])
def test_every_uri_is_a_safe_link_or_text(uri):
    reference = SourceChunk(name="r", content="ref", title="T", uri=uri)
    citation = AnswerCitation(0, 6, 0, 6, "Claim.", (0,), (reference,))
    markdown = answer_markdown(GroundedAnswer("Claim.", (citation,), (reference,)))
    page = Elements(RENDERERS["commonmark"].render(markdown))
    assert_only_report_markup(page)
    href = safe_href(uri)
    if href is None:
        assert page.tags("a") == []
        assert items(markdown) == [f"T ({one_line(uri)})"]
    else:
        assert [a["href"] for a in page.tags("a")] == [RENDERERS["commonmark"].normalizeLink(href)]
        assert items(markdown) == ["T"]


def test_a_marker_cannot_become_a_link_or_a_definition():
    sources = hostile_sources()[:1]
    inline = report("Cited claim.(https://evil.example) and [x][1].", sources).markdown()
    assert inline.startswith("Cited claim.[1]\\(https://evil.example) and \\[x\\]\\[1\\].")
    definition = report("Cited claim.\n[1]: https://evil.example", sources).markdown()
    assert definition.startswith("Cited claim.[1]\n\\[1\\]: https://evil.example")
    after_marker = report("Cited claim.: x", sources).markdown()
    assert after_marker.startswith("Cited claim.[1]\\: x")
    for markdown in (inline, definition, after_marker):
        page = Elements(MarkdownIt().render(markdown))
        assert [a["href"] for a in page.tags("a")] == [safe_href(sources[0].metadata["source"])]
