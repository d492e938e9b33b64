"""``grounding_core.views.markdown``: a checked or a grounded answer as Markdown.

Covers ``grounding_markdown`` and ``answer_markdown``: ``[n]`` markers numbered by first
citation, unsupported claims marked, the source list (titles and URIs as text, links only to
``http``/``https`` URIs, percent-encoded), every block opener escaped at the start of a line,
a marker that cannot become a link or a definition; and hostile answers, titles and URIs
through real CommonMark renderers (markdown-it-py): only the report's own markup.
"""

from __future__ import annotations

import html
import re

import pytest
from markdown_it import MarkdownIt

from grounding_core import (
    AnswerCitation,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingResult,
    GroundingSource,
    SourceChunk,
    answer_markdown,
    grounding_markdown,
)
from grounding_core.views.markdown import UNSUPPORTED_MARK
from grounding_core.views.untrusted import one_line, safe_href
from tests.core.hostile_text import ANSWERS, TITLES, URIS, hostile_result, hostile_sources
from tests.core.reports import Elements

# -- a checked answer and a grounded answer ----------------------------------------------------

CITED_A = CitedChunk("Paris fact", source_index=0, fact_index=0, title="t0", uri="u0")
CITED_B = CitedChunk("Lyon fact", source_index=2, fact_index=1)
ANSWER = "Paris est la capitale ✓. Lyon est grande. Marseille a 10 M habitants. Merci !"


def result():
    claims = []
    for text, cited, check in [
        ("Paris est la capitale ✓.", (CITED_A,), True),
        ("Lyon est grande.", (CITED_B, CITED_A), True),
        ("Marseille a 10 M habitants.", (), True),
        ("Merci !", (), False),
    ]:
        start = ANSWER.index(text)
        claims.append(
            Claim(
                text,
                start,
                start + len(text),
                len(ANSWER[:start].encode()),
                len(ANSWER[: start + len(text)].encode()),
                tuple(range(len(cited))),
                cited,
                grounding_check_required=check,
            )
        )
    return GroundingResult(ANSWER, 0.66, tuple(claims), (CITED_A, CITED_B))


def test_sources_are_numbered_by_first_citation():
    sources = [
        GroundingSource(
            "Paris fact", {"title": "Paris [FR]", "source": "https://fr.example/paris"}
        ),
        GroundingSource(""),
        GroundingSource("Lyon fact", {"title": "Lyon", "source": "gs://bucket/lyon.pdf"}),
    ]
    assert grounding_markdown(result(), sources) == (
        "Paris est la capitale ✓.[1] Lyon est grande.[2][1] Marseille a 10 M habitants. "
        f"{UNSUPPORTED_MARK} Merci !\n\n**Sources**\n\n"
        "1. [Paris \\[FR\\]](https://fr.example/paris)\n"
        "2. Lyon (gs://bucket/lyon.pdf)"
    )
    assert UNSUPPORTED_MARK == "**[unsupported]**"


def test_without_sources_the_cited_chunks_name_the_sources():
    assert grounding_markdown(result()).split("\n\n**Sources**\n\n")[1] == (
        "1. t0 (u0)\n2. Source 2"
    )


def test_an_uncited_answer_has_no_source_list():
    plain = GroundingResult(
        "Hi.", None, (Claim("Hi.", 0, 3, 0, 3, grounding_check_required=False),)
    )
    assert grounding_markdown(plain) == "Hi."
    assert grounding_markdown(GroundingResult("", None)) == ""


def test_a_grounded_answer_marks_its_cited_segments():
    ref = SourceChunk(name="r0", content="c", title="Lists", uri="https://docs.python.org/3/x")
    other = SourceChunk(name="r1", content="d", title="Done", uri="https://docs.python.org/3/y")
    text = "Lists 📋 are mutable. Done."
    citation = AnswerCitation(0, 20, 0, 23, text[:20], (0,), (ref,))
    answer = GroundedAnswer(text, (citation,), (ref, other), grounding_score=0.9)
    assert answer_markdown(answer) == (
        "Lists 📋 are mutable.[1] Done.\n\n**Sources**\n\n1. [Lists](https://docs.python.org/3/x)"
    )
    assert answer_markdown(GroundedAnswer("", skipped_reasons=("NO_RELEVANT_CONTENT",))) == ""


# -- source entries and answer bodies, exactly -------------------------------------------------


