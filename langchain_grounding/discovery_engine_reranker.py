"""``DiscoveryEngineReranker``: Google's Ranking API as a LangChain document compressor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from langchain_core.callbacks import Callbacks
from langchain_core.documents import BaseDocumentCompressor, Document
from langchain_core.load import Serializable
from pydantic import Field, PrivateAttr, model_validator

from grounding_core import (
    DEFAULT_RANKING_CONFIG,
    DiscoveryEngineRanking,
    RankedRecord,
    RankingRecord,
)
from grounding_core.peers import PEER_RANKER_ARGUMENTS, PeerTable
from grounding_core.ranking import DEFAULT_TITLE_FIELDS, record_title

from ._arguments import StrictArguments
from ._connection import DiscoveryEngineSettings

__all__ = ["RANK_SCORE_KEY", "DiscoveryEngineReranker"]

RANK_SCORE_KEY = "rank_score"
"""The metadata key of a reranked document's score (also ``relevance_score``, where
langchain-google-community's ``VertexAIRank`` puts it, in place of the search's)."""


class DiscoveryEngineReranker(
    DiscoveryEngineSettings, BaseDocumentCompressor, Serializable, StrictArguments
):
    """Reranks documents with Google's Ranking API (``RankService.Rank``): use it in a
    ``ContextualCompressionRetriever`` after a retriever, to put the best chunk first.

    Setup:
        As for ``DiscoveryEngineRetriever``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``). No data store is needed.

    Key init args:
        top_n: how many documents to keep (``None``: every one, reordered).
        model: the ranking model (``None``: Google's default; e.g.
            ``"semantic-ranker-default@latest"``).
        title_fields: the metadata keys whose values, joined, are the record's title
            (default ``("title",)``, what our retrievers put there); the content is
            ``page_content``. ``title_field="t"``, the peer's name, is ``("t",)``.
        ranking_config, user_labels, project_id, location, and the connection fields;
            ``client``: a Google ``RankServiceClient`` of yours (any API version, as
            langchain-google-community's ``client=``) called instead of the connection's.

    Instantiate:
        .. code-block:: python

            from langchain.retrievers import ContextualCompressionRetriever
            from langchain_grounding import DiscoveryEngineReranker, DiscoveryEngineRetriever

            reranker = DiscoveryEngineReranker(project_id="my-project", top_n=5)
            retriever = ContextualCompressionRetriever(
                base_compressor=reranker,
                base_retriever=DiscoveryEngineRetriever(
                    project_id="my-project", data_store_id="docs", k=20
                ),
            )

    Usage:
        .. code-block:: python

            docs = reranker.compress_documents(documents, "How do I open a file?")
            docs[0].metadata["relevance_score"]   # every other metadata key kept

    Each document comes back as a copy with every metadata key kept, best first, its rank
    score (0..1) as ``metadata["relevance_score"]`` (in place of the search's, as
    langchain-google-community's ``VertexAIRank`` has it) and ``metadata["rank_score"]``, and
    ``metadata["id"]`` its own, else (as the peer's) its position in the documents given. More
    documents than Google ranks in one request (200) go in several, merged by score.
    ``acompress_documents`` runs on Google's async client.
    """

    ranking_config: str = DEFAULT_RANKING_CONFIG
    model: str | None = None
    top_n: int | None = None
    title_fields: tuple[str, ...] = DEFAULT_TITLE_FIELDS
    user_labels: dict[str, str] = Field(default_factory=dict)
    client: Any = Field(default=None, exclude=True, repr=False)

    _ranking: DiscoveryEngineRanking = PrivateAttr()
    _peer_arguments: ClassVar[PeerTable] = PEER_RANKER_ARGUMENTS

    @model_validator(mode="after")
    def _build_ranking(self) -> DiscoveryEngineReranker:
        self._ranking = DiscoveryEngineRanking(
            self.connection,
            ranking_config=self.ranking_config,
            model=self.model,
            top_n=self.top_n,
            user_labels=self.user_labels,
            client=self.client,
        )
        return self

    @property
    def title_field(self) -> str | None:
        """The one metadata key of the records' titles (langchain-google-community's name):
        ``title_fields``' only one, ``None`` with several or none."""
        return self.title_fields[0] if len(self.title_fields) == 1 else None

    @property
    def ranking(self) -> DiscoveryEngineRanking:
        """The core component these fields configure."""
        return self._ranking

    def _record(self, document: Document) -> RankingRecord:
        title = record_title(document.metadata, self.title_fields)
        return RankingRecord(title=title, content=document.page_content, id=document.id or "")

    @staticmethod
    def _reordered(documents: Sequence[Document], ranked: list[RankedRecord]) -> list[Document]:
        reordered = []
        for r in ranked:
            document = documents[r.index]
            metadata = {"id": str(r.index), **document.metadata}
            metadata.update({"relevance_score": r.score, RANK_SCORE_KEY: r.score})
            reordered.append(document.model_copy(update={"metadata": metadata}))
        return reordered

    def compress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        """``documents`` ranked against ``query``, best first (at most ``top_n``)."""
        if not documents:
            return []
        ranked = self._ranking.rank(query, [self._record(d) for d in documents])
        return self._reordered(documents, ranked)

    async def acompress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        """Async ``compress_documents``, on Google's async client."""
        if not documents:
            return []
        ranked = await self._ranking.arank(query, [self._record(d) for d in documents])
        return self._reordered(documents, ranked)
