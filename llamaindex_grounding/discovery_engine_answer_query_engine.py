"""``DiscoveryEngineAnswerQueryEngine``: Discovery Engine's ``answerQuery`` as a query engine."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llama_index.core.callbacks import CallbackManager
from typing_extensions import Unpack

from grounding_core import (
    DEFAULT_COLLECTION,
    DEFAULT_MAX_RETURN_RESULTS,
    DEFAULT_SERVING_CONFIG,
    AnswerSpec,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
    DiscoveryEngineTarget,
    SearchResultMode,
)

from ._answering import AnswerQueryEngine

__all__ = ["DiscoveryEngineAnswerQueryEngine"]


class DiscoveryEngineAnswerQueryEngine(AnswerQueryEngine[DiscoveryEngineAnswerQuery]):
    """A grounded answer from Discovery Engine's ``answerQuery``, as a LlamaIndex query engine.

    Setup:
        As for ``DiscoveryEngineRetriever``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``).

    Key init args:
        engine_id (the usual target of answerQuery) or data_store_id; project_id, location,
        collection, serving_config_id.
        include_citations, max_return_results (1..100), filter, boost_spec, order_by,
        search_mode, preamble, model_version, answer_language_code,
        include_grounding_supports, related_questions, session: the answer options.
        emulator_host, credentials, client_options, timeout, retry: the connection.

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

    def __init__(
        self,
        *,
        engine_id: str | None = None,
        data_store_id: str | None = None,
        collection: str | None = DEFAULT_COLLECTION,
        serving_config_id: str = DEFAULT_SERVING_CONFIG,
        include_citations: bool = True,
        max_return_results: int = DEFAULT_MAX_RETURN_RESULTS,
        filter: str = "",
        boost_spec: Mapping[str, Any] | None = None,
        order_by: str = "",
        search_mode: SearchResultMode = "chunks",
        preamble: str = "",
        model_version: str = "",
        answer_language_code: str = "",
        include_grounding_supports: bool = False,
        related_questions: bool = False,
        session: str | None = None,
        callback_manager: CallbackManager | None = None,
        **connection: Unpack[DiscoveryEngineConnectionArgs],
    ) -> None:
        answering = DiscoveryEngineAnswerQuery.create(
            DiscoveryEngineConnection.create(**connection),
            engine_id=engine_id,
            data_store_id=data_store_id,
            collection=collection,
            serving_config_id=serving_config_id,
            include_citations=include_citations,
            max_return_results=max_return_results,
            filter=filter,
            boost_spec=boost_spec,
            order_by=order_by,
            search_mode=search_mode,
            preamble=preamble,
            model_version=model_version,
            answer_language_code=answer_language_code,
            include_grounding_supports=include_grounding_supports,
            related_questions=related_questions,
            session=session,
        )
        super().__init__(answering, callback_manager)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(serving_config={self.target.serving_config_path!r}, "
            f"endpoint={self._answering.connection.clients.endpoint!r})"
        )

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The engine or data store asked."""
        return self._answering.target

    @property
    def spec(self) -> AnswerSpec:
        """The answer options sent with every query."""
        return self._answering.spec
