"""Benchmarks: each ``bench_*.py`` module measures something against a baseline in one run.

Protocol: a module exposes ``run(quick: bool = False) -> list[Row]``. ``quick=True`` runs on
tiny inputs (the test suite's smoke test); ``python -m benchmarks`` runs them all and prints one
table. Ratios, not absolute times, are what carry over between machines.
"""
