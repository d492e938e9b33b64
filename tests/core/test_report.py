import pytest

from grounding_core import GroundingReport, UngroundedAnswerError
from grounding_core.metadata import grounding_source

from .test_metadata_render import result


def report(min_support_score=0.6, **kwargs):
    return GroundingReport(
        result(),
        sources=("doc0", "doc1", "doc2"),
        grounding_sources=(),
        min_support_score=min_support_score,
        **kwargs,
    )


def test_claims_resolve_to_the_callers_objects():
    claims = report().claims
    assert [c.sources for c in claims] == [("doc0",), ("doc2", "doc0"), (), ()]
    assert [c.status for c in claims] == ["supported", "supported", "unsupported", "not_checked"]
    assert claims[0].text == "Paris est la capitale ✓."
    assert report().unsupported_claims[0].text == "Marseille a 10 M habitants."


def test_passed_and_enforce():
    assert report(0.6).passed
    report(0.6).enforce("raise")
    failing = report(0.9)
    assert not failing.passed
    failing.enforce("annotate")
    with pytest.raises(
        UngroundedAnswerError, match=r"support score 0\.66 is below the required 0\.9"
    ) as info:
        failing.enforce("raise")
    assert info.value.result is failing


def test_failed_check_report():
    failed = GroundingReport(None, sources=("d",), grounding_sources=(), error="UNAVAILABLE")
    assert (failed.support_score, failed.passed, failed.claims) == (None, False, ())
    assert failed.metadata() == {"support_score": None, "passed": False, "error": "UNAVAILABLE"}
    assert failed.markdown() == ""


def test_metadata_includes_passed():
    metadata = report().metadata()
    assert metadata["passed"] is True
    assert metadata["error"] is None
    assert len(metadata["claims"]) == 4


def test_grounding_source_drops_bulky_and_empty_metadata():
    source = grounding_source(
        "text",
        {
            "title": "T",
            "source": "u",
            "previous_chunks": [{"content": "x"}],
            "rank_signals": {},
            "relevance_score": 0.5,
            "page_start": None,
            "description": "",
        },
    )
    assert source.metadata == {"title": "T", "source": "u", "relevance_score": 0.5}


def test_failed_report_keeps_the_sources_and_says_why():
    error = TimeoutError("too slow")
    failed = GroundingReport.failed(("d",), (grounding_source("t", {}),), error, 0.7)
    assert (failed.result, failed.sources, failed.min_support_score) == (None, ("d",), 0.7)
    assert failed.error == "TimeoutError: too slow"
    assert not failed.passed
