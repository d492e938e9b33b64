"""GroundingCheck: settings validated once, the policies in one place, checks on the emulator."""

import dataclasses
import logging

import pytest

from grounding_core import (
    DEFAULT_CITATION_THRESHOLD,
    DEFAULT_FALLBACK_ANSWER,
    DEFAULT_MIN_SUPPORT_SCORE,
    ConfigurationError,
    DiscoveryEngineConnection,
    GroundingCheck,
    GroundingOutcome,
    GroundingReport,
    GroundingSource,
    GroundingSpec,
    InputError,
    ServiceUnavailableError,
    UngroundedAnswerError,
)

from .test_metadata_render import result

PROJECT = "test-project"
PARIS = "Paris is the capital of France."
MOON = "The Moon is made of cheese."


@pytest.fixture
def connection(emulator):
    return DiscoveryEngineConnection.create(
        project_id=PROJECT, emulator_host=emulator.address, retry=None
    )


def offline():
    # The clients are built lazily: nothing connects to this address.
    return DiscoveryEngineConnection.create(project_id="p", emulator_host="localhost:1")


def report(score_needed=0.6):
    """A report whose support score is 0.66 (passes at 0.6, fails at 0.9)."""
    return GroundingReport(
        result(), ("a", "b", "c"), (), min_support_score=score_needed, source_ids=("x", "y", "z")
    )


def test_create_defaults():
    connection = offline()
    check = GroundingCheck.create(connection)
    assert check.connection is connection
    assert check.grounding_config == (
        "projects/p/locations/global/groundingConfigs/default_grounding_config"
    )
    assert check.spec == GroundingSpec(DEFAULT_CITATION_THRESHOLD, False)
    assert (DEFAULT_CITATION_THRESHOLD, DEFAULT_MIN_SUPPORT_SCORE) == (0.6, 1.0)
    assert check.min_support_score == DEFAULT_MIN_SUPPORT_SCORE
    assert check.on_ungrounded == "annotate"
    assert check.fallback_answer == DEFAULT_FALLBACK_ANSWER
    assert check.on_error == "raise"


def test_create_takes_every_setting():
    connection = DiscoveryEngineConnection.create(
        project_id="p", location="eu", emulator_host="localhost:1"
    )
    check = GroundingCheck.create(
        connection,
        grounding_config="strict",
        citation_threshold=0.8,
        enable_claim_level_score=True,
        min_support_score=0.9,
        on_ungrounded="fallback",
        fallback_answer="No.",
        on_error="record",
    )
    assert check == GroundingCheck(
        connection,
        "projects/p/locations/eu/groundingConfigs/strict",
        GroundingSpec(0.8, True),
        0.9,
        "fallback",
        "No.",
        "record",
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"citation_threshold": 1.5}, r"citation_threshold must be a number between 0 and 1"),
        ({"min_support_score": -0.1}, r"min_support_score must be a number between 0 and 1"),
        ({"min_support_score": "high"}, r"min_support_score must be a number between 0 and 1"),
        ({"on_ungrounded": "ignore"}, r"on_ungrounded must be 'annotate', 'raise' or 'fallback'"),
        ({"on_error": "swallow"}, r"on_error must be 'record' or 'raise', got 'swallow'"),
        ({"fallback_answer": None}, r"fallback_answer must be a string, got NoneType"),
        ({"grounding_config": "a/b"}, r"grounding_config 'a/b' is not a valid resource id"),
    ],
)
def test_bad_settings_are_configuration_errors_naming_the_field(kwargs, message):
    with pytest.raises(ConfigurationError, match=message):
        GroundingCheck.create(offline(), **kwargs)


def test_a_bad_threshold_keeps_its_cause():
    with pytest.raises(ConfigurationError) as info:
        GroundingCheck.create(offline(), citation_threshold=-1)
    assert isinstance(info.value.__cause__, InputError)
    assert info.value.__cause__.field == "citation_threshold"


def test_a_variant_is_checked_again():
    check = GroundingCheck.create(offline())
    assert dataclasses.replace(check, on_error="record").on_error == "record"
    with pytest.raises(ConfigurationError, match="on_error must be"):
        dataclasses.replace(check, on_error="never")
    with pytest.raises(ConfigurationError, match="spec must be a GroundingSpec, got float"):
        dataclasses.replace(check, spec=0.6)


def test_repr_shows_the_settings_and_no_secret():
    connection = DiscoveryEngineConnection.create(
        project_id="p", emulator_host="localhost:1", client_options={"api_key": "SECRET"}
    )
    text = repr(GroundingCheck.create(connection, min_support_score=0.7))
    assert text == (
        "GroundingCheck(grounding_config='projects/p/locations/global/groundingConfigs/"
        "default_grounding_config', citation_threshold=0.6, min_support_score=0.7, "
        "on_ungrounded='annotate', on_error='raise', endpoint='localhost:1')"
    )


# -- the policies --------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["annotate", "raise", "fallback"])
def test_a_passing_answer_is_kept_under_every_policy(policy):
    check = GroundingCheck.create(offline(), on_ungrounded=policy, fallback_answer="No.")
    passing = report(0.6)
    outcome = check.decide(passing)
    assert outcome == GroundingOutcome(passing, policy, None, None)
    outcome.enforce()


def test_annotate_keeps_an_ungrounded_answer():
    failing = report(0.9)
    outcome = GroundingCheck.create(offline()).decide(failing)
    assert outcome == GroundingOutcome(failing, "annotate", None, None)
    outcome.enforce()


def test_fallback_replaces_an_ungrounded_answer():
    failing = report(0.9)
    check = GroundingCheck.create(offline(), on_ungrounded="fallback", fallback_answer="No.")
    outcome = check.decide(failing)
    assert outcome == GroundingOutcome(failing, "fallback", "No.", None)
    outcome.enforce()


