"""What every benchmark shares: the result row, timing helpers, percentiles."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Row", "percentile", "time_calls"]


@dataclass(frozen=True)
class Row:
    """One measured value, with its baseline measured in the same run where there is one.

    ``ratio`` is value / baseline (for latencies: lower is better); ``target`` says what the
    issue asks for, e.g. "<= 1.15x".
    """

    benchmark: str
    case: str
    metric: str
    value: float
    unit: str
    baseline: float | None = None
    baseline_name: str = ""
    target: str = ""

    @property
    def ratio(self) -> float | None:
        """value / baseline, when a baseline was measured."""
        if self.baseline is None or self.baseline == 0:
            return None
        return self.value / self.baseline


def time_calls(func: Callable[[], object], *, repeat: int, warmup: int = 3) -> list[float]:
    """Wall-clock seconds of ``repeat`` calls of ``func`` after ``warmup`` unmeasured ones."""
    for _ in range(warmup):
        func()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return times


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0..100) of ``values``."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[max(0, min(98, round(q) - 1))]
