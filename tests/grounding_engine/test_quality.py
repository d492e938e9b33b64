"""The checker keeps its measured quality on the labeled set, and the set keeps its shape."""

from __future__ import annotations

from collections import Counter

import pytest

from grounding_emulator.grounding.lexical.eval import FLOORS, evaluate, load_cases

CASES = load_cases()
SPLITS = ("dev", "heldout", "blind", "final", "blind2", "blind3", "blind4", "blind5", "blind6")
KINDS = {
    "supported": {"verbatim", "paraphrase", "joint"},
    "unsupported": {
        "wrong_number",
        "wrong_date",
        "wrong_unit",
        "wrong_name",
        "flipped_negation",
        "flipped_comparative",
        "extra_detail",
    },
    "not_checked": {"connective"},
}


def test_the_set_is_large_and_balanced_enough():
    claims = [claim for case in CASES for claim in case.claims]
    labels = Counter(claim["label"] for claim in claims)
    assert len(CASES) >= 50
    assert len(claims) >= 150
    assert 0.33 <= labels["unsupported"] / len(claims) <= 0.5
    assert labels["not_checked"] >= 10
    for label, kinds in KINDS.items():
        found = {claim["kind"] for claim in claims if claim["label"] == label}
        assert found == kinds, label


def test_the_set_covers_other_scripts_and_emoji():
    def non_latin_or_emoji(text: str) -> bool:
        return any(ord(ch) > 0x024F for ch in text)

    assert sum(1 for case in CASES if non_latin_or_emoji(case.answer)) >= 10


def test_labels_are_consistent():
    for case in CASES:
        assert case.split in SPLITS, case.id
        for claim in case.claims:
            assert claim["text"] in case.answer, (case.id, claim["text"])
            if claim["label"] == "supported":
                assert claim["cited"], (case.id, claim["text"])
                assert all(0 <= i < len(case.facts) for i in claim["cited"])
            else:
                assert claim["cited"] == [], (case.id, claim["text"])


def test_every_held_out_split_and_the_whole_set_has_a_floor():
    assert set(FLOORS) == {None, *SPLITS} - {"dev"}


@pytest.mark.parametrize("split", list(FLOORS))
def test_quality_keeps_its_floor(split):
    cases = [case for case in CASES if split is None or case.split == split]
    quality = evaluate(cases)
    report = "\n".join(quality.errors)
    floor = FLOORS[split]
    assert quality.cases == len(cases)
    assert quality.balanced_accuracy >= floor.balanced_accuracy, report
    assert quality.citation_precision >= floor.citation_precision, report
    assert quality.citation_recall >= floor.citation_recall, report
    assert quality.not_checked_accuracy >= floor.not_checked_accuracy, report
    assert quality.split_agreement >= floor.split_agreement, report


def test_benchmark_quick():
    from benchmarks import bench_grounding_quality

    rows = bench_grounding_quality.run(quick=True)
    metrics = {row.metric for row in rows}
    assert {
        "balanced accuracy",
        "citation precision",
        "claims per second",
        "p50 latency",
    } <= metrics
    assert all(row.value > 0 for row in rows)
