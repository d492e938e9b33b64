"""Progress of long ingests as lines (``corpus/progress.py``): what a log or a pipe shows while
a store embeds or reads a large corpus."""

from __future__ import annotations

import logging

from grounding_emulator import CorpusStore
from grounding_emulator.corpus import progress
from grounding_emulator.corpus.progress import ProgressLog
from tests.emulator.fake_embedder import FakeEmbedder


class Clock:
    """Seconds that a test sets."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def run(reports, every=10.0):
    """The lines ``ProgressLog`` writes for ``(seconds, phase, done, total)`` reports."""
    lines: list[str] = []
    clock = Clock()
    log = ProgressLog("kb", lines.append, every=every, clock=clock)
    for seconds, phase, done, total in reports:
        clock.now = 100.0 + seconds
        log(phase, done, total)
    return lines


def test_a_phase_shorter_than_the_interval_writes_nothing():
    assert run([(0, "chunk", 0, 50), (4, "chunk", 25, 50), (9.9, "chunk", 50, 50)]) == []


def test_a_long_phase_writes_its_rate_and_time_left_each_interval_then_its_end():
    reports = [
        (0, "embed", 0, 3000),
        (5, "embed", 256, 3000),  # under the interval: nothing
        (12, "embed", 1200, 3000),
        (18, "embed", 1800, 3000),  # 6 s after the last line: nothing
        (24, "embed", 2400, 3000),
        (30, "embed", 3000, 3000),
    ]
    assert run(reports) == [
        "kb: embed 1200/3000 (40%), 100/s, 18 s left",
        "kb: embed 2400/3000 (80%), 100/s, 6 s left",
        "kb: embed 3000/3000 done in 30 s",
    ]


def test_each_phase_has_its_own_interval():
    reports = [
        (0, "read", 0, 0),
        (15, "read", 3000, 0),
        (15, "chunk", 0, 10),
        (20, "chunk", 10, 10),
    ]
    assert run(reports) == ["kb: read 3000 so far, 200/s"]


def test_hours_and_minutes_left():
    assert run([(0, "embed", 0, 100_000), (60, "embed", 1000, 100_000)]) == [
        "kb: embed 1000/100000 (1%), 17/s, 1 h 39 min left"
    ]
    assert run([(0, "embed", 0, 10_000), (60, "embed", 1000, 10_000)]) == [
        "kb: embed 1000/10000 (10%), 17/s, 9 min 0 s left"
    ]


def test_nothing_done_yet_has_no_time_left():
    assert run([(0, "embed", 0, 500), (30, "embed", 0, 500)]) == ["kb: embed 0/500 (0%), 0/s"]


def test_a_store_given_no_callback_logs_its_embedding(monkeypatch, caplog, tmp_path):
    monkeypatch.setattr(progress, "DEFAULT_EVERY", 0.0)  # every report is a line
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "loops.md").write_text("# Loops\n\nA loop repeats. Break stops it.\n")
    store = CorpusStore(semantic=FakeEmbedder())
    with caplog.at_level(logging.INFO, logger="grounding_emulator.corpus.store"):
        store.ingest("kb", tmp_path / "kb")
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("kb: ")]
    assert "kb: embed 0/3 (0%), 0/s" in lines
    assert lines[-1].startswith("kb: embed 3/3 done in ")


def test_the_default_interval_is_the_module_constant(monkeypatch):
    monkeypatch.setattr(progress, "DEFAULT_EVERY", 2.0)
    assert run([(0, "embed", 0, 10), (2, "embed", 5, 10)], every=None) == [
        "kb: embed 5/10 (50%), 2/s, 2 s left"
    ]
