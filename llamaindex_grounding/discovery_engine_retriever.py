"""``DiscoveryEngineRetriever``: Vertex AI Search (Discovery Engine) chunks as LlamaIndex nodes."""

from __future__ import annotations

from typing import Any, ClassVar

from llama_index.core.callbacks import CallbackManager
from typing_extensions import Unpack

from grounding_core import (
    DEFAULT_SEARCH_K,
    ChunkSearchSpec,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineTarget,
    InputError,
)
from grounding_core.metadata import DEFAULT_METADATA_LAYOUT, MetadataLayout, check_metadata_layout
from grounding_core.peers import (
    PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS,
    PEER_RETRIEVER_ARGUMENTS,
    PeerTable,
    check_count,
    refuse_unknown_arguments,
)
from grounding_core.search.discovery_engine import DiscoveryEngineChunkSearchArgs
from grounding_core.search.specs import SearchOptions

from ._core import connected
from ._retrieving import ChunkRetriever

__all__ = ["DiscoveryEngineRetriever"]

# The search options settable as attributes (``k`` is ``similarity_top_k`` here), and the
# peers' names, which are not: each with the option to set instead, if one is settable.
_OPTIONS = SearchOptions.__optional_keys__ - {"k"}
_PEER_NAMES = {
    argument.name: "similarity_top_k" if argument.ours == ("k",) else "".join(argument.ours[:1])
    for table in (PEER_RETRIEVER_ARGUMENTS, PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS)
    for argument in table.arguments
    if argument.name not in _OPTIONS
}


class DiscoveryEngineRetriever(ChunkRetriever[DiscoveryEngineChunkSearch]):
    """Chunks of a Discovery Engine (Vertex AI Search) data store or engine, as nodes.

    Setup:
        ``pip install grounding-kit``; on Google Cloud, application default credentials
        (``gcloud auth application-default login``). Offline, start the emulator
        (``grounding serve``) and pass ``emulator_host`` or set
        ``DISCOVERYENGINE_EMULATOR_HOST``.

    Key init args:
        ``grounding_core.search.discovery_engine.DiscoveryEngineChunkSearchArgs`` (typed: IDEs
        complete them), with the defaults of ``grounding_core.ChunkSearchSpec``:
        data_store_id / engine_id: exactly one; the search goes to its serving config.
        project_id, location, collection, serving_config_id: the rest of the resource name.
        similarity_top_k: number of chunks (default ``DEFAULT_SEARCH_K``, 4; settable between
            queries): the spec's ``k``, under LlamaIndex's name.
        filter, boost_spec, order_by, relevance_threshold: search options.
        num_previous_chunks / num_next_chunks: neighbouring chunks (0..3), kept in metadata
            and linked as the ``PREVIOUS``/``NEXT`` relationships.
        search_mode: ``"chunks"`` (default) or ``"documents"`` for structured and website
            data stores (then the text is the extractive segments, else the extractive
            answers, else the snippets; ``document_text`` picks one of them instead, and a
            result without it gets an empty text).
        metadata_layout: ``"default"`` (the schema of docs/metadata.md, ``metadata["id"]``
            the document id among it) or ``"flat"``: also every top-level ``struct_data`` key
            and the first extractive segment's neighbours at the top level (our keys win on a
            clash); kept out of the LLM and embedding text.
        return_snippet, max_extractive_*, spell_correction, query_expansion, facet_specs,
            data_store_specs, ...: the other fields of ``grounding_core.ChunkSearchSpec``
            (documents-mode text, query options). The response's own values (corrected query,
            facets, ...) come as a ``SearchResponseEvent`` to LlamaIndex's event handlers.
        emulator_host, credentials, client_options, timeout, retry: the connection.
        Every search option is an attribute too (``retriever.filter = ...``: validated, sent
        with the next query), as llama-index-retrievers-vertexai-search takes them.

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
    ``ValueError``) here, not at the first query. The search itself is
    ``grounding_core.DiscoveryEngineChunkSearch`` (``retriever.search``).
    """

    # The peer's names (its VertexAISearchRetriever), translated with a warning.
    _peer_arguments: ClassVar[PeerTable] = PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS

    @refuse_unknown_arguments
    def __init__(
        self,
        *,
        similarity_top_k: int = DEFAULT_SEARCH_K,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
        metadata_layout: MetadataLayout = DEFAULT_METADATA_LAYOUT,
        **arguments: Unpack[DiscoveryEngineChunkSearchArgs],
    ) -> None:
        if "k" in arguments:
            raise InputError(
                "k is similarity_top_k in LlamaIndex: pass similarity_top_k instead", field="k"
            )
        arguments["k"] = check_count("similarity_top_k", similarity_top_k, minimum=1)
        self._metadata_layout = check_metadata_layout(metadata_layout)
        search = connected(DiscoveryEngineChunkSearch, arguments)
        super().__init__(search, callback_manager, verbose)

    def __getattr__(self, name: str) -> Any:
        # Only for names not found otherwise: the search options, read from the spec.
        if name in _OPTIONS:
            return getattr(self._search.spec, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        # llama-index-retrievers-vertexai-search takes its search options as attributes set
        # after construction (retriever.filter = ...): ours take them too, validated, instead
        # of keeping an attribute that no search reads.
        if name in _OPTIONS:
            self._search = self._search.replace(**{name: value})
        elif name in _PEER_NAMES:
            ours = _PEER_NAMES[name]
            if ours in _OPTIONS or ours == "similarity_top_k":
                instead = f"set {ours} instead"
            elif ours:
                instead = f"build the retriever with {ours}=..."
            else:
                instead = "it has no attribute equivalent"
            raise AttributeError(
                f"{name} is a name of the peers (llama-index-retrievers-vertexai-search, "
                f"langchain-google-community), not an attribute of {type(self).__name__}: "
                f"{instead} (docs/migrating.md maps each)"
            )
        else:
            super().__setattr__(name, value)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(serving_config={self.target.serving_config_path!r}, "
            f"similarity_top_k={self.similarity_top_k}, "
            f"endpoint={self._search.connection.endpoint!r})"
        )

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The data store or engine searched."""
        return self._search.target

    @property
    def metadata_layout(self) -> MetadataLayout:
        """How the nodes' metadata is laid out (``"default"`` or ``"flat"``)."""
        return self._metadata_layout

    @property
    def spec(self) -> ChunkSearchSpec:
        """The search options sent with every query."""
        return self._search.spec
