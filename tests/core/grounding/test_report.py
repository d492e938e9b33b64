"""``grounding_core.grounding.report``: ``GroundingReport``, a grounding result tied back to the
caller's own source objects, and ``ClaimReport``.

Covers the claims and the objects they cite, ``passed`` at the pass mark's edge, ``enforce``,
the ids that name the sources (positions by default), ``metadata()`` (every key, also for a
failed check and for an answer with nothing to check), ``answer_with_citations`` (the answer
kept exactly, ``[i]`` after each cited claim, in any script; on hand-built results and on the
emulator), and the views of a report (Markdown, HTML, the notebook and the terminal), each the
view of ``grounding_core.views`` called with what the report holds.
"""

from __future__ import annotations

import re

import pytest
from rich.console import Console
from rich.text import Text

from grounding_core import (
    CitedChunk,
    Claim,
    GroundingCheck,
    GroundingReport,
    GroundingResult,
    GroundingSource,
    InputError,
    UngroundedAnswerError,
)
from grounding_core.grounding.report import NOTHING_TO_CHECK, ClaimReport
from grounding_core.views import grounding_html, grounding_markdown, grounding_rich
from grounding_core.views.html import check_failed_html
from tests.core.claims import claim_at

# Four claims: supported (source 0), supported (sources 2 and 0), unsupported, not checked.
CITED_A = CitedChunk("Paris fact", source_index=0, fact_index=0, title="t0", uri="u0")
CITED_B = CitedChunk("Lyon fact", source_index=2, fact_index=1)
ANSWER = "Paris est la capitale ✓. Lyon est grande. Marseille a 10 M habitants. Merci !"


def four_claims() -> GroundingResult:
    claims = []
    for text, cited, checked, score in [
        ("Paris est la capitale ✓.", (CITED_A,), True, 0.9),
        ("Lyon est grande.", (CITED_B, CITED_A), True, 0.8),
        ("Marseille a 10 M habitants.", (), True, 0.1),
        ("Merci !", (), False, None),
    ]:
        start = ANSWER.index(text)
        claims.append(
            Claim(
                text,
                start,
                start + len(text),
                len(ANSWER[:start].encode()),
                len(ANSWER[: start + len(text)].encode()),
                tuple(range(len(cited))),
                cited,
                score=score,
                grounding_check_required=checked,
            )
        )
    return GroundingResult(ANSWER, 0.66, tuple(claims), (CITED_A, CITED_B))


def report(min_support_score: float = 0.6, **kwargs: object) -> GroundingReport[str]:
    return GroundingReport(
        four_claims(),
        sources=("doc0", "doc1", "doc2"),
        grounding_sources=(),
        min_support_score=min_support_score,
        **kwargs,
    )


def ansi(renderable: object) -> str:
    console = Console(width=120, force_terminal=True, color_system="standard")
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


# -- claims and the objects they cite ----------------------------------------------------------


def test_each_claim_reports_its_claim_and_the_objects_it_cites():
    claims = report().claims
    result = four_claims()
    assert claims == tuple(
        ClaimReport(claim, sources)
        for claim, sources in zip(result.claims, [("doc0",), ("doc2", "doc0"), (), ()], strict=True)
    )
    first = claims[0]
    assert (first.text, first.start, first.end, first.status, first.score) == (
        "Paris est la capitale ✓.",
        0,
        24,
        "supported",
        0.9,
    )
    assert [c.status for c in claims] == ["supported", "supported", "unsupported", "not_checked"]
    assert [c.score for c in claims] == [0.9, 0.8, 0.1, None]
    assert report().unsupported_claims == (claims[2],)


def test_a_claim_without_a_span_reports_none():
    claim = ClaimReport(Claim("No span."), ())
    assert (claim.start, claim.end, claim.score) == (None, None, None)


