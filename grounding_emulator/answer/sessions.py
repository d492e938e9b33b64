"""The sessions of AnswerQuery and SessionService, in memory: thread-safe, pure (no gRPC).

A session (``Session``, v1 reference; ``session.proto``) is a conversation: its turns are the
queries asked in it, each with the resource name of its answer. The store keys sessions and
answers by their canonical names (``wire/names.py``: a collection-less data store is the one in
``default_collection``), which are also their names (``Session.name``: "Immutable. Fully
qualified name
``projects/{project}/locations/global/collections/{collection}/engines/{engine}/sessions/*``";
``Answer.name`` the same, followed by ``/answers/*``). What the proto documents, the store does:

- ``display_name``: "By default, the display name is the first turn query text in the
  session": set from the first turn when it is empty.
- ``state``: a new session is ``IN_PROGRESS`` ("The session is currently open").
- ``start_time`` is the creation time, also the ``create_time`` that ``ListSessions`` filters
  and orders on; ``update_time`` is the time of the last change (a turn or an update).
- ``end_time`` ("the time the session finished"): the time of the last turn (unset without
  turns). Google does not say when a session finishes; the emulator's never close.
- ``UpdateSession``'s mask: every field but ``name`` ("The following are NOT supported:
  Session.name") and the output-only times; an empty mask updates all of them.

Answers are kept as the serialized bytes of their ``Answer`` message (``GetAnswer``,
``GetSession(include_answer_details)``), deleted with their session.

Bounds Google does not document (``limits.py``, docs/emulator.md): at most
``MAX_SESSION_TURNS`` turns (``INVALID_ARGUMENT`` naming ``session.turns`` when a request sets
more, naming ``session`` when an answer would add one to a full session), a turn's query of at
most ``MAX_QUERY_CHARS`` characters.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import itertools
import secrets
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from grounding_emulator.errors import AlreadyExists, InvalidArgument, NotFound
from grounding_emulator.limits import MAX_QUERY_CHARS, MAX_SESSION_TURNS

__all__ = [
    "IMMUTABLE_FIELDS",
    "UPDATABLE_FIELDS",
    "Session",
    "SessionStore",
    "Turn",
    "check_room",
    "check_update_paths",
    "new_id",
]

UPDATABLE_FIELDS = ("display_name", "state", "user_pseudo_id", "turns", "labels", "is_pinned")
IMMUTABLE_FIELDS = ("name", "start_time", "end_time")
STATES = ("STATE_UNSPECIFIED", "IN_PROGRESS")


def new_id() -> str:
    """A new 19-digit id, the shape of Google's session and answer ids."""
    return str(10**18 + secrets.randbelow(9 * 10**18))


@dataclass(frozen=True, slots=True)
class Turn:
    """A query and the resource name of its answer (``Session.Turn``)."""

    query: str
    query_id: str = ""
    answer: str = ""


@dataclass(frozen=True, slots=True)
class Session:
    """A session as stored: ``name`` and ``key`` canonical, ``parent`` the canonical
    name of its data store or engine, ``sequence`` its creation order."""

    name: str
    key: str
    parent: str
    start_time: _dt.datetime
    update_time: _dt.datetime
    sequence: int
    display_name: str = ""
    state: str = "IN_PROGRESS"
    user_pseudo_id: str = ""
    labels: tuple[str, ...] = ()
    is_pinned: bool = False
    turns: tuple[Turn, ...] = ()
    end_time: _dt.datetime | None = None

    @property
    def size(self) -> int:
        """About the bytes of its ``Session`` message without answer details."""
        texts = (self.name, self.display_name, self.user_pseudo_id, *self.labels)
        turns = sum(
            len(t.query.encode()) + len(t.answer) + len(t.query_id) + 16 for t in self.turns
        )
        return turns + sum(map(len, texts)) + 64


def check_room(session: Session, field: str = "session") -> None:
    """Refuse (``INVALID_ARGUMENT`` naming ``field``) a turn more in a session that holds
    ``MAX_SESSION_TURNS`` already."""
    if len(session.turns) >= MAX_SESSION_TURNS:
        raise InvalidArgument(
            f"{field}: the session has {len(session.turns)} turns, the most the emulator keeps "
            f"in one ({MAX_SESSION_TURNS}): start a new session (.../sessions/-)",
            field=field,
        )


def check_update_paths(
    paths: Iterable[str],
    field: str = "update_mask.paths",
    *,
    updatable: tuple[str, ...] = UPDATABLE_FIELDS,
    immutable: tuple[str, ...] = IMMUTABLE_FIELDS,
    resource: str = "Session",
) -> tuple[str, ...]:
    """The fields an ``UpdateSession`` mask names (all updatable ones when it is empty); the
    keywords give another resource's fields (``UpdateConversation``)."""
    chosen = tuple(dict.fromkeys(paths))
    for path in chosen:
        if path in immutable:
            raise InvalidArgument(
                f"{field}: {path} cannot be updated (updatable: {', '.join(updatable)})",
                field=field,
            )
        if path not in updatable:
            raise InvalidArgument(
                f"{field}: {path!r} is not a {resource} field that can be updated "
                f"(updatable: {', '.join(updatable)})",
                field=field,
            )
    return chosen or updatable


def _check_state(state: str, field: str) -> None:
    if state not in STATES:
        raise InvalidArgument(
            f"{field} must be one of {', '.join(STATES)}, got {state}", field=field
        )


