"""The pass mark: an answer with an unsupported checked claim fails by default; scores shown to
people are rounded to two places (the records keep the full value)."""

from __future__ import annotations

import pytest
from rich.console import Console

from grounding_core import (
    DEFAULT_MIN_SUPPORT_SCORE,
    GroundingReport,
    UngroundedAnswerError,
)
from grounding_core.pass_mark import format_score, grounding_verdict, passes, shown_verdict
from grounding_core.records import CitedChunk, Claim, GroundingResult
from grounding_core.terminal import grounding_rich

FACT = CitedChunk("Paris is the capital of France.", source_index=0, fact_index=0)
CITED = Claim("Paris is the capital.", 0, 21, citation_indices=(0,), citations=(FACT,))
INVENTED = Claim("It was founded in 1850.", 22, 45)
GREETING = Claim("Hello!", grounding_check_required=False)
TWO_OF_THREE = 0.6666666865348816  # float32, as the service sends 2/3


def result(score: float | None, *claims: Claim) -> GroundingResult:
    return GroundingResult("Paris is the capital. It was founded in 1850.", score, claims)


def test_the_default_fails_one_made_up_sentence_in_three():
    assert DEFAULT_MIN_SUPPORT_SCORE == 1.0
    answer = result(TWO_OF_THREE, CITED, CITED, INVENTED)
    assert grounding_verdict(answer) == (False, "below the minimum 1.00")
    assert not passes(answer)
    assert passes(answer, min_support_score=0.6)  # a lower mark tolerates it, if asked


@pytest.mark.parametrize(
    ("answer", "minimum", "expected"),
    [
        # Google's model-made score need not reach 1.0 when every claim is cited.
        (result(0.97, CITED, GREETING), 1.0, (True, "passed (every checked claim is supported)")),
        (result(1.0, CITED), 1.0, (True, "passed (minimum 1.00)")),
        (result(0.5, CITED, INVENTED), 0.5, (True, "passed (minimum 0.50)")),
        (result(0.5, CITED, INVENTED), 0.51, (False, "below the minimum 0.51")),
        # Nothing checked: nothing is grounded.
        (result(0.0, GREETING), 1.0, (False, "below the minimum 1.00")),
        (result(0.0), 1.0, (False, "below the minimum 1.00")),
        (result(None, CITED), 1.0, (True, "passed (every checked claim is supported)")),
        (result(None, INVENTED), 0.0, (False, "below the minimum 0.00")),
    ],
)
def test_verdicts(answer, minimum, expected):
    assert grounding_verdict(answer, minimum) == expected
    assert passes(answer, minimum) is expected[0]


def test_a_failed_check_never_passes():
    assert passes(None, 0.0) is False


def test_views_show_a_verdict_only_with_a_minimum_and_a_score():
    assert shown_verdict(result(0.5, CITED), None) is None
    assert shown_verdict(result(None, CITED), 1.0) is None
    assert shown_verdict(result(0.5, CITED), 1.0) == grounding_verdict(result(0.5, CITED), 1.0)


def test_scores_are_shown_with_two_decimals():
    assert [format_score(s) for s in (TWO_OF_THREE, 1.0, 0.0, 0.005, None)] == [
        "0.67",
        "1.00",
        "0.00",
        "0.01",
        "n/a",
    ]


def test_the_report_uses_the_pass_mark_and_keeps_the_full_score():
    report = GroundingReport(result(TWO_OF_THREE, CITED, CITED, INVENTED), ("a",), ())
    assert report.min_support_score == DEFAULT_MIN_SUPPORT_SCORE
    assert report.passed is False
    assert report.metadata()["support_score"] == TWO_OF_THREE
    assert report.metadata()["passed"] is False
    google_like = GroundingReport(result(0.97, CITED), ("a",), ())
    assert google_like.passed is True


def test_the_ungrounded_error_rounds_and_names_the_unsupported_claims():
    report = GroundingReport(result(TWO_OF_THREE, CITED, CITED, INVENTED), ("a",), ())
    with pytest.raises(UngroundedAnswerError) as excinfo:
        report.enforce("raise")
    assert str(excinfo.value) == (
        "the answer's support score 0.67 is below the required 1.00; 1 claim(s) unsupported: "
        "'It was founded in 1850.'"
    )
    nothing_checked = GroundingReport(result(0.0, GREETING), ("a",), ())
    with pytest.raises(UngroundedAnswerError) as excinfo:
        nothing_checked.enforce("raise")
    assert str(excinfo.value) == (
        "the answer's support score 0.00 is below the required 1.00; 0 claim(s) unsupported"
    )


def test_the_terminal_view_shows_the_claims_rule():
    console = Console(width=100, color_system=None)
    with console.capture() as captured:
        console.print(grounding_rich(result(0.97, CITED), min_support_score=1.0))
    assert captured.get().splitlines()[0] == (
        "Support score 0.97 · passed (every checked claim is supported)"
    )
