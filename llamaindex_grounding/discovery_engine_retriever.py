"""``DiscoveryEngineRetriever``: Vertex AI Search (Discovery Engine) chunks as LlamaIndex nodes."""

from __future__ import annotations

import dataclasses
import functools
import typing
import warnings
from collections.abc import Mapping
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
    LLAMAINDEX_PEER,
    PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS,
    PEER_RETRIEVER_ARGUMENTS,
    InitT,
    PeerDefaults,
    PeerTable,
    check_count,
    refuse_unknown_arguments,
    translate_peer_arguments,
)
from grounding_core.search.discovery_engine import DiscoveryEngineChunkSearchArgs
from grounding_core.search.specs import SearchOptions

from ._core import connected
from ._retrieving import ChunkRetriever

__all__ = ["DiscoveryEngineRetriever"]

# llama-index-retrievers-vertexai-search's options its constructor refuses: it reads them from
# attributes set on the retriever (retriever.get_extractive_answers = True). LangChain's peer
# takes the same names in its constructor, meaning the same.
_ATTRIBUTE_ONLY = ("get_extractive_answers", "query_expansion_condition", "spell_correction_mode")
# Its options named as ours that only its documents search takes: set without search_mode,
# they bring its defaults, documents mode first.
_DOCUMENTS_OPTIONS = frozenset(
    {"max_extractive_answer_count", "max_extractive_segment_count"}
    | {"return_extractive_segment_score"}
)
# Its options whose None means "none" (its default): None there is our default.
_NONES = frozenset({"filter", "boost_spec"})


def _peer_table() -> PeerTable:
    """The LlamaIndex peer's names: the core's table, with the names of ``_ATTRIBUTE_ONLY``,
    ``_DOCUMENTS_OPTIONS`` and ``_NONES``. With ``get_extractive_answers``, its documents' text
    is their extractive answers (one each), asked for in place of the segments of unstructured
    data (website data asks for both); its documents' metadata is laid out flat (``id`` and the
    struct data keys at the top, where llama_index #21933's fix puts them)."""
    core = PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS
    core_defaults = typing.cast(PeerDefaults, core.defaults)
    extra = tuple(
        dataclasses.replace(argument, package=LLAMAINDEX_PEER)
        for argument in PEER_RETRIEVER_ARGUMENTS.arguments
        if argument.name in _ATTRIBUTE_ONLY
    )

    def values(peer: Mapping[str, Any], ours: Mapping[str, Any]) -> dict[str, Any]:
        answers = peer.get("get_extractive_answers") is True
        kind = peer.get("engine_data_type", 0)
        others = {k: v for k, v in peer.items() if k != "get_extractive_answers"}
        found = core_defaults.values(others, ours)
        if found.get("search_mode") != "documents":
            return found
        if answers and kind != 1:
            if kind == 0:  # answers only
                found.pop("max_extractive_segment_count", None)
                found.pop("return_extractive_segment_score", None)
            found |= {"max_extractive_answer_count": 1, "document_text": "extractive_answers"}
        return found | {"metadata_layout": "flat"}

    defaults = dataclasses.replace(core_defaults, values=values, shared=_DOCUMENTS_OPTIONS)
    arguments = core.arguments + extra
    return dataclasses.replace(core, arguments=arguments, defaults=defaults, nones=_NONES)


_PEER_ARGUMENTS = _peer_table()
# Every option an attribute sets, as the constructor's argument of that name would: the
# search options (k is similarity_top_k here), the layout, and the peer's options.
_SETTABLE = (
    (SearchOptions.__optional_keys__ - {"k"})
    | {"similarity_top_k", "metadata_layout", "max_documents", "engine_data_type"}
    | set(_ATTRIBUTE_ONLY)
)
# What the constructor keeps to configure the retriever again when an attribute is set: the
# settable names and the peer's names that bring its defaults (never credentials).
_KEPT = _SETTABLE | {"location_id", "user_agent"}
# The names that are not attributes here (the peers' connection ones, LangChain's, ``k``),
# with the option to use instead.
_REFUSED = {
    argument.name: "".join(argument.ours[:1])
    for table in (PEER_RETRIEVER_ARGUMENTS, _PEER_ARGUMENTS)
    for argument in table.arguments
    if argument.name not in _SETTABLE
} | {"k": "similarity_top_k"}


def _sets(name: str) -> frozenset[str]:
    """The options of ours that the argument ``name`` sets."""
    for argument in _PEER_ARGUMENTS.arguments:
        if argument.name == name:
            return frozenset(argument.ours)
    return frozenset({name})


def _search_options(
    similarity_top_k: int = DEFAULT_SEARCH_K,
    metadata_layout: MetadataLayout = DEFAULT_METADATA_LAYOUT,
    **arguments: Any,
) -> tuple[dict[str, Any], MetadataLayout]:
    """The core search's keyword arguments (``k`` from ``similarity_top_k``) and the layout."""
    if "k" in arguments:
        raise InputError(
            "k is similarity_top_k in LlamaIndex: pass similarity_top_k instead", field="k"
        )
    arguments["k"] = check_count("similarity_top_k", similarity_top_k, minimum=1)
    return arguments, check_metadata_layout(metadata_layout)


