"""The sentences an extractive answer is made of: cut from retrieved chunks, filtered to prose,
compared for near-duplicates; pure.

A chunk is cut into paragraphs (blank lines) and each paragraph, its whitespace collapsed (hard
line breaks belong to one sentence), into sentences by the grounding checker's claim splitter,
so that an answer sentence is exactly one claim when the answer is checked. A sentence is an
answer candidate when it reads as prose (``is_prose``).

Two sentences are **near-duplicates** when their search tokens (stemmed, without stop words)
overlap by ``NEAR_DUPLICATE`` or more (Jaccard), or when nearly all (90 %) of the shorter one's
tokens, at least four, are in the longer one: the same statement copied between documents, or
restated with a word changed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from grounding_emulator.corpus.tokens import tokenize
from grounding_emulator.grounding.claims import split_claims
from grounding_emulator.search.engine import ChunkHit

__all__ = [
    "MAX_SENTENCE_CHARS",
    "NEAR_DUPLICATE",
    "Sentence",
    "containing_hits",
    "is_prose",
    "near_duplicates",
    "sentences_of",
]

MAX_SENTENCE_CHARS = 400
NEAR_DUPLICATE = 0.7
_CONTAINED = 0.9
_MIN_CONTAINED_TOKENS = 4
_MIN_WORDS = 3
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"[.!?。！？؟।][\"')\]»”’]*$")


@dataclass(frozen=True, slots=True)
class Sentence:
    """A candidate sentence: its text (whitespace collapsed), the hit it was cut from (an index
    into the hits), its position in that chunk, and its search tokens."""

    text: str
    hit: int
    position: int
    tokens: frozenset[str]


def is_prose(text: str) -> bool:
    """Whether ``text`` reads as a sentence: at least three words (or tokens, for scripts
    without spaces), at most ``MAX_SENTENCE_CHARS``, a final sentence mark (not a heading or a
    fragment), mostly letters (not code, a grammar rule or a doctest).

    >>> is_prose("The pass statement does nothing.")
    True
    >>> is_prose('for_stmt ::= "for" target_list "in" starred_list ":" suite')
    False
    """
    if len(text) > MAX_SENTENCE_CHARS or ">>>" in text or "::=" in text:
        return False
    if len(text.split()) < _MIN_WORDS and len(tokenize(text)) < _MIN_WORDS:
        return False
    if not _SENTENCE_END.search(text):
        return False
    letters = sum(1 for c in text if c.isalpha() or c.isspace())
    return letters >= 0.8 * len(text)


def _flat(text: str) -> str:
    return " ".join(text.split())


def sentences_of(hits: Sequence[ChunkHit]) -> list[Sentence]:
    """The prose sentences of every hit, in hit order then chunk order."""
    found: list[Sentence] = []
    for number, hit in enumerate(hits):
        position = 0
        for paragraph in _PARAGRAPH_BREAK.split(hit.chunk.content):
            flat = _flat(paragraph)
            for start, end in split_claims(flat):
                position += 1
                text = flat[start:end]
                if is_prose(text):
                    found.append(Sentence(text, number, position, frozenset(tokenize(text))))
    return found


def near_duplicates(first: frozenset[str], second: frozenset[str]) -> bool:
    """Whether two sentences' token sets make them near-duplicates (see the module docstring).

    >>> a = frozenset(tokenize("The pass statement is a null operation."))
    >>> b = frozenset(tokenize("The pass statement is a null operation, nothing happens."))
    >>> near_duplicates(a, b), near_duplicates(a, frozenset(tokenize("Loops repeat a block.")))
    (True, False)
    """
    if not first or not second:
        return first == second
    shared = len(first & second)
    if shared / len(first | second) >= NEAR_DUPLICATE:
        return True
    smaller = min(len(first), len(second))
    return smaller >= _MIN_CONTAINED_TOKENS and shared / smaller >= _CONTAINED


def containing_hits(text: str, hits: Sequence[ChunkHit]) -> tuple[int, ...]:
    """The indexes of the hits whose text contains ``text`` (whitespace collapsed)."""
    flat = _flat(text)
    return tuple(i for i, hit in enumerate(hits) if flat in _flat(hit.chunk.content))
