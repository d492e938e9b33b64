"""The grounding check that ``GroundedQueryEngine`` and ``GroundingEvaluator`` share: an answer
and its source nodes in, a ``GroundingReport`` whose claims cite those very nodes out."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, TypeVar

import llama_index.core.instrumentation as instrument
from google.auth.credentials import Credentials
from llama_index.core.schema import NodeWithScore

from grounding_core import (
    ConfigurationError,
    GroundingReport,
    GroundingSource,
    GroundingSpec,
    InputError,
    RetryPolicy,
    acheck_sources,
    check_sources,
    grounding_config_path,
)
from grounding_core.specs import check_fraction

from ._connection import ClientOptionsArg, DiscoveryEngineConnection
from .events import GroundingCheckEndEvent, GroundingCheckStartEvent
from .nodes import node_to_source

__all__ = [
    "LlamaIndexGroundingReport",
    "NodeGroundingChecker",
    "report_metadata",
    "source_id",
]

logger = logging.getLogger(__name__)
# LlamaIndex re-exports get_dispatcher without declaring it (hence the ignore for mypy).
dispatcher = instrument.get_dispatcher(__name__)  # type: ignore[attr-defined]

S = TypeVar("S", NodeWithScore, str)

LlamaIndexGroundingReport = GroundingReport[NodeWithScore]


def source_id(source: object, index: int) -> str:
    """A source's id: a node's id, else its position in the checked sources."""
    if isinstance(source, NodeWithScore):
        return source.node.node_id
    return str(index)


def report_metadata(report: GroundingReport[Any]) -> dict[str, Any]:
    """The report's JSON-safe metadata (``GroundingReport.metadata``) plus the ids of the
    checked sources (``source_node_ids``, in order) and of each claim's cited sources
    (``node_ids``)."""
    metadata = report.metadata()
    ids = [source_id(source, i) for i, source in enumerate(report.sources)]
    metadata["source_node_ids"] = ids
    for claim_metadata, claim in zip(metadata.get("claims", ()), report.claims, strict=True):
        claim_metadata["node_ids"] = [ids[i] for i in claim.claim.source_indices if i < len(ids)]
    return metadata


class NodeGroundingChecker:
    """checkGrounding of answers against nodes (or plain texts), with one spec and policy."""

    def __init__(
        self,
        *,
        project_id: str | None,
        location: str,
        grounding_config: str,
        citation_threshold: float,
        enable_claim_level_score: bool,
        min_support_score: float,
        emulator_host: str | None,
        credentials: Credentials | None,
        client_options: ClientOptionsArg,
        timeout: float,
        retry: RetryPolicy | None,
    ) -> None:
        self.connection = DiscoveryEngineConnection.create(
            project_id=project_id,
            location=location,
            emulator_host=emulator_host,
            credentials=credentials,
            client_options=client_options,
            timeout=timeout,
            retry=retry,
        )
        self.grounding_config_path = grounding_config_path(
            self.connection.project, location, grounding_config
        )
        self.spec = GroundingSpec(
            citation_threshold=citation_threshold,
            enable_claim_level_score=enable_claim_level_score,
        )
        try:
            self.min_support_score = check_fraction("min_support_score", min_support_score)
        except InputError as exc:  # a constructor argument: a configuration error here
            raise ConfigurationError(str(exc)) from exc

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(grounding_config={self.grounding_config_path!r}, "
            f"citation_threshold={self.spec.citation_threshold}, "
            f"min_support_score={self.min_support_score}, "
            f"endpoint={self.connection.clients.endpoint!r})"
        )

    @staticmethod
    def sources(items: Sequence[NodeWithScore] | Sequence[str]) -> list[GroundingSource]:
        """The grounding sources (facts) of nodes or texts, in order."""
        return [node_to_source(item) for item in items]

    def failed(self, items: Sequence[S], exc: BaseException) -> GroundingReport[S]:
        """The report of a check that could not be done (``error`` set, no result)."""
        return GroundingReport.failed(items, self.sources(items), exc, self.min_support_score)

    def _start(self, answer: str, items: Sequence[NodeWithScore] | Sequence[str]) -> None:
        ids = [source_id(item, i) for i, item in enumerate(items)]
        dispatcher.event(GroundingCheckStartEvent(answer=answer, source_ids=ids))

    def _end(self, report: GroundingReport[Any]) -> None:
        dispatcher.event(
            GroundingCheckEndEvent(grounding=report_metadata(report), error=report.error)
        )

    @dispatcher.span
    def check(self, answer: str, items: Sequence[S]) -> GroundingReport[S]:
        """Check ``answer`` against ``items`` (nodes or texts); claims cite the items."""
        sources = self.sources(items)
        self._start(answer, items)
        try:
            report = check_sources(
                self.connection.clients,
                self.grounding_config_path,
                answer,
                items,
                sources,
                self.spec,
                self.connection.call_options,
                min_support_score=self.min_support_score,
            )
        except Exception as exc:
            self._end(GroundingReport.failed(items, sources, exc, self.min_support_score))
            raise
        self._end(report)
        logger.debug("support score %s for %d sources", report.support_score, len(items))
        return report

    @dispatcher.span
    async def acheck(self, answer: str, items: Sequence[S]) -> GroundingReport[S]:
        """Async ``check`` on Google's async client."""
        sources = self.sources(items)
        self._start(answer, items)
        try:
            report = await acheck_sources(
                self.connection.clients,
                self.grounding_config_path,
                answer,
                items,
                sources,
                self.spec,
                self.connection.call_options,
                min_support_score=self.min_support_score,
            )
        except Exception as exc:
            self._end(GroundingReport.failed(items, sources, exc, self.min_support_score))
            raise
        self._end(report)
        logger.debug("support score %s for %d sources", report.support_score, len(items))
        return report
