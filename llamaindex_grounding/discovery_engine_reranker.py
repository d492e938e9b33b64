"""``DiscoveryEngineReranker``: Google's Ranking API as a LlamaIndex node postprocessor."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.callbacks import CallbackManager
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle
from typing_extensions import Unpack

from grounding_core import (
    DEFAULT_RANKING_CONFIG,
    ConfigurationError,
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
    DiscoveryEngineRanking,
    InputError,
    RankedRecord,
    RankingRecord,
)
from grounding_core.peers import refuse_unknown_arguments
from grounding_core.ranking import DEFAULT_TITLE_FIELDS, record_title

__all__ = ["DiscoveryEngineReranker"]


class DiscoveryEngineReranker(BaseNodePostprocessor):
    """Reranks nodes with Google's Ranking API (``RankService.Rank``): give it to a query
    engine (``node_postprocessors=[...]``) after a retriever, to put the best chunk first.

    Setup:
        As for ``DiscoveryEngineRetriever``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``). No data store is needed.

    Key init args:
        top_n: how many nodes to keep (``None``: every one, reordered).
        model: the ranking model (``None``: Google's default; e.g.
            ``"semantic-ranker-default@latest"``).
        title_fields: the metadata keys whose values, joined, are the record's title (default
            ``("title",)``, what our retrievers put there); the content is the node's text
            without metadata.
        ranking_config, user_labels, project_id, location, and the connection fields.

    Instantiate:
        .. code-block:: python

            from llama_index.core.query_engine import RetrieverQueryEngine
            from llamaindex_grounding import DiscoveryEngineReranker, DiscoveryEngineRetriever

            query_engine = RetrieverQueryEngine.from_args(
                DiscoveryEngineRetriever(project_id="my-project", data_store_id="docs",
                                         similarity_top_k=20),
                node_postprocessors=[DiscoveryEngineReranker(project_id="my-project", top_n=5)],
            )

    Each node comes back as a ``NodeWithScore`` of the same node (its metadata untouched) with
    the rank score (0..1), best first. More nodes than Google ranks in one request (200) go in
    several, merged by score. ``apostprocess_nodes`` (what ``aquery`` calls) runs on Google's
    async client.
    """

    _ranking: DiscoveryEngineRanking = PrivateAttr()
    _title_fields: tuple[str, ...] = PrivateAttr()

    @refuse_unknown_arguments
    def __init__(
        self,
        *,
        top_n: int | None = None,
        model: str | None = None,
        title_fields: Sequence[str] = DEFAULT_TITLE_FIELDS,
        ranking_config: str = DEFAULT_RANKING_CONFIG,
        user_labels: Mapping[str, str] | None = None,
        callback_manager: CallbackManager | None = None,
        **connection: Unpack[DiscoveryEngineConnectionArgs],
    ) -> None:
        super().__init__(callback_manager=callback_manager or CallbackManager())
        self._ranking = DiscoveryEngineRanking(
            DiscoveryEngineConnection(**connection),
            ranking_config=ranking_config,
            model=model,
            top_n=top_n,
            user_labels=user_labels,
        )
        if isinstance(title_fields, str) or not all(isinstance(f, str) for f in title_fields):
            raise ConfigurationError(
                "title_fields must be a sequence of metadata keys (strings), e.g. ('title',)"
            )
        self._title_fields = tuple(title_fields)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(ranking_config={self._ranking.ranking_config!r}, "
            f"model={self._ranking.spec.model!r}, top_n={self._ranking.spec.top_n!r}, "
            f"endpoint={self._ranking.connection.endpoint!r})"
        )

    @classmethod
    def class_name(cls) -> str:
        """The component's name."""
        return "DiscoveryEngineReranker"

    @property
    def ranking(self) -> DiscoveryEngineRanking:
        """The core component this postprocessor wraps."""
        return self._ranking

    def _record(self, item: NodeWithScore) -> RankingRecord:
        title = record_title(item.node.metadata, self._title_fields)
        content = item.node.get_content(metadata_mode=MetadataMode.NONE)
        return RankingRecord(title=title, content=content, id=item.node.node_id)

    @staticmethod
    def _query(query_bundle: QueryBundle | None) -> str:
        if query_bundle is None:
            raise InputError(
                "DiscoveryEngineReranker needs the query: pass query_str= or query_bundle=",
                field="query_bundle",
            )
        return query_bundle.query_str

    @staticmethod
    def _reordered(nodes: Sequence[NodeWithScore], ranked: list[RankedRecord]) -> list[Any]:
        return [NodeWithScore(node=nodes[r.index].node, score=r.score) for r in ranked]

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if not nodes:
            return []
        ranked = self._ranking.rank(self._query(query_bundle), [self._record(n) for n in nodes])
        return self._reordered(nodes, ranked)

    async def _apostprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if not nodes:
            return []
        records = [self._record(n) for n in nodes]
        ranked = await self._ranking.arank(self._query(query_bundle), records)
        return self._reordered(nodes, ranked)
