"""Quality and speed of the emulator's grounding checker (CheckGrounding).

Quality, on the lexical judge's labeled set (see :mod:`grounding_emulator.grounding.lexical.eval`
for the metrics and the splits), per split. The baseline is the first version of the checker: a
claim is supported by a fact that holds at least 60 % of its words.

Speed: claims per second over the whole labeled set (facts analyzed afresh for every case), and
the latency of one check of 200 facts x 20 claims (facts of about 350 characters, built from the
labeled set's English facts): ``cold`` analyzes the 200 facts in the call, ``warm`` finds them in
the cache of analyzed facts (the emulator checks the same corpus chunks again and again).
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Sequence

from benchmarks.common import Row, percentile, time_calls
from grounding_emulator.grounding.claims import split_claims
from grounding_emulator.grounding.lexical import engine as grounding_engine
from grounding_emulator.grounding.lexical.engine import CheckOutcome, Fact, check_grounding
from grounding_emulator.grounding.lexical.eval import Case, evaluate, load_cases, split_names

NAME = "grounding_quality"
_WORD = re.compile(r"\w+")


def _naive_check(answer: str, facts: Sequence[Fact], *, citation_threshold: float = 0.6) -> int:
    """The first version's verdict for each claim: how many were supported (for speed)."""
    fact_words = [{w.casefold() for w in _WORD.findall(f.text)} for f in facts]
    supported = 0
    for start, end in split_claims(answer):
        words = {w.casefold() for w in _WORD.findall(answer[start:end])}
        if words and any(len(words & fw) / len(words) >= citation_threshold for fw in fact_words):
            supported += 1
    return supported


def _naive_quality(cases: Sequence[Case]) -> tuple[float, float]:
    """Balanced accuracy and citation precision of the first version on ``cases``."""
    hits = {"supported": 0, "unsupported": 0}
    totals = {"supported": 0, "unsupported": 0}
    cited_right = cited_total = 0
    for case in cases:
        fact_words = [{w.casefold() for w in _WORD.findall(f.text)} for f in case.facts]
        for gold in case.claims:
            if gold["label"] == "not_checked":
                continue
            words = {w.casefold() for w in _WORD.findall(gold["text"])}
            cited = {
                i
                for i, fw in enumerate(fact_words)
                if words and len(words & fw) / len(words) >= 0.6
            }
            predicted = "supported" if cited else "unsupported"
            totals[gold["label"]] += 1
            hits[gold["label"]] += predicted == gold["label"]
            cited_right += len(cited & set(gold["cited"]))
            cited_total += len(cited)
    recall = [hits[k] / totals[k] if totals[k] else 1.0 for k in hits]
    return sum(recall) / 2, cited_right / cited_total if cited_total else 1.0


def latency_workload(n_facts: int = 200, n_claims: int = 20) -> tuple[str, list[Fact]]:
    """An answer of ``n_claims`` claims and ``n_facts`` facts of about 350 characters."""
    cases = load_cases()
    english = [f.text for c in cases for f in c.facts if f.text.isascii()]
    claims = [g["text"] for c in cases for g in c.claims if c.answer.isascii()]
    rng = random.Random(4)
    facts = []
    while len(facts) < n_facts:
        text = " ".join(rng.sample(english, 2))
        while len(text) < 300:
            text += " " + rng.choice(english)
        facts.append(Fact(f"{text} (Revision {len(facts)}.)", {"title": f"Page {len(facts)}"}))
    return " ".join(claims[:n_claims]), facts


def _cold(answer: str, facts: list[Fact]) -> CheckOutcome:
    grounding_engine._premise.cache_clear()
    return check_grounding(answer, facts)


def run(quick: bool = False) -> list[Row]:
    """Quality per split against the first version, claims per second, 200x20 latency."""
    rows = []
    splits: list[tuple[str, str | None]] = [("all", None)]
    splits += [(name, name) for name in split_names()]
    for name, split in splits[:1] if quick else splits:
        cases = load_cases(split=split)
        if quick:
            cases = cases[:8]
        if not cases:
            continue
        quality = evaluate(cases)
        naive_ba, naive_precision = _naive_quality(cases)
        case = f"{name}: {quality.cases} cases, {quality.claims} claims"
        rows += [
            Row(NAME, case, "balanced accuracy", quality.balanced_accuracy, "", naive_ba,
                "first version", ">= 0.85"),
            Row(NAME, case, "citation precision", quality.citation_precision, "",
                naive_precision, "first version", ">= 0.9"),
            Row(NAME, case, "citation recall", quality.citation_recall, ""),
            Row(NAME, case, "not-checked accuracy", quality.not_checked_accuracy, ""),
        ]  # fmt: skip
    cases = load_cases()[: 8 if quick else None]
    claims = sum(len(c.claims) for c in cases)
    rounds = 1 if quick else 3
    start = time.perf_counter()
    for _ in range(rounds):
        grounding_engine._premise.cache_clear()
        for case in cases:
            check_grounding(case.answer, case.facts)
    elapsed = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(rounds):
        for case in cases:
            _naive_check(case.answer, case.facts)
    naive_elapsed = time.perf_counter() - start
    rows.append(
        Row(NAME, f"labeled set, {claims} claims", "claims per second",
            claims * rounds / elapsed, "claims/s", claims * rounds / naive_elapsed,
            "first version")
    )  # fmt: skip
    n_facts, n_claims, repeat = (20, 5, 3) if quick else (200, 20, 21)
    answer, facts = latency_workload(n_facts, n_claims)
    naive = time_calls(lambda: _naive_check(answer, facts), repeat=repeat)
    for mode, call in (
        ("cold", lambda: _cold(answer, facts)),
        ("warm", lambda: check_grounding(answer, facts)),
    ):
        times = time_calls(call, repeat=repeat)
        rows.append(
            Row(NAME, f"{n_facts} facts x {n_claims} claims, {mode}", "p50 latency",
                percentile(times, 50) * 1000, "ms", percentile(naive, 50) * 1000,
                "first version", "< 100 ms")
        )  # fmt: skip
    return rows
