"""CheckGrounding calls: the request, the call options, the error's resource, the fact -> source
map and the report (what ``make mutation`` found unasserted in ``grounding_core.grounding``).
The calls go to the session emulator (about 0.2 s to start, once per test run)."""

import pytest

from grounding_core import (
    CallOptions,
    GroundingSource,
    GroundingSpec,
    InputError,
    NotFoundError,
    grounding_config_path,
)
from grounding_core.grounding import (
    acheck_grounding,
    acheck_sources,
    check_grounding,
    check_grounding_request,
    check_sources,
)
from grounding_core.records import GroundingResult
from grounding_core.report import NOTHING_TO_CHECK

from .emulated import PROJECT, RETRYING, result_of

CONFIG = grounding_config_path(PROJECT)
PARIS = "Paris is the capital of France."
MOON = "The Moon is made of cheese."
SOURCES = ["", GroundingSource(PARIS, {"uri": "u"})]  # the empty source is not sent


def test_the_request_has_every_field_and_the_default_spec():
    request, facts = check_grounding_request(CONFIG, PARIS, SOURCES)
    assert request.grounding_config == CONFIG
    assert request.answer_candidate == PARIS
    assert [(f.fact_text, dict(f.attributes)) for f in request.facts] == [(PARIS, {"uri": "u"})]
    assert request.grounding_spec.citation_threshold == pytest.approx(0.6)
    assert request.grounding_spec.enable_claim_level_score is False
    assert dict(request.user_labels) == {}
    assert facts.texts == (PARIS,)
    assert facts.source_indices == (1,)
    with pytest.raises(InputError, match="answer_candidate is empty"):
        check_grounding_request(CONFIG, " ", SOURCES)


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_check_uses_the_spec_the_options_and_the_fact_map(
    emulator, de_clients, de_async_clients, asynchronous
):
    clients = de_async_clients if asynchronous else de_clients
    checking = acheck_grounding if asynchronous else check_grounding

    async def call(*args):
        return await result_of(checking, clients, *args)

    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    result = await call(
        CONFIG,
        f"{PARIS} {MOON}",
        SOURCES,
        GroundingSpec(0.6, enable_claim_level_score=True),
        RETRYING,
    )
    assert result.answer == f"{PARIS} {MOON}"
    assert result.support_score == pytest.approx(0.5)
    assert [c.source_indices for c in result.claims] == [(1,), ()]
    assert [c.text for c in result.claims] == [PARIS, MOON]
    assert all(isinstance(c.score, float) for c in result.claims)
    default = await call(CONFIG, PARIS, SOURCES)
    assert default.claims[0].score is None  # no claim-level score unless asked
    emulator.faults.fail("CheckGrounding", code="NOT_FOUND", times=1)
    with pytest.raises(NotFoundError) as info:
        await call(CONFIG, PARIS, SOURCES, GroundingSpec(), CallOptions(retry=None))
    assert str(info.value).startswith(f"CheckGrounding on {CONFIG} failed: NOT_FOUND: ")


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_report_cites_the_callers_objects(
    emulator, de_clients, de_async_clients, asynchronous
):
    sources = ["doc-empty", "doc-paris"]
    grounding_sources = [GroundingSource(""), GroundingSource(PARIS)]
    kwargs = {"min_support_score": 0.9, "source_ids": ["e", "p"]}
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    clients = de_async_clients if asynchronous else de_clients
    report = await result_of(
        acheck_sources if asynchronous else check_sources,
        clients,
        CONFIG,
        f"{PARIS} {MOON}",
        sources,
        grounding_sources,
        GroundingSpec(enable_claim_level_score=True),
        RETRYING,
        **kwargs,
    )
    assert report.sources == ("doc-empty", "doc-paris")
    assert report.grounding_sources == tuple(grounding_sources)
    assert report.source_ids == ("e", "p")
    assert report.min_support_score == 0.9
    assert not report.passed
    assert report.claims[0].sources == ("doc-paris",)
    assert report.result.support_score == pytest.approx(0.5)
    assert isinstance(report.result.claims[0].score, float)


async def test_reports_by_default_name_sources_by_position(de_clients, de_async_clients):
    sync = check_sources(de_clients, CONFIG, PARIS, ["d"], [GroundingSource(PARIS)])
    asynchronous = await acheck_sources(
        de_async_clients, CONFIG, PARIS, ["d"], [GroundingSource(PARIS)]
    )
    for report in (sync, asynchronous):
        assert report.source_ids == ("0",)
        assert report.metadata()["claims"][0]["source_ids"] == ["0"]
        assert report.min_support_score == 1.0
        assert report.passed
        assert report.result.claims[0].score is None


@pytest.mark.parametrize("asynchronous", [False, True])
@pytest.mark.parametrize("answer", ["", " \n\t"])
async def test_an_empty_answer_is_not_sent_and_is_reported_as_nothing_to_check(
    emulator, de_clients, de_async_clients, asynchronous, answer
):
    # A fault on the next call: the report comes back all the same, so no call was made.
    emulator.faults.fail("CheckGrounding", code="NOT_FOUND", times=1)
    report = await result_of(
        acheck_sources if asynchronous else check_sources,
        de_async_clients if asynchronous else de_clients,
        CONFIG,
        answer,
        ["doc"],
        [GroundingSource(PARIS)],
        min_support_score=0.5,
        source_ids=["p"],
    )
    assert report.result == GroundingResult(answer, None)
    assert report.sources == ("doc",)
    assert report.grounding_sources == (GroundingSource(PARIS),)
    assert (report.min_support_score, report.source_ids) == (0.5, ("p",))
    assert (report.error, report.skipped_reason) == (None, NOTHING_TO_CHECK)
    assert not report.passed
    emulator.faults.clear()


def test_a_non_string_answer_is_still_refused_by_name(de_clients):
    with pytest.raises(InputError, match="answer_candidate must be a string, got NoneType"):
        check_sources(de_clients, CONFIG, None, [], [])
