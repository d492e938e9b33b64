"""A claim located in its answer, for the tests that build grounding results by hand."""

from __future__ import annotations

from grounding_core import CitedChunk, Claim


def claim_at(answer: str, text: str, *cited: CitedChunk, **kwargs: object) -> Claim:
    """The claim ``text`` at its first place in ``answer``, citing ``cited`` (in order)."""
    start = answer.index(text)
    indices = tuple(range(len(cited)))
    return Claim(
        text, start, start + len(text), citation_indices=indices, citations=cited, **kwargs
    )
