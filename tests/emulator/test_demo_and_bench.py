"""The emulator scale benchmark runs (tiny inputs, no timing asserted); the demo is tested in
tests/examples/."""

from __future__ import annotations

from benchmarks import bench_emulator_scale


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
