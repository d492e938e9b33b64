"""``DiscoveryEngineRetriever``: Vertex AI Search (Discovery Engine) chunks as Documents."""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever, LangSmithRetrieverParams
from pydantic import Field, PrivateAttr, model_validator

from grounding_core import (
    ChunkSearchSpec,
    DiscoveryEngineTarget,
    asearch_chunks,
    search_chunks,
)
from grounding_core.settings import DEFAULT_COLLECTION, DEFAULT_SERVING_CONFIG

from ._connection import DiscoveryEngineConnection
from .documents import chunk_to_document

__all__ = ["DiscoveryEngineRetriever"]


class DiscoveryEngineRetriever(DiscoveryEngineConnection, BaseRetriever):
    """Chunks of a Discovery Engine (Vertex AI Search) data store or engine, as Documents.

    Setup:
        ``pip install grounding-kit``; on Google Cloud, application default credentials
        (``gcloud auth application-default login``). Offline, start the emulator
        (``grounding serve``) and pass ``emulator_host`` or set
        ``DISCOVERYENGINE_EMULATOR_HOST``.

    Key init args:
        data_store_id / engine_id: exactly one; the search goes to its serving config.
        project_id, location, collection, serving_config_id: the rest of the resource name.
        k: number of chunks (also per call: ``retriever.invoke(q, k=3)``).
        filter, boost_spec, order_by, relevance_threshold: search options.
        num_previous_chunks / num_next_chunks: neighbouring chunks (0..3) kept in metadata.
        search_mode: ``"chunks"`` (default) or ``"documents"`` for structured and website
            data stores: then ``page_content`` is the extractive segments/answers or
            snippets (for structured data, the struct data as ``key: value`` lines).
        emulator_host, credentials, client_options, timeout, retry: the connection.

    Instantiate:
        .. code-block:: python

            from langchain_grounding import DiscoveryEngineRetriever

            retriever = DiscoveryEngineRetriever(
                project_id="my-project", data_store_id="python-docs", k=4,
                emulator_host="localhost:8123",  # omit for Google Cloud
            )

    Usage:
        .. code-block:: python

            docs = retriever.invoke("How does a with statement work?")
            docs[0].id                   # projects/.../documents/.../chunks/...
            docs[0].metadata["source"]   # the document URI

    Use within a chain:
        .. code-block:: python

            chain = {"context": retriever, "question": RunnablePassthrough()} | prompt | llm

    Each ``Document`` has ``id`` = the chunk's resource name, ``page_content`` = its content
    and ``metadata`` = every chunk field (see ``grounding_core.chunk_metadata``). Async
    (``ainvoke``) runs on Google's async client.
    """

    data_store_id: str | None = Field(default=None, description="data store id")
    engine_id: str | None = Field(default=None, description="engine (app) id")
    collection: str | None = Field(default=DEFAULT_COLLECTION)
    serving_config_id: str = Field(default=DEFAULT_SERVING_CONFIG)
    k: int = Field(default=4, ge=1, description="number of chunks returned")
    filter: str = Field(default="", description='e.g. lang: ANY("en")')
    boost_spec: dict[str, Any] | None = Field(default=None, description="BoostSpec as a dict")
    order_by: str = ""
    num_previous_chunks: int = Field(default=0, ge=0, le=3)
    num_next_chunks: int = Field(default=0, ge=0, le=3)
    relevance_threshold: Literal["lowest", "low", "medium", "high"] | None = None
    search_mode: Literal["chunks", "documents"] = "chunks"

    _target: DiscoveryEngineTarget = PrivateAttr()

    @model_validator(mode="after")
    def _build_target(self) -> DiscoveryEngineRetriever:
        # Validate the whole target now, not at the first query.
        self._target = self.connection.target(
            data_store_id=self.data_store_id,
            engine_id=self.engine_id,
            collection=self.collection,
            serving_config_id=self.serving_config_id,
        )
        self._spec(None, None)
        return self

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The data store or engine searched."""
        return self._target

    def _spec(self, k: int | None, filter: str | None) -> ChunkSearchSpec:
        return ChunkSearchSpec(
            k=self.k if k is None else k,
            filter=self.filter if filter is None else filter,
            boost_spec=self.boost_spec,
            order_by=self.order_by,
            num_previous_chunks=self.num_previous_chunks,
            num_next_chunks=self.num_next_chunks,
            relevance_threshold=self.relevance_threshold,
            mode=self.search_mode,
        )

    def _get_ls_params(self, **kwargs: Any) -> LangSmithRetrieverParams:
        params = super()._get_ls_params(**kwargs)
        params["ls_vector_store_provider"] = "vertex_ai_search"
        return params

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        filter: str | None = None,
    ) -> list[Document]:
        chunks = search_chunks(
            self.clients, self._target, query, self._spec(k, filter), self.call_options
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
        chunks = await asearch_chunks(
            self.clients, self._target, query, self._spec(k, filter), self.call_options
        )
        return [chunk_to_document(chunk) for chunk in chunks]
