"""A report renders what the renderers render with the same arguments, and names its sources.

Through the public behaviour only: each view of a report is compared with the renderer called
directly with the arguments the report must pass on (title, question, threshold, sources).
"""

import pytest
from rich.console import Console
from rich.text import Text

from grounding_core import GroundingReport, InputError, UngroundedAnswerError
from grounding_core.html_report import check_failed_html, grounding_html
from grounding_core.records import CitedChunk, Claim, GroundingResult, GroundingSource
from grounding_core.render import grounding_markdown

from .claims import claim_at

ANSWER = "Paris is big. Lyon is old."
SOURCES = (
    GroundingSource("Paris text", {"title": "Paris", "source": "https://p.example"}),
    GroundingSource("Lyon text", {"title": "Lyon"}),
)


def cited(index: int) -> CitedChunk:
    return CitedChunk(SOURCES[index].text, source_index=index, fact_index=index)


RESULT = GroundingResult(
    ANSWER,
    0.7,
    (
        claim_at(ANSWER, "Paris is big.", cited(0), score=0.9),
        # Cites source 1 and a source 2 that the report was not given.
        claim_at(ANSWER, "Lyon is old.", cited(1), CitedChunk("x", 2, 2), score=0.7),
    ),
)


def report(**kwargs: object) -> GroundingReport[str]:
    return GroundingReport(RESULT, ("doc-a", "doc-b"), SOURCES, min_support_score=0.65, **kwargs)


def ansi(renderable: object) -> str:
    console = Console(width=120, force_terminal=True, color_system="standard")
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


def test_the_html_passes_every_argument_on():
    page = report().html(title="My check", question="Big?", weak_below=0.95, full_document=False)
    assert page == grounding_html(
        RESULT,
        SOURCES,
        title="My check",
        question="Big?",
        weak_below=0.95,
        min_support_score=0.65,
        full_document=False,
    )
    assert report().html() == grounding_html(RESULT, SOURCES, min_support_score=0.65)
    assert report()._repr_html_() == grounding_html(
        RESULT, SOURCES, min_support_score=0.65, full_document=False
    )


def test_a_failed_report_renders_its_error_with_the_title():
    failed = GroundingReport.failed(("doc-a",), (), ConnectionError("down"))
    assert failed.html(title="T", full_document=False) == check_failed_html(
        "ConnectionError: down", title="T", full_document=False
    )
    assert failed.html() == check_failed_html("ConnectionError: down")
    assert GroundingReport(None, (), ()).html() == check_failed_html("no result")
    assert ansi(failed) == ansi(
        Text("The grounding check failed: ConnectionError: down", style="bold red")
    )
    assert failed.markdown() == ""


def test_the_markdown_names_the_checked_sources():
    assert report().markdown() == grounding_markdown(RESULT, SOURCES)
    assert "1. [Paris](https://p.example)\n2. Lyon" in report().markdown()


def test_the_answer_with_citations_marks_the_given_sources_from_0():
    # The second claim also cites a source 2 that the report was not given: no marker.
    assert report().answer_with_citations == "Paris is big.[0] Lyon is old.[1]"
    failed = GroundingReport.failed(("doc-a",), (), ConnectionError("down"))
    assert failed.answer_with_citations == ""
    assert "answer_with_citations" not in report().metadata()


def test_claims_and_metadata_leave_out_sources_the_report_was_not_given():
    assert [c.sources for c in report().claims] == [("doc-a",), ("doc-b",)]
    metadata = report(source_ids=("a", "b")).metadata()
    assert [c["source_ids"] for c in metadata["claims"]] == [["a"], ["b"]]
    assert metadata["source_ids"] == ["a", "b"]
    assert (metadata["passed"], metadata["error"]) == (True, None)


@pytest.mark.parametrize("ids", [("a",), ("a", "b", "c")])
def test_one_id_per_source_or_a_clear_error(ids):
    with pytest.raises(InputError) as info:
        report(source_ids=ids)
    assert str(info.value) == (
        f"source_ids has {len(ids)} ids for 2 sources: give one id per source, in the same order"
    )
    assert info.value.field == "source_ids"


def test_the_ungrounded_error_lists_every_unsupported_claim():
    claims = (Claim("Paris is big.", 0, 13), Claim("Lyon is old.", 14, 26))
    report = GroundingReport(GroundingResult(ANSWER, 0.0, claims), SOURCES, ())
    with pytest.raises(UngroundedAnswerError) as info:
        report.enforce("raise")
    assert str(info.value) == (
        "the answer's support score 0.00 is below the required 1.00; 2 claim(s) unsupported: "
        "'Paris is big.'; 'Lyon is old.'"
    )


def test_an_empty_answer_has_nothing_to_check():
    empty = GroundingReport.nothing_to_check("", ("doc-a",), SOURCES[:1], 0.5, ("a",))
    assert empty == GroundingReport(
        GroundingResult("", None),
        ("doc-a",),
        SOURCES[:1],
        min_support_score=0.5,
        source_ids=("a",),
        skipped_reason="the answer is empty: there is nothing to check",
    )
    assert (empty.passed, empty.claims, empty.support_score) == (False, (), None)
    assert empty.metadata() == {
        "support_score": None,
        "claims": [],
        "cited_chunks": [],
        "unsupported_claims": 0,
        "passed": False,
        "error": None,
        "source_ids": ["a"],
        "skipped_reason": "the answer is empty: there is nothing to check",
        "citation_annotations": [],
    }
    empty.enforce("raise")  # nothing was claimed: nothing to raise for
    assert GroundingReport.nothing_to_check(" ", (), ()).source_ids == ()
    assert GroundingReport.nothing_to_check(" ", (), ()).min_support_score == 1.0


def test_every_report_has_the_skipped_reason_key():
    assert report().metadata()["skipped_reason"] is None
    assert report().skipped_reason is None
    with pytest.raises(UngroundedAnswerError):
        GroundingReport(GroundingResult("x", 0.0), (), (), skipped_reason=None).enforce("raise")


def test_the_terminal_view_of_an_empty_answer_says_nothing_was_checked():
    empty = GroundingReport.nothing_to_check("", (), ())
    assert ansi(empty) == (
        "\x1b[33mNothing was checked: the answer is empty: there is nothing to check\x1b[0m\n"
    )
