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
        ("Paris", "https://example.org/a b_(c)", "1. [Paris](https://example.org/a%20b_(c%29)"),
        ("Paris", "http://example.org/", "1. [Paris](http://example.org/)"),
        ("Paris", "HTTP://example.org/", "1. Paris (HTTP://example.org/)"),
        ("Paris", "gs://bucket/a_b", "1. Paris (gs://bucket/a\\_b)"),
        ("gs://bucket/p", "gs://bucket/p", "1. gs://bucket/p"),
        ("Paris", "", "1. Paris"),
        ("", "", "1. Source 1"),
        ("*Paris* [1]", "", "1. \\*Paris\\* \\[1\\]"),
    ],
    ids=["space-paren", "http", "upper-scheme", "gs", "uri-is-title", "no-uri", "none", "markup"],
)
def test_source_entries(title, uri, entry):
    assert rendered_entry(title, uri) == entry
