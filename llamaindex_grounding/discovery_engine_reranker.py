"""``DiscoveryEngineReranker``: Google's Ranking API as a LlamaIndex node postprocessor, a
drop-in for llama-index-postprocessor-google-rerank's ``GoogleRerank`` (the same arguments, in
the same order, with the same defaults)."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

import llama_index.core.instrumentation as instrument
from google.api_core.client_options import ClientOptions
from google.auth.credentials import Credentials
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.callbacks import CallbackManager
from llama_index.core.instrumentation.events.rerank import ReRankEndEvent, ReRankStartEvent
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle
from typing_extensions import Unpack

from grounding_core import (
    DEFAULT_LOCATION,
    DEFAULT_RANKING_CONFIG,
    ConfigurationError,
    DiscoveryEngineConnection,
    DiscoveryEngineRanking,
    InputError,
    RankedRecord,
    RankingRecord,
    RetryPolicy,
)
from grounding_core.peers import InitT, refuse_unknown_arguments

__all__ = ["DEFAULT_RERANK_MODEL", "DEFAULT_RERANK_TOP_N", "DiscoveryEngineReranker"]

# LlamaIndex re-exports get_dispatcher without declaring it (hence the ignore for mypy).
dispatcher = instrument.get_dispatcher(__name__)  # type: ignore[attr-defined]

DEFAULT_RERANK_MODEL = "semantic-ranker-default-004"
"""GoogleRerank's model (Google's own default, when none is sent, is
``semantic-ranker-512@latest``)."""
DEFAULT_RERANK_TOP_N = 2
"""GoogleRerank's ``top_n``, as LlamaIndex's other rerankers (``CohereRerank``, ...)."""


class _OtherConnectionArgs(TypedDict, total=False):
    """The connection's keyword arguments that are not among the positional ones."""

    emulator_host: str | None
    client_options: ClientOptions | Mapping[str, Any] | None
    timeout: float
    retry: RetryPolicy | None


