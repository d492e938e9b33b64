"""LlamaIndex's glue around ``grounding_core.GroundingCheck``, for ``GroundedQueryEngine``,
``GroundingEvaluator`` and the agent wrapper: nodes as grounding sources and ids, and each check
in its own span, between a ``GroundingCheckStartEvent`` and a ``GroundingCheckEndEvent``. A
whole response is checked too (``check_response``): a query engine's, a chat engine's
``AgentChatResponse`` or an agent workflow's ``AgentOutput``, against the nodes given or, by
default, those it carries (its source nodes, its tools' nodes)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

import llama_index.core.instrumentation as instrument
from llama_index.core.schema import NodeWithScore

from grounding_core import (
    GroundingCheck,
    GroundingOutcome,
    GroundingReport,
    GroundingSource,
    InputError,
)

from ._agent_outputs import aresponse_and_nodes, response_and_nodes, response_text
from .events import GroundingCheckEndEvent, GroundingCheckStartEvent
from .nodes import node_to_source

__all__ = ["LlamaIndexGroundingReport", "NodeGroundingChecker", "checked_nodes"]

# LlamaIndex re-exports get_dispatcher without declaring it (hence the ignore for mypy).
dispatcher = instrument.get_dispatcher(__name__)  # type: ignore[attr-defined]

S = TypeVar("S", NodeWithScore, str)

LlamaIndexGroundingReport = GroundingReport[NodeWithScore]
_Outcome = GroundingOutcome[NodeWithScore]


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

    def check_response(
        self, response: object, nodes: Sequence[NodeWithScore] | None = None
    ) -> GroundingReport[NodeWithScore]:
        """``check`` of a response's text (``Response``, ``StreamingResponse``,
        ``AgentChatResponse``, ``AgentOutput``) against ``nodes``, by default the nodes the
        response carries (``response_and_nodes``); no nodes at all check the answer against no
        facts (every claim unsupported)."""
        answer, found = response_and_nodes(response, nodes)
        return self.check(answer, *checked_nodes(found))

    async def acheck_response(
        self, response: object, nodes: Sequence[NodeWithScore] | None = None
    ) -> GroundingReport[NodeWithScore]:
        """Async ``check_response`` on Google's async client (an ``AsyncStreamingResponse`` is
        consumed first)."""
        answer, found = await aresponse_and_nodes(response, nodes)
        return await self.acheck(answer, *checked_nodes(found))

    def run_answer(self, answer: object, nodes: Sequence[NodeWithScore]) -> _Outcome:
        """``run`` of a response's text against ``nodes``: a text that is not a string (or
        ``None``, an empty answer) is a failed check (``failure``), as a failed call is."""
        try:
            return self.run(response_text(answer), *checked_nodes(nodes))
        except InputError as exc:  # the text's (the check's own are the policy's already)
            return self.failure(exc, *checked_nodes(nodes))

    async def arun_answer(self, answer: object, nodes: Sequence[NodeWithScore]) -> _Outcome:
        """Async ``run_answer`` on Google's async client."""
        try:
            return await self.arun(response_text(answer), *checked_nodes(nodes))
        except InputError as exc:
            return self.failure(exc, *checked_nodes(nodes))

    def quiet(self) -> GroundingCheck:
        """The same check without the check events (a streamed claim's check: its
        ``ClaimVerdictEvent`` is its event)."""
        return self.replace()

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