@pytest.mark.parametrize(("count", "expected"), [(3, ("c",)), (2, ())])
def test_claims_leave_out_sources_the_report_was_not_given(count, expected):
    # Source index 2: the last of three sources, or one past the end of two.
    cited = CitedChunk("f", source_index=2, fact_index=0)
    claim = Claim("x", 0, 1, citation_indices=(0,), citations=(cited,))
    sources = ("a", "b", "c")[:count]
    made = GroundingReport(GroundingResult("x", 1.0, (claim,)), sources, ())
    assert made.claims[0].sources == expected
    assert made.metadata()["claims"][0]["source_ids"] == (["2"] if expected else [])


# -- the pass mark -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("min_support_score", "passed"), [(0.6, True), (0.66, True), (0.6600001, False), (1.0, False)]
)
def test_an_answer_passes_when_its_score_reaches_the_pass_mark(min_support_score, passed):
    assert report(min_support_score).passed is passed
    assert report(min_support_score).metadata()["passed"] is passed


def test_an_answer_whose_every_checked_claim_is_supported_passes_whatever_its_score():
    cited = CitedChunk("f", source_index=0, fact_index=0)
    claims = (Claim("A.", 0, 2, citation_indices=(0,), citations=(cited,)),)
    assert GroundingReport(GroundingResult("A.", 0.1, claims), ("d",), ()).passed


def test_the_default_pass_mark_is_1():
    assert report(1.0) == GroundingReport(
        four_claims(), ("doc0", "doc1", "doc2"), grounding_sources=()
    )


def test_enforce_raises_only_for_the_raise_policy_and_an_ungrounded_answer():
    report(0.6).enforce("raise")
    failing = report(0.9)
    failing.enforce("annotate")
    failing.enforce("fallback")
    with pytest.raises(UngroundedAnswerError, match=r"0\.66 is below the required 0\.90") as info:
        failing.enforce("raise")
    assert info.value.result is failing
    assert "1 claim(s) unsupported: 'Marseille a 10 M habitants.'" in str(info.value)


def test_the_ungrounded_error_lists_every_unsupported_claim():
    claims = (Claim("Paris is big.", 0, 13), Claim("Lyon is old.", 14, 26))
    failing = GroundingReport(GroundingResult("Paris is big. Lyon is old.", 0.0, claims), (), ())
    with pytest.raises(UngroundedAnswerError) as info:
        failing.enforce("raise")
    assert str(info.value).endswith(
        "0.00 is below the required 1.00; 2 claim(s) unsupported: 'Paris is big.'; 'Lyon is old.'"
    )


def test_the_ungrounded_error_of_an_answer_without_claims_lists_none():
    failing = GroundingReport(GroundingResult("x", None), (), ())
    with pytest.raises(UngroundedAnswerError) as info:
        failing.enforce("raise")
    assert str(info.value).endswith("0 claim(s) unsupported")


# -- the ids of the sources -------------------------------------------------------------------


def test_sources_are_named_by_their_ids_or_their_positions():
    assert report().source_ids == ("0", "1", "2")
    assert report(source_ids=("doc-a", "", "doc-c")).source_ids == ("doc-a", "1", "doc-c")
    assert GroundingReport(None, (), ()).source_ids == ()


@pytest.mark.parametrize("ids", [("a",), ("a", "b"), ("a", "b", "c", "d")])
def test_one_id_per_source(ids):
    words = (
        f"^source_ids has {len(ids)} ids for 3 sources: give one id per source, in the same order$"
    )
    with pytest.raises(InputError, match=words) as info:
        report(source_ids=ids)
    assert (info.value.field, info.value.limit) == ("source_ids", None)


# -- metadata ---------------------------------------------------------------------------------


