"""Sessions through Google's unmodified clients against the emulator: SessionService (create,
get, list, delete; sync and async) and multi-turn AnswerQuery (``-`` starts a session, each
answered query is a turn, a follow-up is read with the earlier turns)."""

from __future__ import annotations

import datetime as dt

import pytest

from grounding_core import (
    AnswerSpec,
    DiscoveryEngineTarget,
    InputError,
    NotFoundError,
    Session,
    Turn,
    aanswer_query,
    acreate_session,
    adelete_session,
    aget_session,
    alist_sessions,
    answer_query,
    create_session,
    delete_session,
    get_session,
    list_sessions,
)
from tests.conftest import PROJECT
from tests.core.emulated import result_of

ENGINE = DiscoveryEngineTarget(project=PROJECT, engine="python-docs-app")
DATA_STORE = DiscoveryEngineTarget(project=PROJECT, data_store="python-docs")
FIRST = "What does the with statement do?"
FOLLOW_UP = "and how does it handle exceptions?"


def test_session_service_round_trip(de_clients):
    session = create_session(de_clients, ENGINE, user_pseudo_id="visitor-1", display_name="Chat")
    assert isinstance(session, Session)
    assert session.name.startswith(f"{ENGINE.parent_path}/sessions/")
    assert session.id == session.name.rsplit("/", 1)[1]
    assert session.id.isdigit()
    assert (session.display_name, session.user_pseudo_id, session.state) == (
        "Chat",
        "visitor-1",
        "IN_PROGRESS",
    )
    assert (session.turns, session.labels, session.is_pinned) == ((), (), False)
    assert isinstance(session.start_time, dt.datetime)
    assert get_session(de_clients, ENGINE, session.id) == session  # by id or by name
    assert get_session(de_clients, ENGINE, session.name) == session
    mine = list_sessions(de_clients, ENGINE, filter='user_pseudo_id = "visitor-1"')
    assert [s.name for s in mine] == [session.name]
    delete_session(de_clients, ENGINE, session.name)
    with pytest.raises(NotFoundError, match=f"GetSession on {session.name} failed: NOT_FOUND"):
        get_session(de_clients, ENGINE, session.name)
    with pytest.raises(NotFoundError, match=f"DeleteSession on {session.name} failed"):
        delete_session(de_clients, ENGINE, session.id)


async def test_session_service_round_trip_async(de_async_clients):
    session = await acreate_session(de_async_clients, DATA_STORE, user_pseudo_id="visitor-2")
    assert session.name.startswith(f"{DATA_STORE.parent_path}/sessions/")
    assert await aget_session(de_async_clients, DATA_STORE, session.id) == session
    listed = await alist_sessions(
        de_async_clients, DATA_STORE, filter='user_pseudo_id = "visitor-2"'
    )
    assert [s.name for s in listed] == [session.name]
    await adelete_session(de_async_clients, DATA_STORE, session.id)
    with pytest.raises(NotFoundError, match=r"GetSession on .* failed: NOT_FOUND"):
        await aget_session(de_async_clients, DATA_STORE, session.id)


def test_session_names_are_checked_before_any_call(de_clients):
    with pytest.raises(InputError, match="session '-' names no session"):
        get_session(de_clients, ENGINE, "-")
    with pytest.raises(InputError, match="user_pseudo_id has 129 characters"):
        create_session(de_clients, ENGINE, user_pseudo_id="v" * 129)


def test_two_turns_in_one_session(de_clients):
    first = answer_query(de_clients, ENGINE, FIRST, AnswerSpec(session="-"))
    assert first.session.startswith(f"{ENGINE.parent_path}/sessions/")
    assert first.name.startswith(f"{first.session}/answers/")
    assert [turn.query for turn in first.turns] == [FIRST]
    assert first.turns[0].answer == first.name
    assert {r.document_id for r in first.references} >= {"with"}
    spec = AnswerSpec(session=first.session)
    second = answer_query(de_clients, ENGINE, FOLLOW_UP, spec)
    assert second.session == first.session
    assert [turn.query for turn in second.turns] == [FIRST, FOLLOW_UP]
    # The follow-up is read with the earlier turn: without the session, or without the
    # rephraser, the same words give another answer.
    alone = answer_query(de_clients, ENGINE, FOLLOW_UP)
    literal = answer_query(
        de_clients,
        ENGINE,
        FOLLOW_UP,
        AnswerSpec(session=first.session, disable_query_rephraser=True),
    )
    assert (alone.session, alone.turns) == ("", ())
    assert second.answer_text != alone.answer_text == literal.answer_text
    session = get_session(de_clients, ENGINE, first.session, include_answer_details=True)
    assert [turn.query for turn in session.turns] == [FIRST, FOLLOW_UP, FOLLOW_UP]
    assert session.display_name == FIRST
    details = session.turns[0].detailed_answer
    assert details is not None
    assert (details.answer_text, details.name, details.session) == (
        first.answer_text,
        first.name,
        first.session,
    )
    plain = get_session(de_clients, ENGINE, first.session)
    assert plain.turns[0] == Turn(
        query=FIRST, query_id=first.turns[0].query_id, answer=first.name, detailed_answer=None
    )


async def test_two_turns_async_on_a_data_store(de_async_clients):
    first = await aanswer_query(de_async_clients, DATA_STORE, FIRST, AnswerSpec(session="-"))
    assert first.session.startswith(f"{DATA_STORE.parent_path}/sessions/")
    second = await aanswer_query(
        de_async_clients, DATA_STORE, FOLLOW_UP, AnswerSpec(session=first.session)
    )
    assert second.session == first.session
    assert [turn.query for turn in second.turns] == [FIRST, FOLLOW_UP]


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_an_unknown_session_is_named(de_clients, de_async_clients, asynchronous):
    spec = AnswerSpec(session="1234")
    name = ENGINE.session_path("1234")
    call, clients = (
        (aanswer_query, de_async_clients) if asynchronous else (answer_query, de_clients)
    )
    with pytest.raises(NotFoundError) as info:
        await result_of(call, clients, ENGINE, FIRST, spec)
    assert str(info.value).startswith(
        f"AnswerQuery on {ENGINE.serving_config_path} (session {name}) failed: NOT_FOUND: "
    )
    assert name in str(info.value.cause)


async def test_every_page_is_listed(de_clients, de_async_clients):
    # ListSessions pages 50 sessions at a time by default: 51 take two pages.
    created = [create_session(de_clients, ENGINE, user_pseudo_id="pager").name for _ in range(51)]
    mine = 'user_pseudo_id = "pager"'
    listed = list_sessions(de_clients, ENGINE, filter=mine, order_by="create_time")
    assert [s.name for s in listed] == created
    again = await alist_sessions(de_async_clients, ENGINE, filter=mine, order_by="create_time")
    assert again == listed
    for name in created:
        delete_session(de_clients, ENGINE, name)
    assert list_sessions(de_clients, ENGINE, filter=mine) == ()
