"""``DiscoveryEngineSearchSummaryQueryEngine``: a Discovery Engine search summary as a query
engine."""

from __future__ import annotations

from llama_index.core.callbacks import CallbackManager
from typing_extensions import Unpack

from grounding_core import DiscoveryEngineSearchSummary, SummarySpec
from grounding_core.peers import refuse_unknown_arguments
from grounding_core.search.summaries import DiscoveryEngineSearchSummaryArgs

from ._answering import ServingConfigQueryEngine
from ._core import connected

__all__ = ["DiscoveryEngineSearchSummaryQueryEngine"]


class DiscoveryEngineSearchSummaryQueryEngine(
    ServingConfigQueryEngine[DiscoveryEngineSearchSummary]
):
    """The summary of a Discovery Engine search (``content_search_spec.summary_spec``), as a
    LlamaIndex query engine.

    Setup:
        As for ``DiscoveryEngineRetriever``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``).

    Key init args:
        ``grounding_core.search.summaries.DiscoveryEngineSearchSummaryArgs`` (typed: IDEs
        complete them): engine_id or data_store_id; project_id, location, collection,
        serving_config_id.
        The summary options, every field of ``grounding_core.SummarySpec`` with its default:
        result_count (the top results summarized: 1..50 in chunk mode, 1..10 in documents
        mode), include_citations, ignore_adversarial_query, ignore_non_summary_seeking_query,
        ignore_low_relevant_content, ignore_jail_breaking_query, preamble, language_code,
        model_version, use_semantic_chunks.
        search: the search's options, a ``grounding_core.ChunkSearchSpec`` or a dict of its
        fields, named as ``DiscoveryEngineRetriever``'s (``{"filter": ..., "search_mode":
        "documents", ...}``; ``k`` is not used: ``result_count`` results are read).
        emulator_host, credentials, client_options, timeout, retry: the connection.
        streaming: ``query`` gives a ``StreamingResponse`` (``aquery``: an
            ``AsyncStreamingResponse``); a search's summary does not stream, so the whole
            summary is its one token.

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

    @refuse_unknown_arguments
    def __init__(
        self,
        *,
        callback_manager: CallbackManager | None = None,
        streaming: bool = False,
        **arguments: Unpack[DiscoveryEngineSearchSummaryArgs],
    ) -> None:
        summarizing = connected(DiscoveryEngineSearchSummary, arguments)
        super().__init__(summarizing, callback_manager, streaming=streaming)

    @property
    def spec(self) -> SummarySpec:
        """The summary options sent with every query."""
        return self._answering.spec
