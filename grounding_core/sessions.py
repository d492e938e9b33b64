"""Conversation sessions of AnswerQuery (Google's ``SessionService``), sync and async.

A session belongs to an engine or a data store (``DiscoveryEngineTarget``); it is named by its
id or its full resource name (``GroundedAnswer.session`` after an answer asked with
``session="-"``). Each answered query in a session is a ``Turn``; Google's AnswerQuery reads
the earlier turns to understand a follow-up question.

>>> clients = DiscoveryEngineClients(emulator_host="localhost:8123")  # doctest: +SKIP
>>> target = DiscoveryEngineTarget(project="p", engine="docs-app")  # doctest: +SKIP
>>> session = create_session(clients, target, user_pseudo_id="visitor-1")  # doctest: +SKIP
>>> [turn.query for turn in get_session(clients, target, session.name).turns]  # doctest: +SKIP
[]
"""

from __future__ import annotations

from typing import Any

from google.cloud import discoveryengine_v1 as de

from .clients import DiscoveryEngineClients
from .convert import session_from_proto
from .errors import InputError, translate_errors
from .records import Session
from .settings import CallOptions, DiscoveryEngineTarget
from .specs import check_user_pseudo_id
from .validation import check_wire_text

__all__ = [
    "acreate_session",
    "adelete_session",
    "aget_session",
    "alist_sessions",
    "create_session",
    "delete_session",
    "get_session",
    "list_sessions",
    "session_name",
]


def session_name(target: DiscoveryEngineTarget, session: str) -> str:
    """The resource name of an existing session of ``target`` (an id or a resource name)."""
    if session == "-":
        raise InputError(
            "session '-' names no session (it asks AnswerQuery to start one): give the id or "
            "resource name of an existing session",
            field="session",
        )
    return target.session_path(session)


def _session(response: Any) -> Session:
    return session_from_proto(type(response).pb(response))


def _create_request(
    target: DiscoveryEngineTarget, user_pseudo_id: str, display_name: str
) -> de.CreateSessionRequest:
    return de.CreateSessionRequest(
        parent=target.parent_path,
        session={
            "user_pseudo_id": check_user_pseudo_id(user_pseudo_id),
            "display_name": check_wire_text("display_name", display_name),
        },
    )


def create_session(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    *,
    user_pseudo_id: str = "",
    display_name: str = "",
    options: CallOptions = CallOptions(),
) -> Session:
    """A new, empty session of ``target`` (AnswerQuery with ``session="-"`` also starts one)."""
    request = _create_request(target, user_pseudo_id, display_name)
    with translate_errors("CreateSession", target.parent_path):
        response = clients.sessions().create_session(request=request, **options.call_kwargs())
    return _session(response)


async def acreate_session(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    *,
    user_pseudo_id: str = "",
    display_name: str = "",
    options: CallOptions = CallOptions(),
) -> Session:
    """Async ``create_session``, on Google's async client."""
    request = _create_request(target, user_pseudo_id, display_name)
    with translate_errors("CreateSession", target.parent_path):
        response = await clients.sessions_async().create_session(
            request=request, **options.async_call_kwargs()
        )
    return _session(response)


def get_session(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    session: str,
    *,
    include_answer_details: bool = False,
    options: CallOptions = CallOptions(),
) -> Session:
    """The session named ``session``, with its turns (and each turn's answer with
    ``include_answer_details``)."""
    name = session_name(target, session)
    request = de.GetSessionRequest(name=name, include_answer_details=include_answer_details)
    with translate_errors("GetSession", name):
        response = clients.sessions().get_session(request=request, **options.call_kwargs())
    return _session(response)


async def aget_session(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    session: str,
    *,
    include_answer_details: bool = False,
    options: CallOptions = CallOptions(),
) -> Session:
    """Async ``get_session``, on Google's async client."""
    name = session_name(target, session)
    request = de.GetSessionRequest(name=name, include_answer_details=include_answer_details)
    with translate_errors("GetSession", name):
        response = await clients.sessions_async().get_session(
            request=request, **options.async_call_kwargs()
        )
    return _session(response)


def list_sessions(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    *,
    filter: str = "",
    order_by: str = "",
    options: CallOptions = CallOptions(),
) -> tuple[Session, ...]:
    """Every session of ``target`` (all pages); ``filter`` and ``order_by`` as Google's
    ``ListSessionsRequest`` documents them (e.g. ``'user_pseudo_id = "visitor-1"'``,
    ``"update_time desc"``)."""
    request = de.ListSessionsRequest(parent=target.parent_path, filter=filter, order_by=order_by)
    with translate_errors("ListSessions", target.parent_path):
        pager = clients.sessions().list_sessions(request=request, **options.call_kwargs())
        return tuple(_session(session) for session in pager)


async def alist_sessions(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    *,
    filter: str = "",
    order_by: str = "",
    options: CallOptions = CallOptions(),
) -> tuple[Session, ...]:
    """Async ``list_sessions``, on Google's async client."""
    request = de.ListSessionsRequest(parent=target.parent_path, filter=filter, order_by=order_by)
    with translate_errors("ListSessions", target.parent_path):
        pager = await clients.sessions_async().list_sessions(
            request=request, **options.async_call_kwargs()
        )
        return tuple([_session(session) async for session in pager])


def delete_session(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    session: str,
    *,
    options: CallOptions = CallOptions(),
) -> None:
    """Delete the session named ``session`` (``NotFoundError`` when there is none)."""
    name = session_name(target, session)
    with translate_errors("DeleteSession", name):
        clients.sessions().delete_session(
            request=de.DeleteSessionRequest(name=name), **options.call_kwargs()
        )


async def adelete_session(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    session: str,
    *,
    options: CallOptions = CallOptions(),
) -> None:
    """Async ``delete_session``, on Google's async client."""
    name = session_name(target, session)
    with translate_errors("DeleteSession", name):
        await clients.sessions_async().delete_session(
            request=de.DeleteSessionRequest(name=name), **options.async_call_kwargs()
        )
