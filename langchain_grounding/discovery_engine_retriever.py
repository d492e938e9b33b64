"""``DiscoveryEngineRetriever``: Vertex AI Search (Discovery Engine) chunks as Documents."""

from __future__ import annotations

import dataclasses
from typing import Any

from langchain_core.retrievers import LangSmithRetrieverParams
from pydantic import Field, model_validator

from grounding_core import (
    DEFAULT_COLLECTION,
    DEFAULT_SEARCH_K,
    DEFAULT_SERVING_CONFIG,
    MAX_CHUNK_NEIGHBOURS,
    MAX_EXTRACTIVE_ANSWERS,
    MAX_EXTRACTIVE_SEGMENTS,
    ChunkSearchSpec,
    DataStoreSpec,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineTarget,
    QueryExpansion,
    RelevanceThreshold,
    SearchResultMode,
    SpellCorrection,
)

from ._connection import DiscoveryEngineSettings
from ._retrieving import ChunkRetriever

__all__ = ["DiscoveryEngineRetriever"]

# The retriever's search options are the spec's fields (``k`` is the retriever's own field too).
_SPEC_FIELDS = tuple(f.name for f in dataclasses.fields(ChunkSearchSpec))


class DiscoveryEngineRetriever(DiscoveryEngineSettings, ChunkRetriever[DiscoveryEngineChunkSearch]):
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
            data stores: then ``page_content`` is the extractive segments, else the extractive
            answers, else the snippets (for structured data, the struct data as
            ``key: value`` lines).
        return_snippet, max_extractive_*, spell_correction, query_expansion, facet_specs,
            data_store_specs, ...: the other fields of ``grounding_core.ChunkSearchSpec``
            (documents-mode text, query options). The response's own values (corrected query,
            facets, ...) come as the run's ``"search_response"`` custom event.
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
    (``ainvoke``) runs on Google's async client. The search itself is
    ``grounding_core.DiscoveryEngineChunkSearch`` (``retriever.search``).
    """

    data_store_id: str | None = Field(default=None, description="data store id")
    engine_id: str | None = Field(default=None, description="engine (app) id")
    collection: str | None = Field(default=DEFAULT_COLLECTION)
    serving_config_id: str = Field(default=DEFAULT_SERVING_CONFIG)
    k: int = Field(default=DEFAULT_SEARCH_K, ge=1, description="number of chunks returned")
    filter: str = Field(default="", description='e.g. lang: ANY("en")')
    boost_spec: dict[str, Any] | None = Field(default=None, description="BoostSpec as a dict")
    order_by: str = ""
    num_previous_chunks: int = Field(default=0, ge=0, le=MAX_CHUNK_NEIGHBOURS)
    num_next_chunks: int = Field(default=0, ge=0, le=MAX_CHUNK_NEIGHBOURS)
    relevance_threshold: RelevanceThreshold | None = None
    search_mode: SearchResultMode = "chunks"
    return_snippet: bool | None = Field(default=None, description="None: in documents mode")
    max_extractive_answer_count: int = Field(default=0, ge=0, le=MAX_EXTRACTIVE_ANSWERS)
    max_extractive_segment_count: int = Field(default=0, ge=0, le=MAX_EXTRACTIVE_SEGMENTS)
    return_extractive_segment_score: bool = False
    num_previous_segments: int = Field(default=0, ge=0)
    num_next_segments: int = Field(default=0, ge=0)
    spell_correction: SpellCorrection | None = None
    query_expansion: QueryExpansion | None = None
    pin_unexpanded_results: bool = False
    language_code: str = ""
    user_pseudo_id: str = ""
    session: str = ""
    relevance_filter_spec: dict[str, Any] | None = None
    data_store_specs: tuple[DataStoreSpec, ...] = ()
    facet_specs: tuple[dict[str, Any], ...] = ()

    @model_validator(mode="after")
    def _build_search(self) -> DiscoveryEngineRetriever:
        # The whole target and spec are validated now, not at the first query.
        self._search = DiscoveryEngineChunkSearch.create(
            self.connection,
            data_store_id=self.data_store_id,
            engine_id=self.engine_id,
            collection=self.collection,
            serving_config_id=self.serving_config_id,
            **{name: getattr(self, name) for name in _SPEC_FIELDS},
        )
        return self

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The data store or engine searched."""
        return self._search.target

    def _get_ls_params(self, **kwargs: Any) -> LangSmithRetrieverParams:
        params = super()._get_ls_params(**kwargs)
        params["ls_vector_store_provider"] = "vertex_ai_search"
        return params
