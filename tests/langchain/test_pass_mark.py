"""Every LangChain component takes the core's pass mark: one made-up sentence fails."""

from __future__ import annotations

from grounding_core import DEFAULT_MIN_SUPPORT_SCORE
from langchain_grounding import (
    AsyncGroundingCallbackHandler,
    GroundingCallbackHandler,
    GroundingChecker,
    with_grounding,
)

from .conftest import ContextEchoChatModel

PARIS = "Paris is the capital of France."


def test_every_component_takes_the_cores_default(emulator):
    connection = {"project_id": "p", "emulator_host": emulator.address}
    checkers = [
        GroundingChecker(**connection),
        GroundingCallbackHandler(**connection).checker,
        AsyncGroundingCallbackHandler(**connection).checker,
        with_grounding(ContextEchoChatModel(), **connection).checker,
    ]
    for checker in checkers:
        assert checker.min_support_score == DEFAULT_MIN_SUPPORT_SCORE == 1.0
        assert checker.grounding_check.min_support_score == 1.0


def test_one_unsupported_claim_fails_by_default(emulator):
    checker = GroundingChecker(project_id="p", emulator_host=emulator.address)
    answer = f"{PARIS} {PARIS} The Moon is made of cheese."
    report = checker.invoke({"answer": answer, "documents": [PARIS]})["grounding"]
    assert round(report.support_score, 2) == 0.67
    assert report.passed is False
    assert [claim.text for claim in report.unsupported_claims] == ["The Moon is made of cheese."]