def test_raise_raises_only_when_enforced():
    failing = report(0.9)
    outcome = GroundingCheck.create(offline(), on_ungrounded="raise").decide(failing)
    assert outcome == GroundingOutcome(failing, "raise", None, None)
    with pytest.raises(
        UngroundedAnswerError, match=r"support score 0\.66 is below the required 0\.9"
    ) as info:
        outcome.enforce()
    assert info.value.result is failing
    assert info.value.__cause__ is None


def test_on_error_raise_raises_the_error_itself():
    error = ServiceUnavailableError("CheckGrounding: down")
    with pytest.raises(ServiceUnavailableError) as info:
        GroundingCheck.create(offline()).failure(error, ["a"], [GroundingSource("a")])
    assert info.value is error


def test_on_error_record_logs_and_reports_the_failure(caplog):
    error = ServiceUnavailableError("CheckGrounding: down")
    check = GroundingCheck.create(offline(), on_error="record", min_support_score=0.7)
    with caplog.at_level(logging.WARNING, logger="grounding_core.check"):
        outcome = check.failure(error, ["a", "b"], [GroundingSource("a")] * 2, ["id-a", "id-b"])
    assert caplog.messages == [
        "the grounding check failed; the answer is kept: CheckGrounding: down"
    ]
    assert caplog.records[0].exc_info[1] is error
    failed = outcome.report
    assert (failed.result, failed.sources, failed.source_ids) == (
        None,
        ("a", "b"),
        ("id-a", "id-b"),
    )
    assert failed.error == "ServiceUnavailableError: CheckGrounding: down"
    assert failed.min_support_score == 0.7
    assert (outcome.on_ungrounded, outcome.fallback_answer, outcome.error) == (
        "annotate",
        None,
        error,
    )
    outcome.enforce()


def test_a_recorded_failure_falls_back():
    error = InputError("no text", field="response")
    check = GroundingCheck.create(offline(), on_error="record", on_ungrounded="fallback")
    outcome = check.failure(error, [], [])
    assert outcome.fallback_answer == DEFAULT_FALLBACK_ANSWER
    assert outcome.report.error == "InputError: no text"


def test_a_recorded_failure_with_the_raise_policy_chains_the_cause():
    error = ServiceUnavailableError("CheckGrounding: down")
    check = GroundingCheck.create(offline(), on_error="record", on_ungrounded="raise")
    outcome = check.failure(error, ["a"], [GroundingSource("a")])
    with pytest.raises(
        UngroundedAnswerError,
        match=r"^the answer could not be checked "
        r"\(ServiceUnavailableError: CheckGrounding: down\)$",
    ) as info:
        outcome.enforce()
    assert info.value.__cause__ is error
    assert info.value.result is outcome.report


# -- against the emulator ------------------------------------------------------------------


def test_check_and_run(connection):
    check = GroundingCheck.create(connection, on_ungrounded="fallback", fallback_answer="No.")
    sources = ["doc-paris", "doc-moon"]
    facts = [GroundingSource(PARIS), GroundingSource("The Moon orbits the Earth.")]
    report = check.check(PARIS, sources, facts, ["p", "m"])
    assert report.support_score == pytest.approx(1.0)
    assert report.passed
    assert report.min_support_score == DEFAULT_MIN_SUPPORT_SCORE
    assert report.claims[0].sources == ("doc-paris",)
    assert report.metadata()["claims"][0]["source_ids"] == ["p"]
    kept = check.run(PARIS, sources, facts, ["p", "m"])
    assert kept == GroundingOutcome(report, "fallback", None, None)
    replaced = check.run(f"{PARIS} {MOON}", sources, facts)
    assert replaced.fallback_answer == "No."
    assert replaced.report.support_score == pytest.approx(0.5)
    assert replaced.report.source_ids == ("0", "1")


async def test_acheck_and_arun_equal_the_sync_ones(connection):
    check = GroundingCheck.create(connection, enable_claim_level_score=True)
    facts = [GroundingSource(PARIS)]
    sync = check.check(f"{PARIS} {MOON}", ["d"], facts)
    asynchronous = await check.acheck(f"{PARIS} {MOON}", ["d"], facts)
    assert asynchronous == sync
    assert all(isinstance(c.score, float) for c in sync.claims)
    assert (await check.arun(f"{PARIS} {MOON}", ["d"], facts)).report == sync


async def test_a_failed_call_follows_on_error(connection, emulator):
    raising = GroundingCheck.create(connection)
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    with pytest.raises(ServiceUnavailableError, match="CheckGrounding on projects/test-project"):
        raising.run(PARIS, ["d"], [GroundingSource(PARIS)])
    recording = dataclasses.replace(raising, on_error="record")
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=2)
    outcome = recording.run(PARIS, ["d"], [GroundingSource(PARIS)])
    assert isinstance(outcome.error, ServiceUnavailableError)
    assert outcome.report.error.startswith("ServiceUnavailableError: CheckGrounding on projects/")
    asynchronous = await recording.arun(PARIS, ["d"], [GroundingSource(PARIS)])
    assert isinstance(asynchronous.error, ServiceUnavailableError)
    assert asynchronous.report.source_ids == ("0",)


def test_input_limits_are_enforced_before_the_call(connection):
    check = GroundingCheck.create(connection, on_error="record")
    outcome = check.run(PARIS * 2000, ["d"], [GroundingSource(PARIS)])
    assert outcome.report.error.startswith("InputError: answer_candidate is about ")
    assert isinstance(outcome.error, InputError)
