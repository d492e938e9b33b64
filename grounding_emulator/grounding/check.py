"""CheckGrounding's flow, pure: validate the request's limits, split the answer into claims, ask
the judge for one verdict per claim, compute ``support_score``.

Limits (``CheckGroundingRequest``, v1 reference): at most 200 facts of at most 10,000
characters each, a non-empty answer candidate of at most 4,096 tokens, and a
``citation_threshold`` in [0, 1] (0.6 when unset).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from grounding_emulator.errors import InvalidArgument
from grounding_emulator.grounding.judge import (
    Claim,
    Fact,
    Judge,
    Verdict,
    ask,
    claims_of,
    support_score,
)
from grounding_emulator.limits import (
    DEFAULT_CITATION_THRESHOLD,
    MAX_ANSWER_CHARS,
    MAX_ANSWER_TOKENS,
    MAX_FACT_CHARS,
    MAX_FACTS,
    estimate_tokens,
)

__all__ = ["CheckedAnswer", "check_answer", "check_limits", "run_check"]


@dataclass(frozen=True, slots=True)
class CheckedAnswer:
    """An answer's claims, the judge's verdict on each (same order), and the support score."""

    claims: tuple[Claim, ...]
    verdicts: tuple[Verdict, ...]
    support_score: float


def check_limits(
    answer: str, facts: Sequence[Fact], citation_threshold: float | None = None
) -> float:
    """Refuse a request that breaks CheckGrounding's limits; the citation threshold to use."""
    if not answer.strip():
        raise InvalidArgument(
            "answer_candidate is empty: give the answer text to check", field="answer_candidate"
        )
    if len(answer) > MAX_ANSWER_CHARS:
        raise InvalidArgument(
            f"answer_candidate has {len(answer)} characters; at most {MAX_ANSWER_CHARS} are "
            f"allowed (the emulator's bound for {MAX_ANSWER_TOKENS} tokens): check it in parts",
            field="answer_candidate",
        )
    tokens = estimate_tokens(answer)
    if tokens > MAX_ANSWER_TOKENS:
        raise InvalidArgument(
            f"answer_candidate has about {tokens} tokens; at most {MAX_ANSWER_TOKENS} are allowed",
            field="answer_candidate",
        )
    if len(facts) > MAX_FACTS:
        raise InvalidArgument(
            f"facts has {len(facts)} entries; at most {MAX_FACTS} are allowed", field="facts"
        )
    for number, fact in enumerate(facts):
        if len(fact.text) > MAX_FACT_CHARS:
            field = f"facts[{number}].fact_text"
            raise InvalidArgument(
                f"{field} has {len(fact.text)} characters; at most {MAX_FACT_CHARS} are allowed",
                field=field,
            )
    threshold = DEFAULT_CITATION_THRESHOLD if citation_threshold is None else citation_threshold
    if math.isnan(threshold) or not 0.0 <= threshold <= 1.0:
        field = "grounding_spec.citation_threshold"
        raise InvalidArgument(f"{field} must be between 0 and 1, got {threshold}", field=field)
    return threshold


def check_answer(
    answer: str,
    facts: Sequence[Fact],
    judge: Judge,
    citation_threshold: float = DEFAULT_CITATION_THRESHOLD,
) -> CheckedAnswer:
    """Split ``answer`` into claims and have ``judge`` give each its verdict (no limits)."""
    claims = claims_of(answer)
    verdicts = ask(judge, claims, facts, citation_threshold)
    return CheckedAnswer(claims, verdicts, support_score(verdicts))


def run_check(
    answer: str,
    facts: Sequence[Fact],
    judge: Judge,
    citation_threshold: float | None = None,
) -> CheckedAnswer:
    """A CheckGrounding request's values, validated, then judged."""
    threshold = check_limits(answer, facts, citation_threshold)
    return check_answer(answer, facts, judge, threshold)
