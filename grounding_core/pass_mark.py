"""The pass mark of a grounding check: when an answer counts as grounded.

An answer passes when every claim that needed a check is supported (and at least one did), or
when its support score reaches ``min_support_score``. The default, ``1.0``, tolerates no
unsupported claim: an answer with one invented sentence in three (support 0.67) fails.

Why a rule on the claims and not a bare score threshold: Google's support score comes from a
model ("higher the score, higher is the fraction of claims that are supported", the
``CheckGroundingResponse.support_score`` field doc), so an answer whose every claim is cited
need not score exactly 1.0; the emulator's score is the fraction itself. A lower
``min_support_score`` (say 0.6) lets partly grounded answers pass; a stricter check per claim
is a higher ``citation_threshold``.

>>> from grounding_core.records import CitedChunk, Claim, GroundingResult
>>> fact = CitedChunk("Paris is the capital of France.", source_index=0, fact_index=0)
>>> cited = Claim("Paris is the capital.", citation_indices=(0,), citations=(fact,))
>>> invented = Claim("It has 90 million people.")
>>> passes(GroundingResult("...", 0.5, (cited, invented)))
False
>>> passes(GroundingResult("...", 0.5, (cited, invented)), min_support_score=0.5)
True
>>> passes(GroundingResult("...", 0.97, (cited,)))  # every checked claim is supported
True
>>> grounding_verdict(GroundingResult("...", 0.5, (cited, invented)))
(False, 'below the minimum 1.00')
"""

from __future__ import annotations

from .records import GroundingResult

__all__ = [
    "DEFAULT_MIN_SUPPORT_SCORE",
    "Verdict",
    "format_score",
    "grounding_verdict",
    "passes",
    "shown_verdict",
]

DEFAULT_MIN_SUPPORT_SCORE = 1.0


Verdict = tuple[bool, str]
"""Whether an answer passes, and the verdict in words as the views print it."""


def _every_checked_claim_supported(result: GroundingResult) -> bool:
    checked = result.checked_claims
    return bool(checked) and all(claim.status == "supported" for claim in checked)


def grounding_verdict(
    result: GroundingResult, min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE
) -> Verdict:
    """The pass mark applied to ``result`` (see the module docstring), with its reason."""
    score = result.support_score
    if score is not None and score >= min_support_score:
        return True, f"passed (minimum {min_support_score:.2f})"
    if _every_checked_claim_supported(result):
        return True, "passed (every checked claim is supported)"
    return False, f"below the minimum {min_support_score:.2f}"


def passes(
    result: GroundingResult | None, min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE
) -> bool:
    """The pass mark (see the module docstring); a check that failed (``None``) never passes."""
    return result is not None and grounding_verdict(result, min_support_score)[0]


def shown_verdict(result: GroundingResult, min_support_score: float | None) -> Verdict | None:
    """The verdict a view shows next to the score: none without a minimum or a score."""
    if min_support_score is None or result.support_score is None:
        return None
    return grounding_verdict(result, min_support_score)


def format_score(score: float | None) -> str:
    """A score as people read it: two decimals (records keep the full value), ``n/a`` if none.

    >>> format_score(0.6666666865348816), format_score(None)
    ('0.67', 'n/a')
    """
    return "n/a" if score is None else f"{score:.2f}"
