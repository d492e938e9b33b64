"""``DeveloperKnowledgeRetriever``: Google's developer documentation chunks as Documents."""

from __future__ import annotations

from pydantic import Field, model_validator

from grounding_core import DeveloperKnowledgeChunkSearch, DeveloperKnowledgeSearchSpec

from ._connection import DeveloperKnowledgeSettings
from ._options import spec_default
from ._retrieving import ChunkRetriever

__all__ = ["DeveloperKnowledgeRetriever"]


class DeveloperKnowledgeRetriever(
    DeveloperKnowledgeSettings, ChunkRetriever[DeveloperKnowledgeChunkSearch]
):
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
    uri, title, description, data source and update time. The search itself is
    ``grounding_core.DeveloperKnowledgeChunkSearch`` (``retriever.search``).
    """

    # DeveloperKnowledgeSearchSpec's fields, with its defaults and limits.
    k: int = Field(
        default=spec_default(DeveloperKnowledgeSearchSpec, "k"),
        description="number of chunks returned",
    )
    filter: str = Field(
        default=spec_default(DeveloperKnowledgeSearchSpec, "filter"),
        description="AIP-160 (at most 500 characters)",
    )

    @model_validator(mode="after")
    def _build_search(self) -> DeveloperKnowledgeRetriever:
        self._search = DeveloperKnowledgeChunkSearch(self.connection, k=self.k, filter=self.filter)
        return self
