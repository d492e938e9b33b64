"""``DeveloperKnowledgeRetriever``: Google's developer documentation chunks as LlamaIndex nodes."""

from __future__ import annotations

from llama_index.core.callbacks import CallbackManager
from typing_extensions import Unpack

from grounding_core import (
    DeveloperKnowledgeChunkSearch,
    DeveloperKnowledgeConnection,
    DeveloperKnowledgeConnectionArgs,
    DeveloperKnowledgeSearchSpec,
)
from grounding_core.peers import check_count, refuse_unknown_arguments
from grounding_core.search.specs import DEFAULT_DEVELOPER_KNOWLEDGE_K

from ._retrieving import ChunkRetriever

__all__ = ["DeveloperKnowledgeRetriever"]


class DeveloperKnowledgeRetriever(ChunkRetriever[DeveloperKnowledgeChunkSearch]):
    """Chunks of the Developer Knowledge corpus (``SearchDocumentChunks``) as nodes.

    Setup:
        On Google Cloud, credentials with the cloud-platform scope (or an API key in
        ``client_options={"api_key": ...}``). Offline: the emulator
        (``emulator_host`` or ``DEVELOPERKNOWLEDGE_EMULATOR_HOST``).

    Key init args:
        similarity_top_k: number of chunks (default 5; settable between queries).
        filter: AIP-160 on ``data_source``, ``uri``, ``update_time``,
            ``content_length_bytes`` (at most 500 characters).
        emulator_host, credentials, client_options, timeout, retry: the connection.

    Instantiate:
        .. code-block:: python

            from llamaindex_grounding import DeveloperKnowledgeRetriever

            retriever = DeveloperKnowledgeRetriever(
                similarity_top_k=5, filter='data_source = "web.dev"'
            )

    Usage:
        .. code-block:: python

            nodes = retriever.retrieve("How do I create a Cloud Storage bucket?")
            nodes[0].node.metadata["source"]  # https://docs.cloud.google.com/...

    Node ids are ``{document name}/chunks/{chunk id}``; the ``SOURCE`` relationship is the
    document; metadata has the document's uri, title, description, data source and update
    time (the same keys as ``DiscoveryEngineRetriever``'s). ``aretrieve`` runs on Google's
    async client. The search itself is ``grounding_core.DeveloperKnowledgeChunkSearch``
    (``retriever.search``).
    """

    @refuse_unknown_arguments
    def __init__(
        self,
        *,
        similarity_top_k: int = DEFAULT_DEVELOPER_KNOWLEDGE_K,
        filter: str = "",
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
        **connection: Unpack[DeveloperKnowledgeConnectionArgs],
    ) -> None:
        search = DeveloperKnowledgeChunkSearch(
            DeveloperKnowledgeConnection(**connection),
            k=check_count("similarity_top_k", similarity_top_k, minimum=1),
            filter=filter,
        )
        super().__init__(search, callback_manager, verbose)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(similarity_top_k={self.similarity_top_k}, "
            f"filter={self.spec.filter!r}, "
            f"endpoint={self._search.connection.endpoint!r})"
        )

    @property
    def spec(self) -> DeveloperKnowledgeSearchSpec:
        """The search options sent with every query."""
        return self._search.spec
