"""``GroundingEvaluationResult``: an ``EvaluationResult`` that keeps the grounding details."""

from __future__ import annotations

from typing import Any

from llama_index.core.evaluation import EvaluationResult
from pydantic import Field, SkipValidation

from grounding_core import GroundingReport

__all__ = ["GroundingEvaluationResult"]


class GroundingEvaluationResult(EvaluationResult):
    """What ``GroundingEvaluator`` returns: a plain ``EvaluationResult`` (``passing``,
    ``score`` = support score, ``feedback`` naming the unsupported claims) plus the details.

    ``grounding`` is the JSON-safe result, ``GroundingReport.metadata()`` (support score,
    claims with char and byte spans, the ``source_ids`` they cite: node ids, or the positions
    of context strings), ``report`` the ``GroundingReport`` whose claims cite the checked
    source nodes (or, for ``evaluate(contexts=...)``, the context strings); ``report`` is
    left out of ``model_dump()``. For an empty response ``passing`` is false, ``score``
    ``None`` and ``grounding["skipped_reason"]`` says there was nothing to check.
    """

    grounding: dict[str, Any] = Field(
        default_factory=dict, description="JSON-safe grounding result"
    )
    report: SkipValidation[GroundingReport[Any] | None] = Field(
        default=None, exclude=True, description="the GroundingReport object"
    )
