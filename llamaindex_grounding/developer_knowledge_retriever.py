"""``DeveloperKnowledgeRetriever``: Google's developer documentation chunks as LlamaIndex nodes."""

from __future__ import annotations

import dataclasses
import logging

from google.auth.credentials import Credentials
from llama_index.core.callbacks import CallbackManager
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from grounding_core import (
    DeveloperKnowledgeSearchSpec,
    RetryPolicy,
    asearch_developer_knowledge,
    search_developer_knowledge,
)
from grounding_core.specs import check_count

from ._connection import (
    DEFAULT_RETRY,
    DEFAULT_TIMEOUT,
    ClientOptionsArg,
    DeveloperKnowledgeConnection,
)
from .nodes import chunk_to_node_with_score

__all__ = ["DeveloperKnowledgeRetriever"]

logger = logging.getLogger(__name__)


class DeveloperKnowledgeRetriever(BaseRetriever):
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
    async client.
    """

    def __init__(
        self,
        *,
        similarity_top_k: int = 5,
        filter: str = "",
        emulator_host: str | None = None,
        credentials: Credentials | None = None,
        client_options: ClientOptionsArg = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        self._connection = DeveloperKnowledgeConnection.create(
            emulator_host=emulator_host,
            credentials=credentials,
            client_options=client_options,
            timeout=timeout,
            retry=retry,
        )
        self._spec = DeveloperKnowledgeSearchSpec(
            k=check_count("similarity_top_k", similarity_top_k, minimum=1), filter=filter
        )
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(similarity_top_k={self._spec.k}, "
            f"filter={self._spec.filter!r}, endpoint={self._connection.clients.endpoint!r})"
        )

    @property
    def spec(self) -> DeveloperKnowledgeSearchSpec:
        """The search options sent with every query."""
        return self._spec

    @property
    def similarity_top_k(self) -> int:
        """The number of chunks returned."""
        return self._spec.k

    @similarity_top_k.setter
    def similarity_top_k(self, value: int) -> None:
        self._spec = dataclasses.replace(
            self._spec, k=check_count("similarity_top_k", value, minimum=1)
        )

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        chunks = search_developer_knowledge(
            self._connection.clients,
            query_bundle.query_str,
            self._spec,
            self._connection.call_options,
        )
        logger.debug("%d Developer Knowledge chunks", len(chunks))
        return [chunk_to_node_with_score(chunk) for chunk in chunks]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        chunks = await asearch_developer_knowledge(
            self._connection.clients,
            query_bundle.query_str,
            self._spec,
            self._connection.call_options,
        )
        logger.debug("%d Developer Knowledge chunks", len(chunks))
        return [chunk_to_node_with_score(chunk) for chunk in chunks]
