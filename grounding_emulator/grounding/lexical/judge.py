"""``LexicalJudge``: the lexical checker (``engine.py``) behind the :class:`Judge` Protocol."""

from __future__ import annotations

from collections.abc import Sequence

from grounding_emulator.grounding.judge import Claim, Fact, Verdict
from grounding_emulator.grounding.lexical.engine import check_claims

__all__ = ["LexicalJudge"]


class LexicalJudge:
    """The emulator's default judge: deterministic multilingual lexical entailment.

    A claim needs a check unless it states nothing about the world (a greeting, a lead-in, a
    heading...); a fact is cited when its entailment score reaches ``citation_threshold``;
    ``Verdict.score`` is the claim's best score. See ``engine.py`` for how, and docs/emulator.md
    for how well.

    >>> judge = LexicalJudge()
    >>> claims = [Claim("Cloud Run scales to zero.", 0, 25), Claim("Thanks!", 26, 33)]
    >>> [(v.grounding_check_required, v.fact_indices) for v in judge(
    ...     claims, [Fact("Cloud Run scales to zero when there is no traffic.")], 0.6
    ... )]
    [(True, (0,)), (False, ())]

    Key init args:
        language: a Snowball language name (``"german"``...) for the stemmer of Latin-script
            words; by default guessed from the claims.
    """

    def __init__(self, language: str | None = None) -> None:
        self.language = language

    def __repr__(self) -> str:
        return f"LexicalJudge(language={self.language!r})"

    def __call__(
        self, claims: Sequence[Claim], facts: Sequence[Fact], citation_threshold: float
    ) -> tuple[Verdict, ...]:
        """One verdict per claim (see the class docstring)."""
        checked = check_claims(
            claims, facts, citation_threshold=citation_threshold, language=self.language
        )
        return tuple(Verdict(c.grounding_check_required, c.fact_indices, c.score) for c in checked)
