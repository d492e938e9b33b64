"""Sessions through Google's clients (sync and async): SessionService, the session RPCs of
ConversationalSearchService, and AnswerQuery in a session (turns, follow-up rephrasing)."""

from __future__ import annotations

import datetime as _dt
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1beta
from google.protobuf import field_mask_pb2

from grounding_emulator.wire.servicers import method_table
from tests.emulator.conftest import ONCE, assert_error, versioned_client

BASE = "projects/test-project/locations/global"
ENGINE = f"{BASE}/collections/default_collection/engines/python-docs-app"
TEST_ENGINE = f"{BASE}/collections/default_collection/engines/test-app"
DATA_STORE = f"{BASE}/collections/default_collection/dataStores/test-docs"
BARE_DATA_STORE = f"{BASE}/dataStores/test-docs"
FIRST = "What is the with statement?"
FOLLOW_UP = "and how does it handle exceptions?"


@pytest.fixture(scope="module")
def sessions(emulator):
    """``SessionServiceClient`` on the emulator."""
    client = versioned_client(de, "SessionServiceClient", emulator.address)
    yield client
    client.transport.close()


def user() -> str:
    """A user pseudo id of its own, so that listings see only this test's sessions."""
    return f"user-{uuid.uuid4().hex[:12]}"


def answer_in(client, query, session, *, parent=ENGINE, **fields):
    request = de.AnswerQueryRequest(
        serving_config=f"{parent}/servingConfigs/default_serving_config",
        query={"text": query},
        session=session,
        **fields,
    )
    return client.answer_query(request=request, **ONCE)


def searched(answer) -> str:
    """The query the emulator searched, when it rephrased it (its one step's search action)."""
    return answer.steps[0].actions[0].search_action.query if answer.steps else ""


def test_two_turn_conversation_rephrases_the_follow_up(answer_client, sessions):
    first = answer_in(answer_client, FIRST, f"{ENGINE}/sessions/-", user_pseudo_id="u-1")
    session = first.session
    assert session.name.startswith(f"{ENGINE}/sessions/")
    session_id = session.name.rsplit("/", 1)[1]
    assert session_id.isdigit()
    assert len(session_id) == 19
    assert first.answer.name.startswith(f"{session.name}/answers/")
    assert first.answer_query_token
    assert [t.query.text for t in session.turns] == [FIRST]
    assert session.turns[0].answer == first.answer.name
    assert session.user_pseudo_id == "u-1"
    assert session.display_name == FIRST
    assert session.state == de.Session.State.IN_PROGRESS
    assert searched(first.answer) == ""

    second = answer_in(answer_client, FOLLOW_UP, session.name)
    assert searched(second.answer) == f"{FOLLOW_UP} is with statement"
    assert '"with" statement' in second.answer.answer_text
    assert second.session.name == session.name
    assert [t.query.text for t in second.session.turns] == [FIRST, FOLLOW_UP]
    assert [t.answer for t in second.session.turns] == [first.answer.name, second.answer.name]
    assert len({t.query.query_id for t in second.session.turns}) == 2
    assert second.answer_query_token != first.answer_query_token

    alone = answer_in(
        answer_client,
        FOLLOW_UP,
        session.name,
        query_understanding_spec={"query_rephraser_spec": {"disable": True}},
    )
    assert searched(alone.answer) == ""
    assert '"with" statement' not in alone.answer.answer_text
    assert len(alone.session.turns) == 3

    stored = sessions.get_session(name=session.name, **ONCE)
    assert [t.query.text for t in stored.turns] == [FIRST, FOLLOW_UP, FOLLOW_UP]
    assert stored.end_time.timestamp() >= stored.start_time.timestamp()


async def test_two_turn_conversation_async(emulator, de_async_connection):
    answers = de_async_connection.async_client(de.ConversationalSearchServiceAsyncClient)
    client = versioned_client(de, "SessionServiceAsyncClient", emulator.address, asynchronous=True)
    config = f"{TEST_ENGINE}/servingConfigs/default_search"
    first = await answers.answer_query(
        request={
            "serving_config": config,
            "query": {"text": "Where do rockets launch from?"},
            "session": f"{TEST_ENGINE}/sessions/-",
        },
        **ONCE,
    )
    assert "Cape Canaveral" in first.answer.answer_text
    second = await answers.answer_query(
        request={
            "serving_config": config,
            "query": {"text": "and how often?"},
            "session": first.session.name,
        },
        **ONCE,
    )
    assert searched(second.answer) == "and how often? rockets launch from"
    assert "every month" in second.answer.answer_text
    session = await client.get_session(name=first.session.name, **ONCE)
    assert [t.query.text for t in session.turns] == [
        "Where do rockets launch from?",
        "and how often?",
    ]
    await client.delete_session(name=session.name, **ONCE)
    with pytest.raises(core_exceptions.NotFound):
        await client.get_session(name=session.name, **ONCE)
    await client.transport.close()


