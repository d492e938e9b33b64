"""Instrumentation events around a grounding check, for LlamaIndex event handlers.

``GroundedQueryEngine`` and ``GroundingEvaluator`` send ``GroundingCheckStartEvent`` before a
check and ``GroundingCheckEndEvent`` after it (also when it failed: then ``error`` is set),
inside the check's span. Attach a handler to the root dispatcher to see them:

>>> import llama_index.core.instrumentation as instrument
>>> from llama_index.core.instrumentation.event_handlers import BaseEventHandler
>>> class Scores(BaseEventHandler):
...     scores: list = []
...     def handle(self, event, **kwargs):
...         if isinstance(event, GroundingCheckEndEvent):
...             self.scores.append(event.grounding.get("support_score"))
>>> instrument.get_dispatcher().add_event_handler(Scores())  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from llama_index.core.instrumentation.events import BaseEvent

__all__ = [
    "ClaimVerdictEvent",
    "GroundingCheckEndEvent",
    "GroundingCheckStartEvent",
    "SearchResponseEvent",
]


class GroundingCheckStartEvent(BaseEvent):
    """A grounding check is about to run.

    Args:
        answer: the answer checked.
        source_ids: the ids of the sources it is checked against (node ids; for plain text
            contexts, their positions).
    """

    answer: str
    source_ids: list[str]

    @classmethod
    def class_name(cls) -> str:
        """The event's name."""
        return "GroundingCheckStartEvent"


class GroundingCheckEndEvent(BaseEvent):
    """A grounding check finished.

    Args:
        grounding: the JSON-safe result (support score, claims with char and byte spans,
            ``passed``, ``error``), as merged into ``response.metadata["grounding"]``.
        error: ``None``, or the error that made the check fail.
    """

    grounding: dict[str, Any]
    error: str | None = None

    @classmethod
    def class_name(cls) -> str:
        """The event's name."""
        return "GroundingCheckEndEvent"


class ClaimVerdictEvent(BaseEvent):
    """A sentence of a streamed answer was checked (``GroundedQueryEngine`` with
    ``check_while_streaming=True``), while the rest of the answer is still streaming.

    Args:
        verdict: ``grounding_core.ClaimVerdict.to_dict()``: the piece's text, its char and
            UTF-8 byte spans in the whole answer, ``status`` (``supported``, ``unsupported``,
            ``not_checked``, ``error``), the support score, its claims and the cited nodes'
            ``source_ids``.
    """

    verdict: dict[str, Any]

    @classmethod
    def class_name(cls) -> str:
        """The event's name."""
        return "ClaimVerdictEvent"


class SearchResponseEvent(BaseEvent):
    """A Discovery Engine retriever's search returned (sent inside the retrieval's span).

    Args:
        query: the query searched.
        search_response: what the response says of the search as a whole
            (``grounding_core.search_response_metadata``: ``total_size``, ``corrected_query``,
            ``expanded_query``, ``pinned_result_count``, ``facets``, ``attribution_token``).
    """

    query: str
    search_response: dict[str, Any]

    @classmethod
    def class_name(cls) -> str:
        """The event's name."""
        return "SearchResponseEvent"
