"""A session only ever reads answers of its own project, location and data store or engine
(issue 39, probe 2): the attacker's CreateSession (or UpdateSession) naming the victim's answer
is ``INVALID_ARGUMENT`` naming the turn, and nothing of the victim's answer comes back; a turn
naming an answer of the session's own parent still gets its details. Through the real server
and Google's clients.
"""

from __future__ import annotations

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de

from tests.emulator.conftest import assert_error

ONCE = {"retry": None, "timeout": 30.0}
APP = "projects/{project}/locations/{location}/collections/default_collection/{kind}/{name}"


def _parent(project: str, *, location: str = "global", store: str = "python-docs") -> str:
    if store.endswith("-app"):
        return APP.format(project=project, location=location, kind="engines", name=store)
    return APP.format(project=project, location=location, kind="dataStores", name=store)


@pytest.fixture
def sessions(de_connection):
    return de_connection.client(de.SessionServiceClient)


@pytest.fixture(scope="module")
def victims_answer(de_connection) -> de.Answer:
    """An answer the victim's session holds, in project ``victim``."""
    parent = _parent("victim", store="python-docs-app")
    response = de_connection.client(de.ConversationalSearchServiceClient).answer_query(
        request=de.AnswerQueryRequest(
            serving_config=f"{parent}/servingConfigs/default_search",
            query={"text": "How do list comprehensions work?"},
            session=f"{parent}/sessions/-",
        ),
        **ONCE,
    )
    assert response.answer.answer_text  # a real answer, whose text must not leak
    return response.answer


OTHERS = {
    "another project": _parent("attacker", store="python-docs-app"),
    "another location": _parent("victim", location="us", store="python-docs-app"),
    "another engine": _parent("victim", store="test-app"),
    "a data store of the project": _parent("victim"),
}


def _refused(excinfo: pytest.ExceptionInfo, answer: de.Answer, field: str) -> None:
    assert_error(excinfo, core_exceptions.InvalidArgument, field, "its own data store or engine")
    assert answer.answer_text[:40] not in excinfo.value.message


@pytest.mark.parametrize("parent", list(OTHERS))
def test_a_session_cannot_be_created_on_another_parents_answer(
    sessions, victims_answer, parent
) -> None:
    turns = [{"query": {"text": "q"}, "answer": victims_answer.name}]
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.create_session(parent=OTHERS[parent], session={"turns": turns}, **ONCE)
    _refused(excinfo, victims_answer, "session.turns[0].answer")


def test_the_attackers_sixty_thousand_turns_are_refused(sessions, victims_answer) -> None:
    turns = [{"query": {"text": "q"}, "answer": victims_answer.name}] * 60_000
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.create_session(parent=OTHERS["another project"], session={"turns": turns}, **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, "session.turns")
    assert victims_answer.answer_text[:40] not in excinfo.value.message


def test_a_session_cannot_be_updated_onto_another_parents_answer(sessions, victims_answer) -> None:
    mine = sessions.create_session(
        parent=OTHERS["another project"], session={"turns": [{"query": {"text": "q"}}]}, **ONCE
    )
    turns = [{"query": {"text": "q"}}, {"query": {"text": "q"}, "answer": victims_answer.name}]
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.update_session(
            request=de.UpdateSessionRequest(
                session={"name": mine.name, "turns": turns}, update_mask={"paths": ["turns"]}
            ),
            **ONCE,
        )
    _refused(excinfo, victims_answer, "session.turns[1].answer")
    details = sessions.get_session(
        request=de.GetSessionRequest(name=mine.name, include_answer_details=True), **ONCE
    )
    assert [t.answer for t in details.turns] == [""]


def test_a_turn_naming_an_answer_that_is_no_name_is_refused(sessions) -> None:
    turns = [{"query": {"text": "q"}, "answer": "answers/42"}]
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.create_session(parent=OTHERS["another project"], session={"turns": turns}, **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, "session.turns[0].answer")


def test_a_turn_naming_an_answer_of_its_own_parent_gets_its_details(
    sessions, victims_answer
) -> None:
    parent = _parent("victim", store="python-docs-app")
    turns = [{"query": {"text": "Again?"}, "answer": victims_answer.name}]
    again = sessions.create_session(parent=parent, session={"turns": turns}, **ONCE)
    details = sessions.get_session(
        request=de.GetSessionRequest(name=again.name, include_answer_details=True), **ONCE
    )
    assert details.turns[0].detailed_answer.answer_text == victims_answer.answer_text
