"""Splitting an answer into claims: one sentence is one claim.

First version (a regex on sentence-final punctuation); issue #4 replaces it with a splitter that
is robust to abbreviations, decimals, URLs, code, lists and every script's sentence marks.
"""

from __future__ import annotations

import re

__all__ = ["split_claims"]

_SENTENCE = re.compile(r"[^.!?。！？\n]+(?:[.!?。！？]+|$)", re.MULTILINE)


def split_claims(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` string spans of the sentences of ``text``, trimmed of whitespace.

    >>> text = "Paris is in France. It is big!"
    >>> [text[s:e] for s, e in split_claims(text)]
    ['Paris is in France.', 'It is big!']
    """
    spans = []
    for match in _SENTENCE.finditer(text):
        start, end = match.span()
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            spans.append((start, end))
    return spans
