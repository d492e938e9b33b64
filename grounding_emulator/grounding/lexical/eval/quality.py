"""The lexical judge's quality on labeled cases (see the package's docstring for the set).

Metrics, over claims:

- **balanced accuracy**: the mean of the recall of ``supported`` (predicted: checked with at least
  one citation) and of ``unsupported`` (predicted: checked with no citation); a claim predicted
  ``not_checked`` or not split out as labeled counts as wrong either way;
- **citation precision/recall**: over checked claims (labeled supported or unsupported), the
  cited facts that are labeled as citations over all cited facts, and over all labeled
  citations;
- **not-checked accuracy**: the share of claims whose ``not_checked`` prediction is right;
- **split agreement**: the share of labeled claims that the splitter produced with exactly that
  text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grounding_emulator.grounding.lexical.engine import CheckedClaim, Fact, check_grounding

__all__ = [
    "EVAL_PATH",
    "LABELS",
    "Case",
    "Quality",
    "evaluate",
    "load_cases",
    "split_names",
    "summary",
]

EVAL_PATH = Path(__file__).with_name("grounding_eval.jsonl")
LABELS = ("supported", "unsupported", "not_checked")


@dataclass(frozen=True)
class Case:
    """One labeled answer."""

    id: str
    split: str
    answer: str
    facts: tuple[Fact, ...]
    claims: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Quality:
    """Scores of the checker on a set of cases."""

    cases: int
    claims: int
    balanced_accuracy: float
    supported_recall: float
    unsupported_recall: float
    citation_precision: float
    citation_recall: float
    not_checked_accuracy: float
    split_agreement: float
    errors: tuple[str, ...]


def _fact(raw: Any) -> Fact:
    if isinstance(raw, str):
        return Fact(raw)
    attributes = {"title": raw["title"]} if raw.get("title") else {}
    return Fact(raw["text"], attributes)


def load_cases(path: Path = EVAL_PATH, split: str | None = None) -> list[Case]:
    """The cases of ``path``, optionally of one split only."""
    cases = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            raw = json.loads(line)
            if split is not None and raw["split"] != split:
                continue
            cases.append(
                Case(
                    id=raw["id"],
                    split=raw["split"],
                    answer=raw["answer"],
                    facts=tuple(_fact(f) for f in raw["facts"]),
                    claims=tuple(raw["claims"]),
                )
            )
    return cases


def split_names(path: Path = EVAL_PATH) -> list[str]:
    """The splits of ``path``, in the order they were written (their first case's line)."""
    return list(dict.fromkeys(case.split for case in load_cases(path)))


def _predicted(claim: CheckedClaim | None) -> str:
    if claim is None:
        return "missing"
    if not claim.grounding_check_required:
        return "not_checked"
    return "supported" if claim.fact_indices else "unsupported"


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 1.0


def evaluate(cases: Iterable[Case], *, citation_threshold: float = 0.6) -> Quality:
    """Run the checker on ``cases`` and score it against the labels."""
    hits = {label: 0 for label in LABELS}
    totals = {label: 0 for label in LABELS}
    cited_right = cited_total = gold_total = 0
    nc_right = nc_total = 0
    split_right = 0
    errors: list[str] = []
    case_count = 0
    for case in cases:
        case_count += 1
        outcome = check_grounding(case.answer, case.facts, citation_threshold=citation_threshold)
        unused: list[CheckedClaim] = list(outcome.claims)
        for gold in case.claims:
            label = gold["label"]
            match = next((c for c in unused if c.text == gold["text"]), None)
            if match is not None:
                unused.remove(match)
                split_right += 1
            predicted = _predicted(match)
            totals[label] += 1
            nc_total += 1
            if (predicted == "not_checked") == (label == "not_checked"):
                nc_right += 1
            if predicted == label:
                hits[label] += 1
            else:
                errors.append(_describe(case, gold, match, predicted))
            if label != "not_checked":
                gold_cited = set(gold["cited"])
                cited = set(match.fact_indices) if match else set()
                cited_right += len(cited & gold_cited)
                cited_total += len(cited)
                gold_total += len(gold_cited)
    supported_recall = _ratio(hits["supported"], totals["supported"])
    unsupported_recall = _ratio(hits["unsupported"], totals["unsupported"])
    return Quality(
        cases=case_count,
        claims=sum(totals.values()),
        balanced_accuracy=(supported_recall + unsupported_recall) / 2,
        supported_recall=supported_recall,
        unsupported_recall=unsupported_recall,
        citation_precision=_ratio(cited_right, cited_total),
        citation_recall=_ratio(cited_right, gold_total),
        not_checked_accuracy=_ratio(nc_right, nc_total),
        split_agreement=_ratio(split_right, sum(totals.values())),
        errors=tuple(errors),
    )


def _describe(case: Case, gold: dict[str, Any], match: CheckedClaim | None, predicted: str) -> str:
    detail = ""
    if match is not None:
        detail = f" score={match.score:.2f} cited={list(match.fact_indices)} {match.problems}"
    return (
        f"{case.id} [{gold.get('kind', '')}] {gold['text']!r}: "
        f"labeled {gold['label']}, predicted {predicted}{detail}"
    )


def summary(quality: Quality, name: str = "") -> str:
    """One line of numbers."""
    return (
        f"{name}: {quality.cases} cases, {quality.claims} claims, "
        f"balanced accuracy {quality.balanced_accuracy:.3f} "
        f"(supported {quality.supported_recall:.3f}, "
        f"unsupported {quality.unsupported_recall:.3f}), "
        f"citation P {quality.citation_precision:.3f} R {quality.citation_recall:.3f}, "
        f"not-checked {quality.not_checked_accuracy:.3f}, split {quality.split_agreement:.3f}"
    )
