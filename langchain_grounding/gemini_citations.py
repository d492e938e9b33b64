"""Gemini's grounding (ChatVertexAI, ChatGoogleGenerativeAI, google-genai) made right: the
answer with the project's grounding metadata, its chunks as ``Document``s, and ``Citation``
annotations whose indices slice the answer in any script (Gemini's are UTF-8 bytes).

>>> from langchain_core.messages import AIMessage
>>> gemini = AIMessage(
...     "Café au lait. Tea.",
...     response_metadata={"grounding_metadata": {
...         "grounding_chunks": [{"web": {"uri": "https://c", "title": "Café"}}],
...         "grounding_supports": [{"segment": {"end_index": 14}, "grounding_chunk_indices": [0]}],
...     }},
... )
>>> cited = cite_gemini(gemini)
>>> annotations = cited.message.content_blocks[0]["annotations"]
>>> [(c["start_index"], c["end_index"], c["url"]) for c in annotations]
[(0, 13, 'https://c')]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from langchain_core.documents import Document
from langchain_core.messages import AIMessage

from grounding_core import InputError
from grounding_core.grounding.check import GroundingCheck
from grounding_core.grounding.gemini import (
    GEMINI_METADATA_KEY,
    GeminiGrounding,
    gemini_grounding,
    genai_response_grounding,
)

from .citations import cited_message

__all__ = ["GeminiCitedAnswer", "cite_gemini"]


@dataclass(frozen=True)
class GeminiCitedAnswer:
    """A Gemini answer made right: ``message`` (its text blocks carry the ``Citation``s, its
    ``response_metadata["grounding"]`` the project's grounding metadata), ``documents`` (one per
    grounding chunk, in Gemini's order) and ``grounding`` (the core record)."""

    message: AIMessage
    documents: list[Document]
    grounding: GeminiGrounding


def _parts(content: str | list[Any]) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [
        block
        if isinstance(block, str)
        else block.get("text", "")
        if isinstance(block, dict) and block.get("type") == "text"
        else ""
        for block in content
    ]


def cite_gemini(
    answer: AIMessage | Any, *, check: GroundingCheck | None = None
) -> GeminiCitedAnswer:
    """``answer`` (an ``AIMessage`` of ChatVertexAI or ChatGoogleGenerativeAI, or a google-genai
    ``GenerateContentResponse``) with Gemini's grounding as the project's; with ``check`` (a
    ``GroundingCheck``), re-checked by checkGrounding against the retrieved contexts.

    A message without ``response_metadata["grounding_metadata"]``, or a malformed one, raises
    ``InputError`` naming the field."""
    if isinstance(answer, AIMessage):
        metadata = answer.response_metadata.get(GEMINI_METADATA_KEY)
        if metadata is None:
            raise InputError(
                f"the message has no response_metadata[{GEMINI_METADATA_KEY!r}]: was the model "
                "grounded (a retrieval or google_search tool)?",
                field=f"response_metadata.{GEMINI_METADATA_KEY}",
            )
        grounding = gemini_grounding(_parts(answer.content), metadata)
        message = answer
    else:
        grounding = genai_response_grounding(answer)
        message = AIMessage(grounding.answer)
    if check is not None:
        grounding = grounding.recheck(check)
    documents = [
        Document(source.text, metadata=dict(source.metadata), id=source.metadata["uri"] or None)
        for source in grounding.sources
    ]
    cited = cited_message(message, grounding.citations(), grounding.metadata())
    return GeminiCitedAnswer(cast("AIMessage", cited), documents, grounding)
