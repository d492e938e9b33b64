"""Side-by-side timing on a noisy machine: the contenders take turns in short blocks, so that a
slow spell of the machine hits all of them alike; medians, after a warm-up."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence

__all__ = ["interleaved", "median_ms", "time_each"]


def interleaved(
    contenders: Mapping[str, Callable[[], object]],
    *,
    rounds: int,
    block: int = 5,
    warmup: int = 3,
) -> dict[str, list[float]]:
    """Seconds of each call of each contender: ``rounds`` rounds in which every contender
    makes ``block`` timed calls in turn (the order rotates), after ``warmup`` untimed calls
    each."""
    for func in contenders.values():
        for _ in range(warmup):
            func()
    names = list(contenders)
    times: dict[str, list[float]] = {name: [] for name in names}
    for number in range(rounds):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            func = contenders[name]
            samples = times[name]
            for _ in range(block):
                start = time.perf_counter()
                func()
                samples.append(time.perf_counter() - start)
    return times


def median_ms(samples: list[float]) -> float:
    """The median of ``samples`` (seconds), in milliseconds."""
    return statistics.median(samples) * 1000


def time_each(func: Callable[[str], object], queries: Sequence[str]) -> list[float]:
    """Seconds of ``func(query)`` for each query, in order."""
    times = []
    for query in queries:
        start = time.perf_counter()
        func(query)
        times.append(time.perf_counter() - start)
    return times