def _numbered(turns: Iterable[Turn], field: str = "session.turns") -> tuple[Turn, ...]:
    """``turns``, each with a query id, refused past ``MAX_SESSION_TURNS`` or with a query
    over ``MAX_QUERY_CHARS``."""
    kept = tuple(turns)
    if len(kept) > MAX_SESSION_TURNS:
        raise InvalidArgument(
            f"{field} has {len(kept)} turns; the emulator keeps at most {MAX_SESSION_TURNS} in a "
            "session",
            field=field,
        )
    for number, turn in enumerate(kept):
        if len(turn.query) > MAX_QUERY_CHARS:
            where = f"{field}[{number}].query.text"
            raise InvalidArgument(
                f"{where} has {len(turn.query)} characters; the emulator takes at most "
                f"{MAX_QUERY_CHARS}",
                field=where,
            )
    return tuple(t if t.query_id else dataclasses.replace(t, query_id=new_id()) for t in kept)


class SessionStore:
    """Every session of one emulator, and the answers of their turns."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, Session] = {}
        self._answers: dict[str, bytes] = {}
        self._sequence = itertools.count()

    def __repr__(self) -> str:
        return f"SessionStore({len(self._sessions)} sessions)"

    def create(
        self,
        *,
        name: str,
        key: str,
        parent: str,
        now: _dt.datetime,
        fields: Mapping[str, Any] | None = None,
    ) -> Session:
        """Store a new session (``fields``: any of ``UPDATABLE_FIELDS``); ``AlreadyExists`` when
        one has that name."""
        values = dict(fields or {})
        _check_state(values.setdefault("state", "IN_PROGRESS"), "session.state")
        values["turns"] = _numbered(values.get("turns", ()))
        values["labels"] = tuple(values.get("labels", ()))
        if not values.get("display_name") and values["turns"]:
            values["display_name"] = values["turns"][0].query
        with self._lock:
            if key in self._sessions:
                raise AlreadyExists(f"session {name!r} already exists")
            session = Session(
                name=name,
                key=key,
                parent=parent,
                start_time=now,
                update_time=now,
                sequence=next(self._sequence),
                end_time=now if values["turns"] else None,
                **values,
            )
            self._sessions[key] = session
        return session

    def get(self, key: str, name: str) -> Session:
        """The session of canonical name ``key``; ``NotFound`` (naming ``name``) if none."""
        session = self._sessions.get(key)
        if session is None:
            raise NotFound(f"session {name!r} not found")
        return session

    def sessions(self, parent: str) -> list[Session]:
        """The sessions of a data store or engine (canonical name), in creation order."""
        with self._lock:
            found = [s for s in self._sessions.values() if s.parent == parent]
        return sorted(found, key=lambda s: s.sequence)

    def update(self, key: str, name: str, changes: Mapping[str, Any], now: _dt.datetime) -> Session:
        """Set the ``changes`` (field -> value, fields of ``check_update_paths``)."""
        values = dict(changes)
        if "state" in values:
            _check_state(values["state"], "session.state")
        if "turns" in values:
            values["turns"] = _numbered(values["turns"])
        if "labels" in values:
            values["labels"] = tuple(values["labels"])
        with self._lock:
            session = self.get(key, name)
            updated = dataclasses.replace(session, update_time=now, **values)
            self._sessions[key] = updated
        return updated

    def add_turn(
        self,
        key: str,
        name: str,
        turn: Turn,
        answer: tuple[str, bytes],
        now: _dt.datetime,
    ) -> Session:
        """Append an answered turn; ``answer``: the canonical name of its answer and the
        serialized ``Answer``."""
        with self._lock:
            session = self.get(key, name)
            check_room(session)
            turns = (*session.turns, *_numbered([turn]))
            updated = dataclasses.replace(
                session,
                turns=turns,
                display_name=session.display_name or turn.query,
                update_time=now,
                end_time=now,
            )
            self._sessions[key] = updated
            self._answers[answer[0]] = answer[1]
        return updated

    def find_answer(self, key: str) -> bytes | None:
        """The serialized ``Answer`` of canonical name ``key``, ``None`` if none."""
        return self._answers.get(key)

    def answer(self, key: str, name: str) -> bytes:
        """The serialized ``Answer`` of canonical name ``key``; ``NotFound`` if none."""
        found = self.find_answer(key)
        if found is None:
            raise NotFound(
                f"answer {name!r} not found (answers are kept for the turns of sessions)"
            )
        return found

    def delete(self, key: str, name: str) -> None:
        """Delete a session and its answers; ``NotFound`` if there is none."""
        with self._lock:
            self.get(key, name)
            del self._sessions[key]
            prefix = f"{key}/answers/"
            for answer in [a for a in self._answers if a.startswith(prefix)]:
                del self._answers[answer]

    def remove_under(self, parent: str) -> None:
        """Forget the sessions (and their answers) of a data store or engine (canonical name)
        that was deleted, so that one made again under its name starts without them."""
        prefix = f"{parent}/"
        with self._lock:
            for key in [k for k, s in self._sessions.items() if s.parent == parent]:
                del self._sessions[key]
            for answer in [a for a in self._answers if a.startswith(prefix)]:
                del self._answers[answer]

    def clear(self) -> None:
        """Forget every session and answer."""
        with self._lock:
            self._sessions.clear()
            self._answers.clear()
