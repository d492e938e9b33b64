"""No input stalls the emulator (issue 16): every text step is linear in its input, and a call
that is no longer wanted stops its work.

Linearity is asserted on counted work, not on time: the interpreter's trace and profile hooks
count the Python lines the step runs and the C functions it calls (each regex call, each string
method), which is the same number on every run of the same input, however busy the machine.
Eight times the input must give at most ``MAX_GROWTH`` times the steps: a linear step gives
about 8, a quadratic one 64 (``test_the_step_count_tells_quadratic_work_from_linear``). What
one C call does inside is not counted (a regex's own backtracking): the regexes that once
backtracked are pinned on the inputs they were rewritten for, and ``python -m benchmarks --only
pathological`` times the families against prose. Over a real gRPC channel: another client's
Search is served while a long CheckGrounding is in flight, and a call whose deadline passes
stops judging at the next claim.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

import grpc
import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de

from grounding_emulator import EmulatorServer
from grounding_emulator.corpus.chunking import _atx_heading, blocks_from_markdown
from grounding_emulator.grounding.claims import _protected, split_claims, split_segments
from grounding_emulator.grounding.judge import Claim, Fact, Verdict
from tests.emulator.conftest import GROUNDING_CONFIG, serving_config

SIZE = 16_000
# Eight times the input: about 8x the steps for linear work, 64x for quadratic.
GROWTH = 8
MAX_GROWTH = 12
PROSE = ("The pass statement does nothing at all here. " * (SIZE // 45 + 1))[:SIZE]

FAMILIES: dict[str, Callable[[int], str]] = {
    "one run without spaces": lambda n: "a" * n,
    "many dots": lambda n: "a." * (n // 2),
    "only dots": lambda n: "." * n,
    "many @ and dots": lambda n: "a.b@" * (n // 4),
    "e-mail after e-mail": lambda n: "a@b.c+" * (n // 6),
    "many inline code spans": lambda n: "`x`. " * (n // 5),
    "many link openings": lambda n: "](" * (n // 2),
    "URL scheme then dots": lambda n: "http://" + "." * n,
    "long run of spaces": lambda n: "a" + " " * n + "b",
    "heading then spaces": lambda n: "# a" + " " * n + "b",
    "bold line then spaces": lambda n: "**b**" + " " * n + "x",
    "table rule then spaces": lambda n: "|---|" + " " * n + "x",
    "many Thai words": lambda n: "ก " * (n // 2),
    "many German ordinals": lambda n: "am 1. Mai " * (n // 10),
    "lines without a newline": lambda n: "word\u2028" * (n // 5),
    "prose": lambda n: PROSE[:n],
}


def _steps(func: Callable[[str], object], text: str) -> int:
    """The steps of ``func(text)``: Python lines run (and frames entered) plus C functions
    called, counted by ``sys.settrace`` and ``sys.setprofile`` for this thread."""
    steps = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal steps
        steps += 1
        return trace

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal steps
        steps += event == "c_call"

    previous = sys.gettrace(), sys.getprofile()
    sys.settrace(trace)
    sys.setprofile(profile)
    try:
        func(text)
    finally:
        sys.settrace(previous[0])
        sys.setprofile(previous[1])
    return steps


def _growth(func: Callable[[str], object], make: Callable[[int], str], size: int = SIZE) -> float:
    """How many times the steps grow when the input of ``size`` is ``GROWTH`` times longer."""
    func(make(size // GROWTH))  # first calls compile and cache: not the work measured
    return _steps(func, make(size)) / _steps(func, make(size // GROWTH))


def _quadratic_split(text: str) -> list[int]:
    """A splitter that walks back to the previous space from every dot: quadratic on dots."""
    ends = []
    for position, character in enumerate(text):
        if character == ".":
            start = position
            while start > 0 and text[start - 1] != " ":
                start -= 1
            ends.append(start)
    return ends


def test_the_step_count_tells_quadratic_work_from_linear() -> None:
    small = SIZE // GROWTH  # a quadratic step on the whole size would take long to trace
    assert _growth(_quadratic_split, FAMILIES["many dots"], small) > GROWTH * GROWTH * 0.9
    assert _growth(_quadratic_split, FAMILIES["prose"], small) < MAX_GROWTH  # short walks
    split_claims(PROSE)  # first calls compile and cache (re's own cache too): not counted
    assert _steps(split_claims, PROSE) == _steps(split_claims, PROSE)  # the same every run


@pytest.mark.parametrize("family", list(FAMILIES))
def test_the_claim_splitter_is_linear(family: str) -> None:
    assert _growth(split_claims, FAMILIES[family]) <= MAX_GROWTH, family


def test_markdown_headings_are_linear_in_their_spaces() -> None:
    heading = "# a" + " " * SIZE + "b"
    assert _growth(blocks_from_markdown, lambda n: "# a" + " " * n + "b") <= MAX_GROWTH
    assert [(b.kind, b.level, b.text) for b in blocks_from_markdown(heading)] == [
        ("heading", 1, "a" + " " * SIZE + "b")
    ]


# The ATX heading regex the chunker used before (quadratic on a long run of spaces).
OLD_ATX = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")


@pytest.mark.parametrize(
    "line",
    [
        "## Setup ##",
        "# Title   #  #",
        "#  ",
        "# ##",
        "# ",
        "## ",
        "####### seven",
        "#\tTab\t",
        "#x",
    ],
)
def test_atx_headings_are_what_the_old_regex_captured(line: str) -> None:
    old = OLD_ATX.match(line)
    assert _atx_heading(line) == ((len(old[1]), old[2].strip()) if old else None)


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("Write to a@b.c+d@e.f. Then wait.", ["Write to a@b.c+d@e.f.", "Then wait."]),
        ("See [docs](https://x.y/a.b). It works.", ["See [docs](https://x.y/a.b).", "It works."]),
        ("Run `x. y` now. Done.", ["Run `x. y` now.", "Done."]),
        ("| a | b |\n|---|---|   \n| 1 | 2 |", ["| a | b |", "| 1 | 2 |"]),
        (
            "**Pricing** :  \nIt costs 3 USD. It is cheap.",
            ["Pricing", "It costs 3 USD.", "It is cheap."],
        ),
        ("## Setup ##   \nInstall it. Run it.", ["Setup", "Install it.", "Run it."]),
        (
            "ถ้ายื่นออนไลน์ จะได้เงินคืนเร็ว ภาษีต้องยื่นภายในเดือนมีนาคม",
            ["ถ้ายื่นออนไลน์ จะได้เงินคืนเร็ว", "ภาษีต้องยื่นภายในเดือนมีนาคม"],
        ),
        ("am 23. April 2024 begann es. Es endete.", ["am 23. April 2024 begann es.", "Es endete."]),
        (
            "A line that is long enough to be wrapped text here\u2028and goes on. Next one.",
            ["A line that is long enough to be wrapped text here\u2028and goes on.", "Next one."],
        ),
        ("a.b.c@d.e. The end.", ["a.b.c@d.e.", "The end."]),
    ],
)
def test_rewritten_paths_split_as_before(text: str, claims: list[str]) -> None:
    assert [text[s:e] for s, e in split_claims(text)] == claims  # fmt: skip


def test_a_table_rule_with_trailing_spaces_still_marks_the_header() -> None:
    text = "| a | b |\n|---|---|   \n| 1 | 2 |"
    assert [s.kind.value for s in split_segments(text)] == ["table_header", "table_row"]


def test_protected_spans_are_those_of_the_one_alternation() -> None:
    text = "x a@b.c+d@e.f y ](a)(b) ``c`` http://q.r/s. www.t.u"
    # "+d@e.f" starts inside the run the first address ended in: still an address, as before.
    spans = [(2, 7), (7, 13), (16, 20), (24, 29), (30, 42), (44, 51)]
    assert _protected(text, 0, len(text)) == spans


# -- over a real gRPC channel ----------------------------------------------------------------


class CountingJudge:
    """Judges each claim slowly (``pause`` seconds) and records how many it took."""

    def __init__(self, pause: float) -> None:
        self.pause = pause
        self.judged = 0
        self.done = threading.Event()

    def __call__(
        self, claims: Sequence[Claim], facts: Sequence[Fact], citation_threshold: float
    ) -> tuple[Verdict, ...]:
        verdicts = []
        try:
            for _ in claims:
                self.judged += 1
                time.sleep(self.pause)
                verdicts.append(Verdict(True, (0,), 0.9))
            return tuple(verdicts)
        finally:
            self.done.set()


def _grounding_client(address: str) -> de.GroundedGenerationServiceClient:
    transport = de.GroundedGenerationServiceClient.get_transport_class("grpc")(
        channel=grpc.insecure_channel(address)
    )
    return de.GroundedGenerationServiceClient(transport=transport)


def _many_claims(count: int) -> str:
    return " ".join(f"Cloud Run scales service {i} to zero." for i in range(count))


def test_a_call_whose_deadline_passes_stops_judging(emulator) -> None:
    judge = CountingJudge(pause=0.05)
    claims = 200
    with EmulatorServer(emulator.store, judge=judge) as server:
        client = _grounding_client(server.address)
        request = de.CheckGroundingRequest(
            grounding_config=GROUNDING_CONFIG,
            answer_candidate=_many_claims(claims),
            facts=[{"fact_text": "Cloud Run scales to zero."}],
        )
        with pytest.raises(core_exceptions.DeadlineExceeded):
            client.check_grounding(request=request, timeout=0.5, retry=None)
        assert judge.done.wait(30), "the judge never stopped"
    assert 0 < judge.judged < claims  # stopped at the next claim, not after all 200


def test_another_clients_search_is_served_while_a_long_check_runs(emulator) -> None:
    answer = _many_claims(100)
    fact = ("Cloud Run scales container instances to zero when no requests arrive. " * 150)[:9_990]
    request = de.CheckGroundingRequest(
        grounding_config=GROUNDING_CONFIG,
        answer_candidate=answer,
        facts=[{"fact_text": f"{fact} {n}"} for n in range(20)],  # 20 distinct facts: no cache
    )
    results: dict[str, object] = {}

    def slow() -> None:
        results["check"] = _grounding_client(emulator.address).check_grounding(
            request=request, timeout=600
        )
        results["check_done"] = time.perf_counter()

    thread = threading.Thread(target=slow)
    thread.start()
    try:
        search = de.SearchServiceClient(
            transport=de.SearchServiceClient.get_transport_class("grpc")(
                channel=grpc.insecure_channel(emulator.address)
            )
        )
        time.sleep(0.2)  # let the check start
        search_request = de.SearchRequest(serving_config=serving_config(), query="lighthouse")
        response = search.search(request=search_request, timeout=600)
        search_done = time.perf_counter()
        assert thread.is_alive(), "the check finished before the search: nothing was measured"
    finally:
        thread.join()
    assert len(response.results) > 0
    assert search_done < results["check_done"]  # type: ignore[operator]
    assert len(results["check"].claims) == 100  # type: ignore[attr-defined]
