"""``google.cloud.discoveryengine.{v}.SessionService``: CreateSession, GetSession, ListSessions,
UpdateSession, DeleteSession.

Google serves the same five RPCs, with the same requests, under ``ConversationalSearchService``
too (``conversational_search_service.proto``); this servicer answers both. Sessions live under a
data store or an engine, in the three forms of the v1 HTTP bindings
(``projects/*/locations/*/dataStores/*``, ``.../collections/*/dataStores/*``,
``.../collections/*/engines/*``); the data store or engine must exist (``NOT_FOUND``).
Whichever form a request names, a session's ``name`` is the fully qualified one, in its
collection (``Session.name``: "Immutable. Fully qualified name
``projects/{project}/locations/global/collections/{collection}/engines/{engine}/sessions/*``"):
a collection-less data store's is ``default_collection``. What each field does is in
``answer/sessions.py`` and ``answer/session_listing.py``.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from google.cloud import discoveryengine_v1 as de
from google.protobuf import empty_pb2

from grounding_emulator.answer.session_listing import list_sessions
from grounding_emulator.answer.sessions import (
    UPDATABLE_FIELDS,
    Turn,
    check_update_paths,
    new_id,
)
from grounding_emulator.errors import InvalidArgument, NotFound, excerpt
from grounding_emulator.wire.messages.session import session_fields, session_message
from grounding_emulator.wire.names import (
    parse_answer_name,
    parse_session_name,
    parse_session_parent,
)
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc

__all__ = ["SessionServicer"]

_ListSessionsResponse = de.ListSessionsResponse.pb()


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


class SessionServicer(Servicer):
    """``google.cloud.discoveryengine.v1.SessionService`` (and the session RPCs of
    ``ConversationalSearchService``)."""

    services = discovery_engine("SessionService") + discovery_engine("ConversationalSearchService")

    @rpc("CreateSession", de.CreateSessionRequest.pb())
    def create_session(self, request: Any) -> Any:
        """``CreateSession``: a new session under ``parent``; a ``session.name`` under the
        parent chooses its id ("If the Session to create already exists, an ALREADY_EXISTS
        error is returned"), else one is generated."""
        parent = parse_session_parent(request.parent)
        self.backend.data_store(parent)
        session_id = new_id()
        if request.session.name:
            given = parse_session_name(request.session.name, "session.name")
            if given.parent.key != parent.key:
                raise InvalidArgument(
                    f"session.name {excerpt(request.session.name)} is not under parent "
                    f"{excerpt(request.parent)}",
                    field="session.name",
                )
            session_id = given.session
        name = f"{parent.key}/sessions/{session_id}"
        fields = session_fields(request.session, UPDATABLE_FIELDS)
        if not request.session.state:
            del fields["state"]  # unset: a new session is IN_PROGRESS
        session = self.backend.sessions.create(
            name=name,
            key=name,
            parent=parent.key,
            now=_now(),
            fields=fields,
        )
        return session_message(session)

    @rpc("GetSession", de.GetSessionRequest.pb())
    def get_session(self, request: Any) -> Any:
        """``GetSession``; ``include_answer_details`` fills each turn's ``detailed_answer``."""
        name = parse_session_name(request.name)
        session = self.backend.sessions.get(name.key, request.name)
        if not request.include_answer_details:
            return session_message(session)
        return session_message(session, detailed_answer=self._stored_answer)

    def _stored_answer(self, turn: Turn) -> bytes | None:
        """The stored answer a turn names, if the emulator generated it (a turn set by
        CreateSession or UpdateSession may name any answer)."""
        try:
            answer = parse_answer_name(turn.answer, "turns.answer")
        except (InvalidArgument, NotFound):
            return None  # not the name of an answer the emulator can have: nothing to detail
        return self.backend.sessions.find_answer(answer.key)

    @rpc("ListSessions", de.ListSessionsRequest.pb())
    def list_sessions(self, request: Any) -> Any:
        """``ListSessions``: the parent's sessions, filtered, ordered and paged."""
        parent = parse_session_parent(request.parent)
        self.backend.data_store(parent)
        page = list_sessions(
            self.backend.sessions.sessions(parent.key),
            scope=parent.key,
            filter_=request.filter,
            order_by=request.order_by,
            page_size=request.page_size,
            page_token=request.page_token,
        )
        response = _ListSessionsResponse(next_page_token=page.next_page_token)
        response.sessions.extend(session_message(s) for s in page.sessions)
        return response

    @rpc("UpdateSession", de.UpdateSessionRequest.pb())
    def update_session(self, request: Any) -> Any:
        """``UpdateSession``: the fields ``update_mask`` names (all updatable ones when it is
        empty; ``name`` and the output-only times are refused)."""
        name = parse_session_name(request.session.name, "session.name")
        paths = check_update_paths(request.update_mask.paths)
        session = self.backend.sessions.update(
            name.key, request.session.name, session_fields(request.session, paths), _now()
        )
        return session_message(session)

    @rpc("DeleteSession", de.DeleteSessionRequest.pb())
    def delete_session(self, request: Any) -> Any:
        """``DeleteSession``: the session and its answers; ``NOT_FOUND`` if there is none."""
        name = parse_session_name(request.name)
        self.backend.sessions.delete(name.key, request.name)
        return empty_pb2.Empty()
