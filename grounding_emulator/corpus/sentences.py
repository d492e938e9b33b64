"""A chunk's prose sentences, cut one way for the two that read them: the extractive answer is
made of them (``answer/sentences.py``) and each gets a vector of its own
(``embeddings.sentence_texts``), so that the answer finds its sentences' vectors; pure.

A text is cut into paragraphs (blank lines) and each paragraph, its whitespace collapsed (hard
line breaks belong to one sentence), into sentences by the grounding checker's claim splitter,
so that an answer sentence is exactly one claim when the answer is checked. A sentence is kept
when it reads as prose (``is_prose``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from grounding_emulator.corpus.tokens import tokenize
from grounding_emulator.grounding.claims import split_claims

__all__ = ["MAX_SENTENCE_CHARS", "is_prose", "prose_sentences"]

MAX_SENTENCE_CHARS = 400
_MIN_WORDS = 3
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"[.!?。！？؟।][\"')\]»”’]*$")


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


def prose_sentences(text: str) -> Iterator[tuple[int, str]]:
    """``(position, sentence)`` for each prose sentence of ``text``, whitespace collapsed; the
    position counts every sentence of the text from 1, prose or not.

    >>> list(prose_sentences("Loops\\n\\nA loop repeats a block.  It ends\\nsometimes."))
    [(2, 'A loop repeats a block.'), (3, 'It ends sometimes.')]
    """
    position = 0
    for paragraph in _PARAGRAPH_BREAK.split(text):
        flat = " ".join(paragraph.split())
        for start, end in split_claims(flat):
            position += 1
            if is_prose(flat[start:end]):
                yield position, flat[start:end]
