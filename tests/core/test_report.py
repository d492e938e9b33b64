import pytest

from grounding_core import GroundingReport, InputError, UngroundedAnswerError
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
    assert failed.metadata() == {
        "support_score": None,
        "claims": [],
        "cited_chunks": [],
        "unsupported_claims": 0,
        "passed": False,
        "error": "UNAVAILABLE",
        "source_ids": ["0"],
        "skipped_reason": None,
        "citation_annotations": [],
    }
    assert failed.markdown() == ""


def test_metadata_includes_passed_and_the_source_ids():
    metadata = report().metadata()
    assert metadata["passed"] is True
    assert metadata["error"] is None
    assert len(metadata["claims"]) == 4
    # no ids given: the sources are named by their positions
    assert metadata["source_ids"] == ["0", "1", "2"]
    assert [c["source_ids"] for c in metadata["claims"]] == [["0"], ["2", "0"], [], []]
    assert [c["source_indices"] for c in metadata["claims"]] == [[0], [2, 0], [], []]


def test_metadata_names_the_sources_by_their_ids():
    named = report(source_ids=("a", "b", "c"))
    assert named.source_ids == ("a", "b", "c")
    metadata = named.metadata()
    assert metadata["source_ids"] == ["a", "b", "c"]
    assert [c["source_ids"] for c in metadata["claims"]] == [["a"], ["c", "a"], [], []]
    assert [s["source_id"] for s in metadata["citation_annotations"]] == ["a", "c", "a"]
    # the rest of the metadata does not depend on the ids
    plain = report().metadata()
    assert [s["source_id"] for s in plain["citation_annotations"]] == ["0", "2", "0"]
    named_keys = ("source_ids", "claims", "citation_annotations")
    assert {k: v for k, v in metadata.items() if k not in named_keys} == {
        k: v for k, v in plain.items() if k not in named_keys
    }
    for with_ids, without in zip(
        metadata["citation_annotations"], plain["citation_annotations"], strict=True
    ):
        assert {**with_ids, "source_id": ""} == {**without, "source_id": ""}
    for with_ids, without in zip(metadata["claims"], plain["claims"], strict=True):
        assert set(with_ids) == set(without)
        assert {k: v for k, v in with_ids.items() if k != "source_ids"} == {
            k: v for k, v in without.items() if k != "source_ids"
        }


def test_one_id_per_source():
    with pytest.raises(InputError, match="source_ids has 2 ids for 3 sources") as info:
        report(source_ids=("a", "b"))
    assert info.value.field == "source_ids"


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
    source = grounding_source("t", {})
    failed = GroundingReport.failed(("d",), (source,), error, 0.7)
    assert (failed.result, failed.sources, failed.min_support_score) == (None, ("d",), 0.7)
    assert failed.grounding_sources == (source,)
    assert failed.error == "TimeoutError: too slow"
    assert failed.source_ids == ("0",)
    assert not failed.passed
    named = GroundingReport.failed(("d",), (source,), error, 0.7, ["doc-d"])
    assert named.source_ids == ("doc-d",)
    assert named.metadata()["source_ids"] == ["doc-d"]


def test_sources_without_an_id_are_named_by_their_position():
    assert report().source_ids == ("0", "1", "2")
    assert report(source_ids=("doc-a", "", "doc-c")).source_ids == ("doc-a", "1", "doc-c")
    with pytest.raises(InputError, match="source_ids has 2 ids for 3 sources"):
        report(source_ids=("x", "y"))
