"""``DeveloperKnowledgeAnswerQueryEngine``: the Developer Knowledge API's ``answerQuery`` as a
query engine."""

from __future__ import annotations

import dataclasses
import logging

from google.auth.credentials import Credentials
from llama_index.core import Settings
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import Response
from llama_index.core.callbacks import CallbackManager
from llama_index.core.prompts.mixin import PromptMixinType
from llama_index.core.schema import QueryBundle

from grounding_core import (
    DEFAULT_RETRY,
    DEFAULT_TIMEOUT,
    ClientOptionsArg,
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeConnection,
    RetryPolicy,
)

from .nodes import answer_response

__all__ = ["DeveloperKnowledgeAnswerQueryEngine"]

logger = logging.getLogger(__name__)


class DeveloperKnowledgeAnswerQueryEngine(BaseQueryEngine):
    """A grounded answer from the Developer Knowledge API's ``answerQuery``, as a query engine.

    Setup:
        On Google Cloud, credentials with the cloud-platform scope (or an API key in
        ``client_options={"api_key": ...}``). Offline: the emulator
        (``emulator_host`` or ``DEVELOPERKNOWLEDGE_EMULATOR_HOST``).

    Key init args:
        filter: AIP-160 (at most 500 characters), narrows the documents the answer may use.
        emulator_host, credentials, client_options, timeout, retry: the connection.

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

    def __init__(
        self,
        *,
        filter: str = "",
        emulator_host: str | None = None,
        credentials: Credentials | None = None,
        client_options: ClientOptionsArg = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        connection = DeveloperKnowledgeConnection.create(
            emulator_host=emulator_host,
            credentials=credentials,
            client_options=client_options,
            timeout=timeout,
            retry=retry,
        )
        self._answering = DeveloperKnowledgeAnswerQuery(connection, filter)
        super().__init__(callback_manager or Settings.callback_manager)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(filter={self.filter!r}, "
            f"endpoint={self._answering.connection.clients.endpoint!r})"
        )

    @property
    def answering(self) -> DeveloperKnowledgeAnswerQuery:
        """The core answerQuery component this query engine wraps."""
        return self._answering

    @property
    def filter(self) -> str:
        """The filter sent with every query (settable between queries)."""
        return self._answering.filter

    @filter.setter
    def filter(self, value: str) -> None:
        self._answering = dataclasses.replace(self._answering, filter=value)

    def _get_prompt_modules(self) -> PromptMixinType:
        return {}

    def _query(self, query_bundle: QueryBundle) -> Response:
        answer = self._answering.answer(query_bundle.query_str)
        logger.debug("answer with %d citations", len(answer.citations))
        return answer_response(answer)

    async def _aquery(self, query_bundle: QueryBundle) -> Response:
        answer = await self._answering.aanswer(query_bundle.query_str)
        logger.debug("answer with %d citations", len(answer.citations))
        return answer_response(answer)
