"""Query rephrasing for follow-up questions (``QueryUnderstandingSpec.QueryRephraserSpec``);
pure, deterministic, bounded.

Google's answer method rephrases a query by default ("Query rephrasing is on by default",
"Get answers and follow-ups"), synthesizing a follow-up with the earlier turns of its session
so that it is "context-aware"; ``disable`` turns it off. Google's rephraser is a model; the
emulator's rule:

    the follow-up, then the content words of the earlier queries of the session, most recent
    first, at most ``max_rephrase_steps`` of them (1 when unset or < 1, at most 5)

where a content word is a word that is a search token (``corpus/tokens.py``: not a stop word)
and is not in the follow-up or already added. So "and how does it handle exceptions?" after
"What is the with statement?" searches for "and how does it handle exceptions? is with
statement" ("is", a Python keyword, is a search token).
A query without earlier turns is searched as it is. Google's ``max_rephrase_steps`` counts the
steps of its multi-hop rephraser; the emulator reads it as the number of earlier turns drawn on.

>>> rephrase("and how does it handle exceptions?", ["What is the with statement?"], 1)
'and how does it handle exceptions? is with statement'
>>> rephrase("What is the with statement?", [], 1)
'What is the with statement?'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from grounding_emulator.corpus.tokens import tokenize

__all__ = ["rephrase"]

_WORD = re.compile(r"[^\W_]+")


def rephrase(query: str, history: Sequence[str], steps: int) -> str:
    """``query`` with the content words of the last ``steps`` queries of ``history`` (oldest
    first) added, most recent first (see the module docstring)."""
    seen = set(tokenize(query))
    added: list[str] = []
    for earlier in reversed(history[max(0, len(history) - steps) :] if steps > 0 else ()):
        for word in _WORD.findall(earlier):
            tokens = tokenize(word)
            if not tokens or any(token in seen for token in tokens):
                continue
            seen.update(tokens)
            added.append(word)
    return f"{query} {' '.join(added)}" if added else query