def test_metadata_has_the_pass_mark_and_the_source_ids():
    metadata = report().metadata()
    assert (metadata["passed"], metadata["error"], metadata["skipped_reason"]) == (
        True,
        None,
        None,
    )
    assert metadata["support_score"] == 0.66
    assert metadata["unsupported_claims"] == 1
    assert metadata["source_ids"] == ["0", "1", "2"]
    assert [c["source_ids"] for c in metadata["claims"]] == [["0"], ["2", "0"], [], []]
    assert [c["source_indices"] for c in metadata["claims"]] == [[0], [2, 0], [], []]
    assert metadata["citation_annotations"] == [
        {
            "start_index": 0,
            "end_index": 24,
            "cited_text": "Paris fact",
            "source_index": 0,
            "source_id": "0",
            "url": "u0",  # the cited chunk's: the report was given no grounding sources
            "title": "t0",
            "claim_index": 0,
        },
        {
            "start_index": 25,
            "end_index": 41,
            "cited_text": "Lyon fact",
            "source_index": 2,
            "source_id": "2",
            "url": "",
            "title": "",
            "claim_index": 1,
        },
        {
            "start_index": 25,
            "end_index": 41,
            "cited_text": "Paris fact",
            "source_index": 0,
            "source_id": "0",
            "url": "u0",  # the cited chunk's: the report was given no grounding sources
            "title": "t0",
            "claim_index": 1,
        },
    ]
    assert "answer_with_citations" not in metadata


def test_metadata_names_the_sources_by_their_ids_and_nothing_else_changes():
    named = report(source_ids=("a", "b", "c")).metadata()
    plain = report().metadata()
    assert named["source_ids"] == ["a", "b", "c"]
    assert [c["source_ids"] for c in named["claims"]] == [["a"], ["c", "a"], [], []]
    assert [s["source_id"] for s in named["citation_annotations"]] == ["a", "c", "a"]
    renamed = ("source_ids", "claims", "citation_annotations")
    assert {k: v for k, v in named.items() if k not in renamed} == {
        k: v for k, v in plain.items() if k not in renamed
    }
    for with_ids, without in zip(
        named["citation_annotations"], plain["citation_annotations"], strict=True
    ):
        assert {**with_ids, "source_id": ""} == {**without, "source_id": ""}
    for with_ids, without in zip(named["claims"], plain["claims"], strict=True):
        assert {**with_ids, "source_ids": []} == {**without, "source_ids": []}


# -- a failed check, and an answer with nothing to check --------------------------------------

EVERY_KEY_EMPTY = {
    "support_score": None,
    "claims": [],
    "cited_chunks": [],
    "unsupported_claims": 0,
    "citation_annotations": [],
}


def test_a_failed_check_keeps_the_sources_and_says_why():
    source = GroundingSource("t", {"title": "T"})
    failed = GroundingReport.failed(("d",), (source,), TimeoutError("too slow"), 0.7)
    assert failed == GroundingReport(
        None, ("d",), (source,), min_support_score=0.7, error="TimeoutError: too slow"
    )
    assert failed.source_ids == ("0",)
    assert (failed.support_score, failed.passed, failed.claims) == (None, False, ())
    assert failed.unsupported_claims == ()
    assert failed.metadata() == {
        **EVERY_KEY_EMPTY,
        "passed": False,
        "error": "TimeoutError: too slow",
        "source_ids": ["0"],
        "skipped_reason": None,
    }
    named = GroundingReport.failed(("d",), (source,), TimeoutError("too slow"), 0.7, ["doc-d"])
    assert named.metadata()["source_ids"] == ["doc-d"]
    assert GroundingReport.failed((), (), TimeoutError("x")).min_support_score == 1.0


def test_a_failed_check_has_no_markdown_no_citations_and_says_why_in_html_and_terminal():
    failed = GroundingReport.failed(("doc-a",), (), ConnectionError("down"))
    assert failed.markdown() == ""
    assert failed.answer_with_citations == ""
    assert failed.html(title="T", full_document=False) == check_failed_html(
        "ConnectionError: down", title="T", full_document=False
    )
    assert failed.html() == check_failed_html("ConnectionError: down")
    assert GroundingReport(None, (), ()).html() == check_failed_html("no result")
    assert ansi(failed) == ansi(
        Text("The grounding check failed: ConnectionError: down", style="bold red")
    )
    # The error is shown on one line, its control characters made visible.
    multi = GroundingReport.failed((), (), ConnectionError("down\n\x1b[2Jnow"))
    assert "\x1b[2J" not in ansi(multi)
    assert len(ansi(multi).splitlines()) == 1


