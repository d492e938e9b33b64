"""``DeveloperKnowledgeRetriever``: Google's developer documentation chunks as Documents."""

from __future__ import annotations

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, model_validator

from grounding_core import (
    DeveloperKnowledgeSearchSpec,
    asearch_developer_knowledge,
    search_developer_knowledge,
)

from ._connection import DeveloperKnowledgeConnection
from .documents import chunk_to_document

__all__ = ["DeveloperKnowledgeRetriever"]


class DeveloperKnowledgeRetriever(DeveloperKnowledgeConnection, BaseRetriever):
    """Chunks of the Developer Knowledge corpus (``SearchDocumentChunks``) as Documents.

    Setup:
        On Google Cloud, credentials with the cloud-platform scope (or an API key in
        ``client_options={"api_key": ...}``). Offline: the emulator
        (``emulator_host`` or ``DEVELOPERKNOWLEDGE_EMULATOR_HOST``).

    Key init args:
        k: number of chunks (also per call); filter: AIP-160 on ``data_source``, ``uri``,
        ``update_time``, ``content_length_bytes`` (at most 500 characters); the connection
        (emulator_host, credentials, client_options, timeout, retry).

    Instantiate:
        .. code-block:: python

            from langchain_grounding import DeveloperKnowledgeRetriever

            retriever = DeveloperKnowledgeRetriever(k=5, filter='data_source = "web.dev"')

    Usage:
        .. code-block:: python

            docs = retriever.invoke("How do I create a Cloud Storage bucket?")
            docs[0].metadata["source"]  # https://docs.cloud.google.com/...

    ``Document.id`` is ``{document name}/chunks/{chunk id}``; metadata has the document's
    uri, title, description, data source and update time.
    """

    k: int = Field(default=5, ge=1, description="number of chunks returned")
    filter: str = Field(default="", max_length=500)

    @model_validator(mode="after")
    def _check_spec(self) -> DeveloperKnowledgeRetriever:
        self._spec(None, None)
        return self

    def _spec(self, k: int | None, filter: str | None) -> DeveloperKnowledgeSearchSpec:
        return DeveloperKnowledgeSearchSpec(
            k=self.k if k is None else k, filter=self.filter if filter is None else filter
        )

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        filter: str | None = None,
    ) -> list[Document]:
        chunks = search_developer_knowledge(
            self.clients, query, self._spec(k, filter), self.call_options
        )
        return [chunk_to_document(chunk) for chunk in chunks]

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        filter: str | None = None,
    ) -> list[Document]:
        chunks = await asearch_developer_knowledge(
            self.clients, query, self._spec(k, filter), self.call_options
        )
        return [chunk_to_document(chunk) for chunk in chunks]
