"""Citation spans as LlamaIndex's standard ``CitationBlock``s, and chat messages that carry them.

``grounding_core.citations`` pairs each supported claim (or answerQuery citation) with one source
it cites; here each pair becomes a ``CitationBlock``: the cited source's text as its
``cited_content``, its address (or, without one, its id) as ``source``, its title, and the
claim's span in ``additional_location_info`` (``start_char_idx``/``end_char_idx``: Python string
indices into the answer, so ``answer[start_char_idx:end_char_idx]`` is the claim in any script),
with the source's position and the claim's. UIs and tracing that know ``CitationBlock`` show
them; the same data is in the metadata under ``citation_annotations``.

>>> from grounding_core import CitationSpan
>>> span = CitationSpan(0, 6, "Paris is in France.", 0, "doc-1", "https://p", "Paris", 0)
>>> block = citation_blocks([span])[0]
>>> block.source, block.title, block.cited_content.text
('https://p', 'Paris', 'Paris is in France.')
>>> block.additional_location_info
{'start_char_idx': 0, 'end_char_idx': 6, 'source_index': 0, 'claim_index': 0}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, CitationBlock, TextBlock

from grounding_core import CitationSpan

__all__ = [
    "CITATION_BLOCKS_KEY",
    "GROUNDING_KEY",
    "citation_blocks",
    "cited_chat_message",
]

CITATION_BLOCKS_KEY = "citation_blocks"
"""The metadata key of a response's ``CitationBlock``s (next to ``grounding`` / ``citations``)."""

GROUNDING_KEY = "grounding"
"""The ``additional_kwargs`` key of a cited chat message's grounding metadata."""


def _location(span: CitationSpan) -> dict[str, int]:
    # CitationBlock.additional_location_info is Dict[str, int]: an answerQuery citation has no
    # claim (claim_index None), so the key is left out rather than given a made-up number.
    location = {
        "start_char_idx": span.start,
        "end_char_idx": span.end,
        "source_index": span.source_index,
    }
    if span.claim_index is not None:
        location["claim_index"] = span.claim_index
    return location


def citation_blocks(spans: Iterable[CitationSpan]) -> list[CitationBlock]:
    """One ``CitationBlock`` per span, in order: ``cited_content`` the source's text, ``source``
    its URL (its id when it has none), ``title``, and ``additional_location_info`` the claim's
    string span (``start_char_idx``, ``end_char_idx``), ``source_index`` and ``claim_index``
    (left out for answerQuery citations, which have no claim)."""
    return [
        CitationBlock(
            cited_content=TextBlock(text=span.cited_text),
            source=span.url or span.source_id,
            title=span.title,
            additional_location_info=_location(span),
        )
        for span in spans
    ]


def cited_chat_message(
    message: ChatMessage, spans: Iterable[CitationSpan], grounding: Mapping[str, Any]
) -> ChatMessage:
    """A copy of ``message`` (role, other blocks and ``additional_kwargs`` kept) whose blocks end
    with the spans' ``CitationBlock``s and whose ``additional_kwargs["grounding"]`` is
    ``grounding`` (``GroundingReport.metadata()``).

    The spans index ``message.content``; ``CitationBlock``s are not text blocks, so the
    message's ``content`` stays the answer text. Citation blocks the message already had (from
    an earlier check) are replaced, not added to.

    >>> from grounding_core import CitationSpan
    >>> answer = ChatMessage(role="assistant", content="Paris is in France.")
    >>> span = CitationSpan(0, 19, "Paris is in France.", 0, "doc-1", "", "", 0)
    >>> cited = cited_chat_message(answer, [span], {"passed": True})
    >>> cited.content, [b.block_type for b in cited.blocks], cited.additional_kwargs
    ('Paris is in France.', ['text', 'citation'], {'grounding': {'passed': True}})
    """
    blocks = [block for block in message.blocks if not isinstance(block, CitationBlock)]
    return message.model_copy(
        update={
            "blocks": [*blocks, *citation_blocks(spans)],
            "additional_kwargs": {**message.additional_kwargs, GROUNDING_KEY: dict(grounding)},
        }
    )
