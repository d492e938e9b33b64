"""``DiscoveryEngineAnswerQueryEngine``: Discovery Engine's ``answerQuery`` as a query engine."""

from __future__ import annotations

from llama_index.core.callbacks import CallbackManager
from typing_extensions import Unpack

from grounding_core import AnswerSpec, DiscoveryEngineAnswerQuery
from grounding_core.answers.answer_query import DiscoveryEngineAnswerQueryArgs
from grounding_core.peers import refuse_unknown_arguments

from ._answering import ServingConfigQueryEngine
from ._core import connected

__all__ = ["DiscoveryEngineAnswerQueryEngine"]


class DiscoveryEngineAnswerQueryEngine(ServingConfigQueryEngine[DiscoveryEngineAnswerQuery]):
    """A grounded answer from Discovery Engine's ``answerQuery``, as a LlamaIndex query engine.

    Setup:
        As for ``DiscoveryEngineRetriever``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``).

    Key init args:
        ``grounding_core.answers.answer_query.DiscoveryEngineAnswerQueryArgs``, that is:
        engine_id (the usual target of answerQuery) or data_store_id; project_id, location,
        collection, serving_config_id.
        The answer options: every field of ``grounding_core.AnswerSpec``, with its default
        (max_return_results (1..100), filter, boost_spec, order_by, search_mode (``"chunks"``;
        ``None`` sends none: Google's default, documents), data_store_specs, include_citations,
        preamble, model_version, answer_language_code, include_grounding_supports,
        filtering_level, the ignore_* flags, safety_filtering, related_questions,
        disable_query_rephraser, max_rephrase_steps, query_classification_types,
        disable_spell_correction, user_pseudo_id, session).
        emulator_host, credentials, client_options, timeout, retry: the connection.
        streaming: ``query`` gives a ``StreamingResponse`` whose tokens are the answer as
        StreamAnswerQuery streams it (``aquery``: an ``AsyncStreamingResponse``); its
        ``source_nodes`` and ``metadata`` are set when the stream ends. Google's streamed
        answers have no grounding scores and one rephrase step: ``include_grounding_supports``,
        ``filtering_level``, ``disable_query_rephraser`` and ``max_rephrase_steps`` are refused
        with it (``InputError``).
        For a conversation use ``DiscoveryEngineChatEngine`` (same arguments).

    Instantiate:
        .. code-block:: python

            from llamaindex_grounding import DiscoveryEngineAnswerQueryEngine

            query_engine = DiscoveryEngineAnswerQueryEngine(
                project_id="my-project", engine_id="python-docs-app"
            )

    Usage:
        .. code-block:: python

            response = query_engine.query("How do I open a file?")
            response.response                          # the answer text
            response.source_nodes[0].node.metadata["source"]  # a reference's URI
            citation = response.metadata["citations"][0]
            response.response[citation["start"]:citation["end"]] == citation["text"]
            citation["source_ids"]                     # the cited source nodes' ids
            markdown = answer_markdown(response.metadata["grounded_answer"])

    ``Response.response`` is the answer text, ``source_nodes`` the references (nodes as
    ``DiscoveryEngineRetriever`` builds them), ``metadata`` the grounding score, the citations
    with char (``start``/``end``) and UTF-8 byte spans, ``reference_indices`` and
    ``source_ids`` (the ids of the cited nodes), the skipped reasons (non-empty when the service
    declined to answer), the session (``grounding_core.answer_metadata``, the keys of
    LangChain's ``DiscoveryEngineAnswer`` output too), and the ``GroundedAnswer`` record under
    ``grounded_answer``. ``aquery`` runs on Google's async client; the call itself is
    ``grounding_core.DiscoveryEngineAnswerQuery`` (``query_engine.answering``).
    """

    @refuse_unknown_arguments
    def __init__(
        self,
        *,
        callback_manager: CallbackManager | None = None,
        streaming: bool = False,
        **arguments: Unpack[DiscoveryEngineAnswerQueryArgs],
    ) -> None:
        answering = connected(DiscoveryEngineAnswerQuery, arguments)
        super().__init__(answering, callback_manager, streaming=streaming)

    @property
    def spec(self) -> AnswerSpec:
        """The answer options sent with every query."""
        return self._answering.spec