def _positionals_by_name(init: InitT) -> InitT:
    """``init`` given its positional arguments by name, so that the peers' names and variables
    are read with them (``$PROJECT_ID`` is not read when ``project_id`` comes by position)."""
    names = [
        p.name
        for p in inspect.signature(init).parameters.values()
        if p.kind is p.POSITIONAL_OR_KEYWORD
    ][1:]

    @functools.wraps(init)
    def by_name(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(
                f"{type(self).__name__} takes at most {len(names)} positional arguments "
                f"({', '.join(names)}), got {len(args)}"
            )
        init(self, **dict(zip(names, args, strict=False)), **kwargs)

    return typing.cast(InitT, by_name)


class DiscoveryEngineReranker(BaseNodePostprocessor):
    """Reranks nodes with Google's Ranking API (``RankService.Rank``): give it to a query
    engine (``node_postprocessors=[...]``) after a retriever, to keep the best ``top_n``.

    Setup:
        As for ``DiscoveryEngineRetriever``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``). No data store is needed.

    Key init args (GoogleRerank's, in its order: they may be given by position):
        model: the ranking model (default ``"semantic-ranker-default-004"``; ``None``:
            Google's default, ``semantic-ranker-512@latest``).
        top_n: how many nodes to keep (default 2; ``None``: every one, reordered).
        project_id, location, ranking_config, credentials: the ranking config's resource name
            and who calls it.
        user_labels, emulator_host, client_options, timeout, retry (by name).

    Instantiate:
        .. code-block:: python

            from llama_index.core.query_engine import RetrieverQueryEngine
            from llamaindex_grounding import DiscoveryEngineReranker, DiscoveryEngineRetriever

            query_engine = RetrieverQueryEngine.from_args(
                DiscoveryEngineRetriever(project_id="my-project", data_store_id="docs",
                                         similarity_top_k=20),
                node_postprocessors=[DiscoveryEngineReranker(project_id="my-project", top_n=5)],
            )

    Each node is ranked on its embedding text (``get_content(MetadataMode.EMBED)``: its text
    with the metadata it shows embeddings, as GoogleRerank sends it) and comes back as a
    ``NodeWithScore`` of the same node (its metadata untouched) with the rank score (0..1),
    best first. More nodes than Google ranks in one request (200) go in several, merged by
    score. ``ReRankStartEvent`` and ``ReRankEndEvent`` go to LlamaIndex's dispatcher;
    ``apostprocess_nodes`` (what ``aquery`` calls) runs on Google's async client.
    """

    _ranking: DiscoveryEngineRanking = PrivateAttr()

    @_positionals_by_name
    @refuse_unknown_arguments
    def __init__(
        self,
        model: str | None = DEFAULT_RERANK_MODEL,
        top_n: int | None = DEFAULT_RERANK_TOP_N,
        project_id: str | None = None,
        location: str = DEFAULT_LOCATION,
        ranking_config: str = DEFAULT_RANKING_CONFIG,
        credentials: Credentials | None = None,
        *,
        user_labels: Mapping[str, str] | None = None,
        callback_manager: CallbackManager | None = None,
        **connection: Unpack[_OtherConnectionArgs],
    ) -> None:
        super().__init__(callback_manager=callback_manager or CallbackManager())
        self._ranking = DiscoveryEngineRanking(
            DiscoveryEngineConnection(
                project_id=project_id, location=location, credentials=credentials, **connection
            ),
            ranking_config=ranking_config,
            model=model,
            top_n=top_n,
            user_labels=user_labels,
        )

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

    @property
    def model(self) -> str | None:
        """The ranking model (settable, as GoogleRerank's field)."""
        return self._ranking.spec.model

    @model.setter
    def model(self, value: str | None) -> None:
        self._respecify(model=value)

    @property
    def top_n(self) -> int | None:
        """How many nodes are kept (settable, as GoogleRerank's field)."""
        return self._ranking.spec.top_n

    @top_n.setter
    def top_n(self, value: int | None) -> None:
        self._respecify(top_n=value)

    def _respecify(self, **changes: Any) -> None:
        # Checked as the constructor checks it: a bad value raises and changes nothing.
        try:
            self._ranking.spec = dataclasses.replace(self._ranking.spec, **changes)
        except InputError as exc:
            raise ConfigurationError.of(exc) from exc

    def _start(self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None) -> str:
        """The query, once ``ReRankStartEvent`` is sent; GoogleRerank's ``ValueError`` (its
        message first) without one."""
        spec = self._ranking.spec
        dispatcher.event(
            ReRankStartEvent(
                query=query_bundle,
                nodes=nodes,
                top_n=len(nodes) if spec.top_n is None else spec.top_n,
                model_name=spec.model or "",
            )
        )
        if query_bundle is None:
            raise InputError(
                "Missing query bundle in extra info. DiscoveryEngineReranker ranks the nodes "
                "against the query: pass query_str= or query_bundle= to postprocess_nodes",
                field="query_bundle",
            )
        return query_bundle.query_str

    @staticmethod
    def _records(nodes: Sequence[NodeWithScore]) -> list[RankingRecord]:
        return [
            RankingRecord(content=n.node.get_content(metadata_mode=MetadataMode.EMBED))
            for n in nodes
        ]

    @staticmethod
    def _end(nodes: Sequence[NodeWithScore], ranked: list[RankedRecord]) -> list[NodeWithScore]:
        reordered = [NodeWithScore(node=nodes[r.index].node, score=r.score) for r in ranked]
        dispatcher.event(ReRankEndEvent(nodes=reordered))
        return reordered

    @dispatcher.span
    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        query = self._start(nodes, query_bundle)
        ranked = self._ranking.rank(query, self._records(nodes)) if nodes else []
        return self._end(nodes, ranked)

    @dispatcher.span
    async def _apostprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        query = self._start(nodes, query_bundle)
        ranked = await self._ranking.arank(query, self._records(nodes)) if nodes else []
        return self._end(nodes, ranked)
