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
from collections.abc import Sequence

from .annotate import AnnotatedText, NumberedSource, annotate_answer, annotate_grounding
from .records import GroundedAnswer, GroundingResult, GroundingSource

__all__ = ["UNSUPPORTED_MARK", "annotated_markdown", "answer_markdown", "grounding_markdown"]

UNSUPPORTED_MARK = "**[unsupported]**"
_MARKDOWN_LINK_TEXT = re.compile(r"([\[\]\\*_`])")


def _escape(text: str) -> str:
    return _MARKDOWN_LINK_TEXT.sub(r"\\\1", " ".join(text.split()))


def _entry(source: NumberedSource) -> str:
    label = _escape(source.label)
    uri = source.uri
    # Only http(s) links become links: a source URI is data, not trusted markup.
    if uri.startswith(("https://", "http://")):
        return f"{source.number}. [{label}]({uri.replace(')', '%29').replace(' ', '%20')})"
    return f"{source.number}. {label}" + (
        f" ({_escape(uri)})" if uri and uri != source.title else ""
    )


def annotated_markdown(text: AnnotatedText) -> str:
    """``[n]`` markers after each cited segment, unsupported ones marked, then the sources."""
    out: list[str] = []
    for piece, segment in text.pieces():
        out.append(piece)
        if segment is None:
            continue
        if segment.level == "unsupported":
            out.append(f" {UNSUPPORTED_MARK}")
        else:
            out.append("".join(f"[{n}]" for n in segment.numbers))
    body = "".join(out)
    if not text.sources:
        return body
    return body + "\n\n**Sources**\n\n" + "\n".join(_entry(s) for s in text.sources)


def grounding_markdown(result: GroundingResult, sources: Sequence[GroundingSource] = ()) -> str:
    """The checked answer with ``[n]`` markers, unsupported claims marked, and the sources.

    ``sources`` are the sources given to the check (their ``title`` and ``source``/``uri``
    metadata name the entries); without them the cited chunks' own title and URI are used.
    """
    return annotated_markdown(annotate_grounding(result, sources))


def answer_markdown(answer: GroundedAnswer) -> str:
    """A grounded answer with ``[n]`` markers after each cited segment and its references."""
    return annotated_markdown(annotate_answer(answer))
