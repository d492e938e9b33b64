"""The offline demo and the emulator scale benchmark run (tiny inputs, no timing asserted)."""

from __future__ import annotations

import runpy
from pathlib import Path

from benchmarks import bench_emulator_scale

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.py"


def test_demo_prints_a_cited_answer_and_a_check(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    runpy.run_path(str(DEMO), run_name="__main__")
    out = capsys.readouterr().out
    assert "1. Chunk search" in out
    assert "simple_stmts.html#yield" in out
    assert "[1]" in out
    assert "support score 0.50" in out
    assert "unsupported: Generators were invented in 1970" in out


def test_scale_benchmark_quick():
    rows = bench_emulator_scale.run(quick=True)
    metrics = {(row.case, row.metric) for row in rows}
    assert ("200 chunks", "ingest rate") in metrics
    assert ("200 chunks", "search p50 (gRPC)") in metrics
    assert ("serializer (10 chunks)", "parse request + build + serialize") in metrics
    assert all(row.value > 0 for row in rows)
    p50 = next(r for r in rows if r.metric == "search p50 (gRPC)")
    assert p50.baseline is not None
    assert p50.baseline > 0
