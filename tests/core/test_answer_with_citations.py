"""``GroundingReport.answer_with_citations``: the answer, kept exactly, with ``[i]`` after each
cited claim (``i`` = the cited source's 0-based position in the sources given).

Hand-built results pin every boundary; checks on the emulator (Google's client, a real gRPC
channel) show the spans the service sends mark the right places in any script."""

from __future__ import annotations

import re

import pytest

from grounding_core import GroundingCheck, GroundingReport, GroundingSource
from grounding_core.records import CitedChunk, Claim, GroundingResult

from .claims import claim_at

SOURCES = ("doc-a", "doc-b", "doc-c")
MARKERS = re.compile(r"\[\d+\]")


def cites(*indices: int) -> tuple[CitedChunk, ...]:
    return tuple(CitedChunk(f"fact {i}", source_index=i, fact_index=i) for i in indices)


def marked(answer: str, *claims: Claim, sources: tuple[str, ...] = SOURCES) -> str:
    report = GroundingReport(GroundingResult(answer, 0.5, claims), sources, ())
    return report.answer_with_citations


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
def test_markers_after_each_cited_claim(answer, claims, expected):
    built = [claim_at(answer, text, *cites(*indices)) for text, indices in claims]
    result = marked(answer, *built)
    assert result == expected
    assert MARKERS.sub("", result) == answer


def test_a_claim_at_the_very_end_and_the_very_start():
    answer = "A."
    assert marked(answer, Claim("A.", 0, 2, citations=cites(0), citation_indices=(0,))) == "A.[0]"
    # A claim that is a single character at offset 0 (the smallest usable span).
    assert marked("xy", Claim("x", 0, 1, citations=cites(2))) == "x[2]y"


@pytest.mark.parametrize(
    ("start", "end"),
    [(None, None), (None, 3), (0, None), (-1, 3), (0, 99), (3, 3), (4, 2)],
    ids=["no-span", "no-start", "no-end", "negative", "past-the-end", "empty", "reversed"],
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


def test_claims_that_were_not_checked_or_found_unsupported_get_no_marker():
    answer = "Hello! Paris is big."
    greeting = Claim("Hello!", 0, 6, grounding_check_required=False)
    unsupported = Claim("Paris is big.", 7, 20)
    assert marked(answer, greeting, unsupported) == answer


def test_nothing_to_check_and_a_failed_check():
    for answer in ("", "  \n"):
        empty = GroundingReport.nothing_to_check(answer, SOURCES, ())
        assert empty.answer_with_citations == answer
    failed = GroundingReport.failed(SOURCES, (), ConnectionError("down"))
    assert failed.answer_with_citations == ""
    assert GroundingReport(
        GroundingResult("No claims here.", None), (), ()
    ).answer_with_citations == ("No claims here.")


# -- on the emulator ------------------------------------------------------------------------

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


@pytest.fixture
def check(connections):
    return GroundingCheck.create(connections[0])


@pytest.mark.parametrize(("answer", "facts", "expected"), EMULATED)
def test_on_the_emulator(check, answer, facts, expected):
    report = check.check(answer, facts, [GroundingSource(f) for f in facts])
    assert report.answer_with_citations == expected
    # Every marker follows its claim's last character, at the claim's string span.
    for claim in report.claims:
        assert answer[claim.start : claim.end] == claim.text
        markers = "".join(f"[{i}]" for i in claim.claim.source_indices)
        assert claim.text + markers in report.answer_with_citations


@pytest.mark.parametrize(("answer", "facts", "expected"), EMULATED[:2])
async def test_on_the_emulator_async(check, answer, facts, expected):
    report = await check.acheck(answer, facts, [GroundingSource(f) for f in facts])
    assert report.answer_with_citations == expected
