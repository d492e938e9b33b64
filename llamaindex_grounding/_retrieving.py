"""What both LlamaIndex retrievers share: the core chunk search they wrap, ``similarity_top_k``
and the calls. A Discovery Engine search also sends a ``SearchResponseEvent`` with what its
response says of the search as a whole (corrected query, facets, ...)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Generic, TypeVar

import llama_index.core.instrumentation as instrument
from llama_index.core.callbacks import CallbackManager
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from grounding_core import (
    DeveloperKnowledgeChunkSearch,
    DiscoveryEngineChunkSearch,
    SearchResults,
    SourceChunk,
    search_response_metadata,
)
from grounding_core.metadata import DEFAULT_METADATA_LAYOUT, MetadataLayout
from grounding_core.peers import check_count

from .events import SearchResponseEvent
from .nodes import chunk_to_node_with_score

__all__ = ["ChunkRetriever"]

logger = logging.getLogger(__name__)
# LlamaIndex re-exports get_dispatcher without declaring it (hence the ignore for mypy).
dispatcher = instrument.get_dispatcher(__name__)  # type: ignore[attr-defined]

SearchT = TypeVar("SearchT", DiscoveryEngineChunkSearch, DeveloperKnowledgeChunkSearch)


class ChunkRetriever(BaseRetriever, Generic[SearchT]):
    """A retriever over a core chunk search; ``aretrieve`` on Google's async client."""

    _search: SearchT
    # How the nodes' metadata is laid out (a retriever that takes metadata_layout sets it).
    _metadata_layout: MetadataLayout = DEFAULT_METADATA_LAYOUT

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
        query = query_bundle.query_str
        search = self._search
        if isinstance(search, DeveloperKnowledgeChunkSearch):
            return self._nodes(search.search(query))
        return self._nodes(self._report(query, search.search_results(query)))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        query = query_bundle.query_str
        search = self._search
        if isinstance(search, DeveloperKnowledgeChunkSearch):
            return self._nodes(await search.asearch(query))
        return self._nodes(self._report(query, await search.asearch_results(query)))

    def _report(self, query: str, results: SearchResults) -> tuple[SourceChunk, ...]:
        dispatcher.event(
            SearchResponseEvent(query=query, search_response=search_response_metadata(results))
        )
        return results.chunks

    def _nodes(self, chunks: Sequence[SourceChunk]) -> list[NodeWithScore]:
        logger.debug("%d chunks from %r", len(chunks), self)
        search = self._search
        # A search result in documents mode is a document: its node id is the document id, as
        # llama-index-retrievers-vertexai-search gives it (the resource name is in metadata).
        documents = isinstance(search, DiscoveryEngineChunkSearch) and (
            search.spec.search_mode == "documents"
        )
        layout = self._metadata_layout
        return [
            chunk_to_node_with_score(chunk, layout, chunk.document_id if documents else None)
            for chunk in chunks
        ]
