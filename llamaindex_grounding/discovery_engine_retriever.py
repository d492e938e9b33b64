"""``DiscoveryEngineRetriever``: Vertex AI Search (Discovery Engine) chunks as LlamaIndex nodes."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

from google.auth.credentials import Credentials
from llama_index.core.callbacks import CallbackManager
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from grounding_core import (
    ChunkSearchSpec,
    DiscoveryEngineTarget,
    InputError,
    RetryPolicy,
    asearch_chunks,
    search_chunks,
)
from grounding_core.settings import DEFAULT_COLLECTION, DEFAULT_LOCATION, DEFAULT_SERVING_CONFIG
from grounding_core.specs import RelevanceThreshold, SearchResultMode, check_count

from ._connection import DEFAULT_RETRY, DEFAULT_TIMEOUT, ClientOptionsArg, DiscoveryEngineConnection
from .nodes import chunk_to_node_with_score

__all__ = ["DiscoveryEngineRetriever"]

logger = logging.getLogger(__name__)


def check_search_mode(value: object) -> SearchResultMode:
    """``value`` if it is a search mode, else an ``InputError`` naming ``search_mode``."""
    if value not in ("chunks", "documents"):
        raise InputError(
            f"search_mode must be 'chunks' or 'documents', got {value!r}", field="search_mode"
        )
    return value


class DiscoveryEngineRetriever(BaseRetriever):
    """Chunks of a Discovery Engine (Vertex AI Search) data store or engine, as nodes.

    Setup:
        ``pip install grounding-kit``; on Google Cloud, application default credentials
        (``gcloud auth application-default login``). Offline, start the emulator
        (``grounding serve``) and pass ``emulator_host`` or set
        ``DISCOVERYENGINE_EMULATOR_HOST``.

    Key init args:
        data_store_id / engine_id: exactly one; the search goes to its serving config.
        project_id, location, collection, serving_config_id: the rest of the resource name.
        similarity_top_k: number of chunks (default 4; settable between queries).
        filter, boost_spec, order_by, relevance_threshold: search options.
        num_previous_chunks / num_next_chunks: neighbouring chunks (0..3), kept in metadata
            and linked as the ``PREVIOUS``/``NEXT`` relationships.
        search_mode: ``"chunks"`` (default) or ``"documents"`` for structured and website
            data stores (then the text is the extractive segments/answers or snippets).
        emulator_host, credentials, client_options, timeout, retry: the connection.

    Instantiate:
        .. code-block:: python

            from llamaindex_grounding import DiscoveryEngineRetriever

            retriever = DiscoveryEngineRetriever(
                project_id="my-project", data_store_id="python-docs", similarity_top_k=4,
                emulator_host="localhost:8123",  # omit for Google Cloud
            )

    Usage:
        .. code-block:: python

            nodes = retriever.retrieve("How does a with statement work?")
            nodes[0].node.node_id             # projects/.../documents/.../chunks/...
            nodes[0].node.metadata["source"]  # the document URI
            nodes[0].score                    # the chunk's relevance score

    Use within a query engine:
        .. code-block:: python

            from llama_index.core.query_engine import RetrieverQueryEngine

            query_engine = RetrieverQueryEngine.from_args(retriever, llm=llm)
            response = query_engine.query("How does a with statement work?")

    Each ``NodeWithScore`` holds a ``TextNode`` with ``id_`` = the chunk's resource name,
    ``text`` = its content, ``metadata`` = every chunk field (``grounding_core.chunk_metadata``;
    only ``title``, ``source`` and ``description`` reach the LLM and embeddings) and the
    ``SOURCE`` (document) relationship; ``score`` is the relevance score. ``aretrieve`` runs on
    Google's async client. Bad arguments raise ``ConfigurationError`` or ``InputError`` (both
    ``ValueError``) here, not at the first query.
    """

    def __init__(
        self,
        *,
        data_store_id: str | None = None,
        engine_id: str | None = None,
        project_id: str | None = None,
        location: str = DEFAULT_LOCATION,
        collection: str | None = DEFAULT_COLLECTION,
        serving_config_id: str = DEFAULT_SERVING_CONFIG,
        similarity_top_k: int = 4,
        filter: str = "",
        boost_spec: Mapping[str, Any] | None = None,
        order_by: str = "",
        num_previous_chunks: int = 0,
        num_next_chunks: int = 0,
        relevance_threshold: RelevanceThreshold | None = None,
        search_mode: SearchResultMode = "chunks",
        emulator_host: str | None = None,
        credentials: Credentials | None = None,
        client_options: ClientOptionsArg = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        self._connection = DiscoveryEngineConnection.create(
            project_id=project_id,
            location=location,
            emulator_host=emulator_host,
            credentials=credentials,
            client_options=client_options,
            timeout=timeout,
            retry=retry,
        )
        self._target = self._connection.target(
            data_store_id=data_store_id,
            engine_id=engine_id,
            collection=collection,
            serving_config_id=serving_config_id,
        )
        self._spec = ChunkSearchSpec(
            k=check_count("similarity_top_k", similarity_top_k, minimum=1),
            filter=filter,
            boost_spec=dict(boost_spec) if isinstance(boost_spec, Mapping) else boost_spec,
            order_by=order_by,
            num_previous_chunks=num_previous_chunks,
            num_next_chunks=num_next_chunks,
            relevance_threshold=relevance_threshold,
            mode=check_search_mode(search_mode),
        )
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(serving_config={self._target.serving_config_path!r}, "
            f"similarity_top_k={self._spec.k}, endpoint={self._connection.clients.endpoint!r})"
        )

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The data store or engine searched."""
        return self._target

    @property
    def spec(self) -> ChunkSearchSpec:
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
        chunks = search_chunks(
            self._connection.clients,
            self._target,
            query_bundle.query_str,
            self._spec,
            self._connection.call_options,
        )
        logger.debug("%d chunks from %s", len(chunks), self._target.serving_config_path)
        return [chunk_to_node_with_score(chunk) for chunk in chunks]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        chunks = await asearch_chunks(
            self._connection.clients,
            self._target,
            query_bundle.query_str,
            self._spec,
            self._connection.call_options,
        )
        logger.debug("%d chunks from %s", len(chunks), self._target.serving_config_path)
        return [chunk_to_node_with_score(chunk) for chunk in chunks]
