"""Extractive answers of a DOCUMENTS-mode result: verbatim sentences that best match the query;
pure.

Follows ``ContentSearchSpec.ExtractiveContentSpec.max_extractive_answer_count`` (v1 field docs:
"An extractive answer is a verbatim answer extracted from the original document, which provides a
precise and contextually relevant answer to the search query. If the number of matching answers
is less than the max_extractive_answer_count, return all of the answers") and Google's "Get
snippets and extracted content" page. Google does not say how it picks them; the emulator's rule,
deterministic and bounded: the sentences of the document's best matching chunks (the same ones
its extractive segments come from, so the work is bounded by a few chunks), each scored by how
many distinct query tokens it has; the best ``count`` sentences that have at least one, the
highest score first, then in document order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from grounding_emulator.corpus.records import Chunk
from grounding_emulator.corpus.tokens import tokenize
from grounding_emulator.grounding.claims import split_claims

__all__ = ["ExtractiveAnswer", "extractive_answers"]

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


@dataclass(frozen=True, slots=True)
class ExtractiveAnswer:
    """A verbatim sentence of a document and the page it is on (``None``: not paginated)."""

    content: str
    page: int | None


def extractive_answers(query: str, chunks: Sequence[Chunk], count: int) -> list[ExtractiveAnswer]:
    """Up to ``count`` sentences of ``chunks`` that best answer ``query`` (see the module
    docstring); none for an empty query."""
    wanted = set(tokenize(query))
    if not wanted or count <= 0:
        return []
    scored: list[tuple[int, int, ExtractiveAnswer]] = []
    position = 0
    for chunk in chunks:
        for paragraph in _PARAGRAPH_BREAK.split(chunk.content):
            flat = " ".join(paragraph.split())
            for start, end in split_claims(flat):
                position += 1
                text = flat[start:end]
                score = len(wanted.intersection(tokenize(text)))
                if score:
                    scored.append((-score, position, ExtractiveAnswer(text, chunk.page_start)))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [answer for _, _, answer in scored[:count]]