def test_an_empty_answer_has_nothing_to_check():
    sources = (GroundingSource("a"),)
    empty = GroundingReport.nothing_to_check("", ("doc-a",), sources, 0.5, ("a",))
    assert empty == GroundingReport(
        GroundingResult("", None),
        ("doc-a",),
        sources,
        min_support_score=0.5,
        source_ids=("a",),
        skipped_reason=NOTHING_TO_CHECK,
    )
    assert (empty.passed, empty.claims, empty.support_score, empty.error) == (
        False,
        (),
        None,
        None,
    )
    assert empty.metadata() == {
        **EVERY_KEY_EMPTY,
        "passed": False,
        "error": None,
        "source_ids": ["a"],
        "skipped_reason": NOTHING_TO_CHECK,
    }
    empty.enforce("raise")  # nothing was claimed: nothing to raise for
    blank = GroundingReport.nothing_to_check(" \n", (), ())
    assert (blank.source_ids, blank.min_support_score) == ((), 1.0)
    assert blank.answer_with_citations == " \n"


def test_the_terminal_view_of_an_empty_answer_says_nothing_was_checked():
    empty = GroundingReport.nothing_to_check("", (), ())
    assert ansi(empty) == ansi(Text(f"Nothing was checked: {NOTHING_TO_CHECK}", style="yellow"))


def test_a_checked_answer_always_raises_when_ungrounded():
    with pytest.raises(UngroundedAnswerError):
        GroundingReport(GroundingResult("x", 0.0), (), (), skipped_reason=None).enforce("raise")


# -- the views ---------------------------------------------------------------------------------

VIEW_ANSWER = "Paris is big. Lyon is old."
VIEW_SOURCES = (
    GroundingSource("Paris text", {"title": "Paris", "source": "https://p.example"}),
    GroundingSource("Lyon text", {"title": "Lyon"}),
)
VIEW_RESULT = GroundingResult(
    VIEW_ANSWER,
    0.7,
    (
        claim_at(VIEW_ANSWER, "Paris is big.", CitedChunk("Paris text", 0, 0), score=0.9),
        # Cites source 1 and a source 2 that the report was not given.
        claim_at(
            VIEW_ANSWER,
            "Lyon is old.",
            CitedChunk("Lyon text", 1, 1),
            CitedChunk("x", 2, 2),
            score=0.7,
        ),
    ),
)


def view_report() -> GroundingReport[str]:
    return GroundingReport(VIEW_RESULT, ("doc-a", "doc-b"), VIEW_SOURCES, min_support_score=0.65)


def test_the_html_passes_every_argument_on():
    page = view_report().html(
        title="My check", question="Big?", weak_below=0.95, full_document=False
    )
    assert page == grounding_html(
        VIEW_RESULT,
        VIEW_SOURCES,
        title="My check",
        question="Big?",
        weak_below=0.95,
        min_support_score=0.65,
        full_document=False,
    )
    assert view_report().html() == grounding_html(VIEW_RESULT, VIEW_SOURCES, min_support_score=0.65)


def test_a_notebook_shows_the_embeddable_html():
    # _repr_html_ is the notebook's display protocol, the surface Jupyter calls.
    assert view_report()._repr_html_() == grounding_html(
        VIEW_RESULT, VIEW_SOURCES, min_support_score=0.65, full_document=False
    )


def test_the_markdown_numbers_the_checked_sources():
    assert view_report().markdown() == grounding_markdown(VIEW_RESULT, VIEW_SOURCES)
    assert "1. [Paris](https://p.example)\n2. Lyon" in view_report().markdown()


def test_the_terminal_view_is_the_rich_view_with_the_pass_mark():
    assert ansi(view_report()) == ansi(
        grounding_rich(VIEW_RESULT, VIEW_SOURCES, min_support_score=0.65)
    )
    assert ansi(view_report()) != ansi(grounding_rich(VIEW_RESULT, VIEW_SOURCES))


# -- answer_with_citations --------------------------------------------------------------------

SOURCES = ("doc-a", "doc-b", "doc-c")
MARKERS = re.compile(r"\[\d+\]")


def cites(*indices: int) -> tuple[CitedChunk, ...]:
    return tuple(CitedChunk(f"fact {i}", source_index=i, fact_index=i) for i in indices)


