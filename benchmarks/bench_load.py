"""Load: concurrent clients making mixed search / check / answer calls against the emulator.

Each client has its own channel (as separate processes would); calls cycle through the three
services. Reports errors, p50/p99 latency, throughput and resident memory before and after
(a second, equal round shows whether memory keeps growing).
"""

from __future__ import annotations

import resource
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from benchmarks.common import Row, percentile
from grounding_core import (
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    GroundingCheck,
)
from grounding_emulator import BUILTIN_DATA_STORE, BUILTIN_ENGINE, EmulatorServer

PROJECT = "load-project"
QUESTIONS = [
    "How does the for statement iterate?",
    "What does yield do in a generator?",
    "How are exceptions raised and caught?",
    "What is a lambda expression?",
    "How does the with statement call __exit__?",
    "What does the global statement declare?",
]
FACTS = [
    "The for statement is used to iterate over the elements of a sequence.",
    "A lambda expression creates an anonymous function.",
    "The global statement declares identifiers to be interpreted as globals.",
]
ANSWER = "The for statement iterates over a sequence. Lambda creates an anonymous function."


@dataclass(frozen=True)
class LoadResult:
    """What a load run measured."""

    calls: int
    errors: int
    latencies: list[float]
    seconds: float

    @property
    def p50_ms(self) -> float:
        """Median latency, milliseconds."""
        return percentile(self.latencies, 50) * 1000

    @property
    def p99_ms(self) -> float:
        """99th percentile latency, milliseconds."""
        return percentile(self.latencies, 99) * 1000


def resident_mb() -> float:
    """Current resident memory of this process (the emulator runs in it), MiB."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def _calls(connection: DiscoveryEngineConnection) -> list[Callable[[str], object]]:
    search = DiscoveryEngineChunkSearch(connection, data_store_id=BUILTIN_DATA_STORE, k=10)
    check = GroundingCheck(connection)
    answering = DiscoveryEngineAnswerQuery(connection, engine_id=BUILTIN_ENGINE)
    return [
        search.search,
        lambda q: check.check(ANSWER, FACTS, FACTS),
        answering.answer,
    ]


def run_load(address: str, *, clients: int = 16, calls: int = 5000) -> LoadResult:
    """``calls`` mixed calls from ``clients`` concurrent clients against ``address``."""
    per_client = calls // clients
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()

    def worker(number: int) -> None:
        nonlocal errors
        own = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=address)
        mine: list[float] = []
        failed = 0
        try:
            kinds = _calls(own)
            for i in range(per_client):
                call = kinds[(number + i) % len(kinds)]
                start = time.perf_counter()
                try:
                    call(QUESTIONS[(number * 7 + i) % len(QUESTIONS)])
                except Exception:
                    failed += 1
                mine.append(time.perf_counter() - start)
        finally:
            own.close()
        with lock:
            latencies.extend(mine)
            errors += failed

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(worker, range(clients)))
    return LoadResult(per_client * clients, errors, latencies, time.perf_counter() - start)


def run(quick: bool = False) -> list[Row]:
    """Two equal rounds of load; memory is read before, between and after."""
    calls = 320 if quick else 5000
    rows = []
    with EmulatorServer() as server:
        before = resident_mb()
        first = run_load(server.address, calls=calls)
        middle = resident_mb()
        second = run_load(server.address, calls=calls)
        after = resident_mb()
    for name, result in (("round 1", first), ("round 2", second)):
        case = f"16 clients, {result.calls} calls, {name}"
        rows += [
            Row("load", case, "errors", result.errors, "", target="0"),
            Row("load", case, "p50", result.p50_ms, "ms"),
            Row("load", case, "p99", result.p99_ms, "ms"),
            Row("load", case, "throughput", result.calls / result.seconds, "calls/s"),
        ]
    rows += [
        Row("load", "memory", "rss after round 1", middle, "MiB", before, "before"),
        Row("load", "memory", "rss after round 2", after, "MiB", middle, "after round 1"),
    ]
    return rows
