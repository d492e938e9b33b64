"""What both LangChain retrievers share: the calls of the core chunk search they wrap."""

from __future__ import annotations

from typing import Generic, TypeVar

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import PrivateAttr

from grounding_core import DeveloperKnowledgeChunkSearch, DiscoveryEngineChunkSearch

from .documents import chunk_to_document

__all__ = ["ChunkRetriever"]

SearchT = TypeVar("SearchT", DiscoveryEngineChunkSearch, DeveloperKnowledgeChunkSearch)


class ChunkRetriever(BaseRetriever, Generic[SearchT]):
    """A retriever over a core chunk search (built by the subclass's validator); ``k`` and
    ``filter`` also per call (``retriever.invoke(query, k=3)``)."""

    _search: SearchT = PrivateAttr()

    @property
    def search(self) -> SearchT:
        """The core search this retriever wraps."""
        return self._search

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        filter: str | None = None,
    ) -> list[Document]:
        chunks = self._search.search(query, k=k, filter=filter)
        return [chunk_to_document(chunk) for chunk in chunks]

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        filter: str | None = None,
    ) -> list[Document]:
        chunks = await self._search.asearch(query, k=k, filter=filter)
        return [chunk_to_document(chunk) for chunk in chunks]