def marked(answer: str, *claims: Claim, sources: tuple[str, ...] = SOURCES) -> str:
    return GroundingReport(GroundingResult(answer, 0.5, claims), sources, ()).answer_with_citations


@pytest.mark.parametrize(
    ("answer", "claims", "expected"),
    [
        pytest.param(
            "Paris is big. Lyon is old.",
            [("Paris is big.", (0,)), ("Lyon is old.", (1,))],
            "Paris is big.[0] Lyon is old.[1]",
            id="ascii",
        ),
        pytest.param(
            "Paris is big. Lyon is old.",
            [("Paris is big.", (2, 0)), ("Lyon is old.", ())],
            "Paris is big.[2][0] Lyon is old.",
            id="several-sources-in-citation-order-and-an-uncited-claim",
        ),
        pytest.param(
            "Paris is big.",
            [("Paris is big.", (1, 1, 1))],
            "Paris is big.[1]",
            id="a-source-cited-twice-is-marked-once",
        ),
        pytest.param(
            "Intro:\n\n  Paris is big.   Lyon is old.  \n",
            [("Paris is big.", (0,)), ("Lyon is old.", (2,))],
            "Intro:\n\n  Paris is big.[0]   Lyon is old.[2]  \n",
            id="whitespace-and-text-outside-the-claims-kept",
        ),
        pytest.param(
            "Paris is big.Lyon is old.",
            [("Paris is big.", (0,)), ("Lyon is old.", (1,))],
            "Paris is big.[0]Lyon is old.[1]",
            id="adjacent-claims",
        ),
        pytest.param(
            "東京は日本の首都です。大阪は大きな都市です。",
            [("東京は日本の首都です。", (1,)), ("大阪は大きな都市です。", (0,))],
            "東京は日本の首都です。[1]大阪は大きな都市です。[0]",
            id="cjk",
        ),
        pytest.param(
            "We flew 🚀🇺🇸. Then 👩‍👩‍👧 ate 🎉",
            [("We flew 🚀🇺🇸.", (0,)), ("Then 👩‍👩‍👧 ate 🎉", (1,))],
            "We flew 🚀🇺🇸.[0] Then 👩‍👩‍👧 ate 🎉[1]",
            id="emoji-4-byte-flags-zwj-and-a-claim-ending-in-one",
        ),
        pytest.param(
            "The cafe\u0301 opens. Nai\u0308ve e\u0301",
            [("The cafe\u0301 opens.", (0,)), ("Nai\u0308ve e\u0301", (1,))],
            "The cafe\u0301 opens.[0] Nai\u0308ve e\u0301[1]",
            id="combining-marks-stay-on-their-letters",
        ),
        pytest.param(
            "القاهرة هي عاصمة مصر. שלום עולם.",
            [("القاهرة هي عاصمة مصر.", (0,)), ("שלום עולם.", (1,))],
            "القاهرة هي عاصمة مصر.[0] שלום עולם.[1]",
            id="rtl-in-logical-order",
        ),
        pytest.param(
            "Lyon is old. Paris is big.",
            [("Paris is big.", (0,)), ("Lyon is old.", (1,))],
            "Lyon is old.[1] Paris is big.[0]",
            id="claims-marked-in-text-order",
        ),
    ],
)
def test_markers_follow_each_cited_claim(answer, claims, expected):
    built = [claim_at(answer, text, *cites(*indices)) for text, indices in claims]
    result = marked(answer, *built)
    assert result == expected
    assert MARKERS.sub("", result) == answer


def test_claims_at_the_very_start_and_the_very_end():
    assert marked("A.", Claim("A.", 0, 2, citations=cites(0), citation_indices=(0,))) == "A.[0]"
    # A claim that is a single character at offset 0 (the smallest usable span).
    assert marked("xy", Claim("x", 0, 1, citations=cites(2), citation_indices=(0,))) == "x[2]y"


