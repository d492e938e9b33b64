"""Discovery Engine ``Session`` messages: stored sessions -> protos, and a request's session
fields -> plain values."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.answer.sessions import Session, Turn

__all__ = ["session_fields", "session_message"]

SessionMessage = de.Session.pb()
_State = SessionMessage.State
Answer = de.Answer.pb()


def session_message(
    session: Session, detailed_answer: Callable[[Turn], bytes | None] | None = None
) -> Any:
    """The ``Session`` message of a stored session; with ``detailed_answer`` (GetSession's
    ``include_answer_details``) each turn's ``detailed_answer`` is filled from the stored
    answer it returns."""
    message = SessionMessage(
        name=session.name,
        display_name=session.display_name,
        state=_State.Value(session.state),
        user_pseudo_id=session.user_pseudo_id,
        labels=session.labels,
        is_pinned=session.is_pinned,
    )
    message.start_time.FromDatetime(session.start_time)
    if session.end_time is not None:
        message.end_time.FromDatetime(session.end_time)
    for turn in session.turns:
        item = message.turns.add(answer=turn.answer)
        item.query.text = turn.query
        item.query.query_id = turn.query_id
        if detailed_answer is not None and turn.answer:
            stored = detailed_answer(turn)
            if stored is not None:
                item.detailed_answer.ParseFromString(stored)
    return message


def _turns(turns: Iterable[Any]) -> list[Turn]:
    return [Turn(query=t.query.text, query_id=t.query.query_id, answer=t.answer) for t in turns]


def session_fields(message: Any, paths: Iterable[str]) -> dict[str, Any]:
    """The ``paths`` of a request's ``Session`` as plain values (``answer/sessions.py``)."""
    readers: dict[str, Callable[[], Any]] = {
        "display_name": lambda: message.display_name,
        "state": lambda: _State.Name(message.state),
        "user_pseudo_id": lambda: message.user_pseudo_id,
        "turns": lambda: _turns(message.turns),
        "labels": lambda: tuple(message.labels),
        "is_pinned": lambda: message.is_pinned,
    }
    return {path: readers[path]() for path in paths}
