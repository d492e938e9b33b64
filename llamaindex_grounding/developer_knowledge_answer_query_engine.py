"""``DeveloperKnowledgeAnswerQueryEngine``: the Developer Knowledge API's ``answerQuery`` as a
query engine."""

from __future__ import annotations

from llama_index.core.callbacks import CallbackManager
from typing_extensions import Unpack

from grounding_core import (
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeConnection,
    DeveloperKnowledgeConnectionArgs,
)
from grounding_core.peers import refuse_unknown_arguments

from ._answering import AnswerQueryEngine

__all__ = ["DeveloperKnowledgeAnswerQueryEngine"]


class DeveloperKnowledgeAnswerQueryEngine(AnswerQueryEngine[DeveloperKnowledgeAnswerQuery]):
    """A grounded answer from the Developer Knowledge API's ``answerQuery``, as a query engine.

    Setup:
        As for ``DeveloperKnowledgeRetriever``: credentials with the cloud-platform scope (or
        an API key in ``client_options``), or the emulator (``emulator_host`` /
        ``DEVELOPERKNOWLEDGE_EMULATOR_HOST``).

    Key init args:
        filter: AIP-160 (at most 500 characters), narrows the documents the answer may use.
        emulator_host, credentials, client_options, timeout, retry: the connection.
        streaming: ``query`` gives a ``StreamingResponse`` (``aquery``: an
        ``AsyncStreamingResponse``); the API has no streaming method, so the whole answer is
        its one token.

    Instantiate:
        .. code-block:: python

            from llamaindex_grounding import DeveloperKnowledgeAnswerQueryEngine

            query_engine = DeveloperKnowledgeAnswerQueryEngine()

    Usage:
        .. code-block:: python

            response = query_engine.query("How do I create a Cloud Storage bucket?")
            response.response, response.source_nodes[0].node.metadata["source"]
            response.metadata["citations"][0]["start"]   # char span in the answer

    The ``Response`` has the same shape as ``DiscoveryEngineAnswerQueryEngine``'s: answer text,
    references as ``source_nodes``, citations with char and byte spans and ``source_ids`` (the
    cited nodes' ids) in ``metadata``, the ``GroundedAnswer`` under
    ``metadata["grounded_answer"]``. ``aquery`` runs on Google's async client; the call itself
    is ``grounding_core.DeveloperKnowledgeAnswerQuery`` (``query_engine.answering``).
    """

    @refuse_unknown_arguments
    def __init__(
        self,
        *,
        filter: str = "",
        callback_manager: CallbackManager | None = None,
        streaming: bool = False,
        **connection: Unpack[DeveloperKnowledgeConnectionArgs],
    ) -> None:
        answering = DeveloperKnowledgeAnswerQuery(
            DeveloperKnowledgeConnection(**connection), filter=filter
        )
        super().__init__(answering, callback_manager, streaming=streaming)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(filter={self.filter!r}, "
            f"endpoint={self._answering.connection.endpoint!r})"
        )

    @property
    def filter(self) -> str:
        """The filter sent with every query (settable between queries)."""
        return self._answering.filter

    @filter.setter
    def filter(self, value: str) -> None:
        self._answering = self._answering.replace(filter=value)