@pytest.mark.parametrize(
    ("start", "end"),
    [(None, None), (None, 3), (0, None), (-1, 3), (0, 14), (3, 3), (4, 2)],
    ids=["no-span", "no-start", "no-end", "negative", "one-past-the-end", "empty", "reversed"],
)
def test_a_claim_without_a_usable_span_is_not_marked(start, end):
    answer = "Paris is big."
    claim = Claim("Paris is big.", start, end, citations=cites(0), citation_indices=(0,))
    assert marked(answer, claim) == answer


def test_an_overlapping_claim_is_not_marked_and_the_text_is_not_repeated():
    answer = "Paris is big. Lyon is old."
    first = claim_at(answer, "Paris is big.", *cites(0))
    overlapping = Claim("is big. Lyon", 6, 18, citations=cites(1), citation_indices=(0,))
    assert marked(answer, first, overlapping) == "Paris is big.[0] Lyon is old."
    assert marked(answer, overlapping, first) == "Paris is big. Lyon[1] is old."


def test_only_sources_the_report_was_given_are_marked():
    answer = "Paris is big."
    claim = claim_at(answer, answer, *cites(1, 3, 2))
    assert marked(answer, claim) == "Paris is big.[1][2]"  # no source 3 among three
    assert marked(answer, claim, sources=()) == answer
    no_source = CitedChunk("fact", source_index=None, fact_index=None)
    assert marked(answer, claim_at(answer, answer, no_source)) == answer


def test_claims_not_checked_or_unsupported_get_no_marker():
    answer = "Hello! Paris is big."
    greeting = Claim("Hello!", 0, 6, grounding_check_required=False)
    unsupported = Claim("Paris is big.", 7, 20)
    assert marked(answer, greeting, unsupported) == answer


def test_an_answer_without_claims_is_kept_as_it_is():
    no_claims = GroundingReport(GroundingResult("No claims here.", None), (), ())
    assert no_claims.answer_with_citations == "No claims here."
    for answer in ("", "  \n"):
        assert GroundingReport.nothing_to_check(answer, SOURCES, ()).answer_with_citations == (
            answer
        )


EMULATED = [
    pytest.param(
        "東京は日本の首都です。大阪は大きな都市です。",
        ["大阪は大きな都市です。", "東京は日本の首都です。"],
        "東京は日本の首都です。[1]大阪は大きな都市です。[0]",
        id="cjk-adjacent-claims",
    ),
    pytest.param(
        "Rockets 🚀 fly to orbit. Parties 🎉 need cake.",
        ["Parties 🎉 need cake.", "Rockets 🚀 fly to orbit."],
        "Rockets 🚀 fly to orbit.[1] Parties 🎉 need cake.[0]",
        id="emoji",
    ),
    pytest.param(
        "The cafe\u0301 opens at nine. The cafe\u0301 closes at six.",
        ["The cafe\u0301 closes at six."],
        "The cafe\u0301 opens at nine. The cafe\u0301 closes at six.[0]",
        id="combining-an-uncited-claim-and-a-claim-at-the-end",
    ),
    pytest.param(
        "القاهرة هي عاصمة مصر. שלום עולם הוא ברכה.",
        ["القاهرة هي عاصمة مصر.", "", "שלום עולם הוא ברכה."],
        "القاهرة هي عاصمة مصر.[0] שלום עולם הוא ברכה.[2]",
        id="rtl-and-an-empty-source-that-shifts-nothing",
    ),
]


@pytest.mark.parametrize(("answer", "facts", "expected"), EMULATED)
async def test_the_spans_the_service_sends_mark_the_right_places(
    connections, answer, facts, expected
):
    check = GroundingCheck(connections[0])
    grounding_sources = [GroundingSource(f) for f in facts]
    report = check.check(answer, facts, grounding_sources)
    assert report.answer_with_citations == expected
    # Every marker follows its claim's last character, at the claim's string span.
    for claim in report.claims:
        assert answer[claim.start : claim.end] == claim.text
        markers = "".join(f"[{i}]" for i in claim.claim.source_indices)
        assert claim.text + markers in report.answer_with_citations
    asynchronous = await check.acheck(answer, facts, grounding_sources)
    assert asynchronous.answer_with_citations == expected
