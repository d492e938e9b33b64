"""Sessions (``grounding_core.sessions``): the names, the requests, the call options, the error's
resource and the records, sync and async. The calls go to the session emulator."""

import itertools

import pytest

from grounding_core import (
    AnswerSpec,
    CallOptions,
    DiscoveryEngineTarget,
    InputError,
    NotFoundError,
    ServiceUnavailableError,
    Turn,
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
from grounding_core.sessions import session_name

from .emulated import PROJECT, RETRYING, result_of

ENGINE = DiscoveryEngineTarget(project=PROJECT, engine="test-app")
NO_RETRY = CallOptions(retry=None)
_visitors = itertools.count()


def visitor() -> str:
    """A user_pseudo_id no other test uses: its sessions are this test's alone."""
    return f"sessions-mutants-{next(_visitors)}"


def _pick(asynchronous, sync_call, async_call):
    return async_call if asynchronous else sync_call


def test_session_names():
    base = f"projects/{PROJECT}/locations/global/collections/default_collection/engines/test-app"
    assert session_name(ENGINE, "12") == f"{base}/sessions/12"
    assert session_name(ENGINE, f"{base}/sessions/7") == f"{base}/sessions/7"
    with pytest.raises(InputError) as info:
        session_name(ENGINE, "-")
    assert str(info.value) == (
        "session '-' names no session (it asks AnswerQuery to start one): give the id or "
        "resource name of an existing session"
    )
    assert info.value.field == "session"


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_create_get_list_delete(de_clients, de_async_clients, asynchronous):
    clients = de_async_clients if asynchronous else de_clients
    create = _pick(asynchronous, create_session, acreate_session)
    get = _pick(asynchronous, get_session, aget_session)
    listing = _pick(asynchronous, list_sessions, alist_sessions)
    delete = _pick(asynchronous, delete_session, adelete_session)
    user = visitor()
    first = await result_of(create, clients, ENGINE, user_pseudo_id=user, display_name="Zoë")
    assert first.name.startswith(f"{ENGINE.parent_path}/sessions/")
    assert (first.user_pseudo_id, first.display_name, first.state) == (user, "Zoë", "IN_PROGRESS")
    assert (first.turns, first.labels, first.is_pinned, first.end_time) == ((), (), False, None)
    assert first.start_time is not None
    second = await result_of(create, clients, ENGINE, user_pseudo_id=user)
    assert second.display_name == ""
    anonymous = await result_of(create, clients, ENGINE)
    assert (anonymous.user_pseudo_id, anonymous.display_name) == ("", "")
    assert await result_of(get, clients, ENGINE, first.id) == first
    mine = f'user_pseudo_id = "{user}"'
    listed = await result_of(listing, clients, ENGINE, filter=mine)
    assert listed == (first, second)
    backwards = await result_of(listing, clients, ENGINE, filter=mine, order_by="session_name desc")
    forwards = await result_of(listing, clients, ENGINE, filter=mine, order_by="session_name")
    # Ascending and descending differ, so one of them is not the creation order.
    assert [s.name for s in forwards] == sorted([first.name, second.name])
    assert [s.name for s in backwards] == sorted([first.name, second.name], reverse=True)
    other = await result_of(create, clients, ENGINE, user_pseudo_id=visitor())
    everyone = await result_of(listing, clients, ENGINE)
    assert {first, second, other} <= set(everyone)
    assert await result_of(delete, clients, ENGINE, first.id) is None
    assert await result_of(listing, clients, ENGINE, filter=mine) == (second,)
    with pytest.raises(NotFoundError) as info:
        await result_of(delete, clients, ENGINE, first.name)
    assert str(info.value).startswith(f"DeleteSession on {first.name} failed: NOT_FOUND")
    with pytest.raises(NotFoundError) as info:
        await result_of(get, clients, ENGINE, first.id)
    assert str(info.value).startswith(f"GetSession on {first.name} failed: NOT_FOUND")
    with pytest.raises(InputError, match="user_pseudo_id has 129 characters"):
        await result_of(create, clients, ENGINE, user_pseudo_id="v" * 129)
    for call in (get, delete):
        with pytest.raises(InputError, match="session '-' names no session"):
            await result_of(call, clients, ENGINE, "-")


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_session_read_with_its_answers(de_clients, de_async_clients, asynchronous):
    clients = de_async_clients if asynchronous else de_clients
    get = _pick(asynchronous, get_session, aget_session)
    answered = answer_query(de_clients, ENGINE, "lighthouse keeper", AnswerSpec(session="-"))
    plain = await result_of(get, clients, ENGINE, answered.session)
    assert plain.turns == (
        Turn(query="lighthouse keeper", query_id=answered.turns[0].query_id, answer=answered.name),
    )
    assert plain.turns[0].query_id
    detailed = await result_of(get, clients, ENGINE, answered.session, include_answer_details=True)
    details = detailed.turns[0].detailed_answer
    assert details is not None
    assert (details.name, details.answer_text) == (answered.name, answered.answer_text)


def _calls(asynchronous, session):
    """Each call of the module with its arguments (``session`` an existing session's id)."""
    if asynchronous:
        create, get, listing, delete = (
            acreate_session,
            aget_session,
            alist_sessions,
            adelete_session,
        )
    else:
        create, get, listing, delete = create_session, get_session, list_sessions, delete_session
    return (
        ("CreateSession", create, (), ENGINE.parent_path),
        ("GetSession", get, (session,), ENGINE.session_path(session)),
        ("ListSessions", listing, (), ENGINE.parent_path),
        ("DeleteSession", delete, (session,), ENGINE.session_path(session)),
    )


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_the_options_are_used_and_the_resource_named(
    emulator, de_clients, de_async_clients, asynchronous
):
    clients = de_async_clients if asynchronous else de_clients
    session = create_session(de_clients, ENGINE, user_pseudo_id=visitor()).id
    for method, call, args, resource in _calls(asynchronous, session):
        emulator.faults.fail(method, code="UNAVAILABLE", times=1)
        with pytest.raises(ServiceUnavailableError) as info:
            await result_of(call, clients, ENGINE, *args, options=NO_RETRY)
        assert str(info.value).startswith(f"{method} on {resource} failed: UNAVAILABLE")
        emulator.faults.fail(method, code="UNAVAILABLE", times=1)
        await result_of(call, clients, ENGINE, *args, options=RETRYING)
