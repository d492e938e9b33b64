"""The sentences an extractive answer is made of: the prose sentences of retrieved chunks
(``corpus/sentences.py`` cuts them), compared for near-duplicates; pure.

Two sentences are **near-duplicates** when their search tokens (stemmed, without stop words)
overlap by ``NEAR_DUPLICATE`` or more (Jaccard), or when nearly all (90 %) of the shorter one's
tokens, at least four, are in the longer one: the same statement copied between documents, or
restated with a word changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from grounding_emulator.corpus.sentences import prose_sentences
from grounding_emulator.corpus.tokens import tokenize
from grounding_emulator.search.engine import ChunkHit

__all__ = ["NEAR_DUPLICATE", "Sentence", "containing_hits", "near_duplicates", "sentences_of"]

NEAR_DUPLICATE = 0.7
_CONTAINED = 0.9
_MIN_CONTAINED_TOKENS = 4


@dataclass(frozen=True, slots=True)
class Sentence:
    """A candidate sentence: its text (whitespace collapsed), the hit it was cut from (an index
    into the hits), its position in that chunk, and its search tokens."""

    text: str
    hit: int
    position: int
    tokens: frozenset[str]


def _flat(text: str) -> str:
    return " ".join(text.split())


def sentences_of(hits: Sequence[ChunkHit]) -> list[Sentence]:
    """The prose sentences of every hit, in hit order then chunk order."""
    return [
        Sentence(text, number, position, frozenset(tokenize(text)))
        for number, hit in enumerate(hits)
        for position, text in prose_sentences(hit.chunk.content)
    ]


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
