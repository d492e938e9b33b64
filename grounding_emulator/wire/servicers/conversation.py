"""The conversation RPCs of ``google.cloud.discoveryengine.{v}.ConversationalSearchService``:
CreateConversation, ConverseConversation, GetConversation, ListConversations,
UpdateConversation, DeleteConversation (Google's "multi-turn search": "Search with follow-ups",
cloud.google.com/generative-ai-app-builder/docs/multi-turn-search, and the
``conversational_search_service.proto`` field docs).

Conversations live under a data store or an engine, in the three forms of the v1 HTTP bindings
(``projects/*/locations/*/dataStores/*``, ``.../collections/*/dataStores/*``,
``.../collections/*/engines/*``); the data store or engine must exist (``NOT_FOUND``), and so
must a named conversation. Whichever form a request names, a conversation's ``name`` is the
fully qualified one, in its collection (``Conversation.name``: "Fully qualified name
``projects/{project}/locations/global/collections/{collection}/dataStore/*/conversations/*``"):
a collection-less data store's is ``default_collection``. What each stored field does is in
``answer/conversations.py``, the listing in ``answer/conversation_listing.py``.

A converse turn (``ConverseConversation``):

1. ``name`` is a conversation, or ``{parent}/conversations/-`` ("auto session mode, which
   automatically creates a new conversation"), made from the request's ``conversation`` ("used
   by auto session only. The name field will be ignored"; for a named conversation it is
   ignored). ``query.input`` is required.
2. ``serving_config`` ("If this is not set, the default serving config will be used") must be
   one of the conversation's data store or engine (``INVALID_ARGUMENT`` otherwise).
3. The query is rephrased with the conversation's earlier user inputs ("takes into account
   previous queries in the same search session"; ``answer/rephrase.py``), drawing on at most
   ``MAX_REPHRASE_STEPS`` (5) of them, so that the third question of Google's example ("What's
   the average temperature in December?") still carries the first one's subject.
4. The rephrased query searches the data store in DOCUMENTS mode with the request's ``filter``
   and ``boost_spec``; the first ``CONVERSE_RESULTS`` (10) results are ``search_results``, as
   Search returns them (``wire/messages/search.py``). Google does not say which content spec it
   uses: each result carries a snippet and one extractive answer in ``derived_struct_data``
   (``link``, ``snippets``, ``extractive_answers``: what Google's
   ``genappbuilder_multi_turn_search`` sample reads from every result).
5. ``reply.summary`` is the search summary of those results (``answer/summary.py``) under the
   request's ``summary_spec`` (its defaults when unset).
6. The user input (with its ``context``) and the reply are appended to the conversation, each
   with a ``create_time``; the response's ``conversation`` is the updated conversation.

``safe_search`` is accepted and changes nothing (the corpus is the user's own); ``user_labels``
are checked as their field doc says (``wire/labels.py``).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from google.cloud import discoveryengine_v1 as de
from google.protobuf import empty_pb2

from grounding_emulator.answer.conversation_listing import list_conversations
from grounding_emulator.answer.conversations import (
    UPDATABLE_FIELDS,
    Conversation,
    check_conversation_paths,
    check_room,
)
from grounding_emulator.answer.rephrase import rephrase
from grounding_emulator.answer.sessions import new_id
from grounding_emulator.answer.summary import RESULT_COUNT_FIELD, GeneratedSummary, generate_summary
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.errors import InvalidArgument, excerpt
from grounding_emulator.limits import CONVERSE_RESULTS, MAX_REPHRASE_STEPS
from grounding_emulator.search.engine import SearchPage, SearchParams, search
from grounding_emulator.wire.labels import check_labels
from grounding_emulator.wire.messages import ChunkNames, search_summary, summary_params
from grounding_emulator.wire.messages.conversation import (
    conversation_fields,
    conversation_message,
    turn_messages,
)
from grounding_emulator.wire.messages.search import ContentOptions, search_response
from grounding_emulator.wire.names import (
    ConversationName,
    ParentName,
    ServingConfigName,
    data_store_path,
    parse_conversation_name,
    parse_serving_config,
    parse_session_parent,
)
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc
from grounding_emulator.wire.servicers.request_specs import boosts, check_query

__all__ = ["ConversationServicer"]

_ConverseConversationResponse = de.ConverseConversationResponse.pb()
_ListConversationsResponse = de.ListConversationsResponse.pb()
# Serving config ids are interchangeable here (``names.SERVING_CONFIGS``); this is the one
# SearchRequest.serving_config's field doc names.
_DEFAULT_SERVING_CONFIG = "default_serving_config"
_RESULT_COUNT_FIELD = "summary_spec.summary_result_count"


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def _summary(data_store: DataStore, query: str, spec: Any, page: SearchPage) -> GeneratedSummary:
    """The search summary of ``page`` (Search's generator), its errors naming this request's
    ``summary_spec``."""
    try:
        return generate_summary(data_store, summary_params(query, spec, "documents"), page)
    except InvalidArgument as exc:
        if exc.field != RESULT_COUNT_FIELD:
            raise
        message = str(exc).replace(RESULT_COUNT_FIELD, _RESULT_COUNT_FIELD)
        raise InvalidArgument(message, field=_RESULT_COUNT_FIELD) from exc


class ConversationServicer(Servicer):
    """The conversation RPCs of ``google.cloud.discoveryengine.v1.ConversationalSearchService``
    (module docstring)."""

    services = discovery_engine("ConversationalSearchService")

    def _parent(self, name: str, field: str = "parent") -> ParentName:
        parent = parse_session_parent(name, field)
        self.backend.data_store(parent)
        return parent

    @rpc("CreateConversation", de.CreateConversationRequest.pb())
    def create_conversation(self, request: Any) -> Any:
        """``CreateConversation``: a new conversation under ``parent``; a ``conversation.name``
        under the parent chooses its id ("If the Conversation to create already exists, an
        ALREADY_EXISTS error is returned"), else one is generated."""
        parent = self._parent(request.parent)
        conversation_id = new_id()
        if request.conversation.name:
            given = parse_conversation_name(request.conversation.name, "conversation.name")
            if given.parent.key != parent.key:
                raise InvalidArgument(
                    f"conversation.name {excerpt(request.conversation.name)} is not under parent "
                    f"{excerpt(request.parent)}",
                    field="conversation.name",
                )
            conversation_id = given.conversation
        now = _now()
        conversation = self.backend.conversations.create(
            name=f"{parent.key}/conversations/{conversation_id}",
            key=f"{parent.key}/conversations/{conversation_id}",
            parent=parent.key,
            now=now,
            fields=conversation_fields(request.conversation, UPDATABLE_FIELDS, now),
        )
        return conversation_message(conversation)

    def _serving_config(self, request: Any, name: ConversationName) -> ServingConfigName:
        """The request's serving config, or the default one of the conversation's parent."""
        if not request.serving_config:
            return parse_serving_config(
                f"{name.parent.path}/servingConfigs/{_DEFAULT_SERVING_CONFIG}"
            )
        serving_config = parse_serving_config(request.serving_config)
        if parse_session_parent(serving_config.parent_path).key != name.parent.key:
            raise InvalidArgument(
                f"serving_config {excerpt(request.serving_config)} is not a serving config of "
                f"{excerpt(name.parent.path)}, the conversation's "
                f"{'engine' if name.parent.engine else 'data store'}: use "
                f"{name.parent.path}/servingConfigs/{_DEFAULT_SERVING_CONFIG} or leave it unset",
                field="serving_config",
            )
        return serving_config

    @rpc("ConverseConversation", de.ConverseConversationRequest.pb())
    def converse_conversation(self, request: Any) -> Any:
        """``ConverseConversation``: one turn of a multi-turn search (module docstring)."""
        name = parse_conversation_name(request.name, allow_new=True)
        check_query(request.query.input, "query.input")
        if not request.query.input.strip():
            raise InvalidArgument(
                "query.input is required: the user's text for this turn", field="query.input"
            )
        check_labels(request.user_labels)
        serving_config = self._serving_config(request, name)
        data_store = self.backend.data_store(serving_config)
        now = _now()
        conversation: Conversation | None = None
        if name.conversation != "-":
            conversation = self.backend.conversations.get(name.key, request.name)
            fields: dict[str, Any] = {}
            history = conversation.user_inputs
        else:
            fields = conversation_fields(request.conversation, UPDATABLE_FIELDS, now)
            history = tuple(m.user_input for m in fields["messages"] if m.user_input is not None)
        # Refused before the search: the turn's two messages (input, reply) must fit.
        held = len(conversation.messages) if conversation else len(fields["messages"])
        check_room(held, 2, "name" if conversation else "conversation.messages")

        query = rephrase(request.query.input, history, MAX_REPHRASE_STEPS)
        params = SearchParams(
            query=query,
            page_size=CONVERSE_RESULTS,
            filter=request.filter,
            boosts=boosts(request.boost_spec),
            mode="documents",
            scope=serving_config.parent_path,
            rerank_top=self.backend.rerank_search,
        )
        page = search(data_store, params)
        names = ChunkNames(data_store_path(serving_config, data_store.id))
        results = search_response(
            page,
            names,
            return_relevance_score=False,
            boosted=bool(params.boosts),
            content=ContentOptions(snippets=True, extractive_answers=1, query=query),
        ).results
        reply = search_summary(_summary(data_store, query, request.summary_spec, page), names)

        if conversation is None:
            conversation = self._new_conversation(name.parent, fields, now)
        stored = self.backend.conversations.add_messages(
            conversation.key, conversation.name, turn_messages(request.query, reply, now), now
        )
        response = _ConverseConversationResponse()
        response.reply.summary.CopyFrom(reply)
        response.conversation.CopyFrom(conversation_message(stored))
        response.search_results.extend(results)
        return response

    def _new_conversation(
        self, parent: ParentName, fields: dict[str, Any], now: _dt.datetime
    ) -> Conversation:
        """The conversation ``.../conversations/-`` asks for, with a new id."""
        conversation_id = new_id()
        return self.backend.conversations.create(
            name=f"{parent.key}/conversations/{conversation_id}",
            key=f"{parent.key}/conversations/{conversation_id}",
            parent=parent.key,
            now=now,
            fields=fields,
        )

    @rpc("GetConversation", de.GetConversationRequest.pb())
    def get_conversation(self, request: Any) -> Any:
        """``GetConversation``; ``NOT_FOUND`` if there is none."""
        name = parse_conversation_name(request.name)
        return conversation_message(self.backend.conversations.get(name.key, request.name))

    @rpc("ListConversations", de.ListConversationsRequest.pb())
    def list_conversations(self, request: Any) -> Any:
        """``ListConversations``: the parent's conversations, filtered, ordered and paged."""
        parent = self._parent(request.parent)
        page = list_conversations(
            self.backend.conversations.conversations(parent.key),
            scope=parent.key,
            filter_=request.filter,
            order_by=request.order_by,
            page_size=request.page_size,
            page_token=request.page_token,
        )
        response = _ListConversationsResponse(next_page_token=page.next_page_token)
        response.conversations.extend(conversation_message(c) for c in page.conversations)
        return response

    @rpc("UpdateConversation", de.UpdateConversationRequest.pb())
    def update_conversation(self, request: Any) -> Any:
        """``UpdateConversation``: the fields ``update_mask`` names ("If not set or empty, all
        supported fields are updated"; ``name`` and the output-only times are refused)."""
        name = parse_conversation_name(request.conversation.name, "conversation.name")
        paths = check_conversation_paths(request.update_mask.paths)
        now = _now()
        conversation = self.backend.conversations.update(
            name.key,
            request.conversation.name,
            conversation_fields(request.conversation, paths, now),
            now,
        )
        return conversation_message(conversation)

    @rpc("DeleteConversation", de.DeleteConversationRequest.pb())
    def delete_conversation(self, request: Any) -> Any:
        """``DeleteConversation`` ("If the Conversation to delete does not exist, a NOT_FOUND
        error is returned")."""
        name = parse_conversation_name(request.name)
        self.backend.conversations.delete(name.key, request.name)
        return empty_pb2.Empty()
