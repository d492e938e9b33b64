"""An offline stand-in for an LLM: it answers a retrieval prompt with sentences copied from the
prompt's own context, deterministically, so that demos and tests run without a model.

The question is the last sentence of the last paragraph ending with a question mark (else of
the last paragraph), without a ``Label:`` (a paragraph ends at a blank line, a line without a
word and a line ending with a colon). The candidates are the sentences of the context, never of
the prompt's instructions: when the prompt opens with one paragraph and then a heading line
(``Context:``) or a rule (``---``), that paragraph (``Answer from the context only.``) is
instruction and the context runs from the marker to the question; otherwise (a marker further
down is a heading of the context itself: ``proceeds as follows:``, ``Note:``) the context is
every paragraph before the question. What follows the question is instruction too; the
question's own paragraph gives its earlier sentences only to a prompt with no other context. The
answer is the candidates that best overlap the question, in the prompt's order, each term
weighed by its rarity among them (no word list); terms are casefolded words and character pairs
in Chinese, Japanese and Korean runs. Linear in the prompt's length.

>>> prompt = (
...     "Answer from the context only.\\n\\nContext:\\n"
...     "Generators are written like functions. A generator yields values lazily.\\n"
...     "Lists hold values in order.\\n\\nQuestion: How does a generator yield values?"
... )
>>> extractive_answer(prompt, sentences=1)
'A generator yields values lazily.'
>>> extractive_answer(prompt, sentences=1, invent="Generators were added in 1991.")
'A generator yields values lazily. Generators were added in 1991.'
"""

from __future__ import annotations

import math
import re
from collections import Counter

__all__ = ["DEFAULT_EXTRACTIVE_SENTENCES", "extractive_answer"]

DEFAULT_EXTRACTIVE_SENTENCES = 2
"""How many context sentences an extractive answer copies."""

# A sentence shorter than this is a heading, a label or a fragment, not an answer.
_MIN_SENTENCE_CHARS = 20
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
_SENTENCE_ENDS = (".", "!", "?", "。", "！", "？")
_QUESTION_ENDS = ("?", "？")
_LABEL = re.compile(r"^\w+:\s*")
_WORD = re.compile(r"\w+")
# Scripts written without spaces between words: their runs are compared by character pairs.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]{2,}")


def extractive_answer(
    prompt: str,
    *,
    sentences: int = DEFAULT_EXTRACTIVE_SENTENCES,
    invent: str = "",
    system: str = "",
) -> str:
    """The ``sentences`` sentences of ``prompt``'s context that best answer its question (see the
    module docstring), then ``invent`` if given: a made-up sentence, to show a check catching it.

    ``system`` is a system message's text: instruction when ``prompt`` brings a context of its
    own (a paragraph before the question's), else read before ``prompt`` (a system message may
    hold the context: "Use the following context: ...").

    >>> extractive_answer(
    ...     "Context: Lists hold values in order. Tuples cannot be changed.\\n\\n"
    ...     "Question: What can tuples not be?",
    ...     sentences=1,
    ...     system="Answer from the context only. Say so when it does not answer.",
    ... )
    'Tuples cannot be changed.'
    """
    if sentences < 1:
        raise ValueError(f"sentences must be at least 1, got {sentences}: pass how many to copy")
    found = _read(prompt)
    if system and (found is None or not found[2]):
        found = _read(f"{system}\n\n{prompt}")
    if found is None:
        return invent
    context, question, _ = found
    candidates = list(dict.fromkeys(s for p in context for s in _sentences(p)))
    picked = _best(candidates, _terms(question), sentences)
    return " ".join([*picked, invent] if invent else picked)


def _read(prompt: str) -> tuple[list[str], str, bool] | None:
    """The prompt's context (paragraphs, or the question paragraph's earlier sentences), its
    question, and whether the context is paragraphs of its own; ``None`` for an empty prompt."""
    paragraphs, first_marked = _paragraphs(prompt)
    if not paragraphs:
        return None
    asked = [i for i, paragraph in enumerate(paragraphs) if paragraph.endswith(_QUESTION_ENDS)]
    at = asked[-1] if asked else len(paragraphs) - 1
    # A full-width end needs no space after it: the split leaves an empty last piece.
    pieces = _SENTENCE_END.split(paragraphs[at])
    *before, question = [piece for piece in pieces if piece]
    # An instruction preamble is one paragraph before the first marker: a marker further down
    # heads a part of the context, whose first paragraphs are context too.
    start = 1 if first_marked == 1 and at > 1 else 0
    own = paragraphs[start:at]
    # A lone paragraph: its sentences before the question.
    return own or before, _LABEL.sub("", question), bool(own)


def _paragraphs(prompt: str) -> tuple[list[str], int | None]:
    """The prompt's paragraphs, and how many of them precede its first section marker (a
    heading line ending with a colon, or a rule: a line with no word but not blank)."""
    paragraphs: list[str] = []
    lines: list[str] = []
    first_marked: int | None = None
    for line in [*prompt.splitlines(), ""]:
        text = line.strip()
        if _WORD.search(text) and not text.endswith(":"):
            lines.append(text)
            continue
        if lines:
            paragraph = _LABEL.sub("", " ".join(" ".join(lines).split()))
            paragraphs.extend([paragraph] if paragraph else [])
            lines = []
        if text and first_marked is None:
            first_marked = len(paragraphs)
    return paragraphs, first_marked


def _sentences(paragraph: str) -> list[str]:
    return [
        s
        for s in _SENTENCE_END.split(paragraph)
        if len(s) >= _MIN_SENTENCE_CHARS and s.endswith(_SENTENCE_ENDS) and not s[0].islower()
    ]


def _terms(text: str) -> set[str]:
    folded = text.casefold()
    terms = set(_WORD.findall(folded))
    for run in _UNSPACED.findall(folded):
        terms.update(run[i : i + 2] for i in range(len(run) - 1))
    return terms


def _best(candidates: list[str], question: set[str], count: int) -> list[str]:
    terms = [_terms(sentence) for sentence in candidates]
    frequency = Counter(term for sentence_terms in terms for term in sentence_terms & question)
    weight = {term: math.log(1 + len(candidates) / n) for term, n in frequency.items()}
    scores = [sum(weight[t] for t in sentence_terms & question) for sentence_terms in terms]
    # Best first, earlier first among equals; then back in the prompt's order.
    ranked = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))[:count]
    return [candidates[i] for i in sorted(ranked)]
