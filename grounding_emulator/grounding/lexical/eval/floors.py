"""The quality the lexical judge must keep on each split of its evaluation set.

The judge is frozen, so these are regression guards: the targets where the judge met them, else
a little under the value measured when the judge was frozen (the later blind splits are written
in many languages, where paraphrases are the judge's weak side). The tests hold the judge to
them; ``python -m benchmarks --only grounding`` prints the measured values.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FLOORS", "Floor"]


@dataclass(frozen=True, slots=True)
class Floor:
    """The lowest acceptable value of each metric of ``quality.Quality`` on one split."""

    balanced_accuracy: float
    citation_precision: float
    citation_recall: float
    not_checked_accuracy: float = 0.9
    split_agreement: float = 0.95


FLOORS: dict[str | None, Floor] = {
    None: Floor(0.82, 0.92, 0.72),
    "heldout": Floor(0.85, 0.9, 0.85),
    "blind": Floor(0.85, 0.9, 0.85),
    "final": Floor(0.85, 0.9, 0.85),
    "blind2": Floor(0.85, 0.9, 0.78),
    "blind3": Floor(0.8, 0.88, 0.78),
    "blind4": Floor(0.75, 0.95, 0.52),
    "blind5": Floor(0.58, 0.72, 0.4),
    "blind6": Floor(0.6, 0.75, 0.35),
}
"""Split name (``None``: the whole set) -> its floor."""