def test_made_up_sessions_are_not_found(answer_client, sessions):
    made_up = f"{ENGINE}/sessions/1234567890123456789"
    calls = [
        lambda: answer_in(answer_client, FIRST, made_up),
        lambda: sessions.get_session(name=made_up, **ONCE),
        lambda: sessions.delete_session(name=made_up, **ONCE),
        lambda: sessions.update_session(session={"name": made_up, "is_pinned": True}, **ONCE),
        lambda: answer_client.get_answer(name=f"{made_up}/answers/1", **ONCE),
    ]
    for call in calls:
        with pytest.raises(core_exceptions.NotFound) as excinfo:
            call()
        assert made_up in excinfo.value.message


def test_every_session_field_round_trips(sessions):
    pseudo = user()
    created = sessions.create_session(
        parent=DATA_STORE,
        session=de.Session(
            display_name="Keeper questions",
            user_pseudo_id=pseudo,
            labels=["hidden", "keepers"],
            is_pinned=True,
            turns=[{"query": {"text": "Who keeps the lighthouse?"}, "answer": ""}],
        ),
        **ONCE,
    )
    assert created.name.startswith(f"{DATA_STORE}/sessions/")
    assert created.display_name == "Keeper questions"
    assert created.user_pseudo_id == pseudo
    assert list(created.labels) == ["hidden", "keepers"]
    assert created.is_pinned is True
    assert created.state == de.Session.State.IN_PROGRESS
    assert [t.query.text for t in created.turns] == ["Who keeps the lighthouse?"]
    assert created.turns[0].query.query_id
    now = _dt.datetime.now(_dt.timezone.utc)
    assert abs((now - created.start_time).total_seconds()) < 60
    assert created.end_time == created.start_time
    fetched = sessions.get_session(name=created.name, **ONCE)
    assert fetched == created
    # The collection-less form names the same data store, so the same session.
    bare = created.name.replace(DATA_STORE, BARE_DATA_STORE)
    assert sessions.get_session(name=bare, **ONCE) == created


def test_a_session_without_turns_has_no_end_time_and_defaults(sessions):
    created = sessions.create_session(parent=BARE_DATA_STORE, session={}, **ONCE)
    # Session.name: "Immutable. Fully qualified name projects/{project}/locations/global/
    # collections/{collection}/engines/{engine}/sessions/*", whatever form the parent had.
    assert created.name.startswith(f"{DATA_STORE}/sessions/")
    assert (created.display_name, created.user_pseudo_id, list(created.turns)) == ("", "", [])
    assert created.state == de.Session.State.IN_PROGRESS
    assert "end_time" not in created
    sessions.delete_session(name=created.name, **ONCE)


