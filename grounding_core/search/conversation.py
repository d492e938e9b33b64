"""``DiscoveryEngineConversation``: Google's multi-turn search
(``ConversationalSearchService.ConverseConversation``, "Search with follow-ups",
https://cloud.google.com/generative-ai-app-builder/docs/multi-turn-search): each query is a turn
of one conversation, searched with the earlier ones in mind; a turn's search results come back
as ``SourceChunk``s (documents mode), with the conversation's name and the reply's summary.

``conversation_id="-"`` (the default) asks Google to create a conversation for the turn
("auto session mode"), as langchain-google-community's ``VertexAIMultiTurnSearchRetriever``
does at every call; give the id of one (``ConversationTurn.conversation`` names the one made) to
carry on with it.

>>> conversation = DiscoveryEngineConversation(
...     DiscoveryEngineConnection(project_id="p", emulator_host="localhost:8123"),
...     data_store_id="python-docs",
... )
>>> conversation.name
'projects/p/locations/global/collections/default_collection/dataStores/python-docs/conversations/-'
>>> conversation.converse("How do I open a file?").chunks[0].content  # doctest: +SKIP
'open() returns a file object ...'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_core._checks import check_choice, check_query, check_text
from grounding_core._clients import DiscoveryEngineConnection
from grounding_core._errors import ConfigurationError, InputError, translate_errors
from grounding_core._records import SourceChunk
from grounding_core._settings import DEFAULT_COLLECTION, DEFAULT_SERVING_CONFIG

from .discovery_engine import boost_spec as boost_message
from .results import chunks_from_results
from .specs import DOCUMENT_TEXTS, DocumentText

NEW_CONVERSATION = "-"
"""``ConverseConversationRequest.name``'s last part asking for a new conversation."""


@dataclass(frozen=True, slots=True)
class ConversationTurn:
    """One turn of a multi-turn search: the ``conversation``'s resource name (the one Google
    made, for ``"-"``), the search results as ``chunks`` and the reply's ``summary`` text."""

    conversation: str
    chunks: tuple[SourceChunk, ...]
    summary: str


class DiscoveryEngineConversation:
    """Multi-turn search of a data store or engine (module docstring): ``conversation_id``,
    the search's ``filter`` and ``boost_spec`` (a ``BoostSpec`` as a dict), and the content of
    each result that becomes its text, ``document_text`` (default ``"extractive_answers"``,
    the peer's; Google sends a snippet and an extractive answer with every result). A bad
    setting raises ``ConfigurationError`` here."""

    def __init__(
        self,
        connection: DiscoveryEngineConnection,
        *,
        data_store_id: str | None = None,
        engine_id: str | None = None,
        collection: str | None = DEFAULT_COLLECTION,
        serving_config_id: str = DEFAULT_SERVING_CONFIG,
        conversation_id: str = NEW_CONVERSATION,
        filter: str = "",
        boost_spec: Mapping[str, Any] | None = None,
        document_text: DocumentText = "extractive_answers",
    ) -> None:
        self.connection = connection
        self.target = connection.target(
            data_store_id=data_store_id,
            engine_id=engine_id,
            collection=collection,
            serving_config_id=serving_config_id,
        )
        try:
            if (
                not isinstance(conversation_id, str)
                or not conversation_id.strip()
                or ("/" in conversation_id)
            ):
                raise InputError(
                    f"conversation_id must be a conversation's id (no '/'), or '-' for a new "
                    f"one, got {conversation_id!r}",
                    field="conversation_id",
                )
            self.filter = check_text("filter", filter)
            check_choice("document_text", document_text, DOCUMENT_TEXTS)
            self._boost_spec = boost_message(boost_spec)  # Search's BoostSpec
        except InputError as exc:  # settings, not requests
            raise ConfigurationError.of(exc) from exc
        self.conversation_id = conversation_id
        self.boost_spec = boost_spec
        self.document_text: DocumentText = document_text

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, endpoint={self.connection.endpoint!r})"

    @property
    def name(self) -> str:
        """The conversation's resource name, as the request sends it."""
        return f"{self.target.parent_path}/conversations/{self.conversation_id}"

    def request(self, query: str) -> Any:
        """The ``ConverseConversationRequest`` of one turn (``query`` checked)."""
        request = de.ConverseConversationRequest(
            name=self.name,
            query=de.TextInput(input=check_query(query)),
            serving_config=self.target.serving_config_path,
            filter=self.filter,
        )
        if self._boost_spec is not None:
            de.ConverseConversationRequest.pb(request).boost_spec.CopyFrom(self._boost_spec)
        return request

    def _turn(self, response: Any) -> ConversationTurn:
        raw = type(response).pb(response)
        return ConversationTurn(
            conversation=raw.conversation.name,
            chunks=tuple(chunks_from_results(raw.search_results, self.document_text)),
            summary=raw.reply.summary.summary_text,
        )

    def converse(self, query: str) -> ConversationTurn:
        """One turn: ``query`` in this conversation."""
        request = self.request(query)
        with translate_errors("ConverseConversation", self.name):
            client = self.connection.client(de.ConversationalSearchServiceClient)
            kwargs = self.connection.call_options.call_kwargs()
            response = client.converse_conversation(request=request, **kwargs)
        return self._turn(response)

    async def aconverse(self, query: str) -> ConversationTurn:
        """Async ``converse``, on Google's async client."""
        request = self.request(query)
        with translate_errors("ConverseConversation", self.name):
            client = self.connection.async_client(de.ConversationalSearchServiceAsyncClient)
            kwargs = self.connection.call_options.async_call_kwargs()
            response = await client.converse_conversation(request=request, **kwargs)
        return self._turn(response)
