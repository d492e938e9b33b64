"""Discovery Engine ``Conversation`` messages: stored conversations -> protos, and a request's
conversation fields and a converse turn -> stored values (``answer/conversations.py``)."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.answer.conversations import Conversation, Message
from grounding_emulator.errors import InvalidArgument

__all__ = ["conversation_fields", "conversation_message", "turn_messages"]

ConversationMessage = de.ConversationMessage.pb()
_Conversation = de.Conversation.pb()
_State = _Conversation.State


def conversation_message(conversation: Conversation) -> Any:
    """The ``Conversation`` message of a stored conversation."""
    message = _Conversation(
        name=conversation.name,
        state=_State.Value(conversation.state),
        user_pseudo_id=conversation.user_pseudo_id,
    )
    message.start_time.FromDatetime(conversation.start_time)
    if conversation.end_time is not None:
        message.end_time.FromDatetime(conversation.end_time)
    for stored in conversation.messages:
        message.messages.add().ParseFromString(stored.serialized)
    return message


def _stored(message: Any, now: _dt.datetime) -> Message:
    """A ``ConversationMessage`` as stored; ``create_time`` ("Output only") is set to ``now``
    when the request leaves it unset, and kept when it sends one back (as read from Google)."""
    if not message.HasField("create_time"):
        copy = ConversationMessage()
        copy.CopyFrom(message)
        copy.create_time.FromDatetime(now)
        message = copy
    user_input = message.user_input.input if message.WhichOneof("message") == "user_input" else None
    return Message(user_input, message.SerializeToString())


def turn_messages(query: Any, summary: Any, now: _dt.datetime) -> tuple[Message, Message]:
    """The two messages a converse turn adds: the user's ``TextInput`` (its ``context`` kept)
    and the ``Reply`` with the turn's ``summary``, both created ``now``."""
    user = ConversationMessage()
    user.user_input.CopyFrom(query)
    reply = ConversationMessage()
    reply.reply.summary.CopyFrom(summary)
    return _stored(user, now), _stored(reply, now)


def _state(value: int) -> str:
    try:
        return str(_State.Name(value))
    except ValueError as exc:
        raise InvalidArgument(
            f"conversation.state {value} is not a Conversation.State ({', '.join(_State.keys())})",
            field="conversation.state",
        ) from exc


def _messages(messages: Iterable[Any], now: _dt.datetime) -> list[Message]:
    return [_stored(m, now) for m in messages]


def conversation_fields(message: Any, paths: Iterable[str], now: _dt.datetime) -> dict[str, Any]:
    """The ``paths`` of a request's ``Conversation`` as stored values."""
    readers: dict[str, Callable[[], Any]] = {
        "state": lambda: _state(message.state),
        "user_pseudo_id": lambda: message.user_pseudo_id,
        "messages": lambda: _messages(message.messages, now),
    }
    return {path: readers[path]() for path in paths}
