"""A bounded load test: 16 concurrent clients, mixed calls, zero errors, no memory creep.
(The long form, 5,000 calls per round, runs under ``make bench``.)"""

from benchmarks.bench_load import resident_mb, run_load


def test_sixteen_clients_mixed_calls_without_errors(emulator):
    warm = run_load(emulator.address, clients=16, calls=160)  # warms caches and thread pools
    assert warm.errors == 0
    before = resident_mb()
    first = run_load(emulator.address, clients=16, calls=480)
    middle = resident_mb()
    second = run_load(emulator.address, clients=16, calls=480)
    after = resident_mb()
    print(
        f"\nload: {first.calls} + {second.calls} calls, p50 {second.p50_ms:.1f} ms, "
        f"p99 {second.p99_ms:.1f} ms, rss {before:.0f} -> {middle:.0f} -> {after:.0f} MiB"
    )
    assert (first.errors, second.errors) == (0, 0)
    assert len(first.latencies) == len(second.latencies) == 480
    # The same load again must not keep growing memory (a leak would grow it every round).
    assert after - middle < 32, f"memory grew {after - middle:.1f} MiB in the second round"
