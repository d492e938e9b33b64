"""The judge Protocol's records and its guard (``ask``), without a server."""

from __future__ import annotations

import math

import pytest

from grounding_emulator import Claim, EmulatorError, Fact, InvalidArgument, JudgeError, Verdict
from grounding_emulator.grounding.check import CheckedAnswer, check_answer, run_check
from grounding_emulator.grounding.claims import SegmentKind
from grounding_emulator.grounding.judge import ask, claims_of, judge_name, support_score

FACTS = [Fact("Paris is the capital of France.", {"title": "Paris"})]


def test_claims_of_slices_the_answer_in_string_indices():
    answer = "## Café ☕\n\n1. Tokyo 東京 is big.\n2. So is 🇫🇷 Paris. Thanks!"
    claims = claims_of(answer)
    assert claims == (
        Claim("Café ☕", 3, 9, SegmentKind.HEADING),
        Claim("Tokyo 東京 is big.", 14, 30, SegmentKind.LIST_ITEM),
        Claim("So is 🇫🇷 Paris.", 34, 49, SegmentKind.LIST_ITEM),  # a flag is 2 code points
        Claim("Thanks!", 50, 57, SegmentKind.LIST_ITEM),
    )
    assert all(answer[c.start : c.end] == c.text for c in claims)


def test_verdict_constructors():
    assert Verdict.supported() == Verdict(True, (0,), 1.0)
    assert Verdict.supported(facts=[2, 1], score=0.7) == Verdict(True, (2, 1), 0.7)
    assert Verdict.unsupported() == Verdict(True, (), 0.0)
    assert Verdict.unsupported(0.4) == Verdict(True, (), 0.4)
    assert Verdict.not_checked() == Verdict(False, (), 0.0)
    assert Verdict(True, (), 1) == Verdict(True, (), 1.0)


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ((1, (), 0.0), TypeError, "grounding_check_required must be a bool, got 1"),
        ((True, [0], 0.0), TypeError, r"fact_indices must be a tuple of ints, got \[0\]"),
        ((True, (True,), 0.0), TypeError, r"tuple of ints, got \(True,\)"),
        ((True, (0, 0), 0.0), ValueError, r"repeats a fact: \(0, 0\)"),
        ((False, (0,), 0.0), ValueError, "grounding_check_required=False cites no fact"),
        ((True, (), "1"), TypeError, "score must be a number in"),
        ((True, (), True), TypeError, "score must be a number in"),
        ((True, (), math.nan), ValueError, r"score must be in \[0, 1\], got nan"),
        ((True, (), -0.1), ValueError, r"score must be in \[0, 1\], got -0.1"),
        ((True, (), 1.01), ValueError, r"score must be in \[0, 1\], got 1.01"),
    ],
)
def test_a_verdict_refuses_what_checkgrounding_cannot_say(fields, error, message):
    with pytest.raises(error, match=message):
        Verdict(*fields)


def test_support_score_counts_checked_claims_only():
    assert support_score([]) == 0.0
    assert support_score([Verdict.not_checked()]) == 0.0
    assert support_score([Verdict.supported(), Verdict.not_checked(), Verdict.unsupported()]) == 0.5
    assert support_score([Verdict.supported(), Verdict.supported(facts=(0, 1))]) == 1.0
    assert support_score([Verdict.unsupported(0.9)] * 3) == 0.0


def two_supported(claims, facts, citation_threshold):
    return (Verdict.supported(), Verdict.supported(score=citation_threshold))


class Named:
    def __call__(self, claims, facts, citation_threshold):
        return [Verdict.unsupported()]


def test_ask_returns_a_good_judges_verdicts_as_a_tuple():
    claims = claims_of("Paris is in France. Paris is big.")
    assert ask(two_supported, claims, FACTS, 0.4) == (
        Verdict(True, (0,), 1.0),
        Verdict(True, (0,), 0.4),
    )
    assert ask(lambda c, f, t: [Verdict.unsupported()], claims[:1], FACTS, 0.6) == (
        Verdict.unsupported(),
    )


def test_judge_names():
    assert judge_name(two_supported) == f"{__name__}.two_supported"
    assert judge_name(Named()) == f"{__name__}.Named"
    assert judge_name(lambda c, f, t: ()).endswith(".<lambda>")


def test_ask_names_a_judge_that_breaks_the_protocol():
    claims = claims_of("Paris is in France. It is big.")
    with pytest.raises(JudgeError, match=rf"the judge {__name__}.Named returned 1 verdicts for 2"):
        ask(Named(), claims, FACTS, 0.6)
    with pytest.raises(JudgeError, match=r"returned str; it must return a sequence of Verdict"):
        ask(lambda c, f, t: "supported", claims, FACTS, 0.6)
    with pytest.raises(JudgeError, match=r"cites fact 0 in verdict 0 .*has 0 facts \(no fact\)"):
        ask(two_supported, claims, [], 0.6)
    with pytest.raises(
        JudgeError,
        match=r"cites fact 1 in verdict 1 \(claim 'It is big.'\); the "
        r"request has 1 facts \(indices 0 to 0\)",
    ):
        ask(lambda c, f, t: [Verdict.supported(), Verdict.supported(facts=(1,))], claims, FACTS, 0)


def test_ask_chains_a_failing_judges_error_and_passes_emulator_errors_through():
    def fails(claims, facts, citation_threshold):
        raise KeyError("model")

    def refuses(claims, facts, citation_threshold):
        raise InvalidArgument("answer_candidate is rude", field="answer_candidate")

    claims = claims_of("Paris is in France.")
    with pytest.raises(JudgeError, match=r"fails failed: KeyError\('model'\)") as excinfo:
        ask(fails, claims, FACTS, 0.6)
    assert isinstance(excinfo.value.__cause__, KeyError)
    assert excinfo.value.code == "INTERNAL"
    with pytest.raises(InvalidArgument, match="rude") as refused:
        ask(refuses, claims, FACTS, 0.6)
    assert isinstance(refused.value, EmulatorError)


def test_check_answer_and_run_check():
    checked = check_answer("Paris is in France. Paris is big.", FACTS, two_supported, 0.3)
    assert checked == CheckedAnswer(
        claims=claims_of("Paris is in France. Paris is big."),
        verdicts=(Verdict(True, (0,), 1.0), Verdict(True, (0,), 0.3)),
        support_score=1.0,
    )
    assert run_check("Paris is in France. Paris is big.", FACTS, two_supported).verdicts[1] == (
        Verdict(True, (0,), 0.6)
    )
    with pytest.raises(InvalidArgument, match="citation_threshold must be between 0 and 1"):
        run_check("Paris.", FACTS, two_supported, 1.5)
