"""``DiscoveryEngineMultiTurnRetriever``: Google's multi-turn search (ConverseConversation) as
a LangChain retriever, langchain-google-community's ``VertexAIMultiTurnSearchRetriever`` in
our names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, PrivateAttr, model_validator

from grounding_core import DEFAULT_COLLECTION, DEFAULT_SERVING_CONFIG
from grounding_core.metadata import MetadataLayout
from grounding_core.peers import PEER_MULTI_TURN_ARGUMENTS, PeerTable
from grounding_core.search.conversation import (
    NEW_CONVERSATION,
    ConversationTurn,
    DiscoveryEngineConversation,
)
from grounding_core.search.specs import DocumentText

from ._arguments import StrictArguments
from ._connection import DiscoveryEngineSettings
from .documents import chunk_to_document

__all__ = ["CONVERSATION_EVENT", "DiscoveryEngineMultiTurnRetriever"]

CONVERSATION_EVENT = "conversation_turn"
"""The run's custom event of a turn: ``{"conversation": name, "summary": text}``."""


class DiscoveryEngineMultiTurnRetriever(DiscoveryEngineSettings, BaseRetriever, StrictArguments):
    """Multi-turn search of a Discovery Engine data store or engine (Google's
    ``ConverseConversation``): each query a turn of one conversation, searched with the earlier
    turns in mind; the turn's search results as Documents.

    Setup:
        As for ``DiscoveryEngineRetriever``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``).

    Key init args:
        data_store_id / engine_id, project_id, location, collection, serving_config_id.
        conversation_id: ``"-"`` (default, as the peer's): each call starts a new
            conversation; a conversation's id: every call is its next turn.
        filter, boost_spec: the search's.
        document_text: what each result's ``page_content`` is (default
            ``"extractive_answers"``, the peer's; ``"snippets"``).
        metadata_layout: ``"flat"`` (default: docs/metadata.md's keys and the struct data
            keys at the top level, as the peer's documents have them) or ``"default"``.

    Instantiate:
        .. code-block:: python

            from langchain_grounding import DiscoveryEngineMultiTurnRetriever

            retriever = DiscoveryEngineMultiTurnRetriever(
                project_id="my-project", data_store_id="python-docs", conversation_id="-"
            )

    Usage:
        .. code-block:: python

            docs = retriever.invoke("How do I open a file?")
            docs[0].metadata["id"], docs[0].metadata["source"]

    One ``Document`` per search result (the peer: one per extractive answer), ``id`` the
    document's resource name, ``metadata`` every field of docs/metadata.md and the struct
    data keys. Each turn also
    comes as the run's custom event ``"conversation_turn"``: the conversation's name (the one
    made for ``"-"``: give its last part as ``conversation_id`` to go on with it) and the
    reply's summary. ``ainvoke`` runs on Google's async client.
    """

    # The peer's names (its VertexAIMultiTurnSearchRetriever), translated with a warning.
    _peer_arguments: ClassVar[PeerTable] = PEER_MULTI_TURN_ARGUMENTS

    data_store_id: str | None = Field(default=None, description="data store id")
    engine_id: str | None = Field(default=None, description="engine (app) id")
    collection: str | None = Field(default=DEFAULT_COLLECTION)
    serving_config_id: str = Field(default=DEFAULT_SERVING_CONFIG)
    conversation_id: str = Field(default=NEW_CONVERSATION, description="'-': a new one")
    filter: str = Field(default="", description='e.g. lang: ANY("en")')
    boost_spec: Mapping[str, Any] | None = Field(default=None, description="a BoostSpec dict")
    document_text: DocumentText = Field(default="extractive_answers")
    metadata_layout: MetadataLayout = Field(default="flat")

    _conversation: DiscoveryEngineConversation = PrivateAttr()

    @model_validator(mode="after")
    def _build_conversation(self) -> DiscoveryEngineMultiTurnRetriever:
        self._conversation = DiscoveryEngineConversation(
            self.connection,
            data_store_id=self.data_store_id,
            engine_id=self.engine_id,
            collection=self.collection,
            serving_config_id=self.serving_config_id,
            conversation_id=self.conversation_id,
            filter=self.filter,
            boost_spec=self.boost_spec,
            document_text=self.document_text,
        )
        return self

    @property
    def conversation(self) -> DiscoveryEngineConversation:
        """The core conversation this retriever wraps."""
        return self._conversation

    def _documents(self, turn: ConversationTurn) -> list[Document]:
        return [chunk_to_document(chunk, self.metadata_layout) for chunk in turn.chunks]

    @staticmethod
    def _event(turn: ConversationTurn) -> dict[str, str]:
        return {"conversation": turn.conversation, "summary": turn.summary}

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        turn = self._conversation.converse(query)
        # As the search retriever's event: with no handler, nobody would receive it.
        if run_manager.inheritable_handlers:
            run_manager.get_child().on_custom_event(
                CONVERSATION_EVENT, self._event(turn), run_id=run_manager.run_id
            )
        return self._documents(turn)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        turn = await self._conversation.aconverse(query)
        if run_manager.inheritable_handlers:
            await run_manager.get_child().on_custom_event(
                CONVERSATION_EVENT, self._event(turn), run_id=run_manager.run_id
            )
        return self._documents(turn)