def _keeping_arguments(init: InitT) -> InitT:
    """``init``, keeping the arguments of ``_KEPT`` it was given, as given (peer names too)."""

    @functools.wraps(init)
    def keeping(self: DiscoveryEngineRetriever, **arguments: Any) -> None:
        init(self, **arguments)
        self._given = {name: v for name, v in arguments.items() if name in _KEPT}

    return typing.cast(InitT, keeping)


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
        llama-index-retrievers-vertexai-search's names (``location_id``, ``max_documents``,
        ``engine_data_type``, ``get_extractive_answers``, ...) work with a
        ``DeprecationWarning`` naming ours, and bring its defaults (docs/migrating.md).

    Configure by attribute:
        Every argument but the connection's is an attribute too, as the peer takes its options
        (``retriever.filter = ...``, ``retriever.get_extractive_answers = True``): the
        retriever is then the one the constructor builds given that argument as well (an
        argument setting the same option is replaced), checked in the same way; a bad value
        changes nothing.

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

    Each ``NodeWithScore`` holds a ``TextNode`` with ``id_`` = the chunk's resource name (in
    documents mode the document's id, as the peer gives it; its resource name is
    ``metadata["document_name"]`` and the ``SOURCE``),
    ``text`` = its content, ``metadata`` = every chunk field (``grounding_core.chunk_metadata``;
    only ``title``, ``source`` and ``description`` reach the LLM and embeddings) and the
    ``SOURCE`` (document) relationship; ``score`` is the relevance score. ``aretrieve`` runs on
    Google's async client. Bad arguments raise ``ConfigurationError`` or ``InputError`` (both
    ``ValueError``) here, not at the first query. The search itself is
    ``grounding_core.DiscoveryEngineChunkSearch`` (``retriever.search``).
    """

    # The peer's names (its VertexAISearchRetriever), translated with a warning.
    _peer_arguments: ClassVar[PeerTable] = _PEER_ARGUMENTS
    _given: dict[str, Any]

    @_keeping_arguments
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
        options, self._metadata_layout = _search_options(
            similarity_top_k, metadata_layout, **arguments
        )
        super().__init__(connected(DiscoveryEngineChunkSearch, options), callback_manager, verbose)

    def __getattr__(self, name: str) -> Any:
        # Only for names not found otherwise: the search options, read from the spec, and the
        # peer's options as they were last given.
        if name in SearchOptions.__optional_keys__ - {"k"}:
            return getattr(self._search.spec, name)
        given = self.__dict__.get("_given", {})
        if name in _SETTABLE and name in given:
            return given[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        # llama-index-retrievers-vertexai-search takes its options as attributes set after
        # construction (retriever.filter = ..., retriever.get_extractive_answers = True): an
        # attribute here configures the retriever as the constructor given it too would.
        if name in _SETTABLE:
            self._configure(name, value)
        elif name in _REFUSED:
            ours = _REFUSED[name]
            instead = "it has no equivalent"
            if ours:
                instead = (
                    f"set {ours}" if ours in _SETTABLE else f"build the retriever with {ours}=..."
                )
            raise AttributeError(
                f"{name} is not an option of {type(self).__name__} that an attribute sets: "
                f"{instead} (docs/migrating.md maps each)"
            )
        else:
            super().__setattr__(name, value)

    def _configure(self, name: str, value: Any) -> None:
        """The retriever configured by the arguments it was given and ``name=value``, which
        replaces any of them setting the same option; checked as the constructor checks them
        (a bad value changes nothing), the peer's names warning as they do there."""
        given = {n: v for n, v in self._given.items() if not _sets(n) & _sets(name)}
        given[name] = value
        # It warns as the constructor does of a peer's name, and of an option bringing the
        # peer's defaults; of the names given before, it warned already.
        brings_defaults = name in _DOCUMENTS_OPTIONS and not (
            self._given.keys() & (_PEER_ARGUMENTS.names | _DOCUMENTS_OPTIONS | {"search_mode"})
        )
        with warnings.catch_warnings():
            if name not in _PEER_ARGUMENTS.names and not brings_defaults:
                warnings.simplefilter("ignore", DeprecationWarning)
            arguments = translate_peer_arguments(type(self).__name__, _PEER_ARGUMENTS, given)
        arguments = {n: v for n, v in arguments.items() if n in _SETTABLE | {"k"}}
        options, layout = _search_options(**arguments)
        spec = ChunkSearchSpec(**options)
        fields = {field.name: getattr(spec, field.name) for field in dataclasses.fields(spec)}
        self._search = self._search.replace(**fields)
        self._metadata_layout = layout
        self._given = given

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
        """How the nodes' metadata is laid out (``"default"`` or ``"flat"``; settable)."""
        return self._metadata_layout

    @property
    def spec(self) -> ChunkSearchSpec:
        """The search options sent with every query."""
        return self._search.spec
