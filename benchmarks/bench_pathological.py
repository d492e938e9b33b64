"""Pathological inputs (issue 16): the emulator's text steps stay linear, and one slow request
does not stall other clients.

1. **In process**, for each family of pathological text (one run without spaces, many dots,
   many ``@``, many backticks, many list items, many tiny sentences, one long line of ``|``
   cells, ...) at two sizes: the time of the claim splitter (``grounding/claims.py``, the step
   CheckGrounding and AnswerQuery run on every answer) and of the search tokenizer
   (``corpus/tokens.py``), against ordinary prose of the same length timed in the same run.
   Linear code keeps the ratio flat from one size to the next; a quadratic step multiplies it
   by the size factor (the issue's probe: a 100,000-character run took 16 s, prose 0.05 s).
2. **Over gRPC** (an emulator in a child process): the p50 latency of a small Search alone, and
   while another client's long CheckGrounding (many claims against many 10,000-character facts,
   within Google's limits) is in flight.

Target: ratios below 20x at every size; Search while a check runs within a few times its p50
alone (the server's worker threads share one interpreter, so a check slows it, never stops it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import grpc
from google.cloud import discoveryengine_v1 as de

from benchmarks.common import Row
from benchmarks.emulator_process import EmulatorProcess
from benchmarks.timing import median_ms
from grounding_emulator.corpus.builtin import BUILTIN_DATA_STORE
from grounding_emulator.corpus.tokens import tokenize
from grounding_emulator.grounding.claims import split_claims

NAME = "pathological"
SIZES = (10_000, 100_000)
QUICK_SIZES = (2_000,)
TARGET = "< 20x prose"
SERVING_CONFIG = (
    "projects/bench/locations/global/collections/default_collection/dataStores/"
    f"{BUILTIN_DATA_STORE}/servingConfigs/default_search"
)
GROUNDING_CONFIG = "projects/bench/locations/global/groundingConfigs/default_grounding_config"

FAMILIES: dict[str, Callable[[int], str]] = {
    "long run without spaces": lambda n: "a" * n,
    "many dots": lambda n: "a." * (n // 2),
    "many @": lambda n: "a.b@" * (n // 4),
    "many backticks": lambda n: "`x`. " * (n // 5),
    "many list items": lambda n: "- a\n" * (n // 4),
    "many sentences": lambda n: "A b. " * (n // 5),
    "long line of | cells": lambda n: "| a " * (n // 4) + "|",
    "long run of spaces": lambda n: "a" + " " * n + "b",
    "many link openings": lambda n: "](" * (n // 2),
    "many Thai words": lambda n: "ก " * (n // 2),
}
STEPS: dict[str, Callable[[str], object]] = {"claim split": split_claims, "tokenize": tokenize}


def _prose(size: int) -> str:
    return ("The pass statement does nothing at all here. " * (size // 45 + 1))[:size]


def _ms(func: Callable[[str], object], text: str, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func(text)
        samples.append(time.perf_counter() - start)
    return median_ms(samples)


def _in_process(sizes: tuple[int, ...], repeat: int) -> list[Row]:
    rows = []
    for size in sizes:
        prose = _prose(size)
        for step, func in STEPS.items():
            baseline = _ms(func, prose, repeat)
            for family, make in FAMILIES.items():
                value = _ms(func, make(size), repeat)
                rows.append(
                    Row(NAME, f"{family}, {size:,} chars", step, value, "ms",
                        baseline, "prose", TARGET)
                )  # fmt: skip
    return rows


def _long_check(claims: int, facts: int) -> de.CheckGroundingRequest:
    fact = ("Python's pass statement does nothing; it is a placeholder. " * 200)[:9_990]
    return de.CheckGroundingRequest(
        grounding_config=GROUNDING_CONFIG,
        answer_candidate=" ".join(f"The pass statement {i} does nothing." for i in range(claims)),
        facts=[{"fact_text": f"{fact} {n}"} for n in range(facts)],  # distinct: no fact cache
    )


def _search_p50(search: de.SearchServiceClient, count: int) -> float:
    request = de.SearchRequest(serving_config=SERVING_CONFIG, query="pass statement", page_size=5)
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        response = search.search(request=request, timeout=600)
        samples.append(time.perf_counter() - start)
        if not response.results:
            raise AssertionError("the small search returned nothing")
    return median_ms(samples)


def _other_client_latency(quick: bool) -> list[Row]:
    claims, facts, searches = (20, 5, 5) if quick else (200, 20, 30)
    with EmulatorProcess() as emulator:
        channel = grpc.insecure_channel(emulator.address)
        search = de.SearchServiceClient(
            transport=de.SearchServiceClient.get_transport_class("grpc")(channel=channel)
        )
        grounding = de.GroundedGenerationServiceClient(
            transport=de.GroundedGenerationServiceClient.get_transport_class("grpc")(
                channel=grpc.insecure_channel(emulator.address)
            )
        )
        alone = _search_p50(search, searches)
        request = _long_check(claims, facts)
        done = threading.Event()
        thread = threading.Thread(
            target=lambda: (grounding.check_grounding(request=request, timeout=600), done.set())
        )
        thread.start()
        time.sleep(0.2)  # the check is being judged
        during = _search_p50(search, searches)
        overlapped = not done.is_set()
        thread.join()
    case = f"CheckGrounding of {claims} claims x {facts} facts in flight" + (
        "" if overlapped else " (finished early)"
    )
    return [
        Row(NAME, "small Search alone", "p50", alone, "ms"),
        Row(NAME, case, "small Search p50", during, "ms", alone, "Search alone", "a few x"),
    ]


def run(*, quick: bool = False) -> list[Row]:
    """The rows of this benchmark (module docstring)."""
    rows = _in_process(QUICK_SIZES if quick else SIZES, 1 if quick else 3)
    return rows + _other_client_latency(quick)