@pytest.mark.parametrize(
    ("parent", "canonical"),
    [
        (BARE_DATA_STORE, DATA_STORE),
        (DATA_STORE, DATA_STORE),
        (TEST_ENGINE, TEST_ENGINE),
    ],
    ids=["collection-less-data-store", "data-store-in-a-collection", "engine"],
)
def test_a_session_is_named_in_its_collection(answer_client, sessions, parent, canonical):
    """``Session.name``: "Immutable. Fully qualified name ``projects/{project}/locations/global/
    collections/{collection}/engines/{engine}/sessions/*``", and ``Answer.name`` the same with
    ``/answers/*``: created, answered in, listed, updated and read back by any form of its
    parent, a session and its answers have the one name."""
    pseudo = user()
    created = sessions.create_session(parent=parent, session={"user_pseudo_id": pseudo}, **ONCE)
    session_id = created.name.rsplit("/", 1)[1]
    assert created.name == f"{canonical}/sessions/{session_id}"
    as_given = f"{parent}/sessions/{session_id}"

    answered = answer_in(answer_client, FIRST, as_given, parent=parent)
    answer_id = answered.answer.name.rsplit("/", 1)[1]
    assert answered.session.name == created.name
    assert answered.answer.name == f"{canonical}/sessions/{session_id}/answers/{answer_id}"
    assert [t.answer for t in answered.session.turns] == [answered.answer.name]
    read = answer_client.get_answer(name=f"{as_given}/answers/{answer_id}", **ONCE)
    assert read.name == answered.answer.name

    new = answer_in(answer_client, FIRST, f"{parent}/sessions/-", parent=parent)
    new_id = new.session.name.rsplit("/", 1)[1]
    assert new.session.name == f"{canonical}/sessions/{new_id}"
    new_answer = new.answer.name.rsplit("/", 1)[1]
    assert new.answer.name == f"{canonical}/sessions/{new_id}/answers/{new_answer}"
    sessionless = answer_in(answer_client, FIRST, "", parent=parent)
    sessionless_id = sessionless.answer.name.rsplit("/", 1)[1]
    assert sessionless.answer.name == f"{canonical}/sessions/-/answers/{sessionless_id}"

    assert sessions.get_session(name=as_given, **ONCE).name == created.name
    listed = sessions.list_sessions(
        request={"parent": parent, "filter": f'user_pseudo_id = "{pseudo}"'}, **ONCE
    )
    assert [s.name for s in listed] == [created.name]
    updated = sessions.update_session(
        session={"name": as_given, "display_name": "renamed"},
        update_mask=field_mask_pb2.FieldMask(paths=["display_name"]),
        **ONCE,
    )
    assert (updated.name, updated.display_name) == (created.name, "renamed")
    sessions.delete_session(name=as_given, **ONCE)
    sessions.delete_session(name=new.session.name, **ONCE)


def test_create_session_errors(sessions):
    name = f"{DATA_STORE}/sessions/chosen-{uuid.uuid4().hex[:8]}"
    assert sessions.create_session(parent=DATA_STORE, session={"name": name}, **ONCE).name == name
    with pytest.raises(core_exceptions.AlreadyExists) as excinfo:
        sessions.create_session(parent=DATA_STORE, session={"name": name}, **ONCE)
    assert_error(excinfo, core_exceptions.AlreadyExists, name, "already exists")
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.create_session(parent=TEST_ENGINE, session={"name": name}, **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, "session.name", "is not under parent")
    with pytest.raises(core_exceptions.NotFound) as excinfo:
        sessions.create_session(parent=f"{BASE}/dataStores/nowhere", session={}, **ONCE)
    assert_error(excinfo, core_exceptions.NotFound, "'nowhere'")
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.create_session(parent=f"{BASE}/engines/test-app", session={}, **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, "engines live in a collection")
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.get_session(name=f"{DATA_STORE}/sessions/-", **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, "is not a session name")
    regional = "projects/test-project/locations/us-central1/dataStores/test-docs"
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.create_session(parent=regional, session={}, **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, "parent", "'us-central1'")


def test_list_sessions_pages(sessions):
    pseudo = user()
    names = [
        sessions.create_session(
            parent=BARE_DATA_STORE, session={"user_pseudo_id": pseudo}, **ONCE
        ).name
        for _ in range(5)
    ]
    request = {"parent": BARE_DATA_STORE, "filter": f"user_pseudo_id = {pseudo}", "page_size": 2}
    pager = sessions.list_sessions(request=request, **ONCE)
    first_page = next(iter(pager.pages))
    assert [s.name for s in first_page.sessions] == names[:2]
    assert first_page.next_page_token
    assert [s.name for s in pager] == names
    pages = list(sessions.list_sessions(request=request, **ONCE).pages)
    assert [len(p.sessions) for p in pages] == [2, 2, 1]
    assert pages[-1].next_page_token == ""
    everything = sessions.list_sessions(request={**request, "page_size": 5000}, **ONCE)
    assert [s.name for s in next(iter(everything.pages)).sessions] == names
    # The collection form lists the same data store's sessions.
    same = sessions.list_sessions(request={**request, "parent": DATA_STORE}, **ONCE)
    assert [s.name for s in same] == names
    other = sessions.list_sessions(request={**request, "parent": TEST_ENGINE}, **ONCE)
    assert list(other) == []

    token = first_page.next_page_token
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.list_sessions(
            request={**request, "filter": "is_pinned = true", "page_token": token}, **ONCE
        )
    assert_error(excinfo, core_exceptions.InvalidArgument, "page_token does not belong")
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.list_sessions(request={**request, "page_size": -1}, **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, "page_size must be >= 0, got -1")


