"""What both LangChain retrievers share: the calls of the core chunk search they wrap.

A Discovery Engine search also reports what its response says of the search as a whole
(``grounding_core.search_response_metadata``: ``total_size``, ``corrected_query``,
``expanded_query``, ``pinned_result_count``, ``facets``) as the run's custom event
``SEARCH_RESPONSE_EVENT`` (``"search_response"``): callback handlers get it in
``on_custom_event``, ``astream_events`` as an ``on_custom_event`` event.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import PrivateAttr

from grounding_core import (
    DeveloperKnowledgeChunkSearch,
    DiscoveryEngineChunkSearch,
    SourceChunk,
    search_response_metadata,
)

from ._arguments import StrictArguments
from ._serialization import Serialized
from .documents import chunk_to_document

__all__ = ["SEARCH_RESPONSE_EVENT", "ChunkRetriever"]

SEARCH_RESPONSE_EVENT = "search_response"

SearchT = TypeVar("SearchT", DiscoveryEngineChunkSearch, DeveloperKnowledgeChunkSearch)


class ChunkRetriever(Serialized, BaseRetriever, StrictArguments, Generic[SearchT]):
    """A retriever over a core chunk search (built by the subclass's validator); ``k`` and
    ``filter`` also per call (``retriever.invoke(query, k=3)``)."""

    # Each retriever gives their defaults and limits, from its search spec.
    k: int
    filter: str

    _search: SearchT = PrivateAttr()

    @property
    def search(self) -> SearchT:
        """The core search this retriever wraps."""
        return self._search

    def _document(self, chunk: SourceChunk) -> Document:
        """A retrieved chunk as a ``Document`` (a retriever with a metadata layout passes it)."""
        return chunk_to_document(chunk)

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        filter: str | None = None,
    ) -> list[Document]:
        search = self._search
        if isinstance(search, DeveloperKnowledgeChunkSearch):
            return [self._document(c) for c in search.search(query, k=k, filter=filter)]
        results = search.search_results(query, k=k, filter=filter)
        # The child manager's handlers are these inheritable ones: with none, nobody would
        # receive the event (LangChain drops it), so it is not built.
        if run_manager.inheritable_handlers:
            run_manager.get_child().on_custom_event(
                SEARCH_RESPONSE_EVENT, search_response_metadata(results), run_id=run_manager.run_id
            )
        return [self._document(chunk) for chunk in results.chunks]

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        filter: str | None = None,
    ) -> list[Document]:
        search = self._search
        if isinstance(search, DeveloperKnowledgeChunkSearch):
            chunks = await search.asearch(query, k=k, filter=filter)
            return [self._document(c) for c in chunks]
        results = await search.asearch_results(query, k=k, filter=filter)
        if run_manager.inheritable_handlers:  # as in _get_relevant_documents
            await run_manager.get_child().on_custom_event(
                SEARCH_RESPONSE_EVENT, search_response_metadata(results), run_id=run_manager.run_id
            )
        return [self._document(chunk) for chunk in results.chunks]
