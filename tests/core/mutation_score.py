"""Per-module mutation score of the last ``mutmut run`` (``make mutation``).

Reads mutmut's result files under ``mutants/`` and prints, per mutated module, how many of its
non-equivalent mutants the unit tests kill. A surviving mutant listed in
``tests/core/mutation_equivalents.py`` (same function, same mutated code) is equivalent: it changes
no observable behaviour, so it is counted out. Exits 1 when a fully checked module scores below
``--floor`` percent, or when an equivalence entry matches no surviving mutant (stale: the code or
the tests changed; re-check it).

Run from the repository root: ``python -m tests.core.mutation_score [--floor 95]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from tests.core.mutation_equivalents import EQUIVALENT

MUTANTS = Path("mutants")
# mutmut's exit codes (mutmut/stats.py): a mutant is killed when a test failed, timed out,
# crashed or the type checker refused it; it lives when the tests passed or none ran it.
KILLED = {1, 3, 24, -24, 152, 255, 36, -11, -9, 37}
SURVIVED = {0, 5, 33}
NOT_CHECKED = {None}
CLASS_SEPARATOR = "ǁ"


def readable_function(mutant: str) -> str:
    """``grounding_core.offsets.xǁUtf8Offsetsǁto_char__mutmut_3`` -> ``...Utf8Offsets.to_char``."""
    module, _, name = mutant.partition("__mutmut_")[0].rpartition(".")
    if name.startswith("x" + CLASS_SEPARATOR):
        name = name[2:].replace(CLASS_SEPARATOR, ".")
    else:
        name = name.removeprefix("x_")
    return f"{module}.{name}"


def mutated_code(mutant: str) -> str:
    """The added lines of the mutant's diff, each stripped, one per line."""
    from mutmut.__main__ import get_diff_for_mutant

    diff = get_diff_for_mutant(mutant)
    lines = diff.splitlines()
    added = [line for line in lines if line.startswith("+") and not line.startswith("+++")]
    return "\n".join(line[1:].strip() for line in added)


def main(argv: list[str] | None = None) -> int:
    """Print the per-module table; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--floor", type=float, default=95.0, help="lowest passing score, percent")
    parser.add_argument("--survivors", action="store_true", help="list every survivor's diff")
    args = parser.parse_args(argv)

    metas = sorted(MUTANTS.glob("**/*.py.meta"))
    if not metas:
        print("no mutmut results under mutants/: run `make mutation` first", file=sys.stderr)
        return 1
    equivalent = {(entry.function, entry.change): entry for entry in EQUIVALENT}
    used: set[tuple[str, str]] = set()
    checked: set[str] = set()
    status = 0
    print(f"{'module':<28} {'killed':>7} {'equiv.':>6} {'lived':>6} {'score':>7}")
    for meta in metas:
        module = str(meta.relative_to(MUTANTS)).removesuffix(".py.meta").replace("/", ".")
        codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        counts: Counter[str] = Counter()
        survivors = []
        for mutant, code in sorted(codes.items()):
            if code in NOT_CHECKED:
                counts["unchecked"] += 1
            elif code in KILLED:
                counts["killed"] += 1
            elif code in SURVIVED:
                key = (readable_function(mutant), mutated_code(mutant))
                if key in equivalent:
                    used.add(key)
                    counts["equivalent"] += 1
                else:
                    counts["survived"] += 1
                    survivors.append(mutant)
            else:
                counts["survived"] += 1  # "suspicious": slower than its timeout, not failed
                survivors.append(mutant)
        if counts["unchecked"] == len(codes):
            continue
        if not counts["unchecked"]:
            checked.add(module)
        live = counts["killed"] + counts["survived"]
        score = 100.0 * counts["killed"] / live if live else 100.0
        note = f"  ({counts['unchecked']} not run)" if counts["unchecked"] else ""
        print(
            f"{module:<28} {counts['killed']:>7} {counts['equivalent']:>6} "
            f"{counts['survived']:>6} {score:>6.1f}%{note}"
        )
        if score < args.floor and not counts["unchecked"]:
            status = 1
        if args.survivors:
            for mutant in survivors:
                print(f"    {mutant}: {mutated_code(mutant)}")
    for key in sorted(set(equivalent) - used):
        if not any(key[0].startswith(f"{module}.") for module in checked):
            continue  # its module was not run this time
        print(f"stale equivalence entry (no such survivor): {key[0]}: {key[1]}")
        status = 1
    if status:
        print(f"below {args.floor:.0f} % or stale entries: see above", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
