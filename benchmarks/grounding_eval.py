"""Print the lexical judge's quality per split of its evaluation set, then the misjudged claims.

``python -m benchmarks.grounding_eval``; the set, the metrics and the floors are in
:mod:`grounding_emulator.grounding.lexical.eval`.
"""

from __future__ import annotations

from grounding_emulator.grounding.lexical.eval import evaluate, load_cases, split_names, summary


def main() -> None:
    """Print one line of figures per split and for the whole set, then every misjudged claim."""
    for split in [*split_names(), None]:
        quality = evaluate(load_cases(split=split))
        print(summary(quality, split or "all"))
    for error in evaluate(load_cases()).errors:
        print("  " + error)


if __name__ == "__main__":
    main()
