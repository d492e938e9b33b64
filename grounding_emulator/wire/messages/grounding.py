"""``CheckGroundingResponse`` messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.grounding.check import CheckedAnswer
from grounding_emulator.grounding.judge import Fact
from grounding_emulator.wire.messages.common import ByteOffsets

__all__ = ["check_grounding_response"]

CheckGroundingResponse = de.CheckGroundingResponse.pb()


def check_grounding_response(
    answer: str, facts: Sequence[Fact], checked: CheckedAnswer, *, claim_scores: bool
) -> Any:
    """A ``CheckGroundingResponse``: claims with byte spans, cited facts as ``FactChunk``s."""
    offsets = ByteOffsets(answer)
    response = CheckGroundingResponse(support_score=checked.support_score)
    position_of: dict[int, int] = {}
    for claim, verdict in zip(checked.claims, checked.verdicts, strict=True):
        message = response.claims.add()
        message.start_pos, message.end_pos = offsets.byte_span(claim.start, claim.end)
        message.claim_text = claim.text
        message.grounding_check_required = verdict.grounding_check_required
        if claim_scores:
            message.score = verdict.score
        if not verdict.grounding_check_required:
            continue
        for fact_index in verdict.fact_indices:
            if fact_index not in position_of:
                position_of[fact_index] = len(response.cited_chunks)
                fact = facts[fact_index]
                attributes: Mapping[str, str] = fact.attributes
                chunk = response.cited_chunks.add(
                    chunk_text=fact.text,
                    source=str(fact_index),
                    uri=attributes.get("uri", ""),
                    title=attributes.get("title", ""),
                    domain=attributes.get("domain", ""),
                )
                chunk.source_metadata.update(attributes)
                response.cited_facts.add(chunk_text=fact.text)
            message.citation_indices.append(position_of[fact_index])
    return response
