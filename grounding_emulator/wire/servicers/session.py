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

A session only ever reads answers of its own project, location and data store or engine: a
turn that CreateSession or UpdateSession is given names an answer of the session's parent, or
is ``INVALID_ARGUMENT`` naming ``session.turns[i].answer`` (``Session.Turn.answer``: "The
resource name of the answer to the user query"; Google does not say what it does with another
parent's: the emulator refuses it, as AnswerQuery refuses a session of another serving config);
GetSession fills ``detailed_answer`` from answers of its parent only. Bounds (docs/emulator.md):
the turns and their queries (``answer/sessions.py``); GetSession with
``include_answer_details`` over ``MAX_RESPONSE_BYTES`` is ``INVALID_ARGUMENT`` naming
``include_answer_details`` (read the answers with GetAnswer); a ListSessions page ends early,
with its token, before the session that would take it over.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from google.cloud import discoveryengine_v1 as de
from google.protobuf import empty_pb2

from grounding_emulator.answer.session_listing import list_sessions
from grounding_emulator.answer.sessions import (
    UPDATABLE_FIELDS,
    Session,
    Turn,
    check_update_paths,
    new_id,
)
from grounding_emulator.errors import InvalidArgument, NotFound, excerpt
from grounding_emulator.limits import MAX_RESPONSE_BYTES
from grounding_emulator.wire.messages.session import session_fields, session_message
from grounding_emulator.wire.names import (
    AnswerName,
    ParentName,
    parse_answer_name,
    parse_session_name,
    parse_session_parent,
)
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc

__all__ = ["SessionServicer"]

_ListSessionsResponse = de.ListSessionsResponse.pb()


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def _own_answers(fields: dict[str, Any], parent: ParentName) -> dict[str, Any]:
    """``fields``, once every turn's answer (when set) is an answer of ``parent``; else
    ``INVALID_ARGUMENT`` naming the turn (module docstring)."""
    for number, turn in enumerate(fields.get("turns", ())):
        if not turn.answer:
            continue
        where = f"session.turns[{number}].answer"
        wrong = (
            f"{where} {excerpt(turn.answer)} is not an answer of {excerpt(parent.path)}: a "
            "session's turns name answers of its own data store or engine "
            f"({parent.path}/sessions/{{session}}/answers/{{answer}}), or none"
        )
        try:
            answer = parse_answer_name(turn.answer, where)
        except NotFound as exc:  # a collection the emulator has not: not this parent's either
            raise InvalidArgument(wrong, field=where) from exc
        if answer.session.parent.key != parent.key:
            raise InvalidArgument(wrong, field=where)
    return fields


def _answer_of(turn: Turn, session: Session) -> AnswerName | None:
    """The answer a stored turn names, when it is one of the session's own parent."""
    try:
        answer = parse_answer_name(turn.answer, "turns.answer")
    except (InvalidArgument, NotFound):
        return None  # not the name of an answer the emulator can have: nothing to detail
    return answer if answer.session.parent.key == session.parent else None


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
        fields = _own_answers(session_fields(request.session, UPDATABLE_FIELDS), parent)
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
        answers: dict[str, bytes] = {}
        for turn in session.turns:
            answer = _answer_of(turn, session) if turn.answer else None
            stored = self.backend.sessions.find_answer(answer.key) if answer else None
            if stored is not None:
                answers[turn.answer] = stored
        size = session.size + sum(
            len(answers[t.answer]) for t in session.turns if t.answer in answers
        )
        if size > MAX_RESPONSE_BYTES:
            raise InvalidArgument(
                f"include_answer_details: the session with its {len(answers)} answers takes "
                f"about {size} bytes, over the emulator's response bound of {MAX_RESPONSE_BYTES}: "
                "get it without include_answer_details and read its answers with GetAnswer",
                field="include_answer_details",
            )
        return session_message(session, detailed_answer=lambda turn: answers.get(turn.answer))

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
        fields = _own_answers(session_fields(request.session, paths), name.parent)
        session = self.backend.sessions.update(name.key, request.session.name, fields, _now())
        return session_message(session)

    @rpc("DeleteSession", de.DeleteSessionRequest.pb())
    def delete_session(self, request: Any) -> Any:
        """``DeleteSession``: the session and its answers; ``NOT_FOUND`` if there is none."""
        name = parse_session_name(request.name)
        self.backend.sessions.delete(name.key, request.name)
        return empty_pb2.Empty()