def rendered_entry(title: str, uri: str) -> str:
    answer = "Paris."
    cited = CitedChunk("Paris fact", source_index=0, fact_index=0)
    claim = Claim(answer, 0, 6, citation_indices=(0,), citations=(cited,))
    markdown = grounding_markdown(
        GroundingResult(answer, 1.0, (claim,)), [GroundingSource("x", {"title": title, "uri": uri})]
    )
    body, sources = markdown.split("\n\n**Sources**\n\n")
    assert body == "Paris.[1]"
    return sources


@pytest.mark.parametrize(
    ("title", "uri", "entry"),
    [
        ("Paris", "https://example.org/a b_(c)", "1. [Paris](https://example.org/a%20b_%28c%29)"),
        ("Paris", "http://example.org/", "1. [Paris](http://example.org/)"),
        ("Paris", "HTTP://example.org/", "1. [Paris](HTTP://example.org/)"),
        ("Paris", "http://a.example/\n<img>", "1. [Paris](http://a.example/%0A%3Cimg%3E)"),
        ("Paris", "javascript:alert(1)", "1. Paris (javascript:alert(1))"),
        ("Paris", "gs://bucket/a_b", "1. Paris (gs://bucket/a\\_b)"),
        ("gs://bucket/p", "gs://bucket/p", "1. gs://bucket/p"),
        ("Paris", "", "1. Paris"),
        ("", "", "1. Source 1"),
        ("*Paris* [1]", "", "1. \\*Paris\\* \\[1\\]"),
        (
            "<b>A</b> & `c` {d} |e| ~f~ \\",
            "",
            "1. &lt;b&gt;A&lt;/b&gt; &amp; \\`c\\` \\{d\\} \\|e\\| \\~f\\~ \\\\",
        ),
        ("  # Heading\n\nnext", "", "1. \\# Heading next"),
        ("- a", "", "1. \\- a"),
        ("+ a", "", "1. \\+ a"),
        ("= a", "", "1. \\= a"),
        ("12. a", "", "1. 12\\. a"),
        ("3) a", "", "1. 3\\) a"),
        ("1234567890. a", "", "1. 1234567890. a"),
        ("a - b # c 1. d", "", "1. a - b # c 1. d"),
        ("T\x1b]0;x\x07\u202e", "", "1. T\u241b\\]0;x\u2407\ufffd"),
        ("Paris", "x\n# y", "1. Paris (x # y)"),
        ("Paris", "# not a heading", "1. Paris (# not a heading)"),
        ("XML\t", "", "1. XML"),
    ],
    ids=[
        "space-paren",
        "http",
        "upper-scheme",
        "newline-in-http",
        "javascript",
        "gs",
        "uri-is-title",
        "no-uri",
        "none",
        "markup",
        "html-and-inline-specials",
        "heading-on-one-line",
        "bullet-minus",
        "bullet-plus",
        "setext",
        "ordered-dot",
        "ordered-paren",
        "ten-digits-is-no-list",
        "specials-inside-a-line",
        "controls",
        "uri-on-one-line",
        "uri-mid-line",
        "x-at-line-start",
    ],
)
def test_each_source_entry_is_text_or_a_safe_link(title, uri, entry):
    assert rendered_entry(title, uri) == entry


def answer_markdown_of(answer: str, *claims: tuple[str, bool | str]) -> str:
    """The Markdown body of ``answer`` with ``claims``: (text, cited?), or (text, "not
    checked")."""
    cited = CitedChunk("fact", source_index=0, fact_index=0)
    spans = []
    for text, supported in claims:
        start = answer.index(text)
        kwargs: dict[str, object] = {"grounding_check_required": supported != "not checked"}
        if supported is True:
            kwargs.update(citation_indices=(0,), citations=(cited,))
        spans.append(Claim(text, start, start + len(text), **kwargs))  # type: ignore[arg-type]
    result = GroundingResult(answer, 1.0, tuple(spans))
    markdown = grounding_markdown(result, [GroundingSource("fact", {"title": "F"})])
    return markdown.split("\n\n**Sources**")[0]


