"""Markdown source entries for every kind of URI, exactly as rendered."""

import pytest

from grounding_core.records import CitedChunk, Claim, GroundingResult, GroundingSource
from grounding_core.render import grounding_markdown


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
def test_source_entries(title, uri, entry):
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
    ],
    ids=[
        "html",
        "block-starts",
        "carriage-returns",
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
    ],
)
def test_answer_bodies(answer, claims, body):
    assert answer_markdown_of(answer, *claims) == body
