"""Gemini's grounding (google-genai, or LlamaIndex's ``GoogleGenAI`` whose response's ``raw``
is Gemini's) made right: the answer with the project's grounding metadata, its chunks as
``NodeWithScore``s, and ``CitationBlock``s whose char indices slice the answer in any script
(Gemini's are UTF-8 bytes).

>>> response = {"candidates": [{
...     "content": {"parts": [{"text": "Café au lait. Tea."}]},
...     "grounding_metadata": {
...         "grounding_chunks": [{"web": {"uri": "https://c", "title": "Café"}}],
...         "grounding_supports": [{"segment": {"end_index": 14}, "grounding_chunk_indices": [0]}],
...     },
... }]}
>>> block = cite_gemini(response).citation_blocks[0]
>>> block.source, block.additional_location_info
('https://c', {'start_char_idx': 0, 'end_char_idx': 13, 'source_index': 0, 'claim_index': 0})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, CitationBlock
from llama_index.core.schema import NodeWithScore, TextNode

from grounding_core.grounding.check import GroundingCheck
from grounding_core.grounding.gemini import GeminiGrounding, genai_response_grounding

from .citations import citation_blocks, cited_chat_message

__all__ = ["GeminiCitedResponse", "cite_gemini"]


@dataclass(frozen=True)
class GeminiCitedResponse:
    """A Gemini answer made right: ``message`` (an assistant ``ChatMessage`` ending with the
    ``CitationBlock``s, ``additional_kwargs["grounding"]`` the project's grounding metadata),
    ``source_nodes`` (one per grounding chunk, in Gemini's order, scored by the highest
    confidence score of the supports citing it), ``citation_blocks`` and ``grounding``."""

    message: ChatMessage
    source_nodes: list[NodeWithScore]
    citation_blocks: list[CitationBlock]
    grounding: GeminiGrounding


def cite_gemini(response: Any, *, check: GroundingCheck | None = None) -> GeminiCitedResponse:
    """``response`` (a google-genai ``GenerateContentResponse`` or its dict, or a LlamaIndex
    ``ChatResponse``/``CompletionResponse`` whose ``raw`` is one) with Gemini's grounding as
    the project's; with ``check``, re-checked by checkGrounding against the retrieved contexts.
    A malformed metadata raises ``InputError`` naming the field."""
    raw = getattr(response, "raw", None)
    grounding = genai_response_grounding(raw if raw is not None else response)
    if check is not None:
        grounding = grounding.recheck(check)
    result = grounding.report.result
    scores: dict[int, float] = {}
    for claim in result.claims if result else ():
        if claim.score is not None and not grounding.rechecked:
            for i in claim.citation_indices:
                scores[i] = max(scores.get(i, claim.score), claim.score)
    nodes = [
        NodeWithScore(
            node=TextNode(text=source.text, metadata=dict(source.metadata), id_=source_id),
            score=scores.get(i),
        )
        for i, (source, source_id) in enumerate(
            zip(grounding.sources, grounding.report.source_ids, strict=True)
        )
    ]
    spans = grounding.citations()
    message = ChatMessage(role="assistant", content=grounding.answer)
    message = cited_chat_message(message, spans, grounding.metadata())
    return GeminiCitedResponse(message, nodes, citation_blocks(spans), grounding)
