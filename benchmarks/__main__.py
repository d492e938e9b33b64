"""Run every benchmark and print one table: ``python -m benchmarks [--quick] [--only NAME]``."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from rich.console import Console
from rich.table import Table

import benchmarks
from benchmarks.common import Row


def discover(only: list[str]) -> list[str]:
    """Names of the ``bench_*`` modules, filtered by ``only`` substrings."""
    names = sorted(
        m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_")
    )
    return [n for n in names if not only or any(o in n for o in only)]


def _fmt(value: float | None) -> str:
    if value is None:
        return ""
    if value == 0 or abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def render(rows: list[Row], console: Console) -> None:
    """Print ``rows`` as one table."""
    table = Table(title=f"benchmarks ({os.cpu_count()} cores)")
    for column in ("benchmark", "case", "metric", "value", "baseline", "ratio", "target"):
        table.add_column(column, justify="right" if column in ("value", "ratio") else "left")
    for row in rows:
        ratio = row.ratio
        table.add_row(
            row.benchmark,
            row.case,
            row.metric,
            f"{_fmt(row.value)} {row.unit}",
            f"{_fmt(row.baseline)} {row.baseline_name}".strip(),
            f"{ratio:.2f}x" if ratio is not None else "",
            row.target,
        )
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``make bench``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny inputs (smoke test)")
    parser.add_argument("--only", action="append", default=[], help="run matching modules")
    args = parser.parse_args(argv)
    console = Console(width=160)
    rows: list[Row] = []
    failed = []
    for name in discover(args.only):
        console.log(f"running {name}")
        module = importlib.import_module(f"benchmarks.{name}")
        try:
            rows.extend(module.run(quick=args.quick))
        except Exception:
            console.print_exception()
            failed.append(name)
    render(rows, console)
    if failed:
        console.print(f"[red]failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
