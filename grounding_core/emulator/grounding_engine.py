"""The emulator's grounding checker (CheckGrounding semantics), pure: no gRPC, no protos.

First version: a claim is supported by a fact when most of the claim's words occur in it.
Issue #4 replaces the scoring with one that catches wrong numbers, names, negations and extra
details; the interface below stays.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .claims import split_claims

__all__ = ["CheckOutcome", "CheckedClaim", "Fact", "check_grounding"]

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Fact:
    """A fact of a CheckGrounding request."""

    text: str
    attributes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CheckedClaim:
    """One claim of the answer: string span, whether it needed a check, cited facts, score."""

    start: int
    end: int
    text: str
    grounding_check_required: bool
    fact_indices: tuple[int, ...]
    score: float


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """The checker's verdict: ``support_score`` = supported checked claims / checked claims."""

    support_score: float
    claims: tuple[CheckedClaim, ...]


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def check_grounding(
    answer: str, facts: Sequence[Fact], *, citation_threshold: float = 0.6
) -> CheckOutcome:
    """Check every claim of ``answer`` against ``facts``; cite facts scoring >= threshold."""
    fact_words = [_words(f.text) for f in facts]
    claims = []
    for start, end in split_claims(answer):
        words = _words(answer[start:end])
        scores = [len(words & fw) / len(words) if words else 0.0 for fw in fact_words]
        cited = tuple(
            sorted(
                (i for i, s in enumerate(scores) if s >= citation_threshold),
                key=lambda i: -scores[i],
            )
        )
        claims.append(
            CheckedClaim(
                start=start,
                end=end,
                text=answer[start:end],
                grounding_check_required=bool(words),
                fact_indices=cited,
                score=max(scores, default=0.0),
            )
        )
    checked = [c for c in claims if c.grounding_check_required]
    supported = sum(1 for c in checked if c.fact_indices)
    return CheckOutcome(
        support_score=supported / len(checked) if checked else 0.0, claims=tuple(claims)
    )