def test_list_sessions_filter_and_order_by(sessions):
    pseudo = user()

    def make(**fields):
        session = {"user_pseudo_id": pseudo, **fields}
        return sessions.create_session(parent=DATA_STORE, session=session, **ONCE)

    plain = make(display_name="plain")
    pinned = make(display_name="pinned", is_pinned=True)
    hidden = make(display_name="hidden", is_pinned=True, labels=["hidden"])
    start = plain.start_time.isoformat().replace("+00:00", "Z")

    def listed(filter_, order_by=""):
        request = {
            "parent": DATA_STORE,
            "filter": f'user_pseudo_id = "{pseudo}" AND ({filter_})',
            "order_by": order_by,
        }
        return [s.display_name for s in sessions.list_sessions(request=request, **ONCE)]

    assert listed("is_pinned=true AND (NOT labels:hidden)") == ["pinned"]
    assert listed("labels:hidden OR display_name = plain") == ["plain", "hidden"]
    assert listed('state="IN_PROGRESS"') == ["plain", "pinned", "hidden"]
    assert listed("starred = true") == []
    assert listed(f'create_time >= "{start}"') == ["plain", "pinned", "hidden"]
    assert listed('create_time < "1970-01-01T12:00:00Z"') == []
    assert listed("-is_pinned = true") == ["plain"]
    by_name = [n for _, n in sorted([(pinned.name, "pinned"), (hidden.name, "hidden")])]
    assert listed('state="IN_PROGRESS"', "is_pinned desc,session_name") == [*by_name, "plain"]
    assert listed('state="IN_PROGRESS"', "create_time desc") == ["hidden", "pinned", "plain"]
    sessions.update_session(
        session={"name": plain.name, "display_name": "plain"},
        update_mask=field_mask_pb2.FieldMask(paths=["display_name"]),
        **ONCE,
    )
    assert listed('state="IN_PROGRESS"', "update_time desc") == ["plain", "hidden", "pinned"]

    for filter_, fragment in [
        ("colour = red", "'colour' is not a field to filter sessions by"),
        ("labels != hidden", "labels takes ':' or '='"),
        ("is_pinned > true", "is_pinned takes =, !="),
        ('update_time > "yesterday"', "RFC 3339"),
        ("is_pinned = maybe", "true or false"),
        ("user_pseudo_id =", "is malformed"),
    ]:
        with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
            sessions.list_sessions(request={"parent": DATA_STORE, "filter": filter_}, **ONCE)
        assert_error(excinfo, core_exceptions.InvalidArgument, "filter:", fragment)
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.list_sessions(request={"parent": DATA_STORE, "order_by": "start_time"}, **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, "order_by: 'start_time'")


def test_update_session_with_and_without_a_mask(sessions):
    created = sessions.create_session(
        parent=DATA_STORE,
        session={"display_name": "before", "labels": ["a"], "user_pseudo_id": "u"},
        **ONCE,
    )
    updated = sessions.update_session(
        session={"name": created.name, "is_pinned": True, "display_name": "ignored"},
        update_mask=field_mask_pb2.FieldMask(paths=["is_pinned"]),
        **ONCE,
    )
    assert (updated.is_pinned, updated.display_name, list(updated.labels)) == (
        True,
        "before",
        ["a"],
    )
    assert updated.start_time == created.start_time
    replaced = sessions.update_session(
        session={"name": created.name, "display_name": "after", "state": "IN_PROGRESS"}, **ONCE
    )
    assert (replaced.display_name, list(replaced.labels), replaced.is_pinned) == (
        "after",
        [],
        False,
    )
    assert (replaced.user_pseudo_id, replaced.state) == ("", de.Session.State.IN_PROGRESS)
    assert sessions.get_session(name=created.name, **ONCE) == replaced
    for path, fragment in [("name", "name cannot be updated"), ("colour", "'colour' is not")]:
        with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
            sessions.update_session(
                session={"name": created.name},
                update_mask=field_mask_pb2.FieldMask(paths=[path]),
                **ONCE,
            )
        assert_error(excinfo, core_exceptions.InvalidArgument, "update_mask.paths", fragment)


