"""``DiscoveryEngineSearchSummaryQueryEngine``: a Discovery Engine search summary as a query
engine."""

from __future__ import annotations

from llama_index.core.callbacks import CallbackManager
from typing_extensions import Unpack

from grounding_core import (
    DEFAULT_COLLECTION,
    DEFAULT_SERVING_CONFIG,
    DEFAULT_SUMMARY_RESULT_COUNT,
    ChunkSearchSpec,
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
    DiscoveryEngineSearchSummary,
    DiscoveryEngineTarget,
    SearchResultMode,
    SummarySpec,
)

from ._answering import AnswerQueryEngine

__all__ = ["DiscoveryEngineSearchSummaryQueryEngine"]


class DiscoveryEngineSearchSummaryQueryEngine(AnswerQueryEngine[DiscoveryEngineSearchSummary]):
    """The summary of a Discovery Engine search (``content_search_spec.summary_spec``), as a
    LlamaIndex query engine.

    Setup:
        As for ``DiscoveryEngineRetriever``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``).

    Key init args:
        engine_id or data_store_id; project_id, location, collection, serving_config_id.
        result_count (the top results summarized: 1..50 in chunk mode, 1..10 in documents
        mode), include_citations, ignore_adversarial_query, ignore_non_summary_seeking_query,
        ignore_low_relevant_content, ignore_jail_breaking_query, preamble, language_code,
        model_version, use_semantic_chunks: the summary options. filter, search_mode: the
        search. emulator_host, credentials, client_options, timeout, retry: the connection.

    Instantiate:
        .. code-block:: python

            from llamaindex_grounding import DiscoveryEngineSearchSummaryQueryEngine

            query_engine = DiscoveryEngineSearchSummaryQueryEngine(
                project_id="my-project", data_store_id="python-docs"
            )

    Usage:
        .. code-block:: python

            response = query_engine.query("How do I open a file?")
            response.response                          # the summary text
            citation = response.metadata["citations"][0]
            response.response[citation["start"]:citation["end"]] == citation["text"]
            response.source_nodes[0].node.metadata["source"]  # a cited result's URI

    The ``Response`` is the one ``DiscoveryEngineAnswerQueryEngine`` gives: ``source_nodes``
    the summary's references (the search results it cites), ``metadata`` the citations with
    char and UTF-8 byte spans, the skipped reasons (non-empty when the service skipped the
    summary; the text is then its fallback message) and the ``GroundedAnswer`` under
    ``grounded_answer``. ``aquery`` runs on Google's async client; the call itself is
    ``grounding_core.DiscoveryEngineSearchSummary`` (``query_engine.answering``).
    """

    def __init__(
        self,
        *,
        engine_id: str | None = None,
        data_store_id: str | None = None,
        collection: str | None = DEFAULT_COLLECTION,
        serving_config_id: str = DEFAULT_SERVING_CONFIG,
        result_count: int = DEFAULT_SUMMARY_RESULT_COUNT,
        include_citations: bool = True,
        ignore_adversarial_query: bool = False,
        ignore_non_summary_seeking_query: bool = False,
        ignore_low_relevant_content: bool = False,
        ignore_jail_breaking_query: bool = False,
        preamble: str = "",
        language_code: str = "",
        model_version: str = "",
        use_semantic_chunks: bool = False,
        filter: str = "",
        search_mode: SearchResultMode = "chunks",
        callback_manager: CallbackManager | None = None,
        **connection: Unpack[DiscoveryEngineConnectionArgs],
    ) -> None:
        summarizing = DiscoveryEngineSearchSummary.create(
            DiscoveryEngineConnection.create(**connection),
            engine_id=engine_id,
            data_store_id=data_store_id,
            collection=collection,
            serving_config_id=serving_config_id,
            search=ChunkSearchSpec(filter=filter, search_mode=search_mode),
            result_count=result_count,
            include_citations=include_citations,
            ignore_adversarial_query=ignore_adversarial_query,
            ignore_non_summary_seeking_query=ignore_non_summary_seeking_query,
            ignore_low_relevant_content=ignore_low_relevant_content,
            ignore_jail_breaking_query=ignore_jail_breaking_query,
            preamble=preamble,
            language_code=language_code,
            model_version=model_version,
            use_semantic_chunks=use_semantic_chunks,
        )
        super().__init__(summarizing, callback_manager)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(serving_config={self.target.serving_config_path!r}, "
            f"endpoint={self._answering.connection.clients.endpoint!r})"
        )

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The engine or data store searched."""
        return self._answering.target

    @property
    def spec(self) -> SummarySpec:
        """The summary options sent with every query."""
        return self._answering.spec
