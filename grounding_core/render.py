"""Rendering grounding results and grounded answers as Markdown.

The answer keeps its text; after each cited claim come ``[n]`` markers, numbered in order of
first citation, and a numbered source list follows. Claims the check found unsupported are
marked ``**[unsupported]**``. Claims without a span (the service sent none) cannot be marked.

>>> from grounding_core.records import Claim, CitedChunk, GroundingResult, GroundingSource
>>> cited = CitedChunk("Paris is the capital of France.", source_index=0, fact_index=0)
>>> result = GroundingResult(
...     answer="Paris is the capital. It has 90 million people.",
...     support_score=0.5,
...     claims=(
...         Claim("Paris is the capital.", 0, 21, 0, 21, (0,), (cited,)),
...         Claim("It has 90 million people.", 22, 47, 22, 47),
...     ),
...     cited_chunks=(cited,),
... )
>>> sources = [GroundingSource("...", {"title": "Paris", "source": "https://en.wikipedia.org/wiki/Paris"})]
>>> print(grounding_markdown(result, sources))
Paris is the capital.[1] It has 90 million people. **[unsupported]**
<BLANKLINE>
**Sources**
<BLANKLINE>
1. [Paris](https://en.wikipedia.org/wiki/Paris)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .records import GroundedAnswer, GroundingResult, GroundingSource

__all__ = ["UNSUPPORTED_MARK", "answer_markdown", "grounding_markdown"]

UNSUPPORTED_MARK = "**[unsupported]**"
_MARKDOWN_LINK_TEXT = re.compile(r"([\[\]\\*_`])")


def _escape(text: str) -> str:
    return _MARKDOWN_LINK_TEXT.sub(r"\\\1", " ".join(text.split()))


def _entry(number: int, title: str, uri: str) -> str:
    label = _escape(title or uri or f"Source {number}")
    # Only http(s) links become links: a source URI is data, not trusted markup.
    if uri.startswith(("https://", "http://")):
        return f"{number}. [{label}]({uri.replace(')', '%29').replace(' ', '%20')})"
    return f"{number}. {label}" + (f" ({_escape(uri)})" if uri and uri != title else "")


def _annotate(text: str, marks: Sequence[tuple[int, str]]) -> str:
    """``text`` with each label inserted at its string index (stable for equal indices)."""
    out, cursor = [], 0
    for index, label in sorted(marks, key=lambda m: m[0]):
        out.append(text[cursor:index])
        out.append(label)
        cursor = index
    out.append(text[cursor:])
    return "".join(out)


class _SourceList:
    """Numbers sources in order of first citation and keeps their list entries."""

    def __init__(self) -> None:
        self.numbers: dict[object, int] = {}
        self.entries: list[str] = []

    def labels(self, cited: Sequence[tuple[object, str, str]]) -> str:
        """``[n]`` markers for ``(key, title, uri)`` sources, each number once."""
        labels: list[str] = []
        for key, title, uri in cited:
            if key not in self.numbers:
                self.numbers[key] = len(self.numbers) + 1
                self.entries.append(_entry(self.numbers[key], title, uri))
            label = f"[{self.numbers[key]}]"
            if label not in labels:
                labels.append(label)
        return "".join(labels)

    def render(self, body: str) -> str:
        """``body`` followed by the numbered source list."""
        if not self.entries:
            return body
        return body + "\n\n**Sources**\n\n" + "\n".join(self.entries)


def _title_and_uri(metadata: Mapping[str, Any]) -> tuple[str, str]:
    uri = metadata.get("source") or metadata.get("uri") or ""
    return str(metadata.get("title") or ""), str(uri)


def grounding_markdown(result: GroundingResult, sources: Sequence[GroundingSource] = ()) -> str:
    """The checked answer with ``[n]`` markers, unsupported claims marked, and the sources.

    ``sources`` are the sources given to the check (their ``title`` and ``source``/``uri``
    metadata name the entries); without them the cited chunks' own title and URI are used.
    """
    source_list = _SourceList()
    marks: list[tuple[int, str]] = []
    for claim in result.claims:
        if claim.end is None:
            continue
        if claim.status == "unsupported":
            marks.append((claim.end, f" {UNSUPPORTED_MARK}"))
            continue
        cited: list[tuple[object, str, str]] = []
        for chunk in claim.citations:
            index = chunk.source_index
            if index is not None and index < len(sources):
                cited.append((index, *_title_and_uri(sources[index].metadata)))
            else:
                cited.append((index if index is not None else chunk.text, chunk.title, chunk.uri))
        labels = source_list.labels(cited)
        if labels:
            marks.append((claim.end, labels))
    return source_list.render(_annotate(result.answer, marks))


def answer_markdown(answer: GroundedAnswer) -> str:
    """A grounded answer with ``[n]`` markers after each cited segment and its references."""
    source_list = _SourceList()
    marks: list[tuple[int, str]] = []
    for citation in answer.citations:
        labels = source_list.labels(
            [(r.name or r.uri or r.content, r.title, r.uri) for r in citation.references]
        )
        if labels:
            marks.append((citation.end, labels))
    return source_list.render(_annotate(answer.answer_text, marks))
