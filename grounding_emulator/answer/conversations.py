"""The conversations of ConverseConversation (Google's "multi-turn search"), in memory:
thread-safe, pure (no gRPC).

A conversation (``Conversation``, v1 reference; ``conversation.proto``; "Search with
follow-ups", cloud.google.com/generative-ai-app-builder/docs/multi-turn-search) is "the text
queries that the user has provided and the responses" of Vertex AI Search: its messages, each a
user input or a reply. The store keys conversations by their canonical names (``wire/names.py``:
a collection-less data store is the one in ``default_collection``), which are also their
names (``Conversation.name``: "Fully qualified name
``projects/{project}/locations/global/collections/{collection}/dataStore/*/conversations/*``");
a message is kept as the serialized bytes of its ``ConversationMessage`` (with its
``create_time``) and the text of its user input, which the next turns are rephrased with. What
the proto documents, the store does; where it is silent, the store's choice is written here:

- ``state``: a new conversation is ``IN_PROGRESS`` ("Conversation is currently open") unless
  it is created ``COMPLETED``.
- ``start_time`` ("The time the conversation started") is the creation time, also the
  ``create_time`` that ``ListConversations`` orders on; ``update_time`` (not in the message,
  ordered on too) is the time of the last change.
- ``end_time`` ("The time the conversation finished"): the time it was created or updated as
  ``COMPLETED``; unset while ``IN_PROGRESS``. Google does not say whether a completed
  conversation takes more turns: the store accepts them and keeps its state.
- ``UpdateConversation``'s mask: ``state``, ``user_pseudo_id`` and ``messages`` ("The following
  are NOT supported: Conversation.name"; the times are output only); an empty mask updates all
  of them.
- Bounds Google does not document (``limits.py``, docs/emulator.md): at most
  ``MAX_CONVERSATION_MESSAGES`` messages (``INVALID_ARGUMENT`` naming ``conversation.messages``
  when a request sets more, naming ``name`` when a turn would add them), a user input of at most
  ``MAX_QUERY_CHARS`` characters.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import itertools
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from grounding_emulator.answer.sessions import check_update_paths
from grounding_emulator.errors import AlreadyExists, InvalidArgument, NotFound
from grounding_emulator.limits import MAX_CONVERSATION_MESSAGES, MAX_QUERY_CHARS

__all__ = [
    "STATES",
    "UPDATABLE_FIELDS",
    "Conversation",
    "ConversationStore",
    "Message",
    "check_conversation_paths",
    "check_room",
]

UPDATABLE_FIELDS = ("state", "user_pseudo_id", "messages")
IMMUTABLE_FIELDS = ("name", "start_time", "end_time")
STATES = ("STATE_UNSPECIFIED", "IN_PROGRESS", "COMPLETED")


@dataclass(frozen=True, slots=True)
class Message:
    """A ``ConversationMessage``: ``user_input`` is its ``user_input.input`` (``None`` for a
    reply), ``serialized`` the whole message."""

    user_input: str | None
    serialized: bytes


@dataclass(frozen=True, slots=True)
class Conversation:
    """A conversation as stored: ``name`` and ``key`` canonical, ``parent`` the canonical
    name of its data store or engine, ``sequence`` its creation order."""

    name: str
    key: str
    parent: str
    start_time: _dt.datetime
    update_time: _dt.datetime
    sequence: int
    state: str = "IN_PROGRESS"
    user_pseudo_id: str = ""
    messages: tuple[Message, ...] = ()
    end_time: _dt.datetime | None = None

    @property
    def user_inputs(self) -> tuple[str, ...]:
        """The texts of its user inputs, oldest first."""
        return tuple(m.user_input for m in self.messages if m.user_input is not None)

    @property
    def size(self) -> int:
        """About the bytes of its ``Conversation`` message (its messages' and names')."""
        texts = (self.name, self.user_pseudo_id, self.state)
        return sum(len(m.serialized) + 8 for m in self.messages) + sum(map(len, texts)) + 64


def check_room(messages: int, adding: int, field: str = "name") -> None:
    """Refuse (``INVALID_ARGUMENT`` naming ``field``) ``adding`` messages to a conversation of
    ``messages`` that would take it over ``MAX_CONVERSATION_MESSAGES``."""
    if messages + adding > MAX_CONVERSATION_MESSAGES:
        raise InvalidArgument(
            f"{field}: the conversation has {messages} messages, and the "
            f"emulator keeps at most {MAX_CONVERSATION_MESSAGES} in one: start a new "
            "conversation (.../conversations/-)",
            field=field,
        )


def check_conversation_paths(paths: Iterable[str]) -> tuple[str, ...]:
    """The fields an ``UpdateConversation`` mask names (all updatable ones when it is empty)."""
    return check_update_paths(
        paths, updatable=UPDATABLE_FIELDS, immutable=IMMUTABLE_FIELDS, resource="Conversation"
    )


def _checked(values: dict[str, Any], field: str) -> dict[str, Any]:
    if "state" in values and values["state"] not in STATES:
        raise InvalidArgument(
            f"{field}.state must be one of {', '.join(STATES)}, got {values['state']}",
            field=f"{field}.state",
        )
    if "messages" in values:
        messages = values["messages"] = tuple(values["messages"])
        if len(messages) > MAX_CONVERSATION_MESSAGES:
            raise InvalidArgument(
                f"{field}.messages has {len(messages)} messages; the emulator keeps at most "
                f"{MAX_CONVERSATION_MESSAGES} in a conversation",
                field=f"{field}.messages",
            )
        for number, message in enumerate(messages):
            if message.user_input is not None and len(message.user_input) > MAX_QUERY_CHARS:
                where = f"{field}.messages[{number}].user_input.input"
                raise InvalidArgument(
                    f"{where} has {len(message.user_input)} characters; the emulator takes at "
                    f"most {MAX_QUERY_CHARS}",
                    field=where,
                )
    return values


def _end_time(state: str, previous: _dt.datetime | None, now: _dt.datetime) -> _dt.datetime | None:
    if state != "COMPLETED":
        return None
    return previous or now


class ConversationStore:
    """Every conversation of one emulator."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conversations: dict[str, Conversation] = {}
        self._sequence = itertools.count()

    def __repr__(self) -> str:
        return f"ConversationStore({len(self._conversations)} conversations)"

    def create(
        self,
        *,
        name: str,
        key: str,
        parent: str,
        now: _dt.datetime,
        fields: Mapping[str, Any] | None = None,
    ) -> Conversation:
        """Store a new conversation (``fields``: any of ``UPDATABLE_FIELDS``; an unset or
        unspecified state is ``IN_PROGRESS``); ``AlreadyExists`` when one has that name."""
        values = _checked(dict(fields or {}), "conversation")
        if values.get("state", "STATE_UNSPECIFIED") == "STATE_UNSPECIFIED":
            values["state"] = "IN_PROGRESS"
        with self._lock:
            if key in self._conversations:
                raise AlreadyExists(f"conversation {name!r} already exists")
            conversation = Conversation(
                name=name,
                key=key,
                parent=parent,
                start_time=now,
                update_time=now,
                sequence=next(self._sequence),
                end_time=_end_time(values["state"], None, now),
                **values,
            )
            self._conversations[key] = conversation
        return conversation

    def get(self, key: str, name: str) -> Conversation:
        """The conversation of canonical name ``key``; ``NotFound`` (naming ``name``) if none."""
        conversation = self._conversations.get(key)
        if conversation is None:
            raise NotFound(f"conversation {name!r} not found")
        return conversation

    def conversations(self, parent: str) -> list[Conversation]:
        """The conversations of a data store or engine (canonical name), in creation order."""
        with self._lock:
            found = [c for c in self._conversations.values() if c.parent == parent]
        return sorted(found, key=lambda c: c.sequence)

    def update(
        self, key: str, name: str, changes: Mapping[str, Any], now: _dt.datetime
    ) -> Conversation:
        """Set the ``changes`` (field -> value, fields of ``check_conversation_paths``)."""
        values = _checked(dict(changes), "conversation")
        with self._lock:
            conversation = self.get(key, name)
            state = values.get("state", conversation.state)
            updated = dataclasses.replace(
                conversation,
                update_time=now,
                end_time=_end_time(state, conversation.end_time, now),
                **values,
            )
            self._conversations[key] = updated
        return updated

    def add_messages(
        self, key: str, name: str, messages: Iterable[Message], now: _dt.datetime
    ) -> Conversation:
        """Append ``messages`` (a turn: the user input and its reply) in one step."""
        added = tuple(messages)
        with self._lock:
            conversation = self.get(key, name)
            check_room(len(conversation.messages), len(added))
            updated = dataclasses.replace(
                conversation, messages=(*conversation.messages, *added), update_time=now
            )
            self._conversations[key] = updated
        return updated

    def delete(self, key: str, name: str) -> None:
        """Delete a conversation; ``NotFound`` if there is none."""
        with self._lock:
            self.get(key, name)
            del self._conversations[key]

    def remove_under(self, parent: str) -> None:
        """Forget the conversations of a data store or engine (canonical name) that was
        deleted."""
        with self._lock:
            for key in [k for k, c in self._conversations.items() if c.parent == parent]:
                del self._conversations[key]

    def clear(self) -> None:
        """Forget every conversation."""
        with self._lock:
            self._conversations.clear()
