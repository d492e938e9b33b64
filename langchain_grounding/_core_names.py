"""The core's names this package re-exports (``__init__.pyi`` imports them from here: its
lazy imports are relative)."""

from grounding_core import GroundingReport, UngroundedAnswerError

__all__ = ["GroundingReport", "UngroundedAnswerError"]
