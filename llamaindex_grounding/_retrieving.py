"""What both LlamaIndex retrievers share: the core chunk search they wrap, ``similarity_top_k``
and the calls."""

from __future__ import annotations

import logging
from typing import Generic, TypeVar

from llama_index.core.callbacks import CallbackManager
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from grounding_core import DeveloperKnowledgeChunkSearch, DiscoveryEngineChunkSearch, check_count

from .nodes import chunk_to_node_with_score

__all__ = ["ChunkRetriever"]

logger = logging.getLogger(__name__)

SearchT = TypeVar("SearchT", DiscoveryEngineChunkSearch, DeveloperKnowledgeChunkSearch)


class ChunkRetriever(BaseRetriever, Generic[SearchT]):
    """A retriever over a core chunk search; ``aretrieve`` on Google's async client."""

    _search: SearchT

    def __init__(
        self, search: SearchT, callback_manager: CallbackManager | None, verbose: bool
    ) -> None:
        self._search = search
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    @property
    def search(self) -> SearchT:
        """The core search this retriever wraps."""
        return self._search

    @property
    def similarity_top_k(self) -> int:
        """The number of chunks returned (settable between queries)."""
        return self._search.spec.k

    @similarity_top_k.setter
    def similarity_top_k(self, value: int) -> None:
        self._search = self._search.replace(k=check_count("similarity_top_k", value, minimum=1))

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        chunks = self._search.search(query_bundle.query_str)
        logger.debug("%d chunks from %r", len(chunks), self)
        return [chunk_to_node_with_score(chunk) for chunk in chunks]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        chunks = await self._search.asearch(query_bundle.query_str)
        logger.debug("%d chunks from %r", len(chunks), self)
        return [chunk_to_node_with_score(chunk) for chunk in chunks]
