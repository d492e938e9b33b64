"""``DiscoveryEngineRetriever``: Vertex AI Search (Discovery Engine) chunks as Documents."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from langchain_core.documents import Document
from langchain_core.retrievers import LangSmithRetrieverParams
from pydantic import Field, model_validator

from grounding_core import (
    DEFAULT_COLLECTION,
    DEFAULT_SERVING_CONFIG,
    ChunkSearchSpec,
    DataStoreSpec,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineTarget,
    SourceChunk,
)
from grounding_core.metadata import DEFAULT_METADATA_LAYOUT, MetadataLayout
from grounding_core.peers import PEER_RETRIEVER_ARGUMENTS, PeerTable
from grounding_core.search.discovery_engine import DiscoveryEngineTargetArgs
from grounding_core.search.specs import (
    DocumentText,
    QueryExpansion,
    RelevanceThreshold,
    SearchOptions,
    SearchResultMode,
    SpellCorrection,
)

from ._connection import DiscoveryEngineSettings
from ._options import option_values, spec_default
from ._retrieving import ChunkRetriever
from .documents import chunk_to_document

__all__ = ["DiscoveryEngineRetriever"]


def _default(name: str) -> Any:
    return spec_default(ChunkSearchSpec, name)


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
            ``key: value`` lines); ``document_text`` picks one of them instead (a result
            without it gets an empty ``page_content``; ``"struct_json"``: the struct data as
            the peers' JSON).
        metadata_layout: ``"default"`` (the schema of docs/metadata.md, ``metadata["id"]``
            the document id among it) or ``"flat"``: also every top-level ``struct_data`` key
            and the first extractive segment's neighbours at the top level (our keys win on a
            clash), as langchain-google-community has them.
        return_snippet, max_extractive_*, spell_correction, query_expansion, facet_specs,
            data_store_specs, ...: the other fields of ``grounding_core.ChunkSearchSpec``
            (each option is a field of its name, with the spec's default and limits)
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

    # The peer's names (its VertexAISearchRetriever), translated with a warning.
    _peer_arguments: ClassVar[PeerTable] = PEER_RETRIEVER_ARGUMENTS

    data_store_id: str | None = Field(default=None, description="data store id")
    engine_id: str | None = Field(default=None, description="engine (app) id")
    collection: str | None = Field(default=DEFAULT_COLLECTION)
    serving_config_id: str = Field(default=DEFAULT_SERVING_CONFIG)
    # The search options: ChunkSearchSpec's fields, with its defaults.
    k: int = Field(default=_default("k"), description="number of chunks returned")
    filter: str = Field(default=_default("filter"), description='e.g. lang: ANY("en")')
    boost_spec: Mapping[str, Any] | None = Field(
        default=_default("boost_spec"), description="a BoostSpec as a dict"
    )
    order_by: str = Field(default=_default("order_by"), description="e.g. year desc")
    num_previous_chunks: int = Field(
        default=_default("num_previous_chunks"), description="chunks before each (0..3)"
    )
    num_next_chunks: int = Field(
        default=_default("num_next_chunks"), description="chunks after each (0..3)"
    )
    relevance_threshold: RelevanceThreshold | None = Field(
        default=_default("relevance_threshold"), description="lowest, low, medium or high"
    )
    search_mode: SearchResultMode = Field(
        default=_default("search_mode"), description="chunks, or documents"
    )
    return_snippet: bool | None = Field(
        default=_default("return_snippet"), description="None: snippets in documents mode"
    )
    max_extractive_answer_count: int = Field(
        default=_default("max_extractive_answer_count"), description="documents mode (0..5)"
    )
    max_extractive_segment_count: int = Field(
        default=_default("max_extractive_segment_count"), description="documents mode (0..10)"
    )
    return_extractive_segment_score: bool = Field(
        default=_default("return_extractive_segment_score"), description="with segments"
    )
    num_previous_segments: int = Field(
        default=_default("num_previous_segments"), description="segments before each"
    )
    num_next_segments: int = Field(
        default=_default("num_next_segments"), description="segments after each"
    )
    document_text: DocumentText = Field(
        default=_default("document_text"), description="documents mode: the content as text"
    )
    spell_correction: SpellCorrection | None = Field(
        default=_default("spell_correction"), description="auto or suggestion_only"
    )
    query_expansion: QueryExpansion | None = Field(
        default=_default("query_expansion"), description="auto or disabled"
    )
    pin_unexpanded_results: bool = Field(
        default=_default("pin_unexpanded_results"), description="with query_expansion='auto'"
    )
    canonical_filter: str = Field(
        default=_default("canonical_filter"), description="decides query expansion (filter syntax)"
    )
    language_code: str = Field(default=_default("language_code"), description="e.g. en-US")
    user_pseudo_id: str = Field(
        default=_default("user_pseudo_id"), description="the visitor (at most 128 characters)"
    )
    session: str = Field(default=_default("session"), description="a session resource name")
    relevance_filter_spec: Mapping[str, Any] | None = Field(
        default=_default("relevance_filter_spec"), description="a RelevanceFilterSpec as a dict"
    )
    data_store_specs: Sequence[DataStoreSpec] = Field(
        default=_default("data_store_specs"), description="DataStoreSpec records"
    )
    facet_specs: Sequence[Mapping[str, Any]] = Field(
        default=_default("facet_specs"), description="FacetSpec dicts (at most 100)"
    )
    metadata_layout: MetadataLayout = Field(
        default=DEFAULT_METADATA_LAYOUT,
        description="default, or flat (struct data keys at the top level)",
    )

    @model_validator(mode="after")
    def _build_search(self) -> DiscoveryEngineRetriever:
        # The whole target and spec are validated now, not at the first query.
        self._search = DiscoveryEngineChunkSearch(
            self.connection,
            **option_values(self, DiscoveryEngineTargetArgs),
            **option_values(self, SearchOptions),
        )
        return self

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The data store or engine searched."""
        return self._search.target

    def _document(self, chunk: SourceChunk) -> Document:
        return chunk_to_document(chunk, self.metadata_layout)

    def _get_ls_params(self, **kwargs: Any) -> LangSmithRetrieverParams:
        params = super()._get_ls_params(**kwargs)
        params["ls_vector_store_provider"] = "vertex_ai_search"
        return params
