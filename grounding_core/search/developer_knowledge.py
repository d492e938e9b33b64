"""``DeveloperKnowledgeChunkSearch``: the Developer Knowledge API's ``SearchDocumentChunks`` over
Google's developer documentation, as ``SourceChunk`` records (sync and async).

>>> connection = DeveloperKnowledgeConnection(emulator_host="localhost:8123")
>>> DeveloperKnowledgeChunkSearch(connection, k=3).spec.k
3
"""

from __future__ import annotations

import dataclasses
from typing import Any

from google.developer_knowledge_v1 import DeveloperKnowledgeAsyncClient, DeveloperKnowledgeClient
from google.developer_knowledge_v1 import types as dk

from grounding_core._checks import check_query
from grounding_core._clients import DeveloperKnowledgeConnection
from grounding_core._convert import chunk_from_developer_knowledge
from grounding_core._errors import translate_errors
from grounding_core._records import SourceChunk

from .results import afirst_pages, first_pages, first_results
from .specs import (
    DEFAULT_DEVELOPER_KNOWLEDGE_K,
    MAX_DEVELOPER_KNOWLEDGE_TEXT,
    MAX_PAGE_SIZE,
    DeveloperKnowledgeSearchSpec,
    per_call,
)

DEVELOPER_KNOWLEDGE = "the Developer Knowledge corpus"
"""How errors name the (resource-less) Developer Knowledge API."""


class DeveloperKnowledgeChunkSearch:
    """Search of Google's developer documentation (Developer Knowledge ``SearchDocumentChunks``);
    ``k`` and ``filter`` (``DeveloperKnowledgeSearchSpec``) can change per call."""

    def __init__(
        self,
        connection: DeveloperKnowledgeConnection,
        *,
        k: int = DEFAULT_DEVELOPER_KNOWLEDGE_K,
        filter: str = "",
    ) -> None:
        self.connection = connection
        self.spec = DeveloperKnowledgeSearchSpec(k=k, filter=filter)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(k={self.spec.k}, endpoint={self.connection.endpoint!r})"

    def replace(self, **changes: Any) -> DeveloperKnowledgeChunkSearch:
        """A copy whose spec has some options changed (validated again)."""
        spec = dataclasses.replace(self.spec, **changes)
        return type(self)(self.connection, k=spec.k, filter=spec.filter)

    def _request(self, query: str, k: int | None, filter: str | None) -> tuple[Any, int]:
        spec = per_call(self.spec, k, filter)
        request = dk.SearchDocumentChunksRequest(
            query=check_query(query, maximum=MAX_DEVELOPER_KNOWLEDGE_TEXT),
            page_size=min(spec.k, MAX_PAGE_SIZE),
            filter=spec.filter,
        )
        return request, spec.k

    def search(
        self, query: str, *, k: int | None = None, filter: str | None = None
    ) -> list[SourceChunk]:
        """The top ``k`` chunks for ``query``."""
        request, k = self._request(query, k, filter)
        with translate_errors("SearchDocumentChunks", DEVELOPER_KNOWLEDGE):
            client = self.connection.client(DeveloperKnowledgeClient)
            pager = client.search_document_chunks(
                request=request, **self.connection.call_options.call_kwargs()
            )
            pages = first_pages(pager.pages, k)
        return [chunk_from_developer_knowledge(r) for r in first_results(pages, k)]

    async def asearch(
        self, query: str, *, k: int | None = None, filter: str | None = None
    ) -> list[SourceChunk]:
        """Async ``search``, on Google's async client."""
        request, k = self._request(query, k, filter)
        with translate_errors("SearchDocumentChunks", DEVELOPER_KNOWLEDGE):
            client = self.connection.async_client(DeveloperKnowledgeAsyncClient)
            pager = await client.search_document_chunks(
                request=request, **self.connection.call_options.async_call_kwargs()
            )
            pages = await afirst_pages(pager.pages, k)
        return [chunk_from_developer_knowledge(r) for r in first_results(pages, k)]
