"""The judge: what gives each claim of a CheckGrounding answer its verdict, behind a Protocol.

CheckGrounding splits the answer into claims (``claims.py``: one sentence, one list item, one
table row), asks a judge for one :class:`Verdict` per claim, and computes ``support_score`` from
the verdicts itself. A judge is any callable with the :class:`Judge` signature: the lexical
judge (the default), a scripted judge for tests, or your own.

>>> def everything_supported(claims, facts, citation_threshold):
...     return [Verdict.supported() for _ in claims]
>>> claims = claims_of("Paris is in France. Thanks!")
>>> [(c.text, c.start, c.end) for c in claims]
[('Paris is in France.', 0, 19), ('Thanks!', 20, 27)]
>>> ask(everything_supported, claims, [Fact("Paris is the capital of France.")], 0.6)
(Verdict(grounding_check_required=True, fact_indices=(0,), score=1.0), \
Verdict(grounding_check_required=True, fact_indices=(0,), score=1.0))

Google's pages define the verdict's fields (``CheckGroundingResponse.Claim``:
``citation_indices``, ``grounding_check_required``, ``score``) but not how a verdict is reached;
that is the judge's business.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from grounding_emulator.call_state import check_call
from grounding_emulator.errors import EmulatorError, JudgeError
from grounding_emulator.grounding.claims import SegmentKind, split_segments

__all__ = [
    "SUPPORTED_SCORE",
    "SUPPORTING_FACTS",
    "UNSUPPORTED_SCORE",
    "Claim",
    "Fact",
    "Judge",
    "SegmentKind",
    "Verdict",
    "ask",
    "claims_of",
    "judge_name",
    "support_score",
]

# What Verdict.supported / .unsupported give when not told: the first fact, full support; none.
SUPPORTING_FACTS: tuple[int, ...] = (0,)
SUPPORTED_SCORE = 1.0
UNSUPPORTED_SCORE = 0.0


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim of the answer: ``answer[start:end] == text`` (string indices, end exclusive),
    and the kind of Markdown block it came from (a sentence, list item, heading, table row...)."""

    text: str
    start: int
    end: int
    kind: SegmentKind = SegmentKind.SENTENCE


