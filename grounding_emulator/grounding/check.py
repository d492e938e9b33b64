"""CheckGrounding's documented limits, enforced before the grounding engine runs; pure.

At most 200 facts of at most 10,000 characters each, a non-empty answer candidate of at most
4,096 tokens, and a ``citation_threshold`` in [0, 1] (0.6 when unset).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from grounding_emulator.errors import InvalidArgument
from grounding_emulator.grounding.lexical.engine import CheckOutcome, Fact, check_grounding
from grounding_emulator.limits import (
    DEFAULT_CITATION_THRESHOLD,
    MAX_ANSWER_TOKENS,
    MAX_FACT_CHARS,
    MAX_FACTS,
    estimate_tokens,
)

__all__ = ["DEFAULT_CITATION_THRESHOLD", "run_check"]


def run_check(
    answer: str, facts: Sequence[Fact], citation_threshold: float | None = None
) -> CheckOutcome:
    """Validate a CheckGrounding request's values, then check ``answer`` against ``facts``."""
    if not answer.strip():
        raise InvalidArgument(
            "answer_candidate is empty: give the answer text to check", field="answer_candidate"
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
    return check_grounding(answer, facts, citation_threshold=threshold)
