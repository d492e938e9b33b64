"""Import time of our adapters against Google's client library alone.

Each import runs in a fresh interpreter (``python -c``), timed inside it around the ``import``
statement (interpreter start-up excluded); the three modules take turns, the first round warms
the disk cache, the median of the rest is reported. Baseline:
``google.cloud.discoveryengine_v1``, which every Discovery Engine integration needs.
"""

from __future__ import annotations

import statistics
import subprocess
import sys

from benchmarks.common import Row

NAME = "import_time"
BASELINE = "google.cloud.discoveryengine_v1"
MODULES = (BASELINE, "langchain_grounding", "llamaindex_grounding")
ROUNDS = 7
_PROGRAM = (
    "import time\n"
    "start = time.perf_counter()\n"
    "import {module}\n"
    "print(time.perf_counter() - start)\n"
)


def import_seconds(module: str) -> float:
    """Seconds ``import module`` takes in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM.format(module=module)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


def run(quick: bool = False) -> list[Row]:
    """One row per adapter package, against the client library."""
    rounds = 1 if quick else ROUNDS
    times: dict[str, list[float]] = {module: [] for module in MODULES}
    for number in range(rounds + 1):
        for module in MODULES:
            seconds = import_seconds(module)
            if number:
                times[module].append(seconds)
    baseline = statistics.median(times[BASELINE]) * 1000
    return [
        Row(NAME, f"import {module}", "median, fresh interpreter",
            statistics.median(times[module]) * 1000, "ms", baseline, f"import {BASELINE}")
        for module in MODULES[1:]
    ]  # fmt: skip