def test_answers_of_turns_are_read_back(answer_client, sessions):
    first = answer_in(
        answer_client,
        "lighthouse keeper logbook",
        f"{DATA_STORE}/sessions/-",
        parent=DATA_STORE,
        grounding_spec={"include_grounding_supports": True},
    )
    fetched = answer_client.get_answer(name=first.answer.name, **ONCE)
    assert fetched == first.answer
    detailed = sessions.get_session(
        request={"name": first.session.name, "include_answer_details": True}, **ONCE
    )
    assert detailed.turns[0].detailed_answer == first.answer
    plain = sessions.get_session(name=first.session.name, **ONCE)
    assert "detailed_answer" not in plain.turns[0]
    sessionless = answer_in(answer_client, "lighthouse keeper", "", parent=DATA_STORE)
    assert "session" not in sessionless
    assert sessionless.answer.name.startswith(f"{DATA_STORE}/sessions/-/answers/")
    with pytest.raises(core_exceptions.NotFound):
        answer_client.get_answer(name=sessionless.answer.name.replace("/-/", "/1/"), **ONCE)
    sessions.delete_session(name=first.session.name, **ONCE)
    with pytest.raises(core_exceptions.NotFound):
        answer_client.get_answer(name=first.answer.name, **ONCE)


def test_a_session_belongs_to_the_serving_config_parent(answer_client):
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        answer_in(answer_client, FIRST, f"{TEST_ENGINE}/sessions/-")
    assert_error(
        excinfo, core_exceptions.InvalidArgument, "session", f"{ENGINE}/sessions/-", "engine"
    )
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        answer_in(answer_client, FIRST, "sessions/-")
    assert_error(excinfo, core_exceptions.InvalidArgument, "is not a session name")


def test_conversational_search_service_serves_the_session_rpcs(answer_client, sessions):
    pseudo = user()
    created = answer_client.create_session(
        parent=TEST_ENGINE, session={"user_pseudo_id": pseudo}, **ONCE
    )
    assert sessions.get_session(name=created.name, **ONCE) == created
    listed = answer_client.list_sessions(
        request={"parent": TEST_ENGINE, "filter": f"user_pseudo_id = {pseudo}"}, **ONCE
    )
    assert [s.name for s in listed] == [created.name]
    answer_client.delete_session(name=created.name, **ONCE)
    with pytest.raises(core_exceptions.NotFound):
        answer_client.get_session(name=created.name, **ONCE)


def test_v1beta_session_service(emulator):
    client = versioned_client(discoveryengine_v1beta, "SessionServiceClient", emulator.address)
    created = client.create_session(parent=TEST_ENGINE, session={"display_name": "beta"}, **ONCE)
    assert client.get_session(name=created.name, **ONCE).display_name == "beta"
    client.transport.close()


def test_session_rpcs_are_served_and_developer_knowledge_has_none(emulator):
    paths = {m.path for m in method_table(emulator.backend)}
    rpcs = ("CreateSession", "GetSession", "ListSessions", "UpdateSession", "DeleteSession")
    for version in ("v1", "v1beta", "v1alpha"):
        for service in ("SessionService", "ConversationalSearchService"):
            for rpc in rpcs:
                assert f"/google.cloud.discoveryengine.{version}.{service}/{rpc}" in paths
        assert f"/google.cloud.discoveryengine.{version}.ConversationalSearchService/GetAnswer" in (
            paths
        )
    developer = sorted(p for p in paths if p.startswith("/google.developers.knowledge."))
    assert developer
    assert not [p for p in developer if "Session" in p]


def test_concurrent_turns_are_all_recorded(answer_client, sessions):
    first = answer_in(answer_client, FIRST, f"{ENGINE}/sessions/-")
    queries = [f"question {n} about the with statement" for n in range(8)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda q: answer_in(answer_client, q, first.session.name), queries))
    stored = sessions.get_session(name=first.session.name, **ONCE)
    assert len(stored.turns) == 1 + len(queries)
    assert sorted(t.query.text for t in stored.turns[1:]) == sorted(queries)
    assert {t.answer for t in stored.turns[1:]} == {a.answer.name for a in answers}


@pytest.mark.parametrize(
    ("filter_", "fragment"),
    [
        ("(" * 600 + 'user_pseudo_id = "u"' + ")" * 600, "nests parentheses 600 levels deep"),
        ("user_pseudo_id = " + "x" * 20_000 + " AND", "(20021 characters)"),
    ],
    ids=["600 deep", "20 KB malformed"],
)
def test_list_sessions_refuses_a_deep_or_long_filter_by_name(sessions, filter_, fragment):
    # Before the parser (no RecursionError), and quoting a bounded excerpt (no 20 KB echo).
    with pytest.raises(core_exceptions.InvalidArgument) as caught:
        sessions.list_sessions(request={"parent": BARE_DATA_STORE, "filter": filter_}, **ONCE)
    message = caught.value.message
    assert message.startswith("filter")
    assert fragment in message
    assert len(message) < 600
