"""LlamaIndex's glue around ``grounding_core.GroundingCheck``, for ``GroundedQueryEngine`` and
``GroundingEvaluator``: nodes as grounding sources and ids, and each check in its own span,
between a ``GroundingCheckStartEvent`` and a ``GroundingCheckEndEvent``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

import llama_index.core.instrumentation as instrument
from llama_index.core.schema import NodeWithScore

from grounding_core import GroundingCheck, GroundingReport, GroundingSource, InputError

from .events import GroundingCheckEndEvent, GroundingCheckStartEvent
from .nodes import node_to_source

__all__ = ["LlamaIndexGroundingReport", "NodeGroundingChecker", "checked_nodes", "response_text"]

# LlamaIndex re-exports get_dispatcher without declaring it (hence the ignore for mypy).
dispatcher = instrument.get_dispatcher(__name__)  # type: ignore[attr-defined]

S = TypeVar("S", NodeWithScore, str)

LlamaIndexGroundingReport = GroundingReport[NodeWithScore]


def checked_nodes(
    items: Sequence[S],
) -> tuple[Sequence[S], list[GroundingSource], list[str]]:
    """Nodes (or plain texts), their grounding sources and their ids (the node id; the report
    names a plain text by its position), as ``GroundingCheck.check``/``run`` take them."""
    return (
        items,
        [node_to_source(item) for item in items],
        [item.node.node_id if isinstance(item, NodeWithScore) else "" for item in items],
    )


class NodeGroundingChecker(GroundingCheck):
    """``GroundingCheck`` whose checks run in a LlamaIndex span and send the check events
    (also when the check fails: then the end event's ``error`` is set)."""

    __slots__ = ()

    @dispatcher.span
    def check(
        self,
        answer: str,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str] = (),
    ) -> GroundingReport[S]:
        """``GroundingCheck.check`` between the start and end events."""
        with self._events(answer, sources, grounding_sources, source_ids):
            report: GroundingReport[S] = super().check(
                answer, sources, grounding_sources, source_ids
            )
        return _ended(report)

    @dispatcher.span
    async def acheck(
        self,
        answer: str,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str] = (),
    ) -> GroundingReport[S]:
        """Async ``check`` on Google's async client."""
        with self._events(answer, sources, grounding_sources, source_ids):
            report: GroundingReport[S] = await super().acheck(
                answer, sources, grounding_sources, source_ids
            )
        return _ended(report)

    @contextmanager
    def _events(
        self,
        answer: str,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str],
    ) -> Iterator[None]:
        """The start event; if the check raises, the end event of its failed report."""
        dispatcher.event(GroundingCheckStartEvent(answer=answer, source_ids=list(source_ids)))
        try:
            yield
        except Exception as exc:
            _ended(
                GroundingReport.failed(
                    sources, grounding_sources, exc, self.min_support_score, source_ids
                )
            )
            raise


def _ended(report: GroundingReport[S]) -> GroundingReport[S]:
    dispatcher.event(GroundingCheckEndEvent(grounding=report.metadata(), error=report.error))
    return report


def response_text(answer: object) -> str:
    """The text of a response to check: ``None`` (no text) is an empty answer, whose report
    says there is nothing to check; anything but a string is an ``InputError``."""
    if answer is None:
        return ""
    if not isinstance(answer, str):
        raise InputError(
            f"the response text must be a string, got {type(answer).__name__}", field="response"
        )
    return answer
