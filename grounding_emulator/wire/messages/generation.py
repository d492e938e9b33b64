"""``GenerateGroundedContentResponse`` messages (*generateGroundedContent* reference page)."""

from __future__ import annotations

from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.answer.grounded import GroundedAnswer

__all__ = ["grounded_content_response", "grounded_content_stream"]

GenerateGroundedContentResponse = de.GenerateGroundedContentResponse.pb()
_Source = GenerateGroundedContentResponse.Candidate.GroundingMetadata.RetrievalMetadata.Source
MODEL_ROLE = "model"


def _metadata(candidate: Any, answer: GroundedAnswer, *, streaming: bool) -> None:
    """``grounding_score`` and ``grounding_metadata`` of ``candidate``: the chunks the claims
    cite, each once in order of first citation (``support_chunks``; ``index``, "only used for
    the streaming mode", its position there in a stream); one ``grounding_support`` per
    supported claim; one ``retrieval_metadata`` per kind of source, in request order."""
    metadata = candidate.grounding_metadata
    for kind in dict.fromkeys(chunk.kind for chunk in answer.chunks):
        metadata.retrieval_metadata.add(source=_Source.Value(kind))
    checked = answer.checked
    if checked is None:
        return
    candidate.grounding_score = checked.support_score
    position_of: dict[int, int] = {}
    for claim, verdict in zip(checked.claims, checked.verdicts, strict=True):
        if not verdict.grounding_check_required or not verdict.fact_indices:
            continue
        support = metadata.grounding_support.add(claim_text=claim.text, support_score=verdict.score)
        for fact_index in verdict.fact_indices:
            if fact_index not in position_of:
                position_of[fact_index] = len(metadata.support_chunks)
                chunk = answer.chunks[fact_index]
                fact = metadata.support_chunks.add(
                    chunk_text=chunk.text,
                    source=chunk.source,
                    uri=chunk.attributes.get("uri", ""),
                    title=chunk.attributes.get("title", ""),
                    domain=chunk.attributes.get("domain", ""),
                )
                if streaming:
                    fact.index = position_of[fact_index]
                fact.source_metadata.update(chunk.attributes)
            support.support_chunk_indices.append(position_of[fact_index])


def grounded_content_response(answer: GroundedAnswer) -> Any:
    """The whole answer: one candidate (index 0), its content in one ``model`` part (none for
    an empty answer), its grounding score and metadata."""
    response = GenerateGroundedContentResponse()
    candidate = response.candidates.add(index=0)
    candidate.content.role = MODEL_ROLE
    if answer.text:
        candidate.content.parts.add(text=answer.text)
    _metadata(candidate, answer, streaming=False)
    return response


def grounded_content_stream(answer: GroundedAnswer) -> list[Any]:
    """A ``StreamGenerateGroundedContent`` answer: one response per part of the answer (each a
    sentence and the space after it: they join to the whole text), the last one with the
    grounding score and metadata (one response with them alone for an empty answer)."""
    responses = []
    for part in answer.parts or ("",):
        response = GenerateGroundedContentResponse()
        candidate = response.candidates.add(index=0)
        candidate.content.role = MODEL_ROLE
        if part:
            candidate.content.parts.add(text=part)
        responses.append(response)
    _metadata(responses[-1].candidates[0], answer, streaming=True)
    return responses
