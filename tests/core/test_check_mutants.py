"""GroundingCheck: whole refusal messages, the settings each call hands on, the debug log and
what a recorded failure keeps (what ``make mutation`` found unasserted in
``grounding_core.check``). The checks go to the session emulator."""

import logging

import pytest

from grounding_core import (
    ConfigurationError,
    DiscoveryEngineConnection,
    GroundingCheck,
    GroundingSource,
    ServiceUnavailableError,
)

from .emulated import result_of

PARIS = "Paris is the capital of France."
MOON = "The Moon is made of cheese."


def offline():
    return DiscoveryEngineConnection.create(project_id="p", emulator_host="localhost:1")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"on_ungrounded": "ignore"},
            "on_ungrounded must be 'annotate', 'raise' or 'fallback', got 'ignore'",
        ),
        ({"on_error": "never"}, "on_error must be 'record' or 'raise', got 'never'"),
        ({"fallback_answer": 5}, "fallback_answer must be a string, got int"),
        (
            {"min_support_score": 2},
            "min_support_score must be a number between 0 and 1, got 2",
        ),
        (
            {"citation_threshold": -1},
            "citation_threshold must be a number between 0 and 1, got -1",
        ),
    ],
)
def test_whole_refusal_messages(kwargs, message):
    with pytest.raises(ConfigurationError) as info:
        GroundingCheck.create(offline(), **kwargs)
    assert str(info.value) == message


@pytest.fixture
def check(connections):
    return GroundingCheck.create(connections[0], min_support_score=0.9, on_error="record")


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_the_calls_hand_on_every_setting_and_log_the_score(check, caplog, asynchronous):
    checking = check.acheck if asynchronous else check.check
    running = check.arun if asynchronous else check.run
    answer, sources, facts = f"{PARIS} {MOON}", ["a", "b"], [GroundingSource(PARIS)] * 2
    with caplog.at_level(logging.DEBUG, logger="grounding_core.check"):
        report = await result_of(checking, answer, sources, facts, ["id-a", "id-b"])
    assert [r.getMessage() for r in caplog.records if r.name == "grounding_core.check"] == [
        "support score 0.5 for 2 sources"
    ]
    assert report.min_support_score == 0.9
    assert report.source_ids == ("id-a", "id-b")
    assert report.sources == ("a", "b")
    assert not report.passed
    outcome = await result_of(running, answer, sources, facts, ["id-a", "id-b"])
    assert outcome.report == report
    assert outcome.error is None


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_recorded_failed_call_keeps_the_sources_and_their_ids(
    emulator, check, asynchronous
):
    running = check.arun if asynchronous else check.run
    facts = [GroundingSource(PARIS), GroundingSource(MOON)]
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    outcome = await result_of(running, PARIS, ["a", "b"], facts, ["id-a", "id-b"])
    assert isinstance(outcome.error, ServiceUnavailableError)
    failed = outcome.report
    assert failed.result is None
    assert failed.sources == ("a", "b")
    assert failed.grounding_sources == tuple(facts)
    assert failed.source_ids == ("id-a", "id-b")
    assert failed.min_support_score == 0.9