@pytest.mark.parametrize(
    ("answer", "claims", "body"),
    [
        ("<b>x</b> & y", (), "&lt;b&gt;x&lt;/b&gt; &amp; y"),
        ("a\n  # h\n> q\n- l\n1. o\n    code", (), "a\n\\# h\n&gt; q\n\\- l\n1\\. o\ncode"),
        ("a\r\n# h\rb", (), "a\n\\# h\u240db"),
        ("a\n\u3000# h", (), "a\n\u3000# h"),
        ("# A. B.", (("# A.", True),), "\\# A.[1] B."),
        ("A.\n# B.", (("A.", True), ("\n# B.", False)), "A.[1]\n\\# B. **[unsupported]**"),
        ("A.\n", (("A.\n", True),), "A.\n[1]"),
        ("A.\n- b", (("A.\n", True),), "A.\n[1]- b"),
        ("A.(x) b", (("A.", True),), "A.[1]\\(x) b"),
        ("A.: b", (("A.", True),), "A.[1]\\: b"),
        ("A. (x)", (("A.", True),), "A.[1] (x)"),
        ("A.(x)", (("A.", False),), "A. **[unsupported]**\\(x)"),
        ("A.(x)", (("A.", True), ("(x)", False)), "A.[1]\\(x) **[unsupported]**"),
        ("Hi. (x)", (("Hi.", "not checked"),), "Hi. (x)"),
        ("Hi.\n# A.", (("# A.", True),), "Hi.\n\\# A.[1]"),
        ("Hi.\n# A.", (("Hi.\n", "not checked"),), "Hi.\n\\# A."),
        ("Hi.\nX.", (("X.", True),), "Hi.\nX.[1]"),
        ("(x): a.", (), "(x): a."),
        ("Hi.(x)", (("Hi.", "not checked"),), "Hi.(x)"),
        ("A (x).", (("(x).", True),), "A (x).[1]"),
    ],
    ids=[
        "html",
        "block-starts",
        "carriage-returns",
        "ideographic-space-is-no-indentation",
        "first-claim-at-line-start",
        "claim-starting-a-line",
        "marker-after-a-newline",
        "text-after-a-marker-on-a-new-line",
        "paren-after-marker",
        "colon-after-marker",
        "space-after-marker",
        "after-the-unsupported-mark",
        "claim-after-marker",
        "not-checked",
        "claim-after-a-line-break",
        "text-after-an-unmarked-line",
        "x-at-line-start",
        "paren-and-colon-at-the-start",
        "paren-after-an-unmarked-claim",
        "claim-starting-with-a-paren",
    ],
)
def test_an_answer_body_escapes_what_would_open_a_block_or_a_link(answer, claims, body):
    assert answer_markdown_of(answer, *claims) == body


# -- hostile text through CommonMark ----------------------------------------------------------

# What the Markdown means to make (a hard line break is harmless and can come from text).
ALLOWED = {"p", "ol", "li", "a", "strong", "br"}
RENDERERS = {
    "commonmark": MarkdownIt("commonmark"),
    "gfm-like": MarkdownIt("gfm-like"),  # tables, strikethrough, bare URLs linked
}


def markdown_of(answer: str, sources: tuple[GroundingSource, ...]) -> str:
    return grounding_markdown(hostile_result(answer, sources), sources)


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
    page = Elements(RENDERERS[renderer].render(markdown_of(answer, sources)))
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
    body = markdown_of(answer, sources).split("\n\n**Sources**\n\n")[0]
    shown = " ".join(html.unescape("".join(Elements(MarkdownIt().render(body)).text)).split())
    cut = answer.index(".") + 1
    unsupported = " [unsupported]" if answer[cut:].strip() else ""
    assert shown == one_line(answer[:cut] + "[1][2]" + answer[cut:] + unsupported)


@pytest.mark.parametrize("title", TITLES, ids=[f"title-{i}" for i in range(len(TITLES))])
def test_every_title_shows_as_its_own_text(title):
    sources = (GroundingSource("fact", {"title": title, "source": "gs://b/o"}),)
    markdown = markdown_of("Claim.", sources)
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
    inline = markdown_of("Cited claim.(https://evil.example) and [x][1].", sources)
    assert inline.startswith("Cited claim.[1]\\(https://evil.example) and \\[x\\]\\[1\\].")
    definition = markdown_of("Cited claim.\n[1]: https://evil.example", sources)
    assert definition.startswith("Cited claim.[1]\n\\[1\\]: https://evil.example")
    after_marker = markdown_of("Cited claim.: x", sources)
    assert after_marker.startswith("Cited claim.[1]\\: x")
    for markdown in (inline, definition, after_marker):
        page = Elements(MarkdownIt().render(markdown))
        assert [a["href"] for a in page.tags("a")] == [safe_href(sources[0].metadata["source"])]
