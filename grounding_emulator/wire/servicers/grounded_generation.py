"""``google.cloud.discoveryengine.{v}.GroundedGenerationService``: CheckGrounding."""

from __future__ import annotations

from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.grounding.check import run_check
from grounding_emulator.grounding.judge import Fact
from grounding_emulator.wire.call_state import watched
from grounding_emulator.wire.labels import check_labels
from grounding_emulator.wire.messages import check_grounding_response
from grounding_emulator.wire.names import parse_grounding_config
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc

__all__ = ["GroundedGenerationServicer"]


class GroundedGenerationServicer(Servicer):
    """``google.cloud.discoveryengine.v1.GroundedGenerationService``: the backend's judge gives
    the verdicts (see ``grounding/judge.py``)."""

    services = discovery_engine("GroundedGenerationService")

    @rpc("CheckGrounding", de.CheckGroundingRequest.pb())
    def check_grounding(self, request: Any) -> Any:
        """``CheckGrounding``: the judge's verdict on each claim of the answer candidate;
        ``user_labels`` are checked as their field doc says (``wire/labels.py``)."""
        parse_grounding_config(request.grounding_config)
        check_labels(request.user_labels)
        facts = [Fact(f.fact_text, dict(f.attributes)) for f in request.facts]
        spec = request.grounding_spec
        threshold = spec.citation_threshold if spec.HasField("citation_threshold") else None
        judge = watched(self.backend.judge)
        checked = run_check(request.answer_candidate, facts, judge, threshold)
        return check_grounding_response(
            request.answer_candidate,
            facts,
            checked,
            claim_scores=spec.HasField("enable_claim_level_score")
            and spec.enable_claim_level_score,
        )
