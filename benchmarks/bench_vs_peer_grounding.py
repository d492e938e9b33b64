"""Our ``GroundingChecker`` against ``langchain-google-community``'s
``VertexAICheckGroundingWrapper`` (5.1.1, v1alpha, in its own virtualenv; connected to the same
emulator process, see ``benchmarks.peer_driver``).

Same answers and facts for both: the lexical judge's labeled set
(``grounding_emulator.grounding.lexical.eval``), split into ASCII and non-ASCII answers, and one
large check (200 facts x 20 claims, ``bench_grounding_quality.latency_workload``). Both are
called through ``invoke`` (ours with ``{"answer": ..., "documents": [...]}``, the peer with the
answer and ``config={"configurable": {"documents": [...]}}``), taking turns over the whole set.

- Latency: p50 of one check.
- Spans: the share of returned claims whose span slices the answer to the claim's text
  (``answer[start:end] == text``; for the peer, the ``start_pos``/``end_pos`` it returns).

``quick``: ours only, on a few cases (no peer virtualenv is created); the rows say so.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.documents import Document

from benchmarks.bench_grounding_quality import latency_workload
from benchmarks.common import Row
from benchmarks.emulator_process import EmulatorProcess
from benchmarks.peers import LANGCHAIN_PEER, PeerProcess
from benchmarks.timing import median_ms
from grounding_emulator.grounding.lexical.eval import load_cases
from langchain_grounding import GroundingChecker

NAME = "vs_peer_grounding"
PROJECT = "bench"
PEER = "VertexAICheckGroundingWrapper"
ROUNDS = 5

Workload = list[tuple[str, list[str]]]


def _workloads(quick: bool) -> dict[str, Workload]:
    cases = [(case.answer, [fact.text for fact in case.facts]) for case in load_cases()]
    ascii_cases = [case for case in cases if case[0].isascii()]
    other = [case for case in cases if not case[0].isascii()]
    large_answer, large_facts = latency_workload(*((20, 5) if quick else (200, 20)))
    large = [(large_answer, [fact.text for fact in large_facts])]
    if quick:
        ascii_cases, other = ascii_cases[:3], other[:3]
    size = "20 facts x 5 claims" if quick else "200 facts x 20 claims"
    return {
        f"ASCII answers, {len(ascii_cases)} cases": ascii_cases,
        f"non-ASCII answers, {len(other)} cases": other,
        size: large,
    }


def _span_share(answers: Sequence[str], claims: Sequence[Sequence[Mapping[str, Any]]]) -> float:
    """Percent of claims with ``answer[start:end] == text``."""
    right = total = 0
    for answer, found in zip(answers, claims, strict=True):
        for claim in found:
            total += 1
            start, end = claim["start"], claim["end"]
            right += start is not None and end is not None and answer[start:end] == claim["text"]
    return 100.0 * right / total if total else 100.0


class _Ours:
    """Our checker over a workload: per-check seconds and the claims of the last pass."""

    def __init__(self, address: str, workload: Workload) -> None:
        self.checker = GroundingChecker(project_id=PROJECT, emulator_host=address)
        self.inputs: list[tuple[str, list[Document | str]]] = [
            (answer, [Document(page_content=fact) for fact in facts]) for answer, facts in workload
        ]
        self.claims: list[list[dict[str, Any]]] = []

    def run_pass(self) -> list[float]:
        """One ``invoke`` per case (LangChain's run machinery: callbacks, tracing)."""
        seconds = []
        self.claims = []
        for answer, documents in self.inputs:
            start = time.perf_counter()
            output = self.checker.invoke({"answer": answer, "documents": documents})
            seconds.append(time.perf_counter() - start)
            report = output["grounding"]
            self.claims.append(
                [{"start": c.start, "end": c.end, "text": c.text} for c in report.claims]
            )
        return seconds

    def run_checks(self) -> list[float]:
        """One ``check`` per case: the same work without LangChain's run machinery."""
        seconds = []
        for answer, documents in self.inputs:
            start = time.perf_counter()
            self.checker.check(answer, documents)
            seconds.append(time.perf_counter() - start)
        return seconds


def _peer_pass(
    peer: PeerProcess, workload: Workload
) -> tuple[list[float], list[list[dict[str, Any]]]]:
    cases = [{"answer": answer, "facts": facts} for answer, facts in workload]
    reply = peer.call("check", cases=cases, passes=1)
    claims = [
        [{"start": c["start_pos"], "end": c["end_pos"], "text": c["claim_text"]} for c in found]
        for found in reply["claims"]
    ]
    return reply["seconds"], claims


def _rows(case: str, workload: Workload, ours: _Ours, times: dict[str, list[float]],
          peer_claims: list[Any] | None) -> list[Row]:  # fmt: skip
    answers = [answer for answer, _ in workload]
    claims = sum(len(found) for found in ours.claims)
    peer_latency = peer_spans = None
    baseline_name = f"{PEER} (skipped: --quick creates no peer virtualenv)"
    if peer_claims is not None:
        peer_latency = median_ms(times["peer"])
        peer_spans = _span_share(answers, peer_claims)
        baseline_name = PEER
    target = "< 100 ms" if "200 facts" in case else "<= 1x (no slower)"
    return [
        Row(NAME, case, "invoke p50 latency", median_ms(times["invoke"]), "ms", peer_latency,
            baseline_name, target),
        Row(NAME, case, "check() p50 (no run machinery)", median_ms(times["check"]), "ms",
            peer_latency, baseline_name),
        Row(NAME, f"{case}, {claims} claims", "claim spans correct",
            _span_share(answers, ours.claims), "%", peer_spans, baseline_name, "100 %"),
    ]  # fmt: skip


def run(quick: bool = False) -> list[Row]:
    """Latency and span rows per workload (``quick``: ours only, tiny workloads)."""
    rows: list[Row] = []
    with EmulatorProcess() as emulator:
        peer = None if quick else PeerProcess(LANGCHAIN_PEER).start()
        try:
            if peer is not None:
                peer.call("setup_checker", address=emulator.address, project=PROJECT)
            for case, workload in _workloads(quick).items():
                ours = _Ours(emulator.address, workload)
                times: dict[str, list[float]] = {"invoke": [], "check": [], "peer": []}
                peer_claims = None
                for round_number in range(1 + (1 if quick else ROUNDS)):
                    samples = {"invoke": ours.run_pass(), "check": ours.run_checks()}
                    if peer is not None:
                        samples["peer"], peer_claims = _peer_pass(peer, workload)
                    if round_number:  # the first round warms every contender up
                        for name, values in samples.items():
                            times[name] += values
                rows += _rows(case, workload, ours, times, peer_claims)
        finally:
            if peer is not None:
                peer.stop()
    return rows