@dataclass(frozen=True, slots=True)
class Fact:
    """A fact of a CheckGrounding request (``GroundingFact``): its text and attributes (``uri``,
    ``title``, ``domain`` and any other string the caller gives)."""

    text: str
    attributes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judge's verdict on one claim.

    ``grounding_check_required``: whether the claim states something to check (false for a
    greeting, a lead-in, a heading...; such a claim cites nothing). ``fact_indices``: the facts
    that support the claim, best first, as indices into the request's facts; a claim is
    supported when it cites at least one. ``score``: the claim's support in [0, 1]
    (``Claim.score`` with ``enable_claim_level_score``).
    """

    grounding_check_required: bool
    fact_indices: tuple[int, ...] = ()
    score: float = UNSUPPORTED_SCORE

    def __post_init__(self) -> None:
        if not isinstance(self.grounding_check_required, bool):
            raise TypeError(
                "Verdict.grounding_check_required must be a bool, got "
                f"{self.grounding_check_required!r}"
            )
        if not isinstance(self.fact_indices, tuple) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in self.fact_indices
        ):
            raise TypeError(
                f"Verdict.fact_indices must be a tuple of ints, got {self.fact_indices!r}"
            )
        if len(set(self.fact_indices)) != len(self.fact_indices):
            raise ValueError(f"Verdict.fact_indices repeats a fact: {self.fact_indices}")
        if not self.grounding_check_required and self.fact_indices:
            raise ValueError(
                "a Verdict with grounding_check_required=False cites no fact "
                f"(CheckGrounding returns no citations for it), got {self.fact_indices}"
            )
        score = self.score
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            raise TypeError(f"Verdict.score must be a number in [0, 1], got {score!r}")
        if math.isnan(score) or not 0.0 <= score <= 1.0:
            raise ValueError(f"Verdict.score must be in [0, 1], got {score}")

    @classmethod
    def supported(
        cls, facts: Sequence[int] = SUPPORTING_FACTS, score: float = SUPPORTED_SCORE
    ) -> Verdict:
        """A checked claim that cites ``facts`` (best first; the first fact by default)."""
        if not facts:
            raise ValueError(
                "a supported Verdict cites at least one fact: give the indices of the facts "
                "that support the claim"
            )
        return cls(True, tuple(facts), score)

    @classmethod
    def unsupported(cls, score: float = UNSUPPORTED_SCORE) -> Verdict:
        """A checked claim that no fact supports."""
        return cls(True, score=score)

    @classmethod
    def not_checked(cls) -> Verdict:
        """A claim that needs no check (``grounding_check_required`` false, score 0)."""
        return cls(False)


class Judge(Protocol):
    """Gives one verdict per claim, in claim order.

    ``claims`` are every claim of the answer (also those that need no check: deciding that is
    the judge's job); ``facts`` the request's facts, which ``Verdict.fact_indices`` index;
    ``citation_threshold`` the request's ``grounding_spec.citation_threshold`` (0.6 when unset):
    "citations with a score below the threshold are not returned".
    """

    def __call__(
        self, claims: Sequence[Claim], facts: Sequence[Fact], citation_threshold: float
    ) -> Sequence[Verdict]:
        """One verdict per claim of ``claims``, in the same order."""
        ...


def claims_of(answer: str) -> tuple[Claim, ...]:
    """The claims of ``answer``, as the splitter finds them (``claims.py``)."""
    return tuple(
        Claim(answer[s.start : s.end], s.start, s.end, s.kind) for s in split_segments(answer)
    )


def judge_name(judge: object) -> str:
    """The judge as errors name it: its function's or its class's qualified name."""
    named = judge if hasattr(judge, "__qualname__") else type(judge)
    return f"{getattr(named, '__module__', '?')}.{getattr(named, '__qualname__', '?')}"


class _CheckedClaims(tuple[Claim, ...]):
    """The claims of a call, the call checked before each one is handed over."""

    __slots__ = ()

    def __iter__(self) -> Iterator[Claim]:
        for number, claim in enumerate(super().__iter__(), 1):
            check_call("claim", number, len(self))
            yield claim


def ask(
    judge: Judge, claims: Sequence[Claim], facts: Sequence[Fact], citation_threshold: float
) -> tuple[Verdict, ...]:
    """The judge's verdicts on ``claims``, checked against the Protocol.

    The judge gets the claims as a tuple that checks the call (``call_state.check_call``)
    before handing over each claim: a call that is no longer wanted stops at the next claim
    the judge takes, whatever the judge.

    A judge that fails, returns something other than one ``Verdict`` per claim, or cites a fact
    the request does not have raises :class:`JudgeError` (``INTERNAL``) naming the judge. An
    ``EmulatorError`` it raises on purpose (a scripted ``INVALID_ARGUMENT``...) passes through.
    """
    name = judge_name(judge)
    try:
        verdicts: object = judge(_CheckedClaims(claims), facts, citation_threshold)
    except EmulatorError:
        raise
    except Exception as exc:
        raise JudgeError(f"the judge {name} failed: {exc!r}") from exc
    if isinstance(verdicts, (str, bytes)) or not isinstance(verdicts, Sequence):
        raise JudgeError(
            f"the judge {name} returned {type(verdicts).__name__}; it must return a sequence "
            f"of Verdict, one per claim"
        )
    if len(verdicts) != len(claims):
        raise JudgeError(
            f"the judge {name} returned {len(verdicts)} verdicts for {len(claims)} claims; it "
            "must return one per claim, in claim order"
        )
    for number, verdict in enumerate(verdicts):
        if not isinstance(verdict, Verdict):
            raise JudgeError(
                f"the judge {name} returned a {type(verdict).__name__} as verdict {number}; "
                "it must be a Verdict"
            )
        outside = [i for i in verdict.fact_indices if not 0 <= i < len(facts)]
        if outside:
            have = f"indices 0 to {len(facts) - 1}" if facts else "no fact"
            raise JudgeError(
                f"the judge {name} cites fact {outside[0]} in verdict {number} (claim "
                f"{claims[number].text!r}); the request has {len(facts)} facts ({have})"
            )
    return tuple(verdicts)


class _Judged(Protocol):
    """What the support score reads of a verdict (``Verdict`` and the lexical engine's
    ``CheckedClaim`` both have it)."""

    @property
    def grounding_check_required(self) -> bool: ...

    @property
    def fact_indices(self) -> tuple[int, ...]: ...


def support_score(verdicts: Iterable[_Judged]) -> float:
    """Supported checked claims / checked claims, 0.0 when no claim needs a check.

    ``CheckGroundingResponse.support_score``: "the fraction of claims in the answer candidate
    that are supported by the facts"; claims that need no check are left out, and every checked
    claim counts the same, whatever its length.
    """
    checked = [v for v in verdicts if v.grounding_check_required]
    return sum(1 for v in checked if v.fact_indices) / len(checked) if checked else 0.0
