"""Rendering grounding results and grounded answers as Markdown: the answer's text, ``[n]``
markers after each cited claim (numbered in order of first citation), ``**[unsupported]**``
after each unsupported one (a claim without a span cannot be marked), then the sources (an
example in ``grounding_core.views``).

The answer, the titles and the URIs are untrusted: shown as the text they are, never as
Markdown or HTML (``docs/reports.md``). ``printable`` makes control characters visible; ``<``,
``>`` and ``&`` become entities; the inline specials ``\\ ` * _ [ ] { } | ~`` are
backslash-escaped, and what would open a block at the start of a line (``#``, ``-``, ``+``,
``=``, ``1.``, ``1)``, indentation) is escaped or dropped. A title is one line. Only
``http``/``https`` URIs become links (``safe_href``).

>>> from grounding_core import GroundingResult
>>> hostile = GroundingResult("<script>x()</script>\\n# Big", 1.0, (), cited_chunks=())
>>> print(grounding_markdown(hostile))
&lt;script&gt;x()&lt;/script&gt;
\\# Big
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .annotate import AnnotatedText, NumberedSource, annotate_answer, annotate_grounding
from .untrusted import one_line, printable, safe_href

if TYPE_CHECKING:
    from grounding_core._records import GroundedAnswer, GroundingResult, GroundingSource

UNSUPPORTED_MARK = "**[unsupported]**"

_INLINE = str.maketrans(
    {char: "\\" + char for char in "\\`*_[]{}|~"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
)
# What opens a block at the start of a line once the inline specials are escaped: an ATX
# heading, a list item (bullet or ordered), a setext underline or a thematic break.
_BLOCK_START = re.compile(r"[#+=-]|\d{1,9}(?=[.)])")
# After a "[1]" marker, "(" would make it an inline link and ":" a link definition.
_AFTER_MARKER = ("(", ":")


def _line(line: str, *, line_start: bool) -> str:
    escaped = line.translate(_INLINE)
    if not line_start:
        return escaped
    # Leading blanks would make an indented code block or continue the previous block.
    escaped = escaped.lstrip(" \t")
    opener = _BLOCK_START.match(escaped)
    if opener is None:
        return escaped
    cut = opener.end()
    if opener.group().isdigit():  # "1." -> "1\.": the digits stay, the list marker goes
        return escaped[:cut] + "\\" + escaped[cut:]
    return "\\" + escaped


def _text(text: str, *, line_start: bool) -> str:
    """``text`` as Markdown that renders as exactly that text (see the module docstring);
    ``line_start``: whether ``text`` begins a line of the output."""
    lines = printable(text).split("\n")
    return "\n".join(
        _line(line, line_start=bool(number) or line_start) for number, line in enumerate(lines)
    )


def _label(text: str, *, line_start: bool = False) -> str:
    """A title or URI as one line of Markdown text."""
    return _text(one_line(text), line_start=line_start)


def _entry(source: NumberedSource) -> str:
    # A list item's text starts a block of its own: "1. # x" would be a heading.
    label = _label(source.label, line_start=True)
    href = safe_href(source.uri)
    if href is not None:
        return f"{source.number}. [{label}]({href})"
    uri = f" ({_label(source.uri)})" if source.uri and source.uri != source.title else ""
    return f"{source.number}. {label}{uri}"


def annotated_markdown(text: AnnotatedText) -> str:
    """``[n]`` markers after each cited segment, unsupported ones marked, then the sources."""
    out: list[str] = []
    line_start, after_marker = True, False
    for piece, segment in text.pieces():
        escaped = _text(piece, line_start=line_start)
        if after_marker and escaped.startswith(_AFTER_MARKER):
            escaped = "\\" + escaped
        out.append(escaped)
        line_start, after_marker = piece.endswith("\n"), False
        if segment is None:
            continue
        if segment.level == "unsupported":
            out.append(f" {UNSUPPORTED_MARK}")
        elif segment.numbers:
            out.append("".join(f"[{n}]" for n in segment.numbers))
        else:
            continue
        line_start, after_marker = False, True
    body = "".join(out)
    if not text.sources:
        return body
    return body + "\n\n**Sources**\n\n" + "\n".join(_entry(s) for s in text.sources)


def grounding_markdown(result: GroundingResult, sources: Sequence[GroundingSource] = ()) -> str:
    """The checked answer with ``[n]`` markers, unsupported claims marked, and the sources
    (named as ``annotate_grounding`` says)."""
    return annotated_markdown(annotate_grounding(result, sources))


def answer_markdown(answer: GroundedAnswer) -> str:
    """A grounded answer with ``[n]`` markers after each cited segment and its references."""
    return annotated_markdown(annotate_answer(answer))
