"""Citation spans as LangChain's standard ``Citation`` annotations on a message's text blocks.

``grounding_core.citations`` pairs each supported claim (or answerQuery citation) with one source
it cites; here each pair becomes a ``Citation`` (``langchain_core.messages.content``) on the text
content block it indexes: ``start_index``/``end_index`` are Python string indices into that
block's ``text``, ``url``, ``title``, ``cited_text`` the source's text, and in ``extras`` the
source's position and id and the claim's position. UIs and tracing that read
``message.content_blocks`` show them; the same data is in ``response_metadata["grounding"]``
under ``citation_annotations``.

>>> from langchain_core.messages import AIMessage
>>> from grounding_core import CitationSpan
>>> span = CitationSpan(0, 6, "Paris is in France.", 0, "doc-1", "https://p", "Paris", 0)
>>> message = cited_message(AIMessage("Paris is big."), [span], {"passed": True})
>>> block = message.content_blocks[0]
>>> block["text"], [(c["start_index"], c["end_index"], c["url"]) for c in block["annotations"]]
('Paris is big.', [(0, 6, 'https://p')])
>>> message.text, message.response_metadata["grounding"]
('Paris is big.', {'passed': True})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.messages.content import Citation, create_citation

from grounding_core.citations import CitationSpan, segment_spans

__all__ = [
    "GROUNDING_KEY",
    "citation_annotation",
    "cited_content",
    "cited_message",
    "uncited_message",
]

GROUNDING_KEY = "grounding"
"""The ``response_metadata`` key of a checked message's grounding metadata."""

_OWN_EXTRAS = "source_index"


def citation_annotation(span: CitationSpan) -> Citation:
    """``span`` as a ``Citation``: ``url`` and ``title`` when the source has them,
    ``start_index``/``end_index``, ``cited_text``, and ``extras`` with ``source_index``,
    ``source_id`` and ``claim_index`` (absent for answerQuery citations)."""
    return create_citation(
        url=span.url or None,
        title=span.title or None,
        start_index=span.start,
        end_index=span.end,
        cited_text=span.cited_text,
        source_index=span.source_index,
        source_id=span.source_id,
        claim_index=span.claim_index,
    )


def _is_own(annotation: Any) -> bool:
    # What an earlier check attached: replaced, so that checking twice does not cite twice.
    # The provider's own annotations (a model's web citations) are kept.
    extras = annotation.get("extras") if isinstance(annotation, Mapping) else None
    return (
        isinstance(annotation, Mapping)
        and annotation.get("type") == "citation"
        and isinstance(extras, Mapping)
        and _OWN_EXTRAS in extras
    )


def _is_text(block: Any) -> bool:
    return isinstance(block, str) or (
        isinstance(block, Mapping)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    )


def cited_content(
    content: str | list[str | dict[Any, Any]], spans: Iterable[CitationSpan]
) -> list[str | dict[Any, Any]]:
    """``content`` as content blocks whose text blocks carry the spans' ``Citation``s.

    The spans index the message's text (``message.text``: its text blocks joined); each
    ``Citation`` goes on the text block it falls in, its indices relative to that block (a
    span across two blocks is cited in both). A string becomes one text block; other blocks
    (reasoning, images, tool calls) are kept as they are.
    """
    blocks: list[Any] = [content] if isinstance(content, str) else list(content)
    texts = [index for index, block in enumerate(blocks) if _is_text(block)]
    lengths = [len(b if isinstance(b, str) else b["text"]) for b in (blocks[i] for i in texts)]
    for index, parts in zip(texts, segment_spans(spans, lengths), strict=True):
        block = blocks[index]
        block = {"type": "text", "text": block} if isinstance(block, str) else dict(block)
        kept = [a for a in block.get("annotations") or () if not _is_own(a)]
        annotations = [*kept, *map(citation_annotation, parts)]
        if annotations:
            block["annotations"] = annotations
        else:
            block.pop("annotations", None)
        blocks[index] = block
    return blocks


def cited_message(
    message: BaseMessage, spans: Iterable[CitationSpan], grounding: Mapping[str, Any]
) -> BaseMessage:
    """A copy of ``message`` (id, tool calls and metadata kept) whose text blocks carry the
    spans' ``Citation``s (``cited_content``) and whose ``response_metadata["grounding"]`` is
    ``grounding`` (``GroundingReport.metadata()``). ``message.text`` is unchanged."""
    return message.model_copy(
        update={
            "content": cited_content(message.content, spans),
            "response_metadata": {**message.response_metadata, GROUNDING_KEY: dict(grounding)},
        }
    )


def uncited_message(message: BaseMessage) -> BaseMessage:
    """``message`` without the ``Citation``s ``cited_message`` added (a provider's own are
    kept): what a model is sent again. Content that is then one plain text block becomes the
    string it was; a message without our citations is returned as it is."""
    content = message.content
    if isinstance(content, str) or not any(
        isinstance(b, Mapping) and any(map(_is_own, b.get("annotations") or ())) for b in content
    ):
        return message
    blocks: list[str | dict[Any, Any]] = []
    for block in content:
        if isinstance(block, Mapping) and block.get("annotations"):
            kept = [a for a in block["annotations"] if not _is_own(a)]
            block = {k: v for k, v in block.items() if k != "annotations"}
            if kept:
                block["annotations"] = kept
        blocks.append(block)  # type: ignore[arg-type]
    if len(blocks) == 1 and isinstance(blocks[0], dict) and blocks[0].keys() == {"type", "text"}:
        return message.model_copy(update={"content": blocks[0]["text"]})
    return message.model_copy(update={"content": blocks})
