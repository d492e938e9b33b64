"""LexicalJudge is the lexical checker behind the judge Protocol: the same verdicts."""

from __future__ import annotations

import pytest

from grounding_emulator import Fact, LexicalJudge, Verdict
from grounding_emulator.grounding.judge import claims_of
from grounding_emulator.grounding.lexical.engine import check_grounding
from grounding_emulator.grounding.lexical.eval import load_cases


@pytest.mark.parametrize("threshold", [0.3, 0.6])
def test_the_judge_gives_the_checkers_verdicts_on_every_labeled_case(threshold):
    judge = LexicalJudge()
    cases = load_cases()
    assert len(cases) >= 200
    for case in cases:
        outcome = check_grounding(case.answer, case.facts, citation_threshold=threshold)
        claims = claims_of(case.answer)
        assert [(c.start, c.end, c.text) for c in outcome.claims] == [
            (c.start, c.end, c.text) for c in claims
        ], case.id
        assert judge(claims, case.facts, threshold) == tuple(
            Verdict(c.grounding_check_required, c.fact_indices, c.score) for c in outcome.claims
        ), case.id


def test_the_judge_takes_a_language():
    facts = [Fact("Der Dienst skaliert automatisch.")]
    claims = claims_of("Der Dienst skaliert automatisch.")
    german = LexicalJudge(language="german")
    assert repr(german) == "LexicalJudge(language='german')"
    assert german(claims, facts, 0.6) == (Verdict(True, (0,), 1.0),)
    outcome = check_grounding(claims[0].text, facts, language="german")
    assert german(claims, facts, 0.6)[0].score == outcome.claims[0].score


def test_a_claim_that_needs_no_check_cites_nothing():
    claims = claims_of("Cloud Run scales to zero. Thanks!")
    verdicts = LexicalJudge()(claims, [Fact("Cloud Run scales to zero when idle.")], 0.6)
    assert verdicts[1] == Verdict.not_checked()
    assert verdicts[0].fact_indices == (0,)
