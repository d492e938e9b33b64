"""Answer components: every setting of ``create``, the checks made when one is built, and the
calls (what ``make mutation`` found unasserted in ``grounding_core.answering``). The calls go to
the session emulator."""

import pytest

from grounding_core import (
    AnswerSpec,
    CallOptions,
    ConfigurationError,
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeConnection,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineConnection,
    DiscoveryEngineTarget,
    InputError,
    ServiceUnavailableError,
)

from .emulated import result_of

QUESTION = "What does the lighthouse keeper number 11 describe?"
KNOWLEDGE = "How do I sort a list?"


def test_create_passes_every_setting():
    connection = DiscoveryEngineConnection.create(
        project_id="p", location="eu", emulator_host="h:1"
    )
    answering = DiscoveryEngineAnswerQuery.create(
        connection,
        engine_id="e",
        collection="c",
        serving_config_id="s",
        max_return_results=3,
        session="s1",
    )
    assert answering.connection is connection
    assert answering.target == DiscoveryEngineTarget(
        project="p", location="eu", engine="e", collection="c", serving_config="s"
    )
    assert answering.spec == AnswerSpec(max_return_results=3, session="s1")
    store = DiscoveryEngineAnswerQuery.create(connection, data_store_id="d")
    assert store.target == DiscoveryEngineTarget(project="p", location="eu", data_store="d")
    assert store.spec == AnswerSpec()
    assert DiscoveryEngineAnswerQuery.create(connection, data_store_id="d", session="s1").spec == (
        AnswerSpec(session="s1")
    )
    other = "projects/p/locations/eu/collections/c/engines/other/sessions/s1"
    with pytest.raises(ConfigurationError, match="is not a session of"):
        DiscoveryEngineAnswerQuery.create(connection, engine_id="e", session=other)
    with pytest.raises(ConfigurationError, match="is not a session of"):
        DiscoveryEngineAnswerQuery(connection, store.target, AnswerSpec(session=other))
    with pytest.raises(InputError, match="session is empty"):
        DiscoveryEngineAnswerQuery.create(connection, engine_id="e", session="")
    knowledge_connection = DeveloperKnowledgeConnection.create(emulator_host="h:1")
    knowledge = DeveloperKnowledgeAnswerQuery(knowledge_connection, filter="f")
    assert (knowledge.connection, knowledge.filter) == (knowledge_connection, "f")
    assert DeveloperKnowledgeAnswerQuery(knowledge_connection).filter == ""
    with pytest.raises(InputError, match="filter must be a string of at most 500"):
        DeveloperKnowledgeAnswerQuery(knowledge_connection, filter="f" * 501)


async def test_the_calls_use_the_target_the_spec_and_the_options(emulator, connections):
    de_connection, dk_connection = connections
    answering = DiscoveryEngineAnswerQuery.create(de_connection, engine_id="test-app")
    uncited = DiscoveryEngineAnswerQuery.create(
        de_connection, engine_id="test-app", include_citations=False
    )
    for answer in (answering.answer(QUESTION), await answering.aanswer(QUESTION)):
        assert answer.answer_text.startswith("Section 1 of document 11 talks about")
        assert answer.name.startswith(f"{answering.target.parent_path}/sessions/-/answers/")
        assert answer.citations[0].references[0].document_id == "page-11"
    for answer in (uncited.answer(QUESTION), await uncited.aanswer(QUESTION)):
        assert answer.citations == ()
    knowledge = DeveloperKnowledgeAnswerQuery(dk_connection)
    nowhere = DeveloperKnowledgeAnswerQuery(dk_connection, filter='data_source = "nowhere"')
    for answer in (knowledge.answer(KNOWLEDGE), await knowledge.aanswer(KNOWLEDGE)):
        assert answer.citations[0].references[0].uri.startswith("https://docs.python.org/")
    for answer in (nowhere.answer(KNOWLEDGE), await nowhere.aanswer(KNOWLEDGE)):
        assert answer.citations == ()
    # retry=None in the connections' options: one injected failure is not retried.
    for call, query in (
        (answering.answer, QUESTION),
        (answering.aanswer, QUESTION),
        (knowledge.answer, KNOWLEDGE),
        (knowledge.aanswer, KNOWLEDGE),
    ):
        emulator.faults.fail("AnswerQuery", code="UNAVAILABLE", times=1)
        with pytest.raises(ServiceUnavailableError, match="UNAVAILABLE"):
            await result_of(call, query)


def test_connect_splits_the_connection_from_the_answer_settings():
    answering = DiscoveryEngineAnswerQuery.connect(
        project_id="p",
        location="eu",
        emulator_host="h:1",
        timeout=7.0,
        retry=None,
        engine_id="e",
        collection="c",
        serving_config_id="s",
        max_return_results=3,
        user_pseudo_id="visitor",
    )
    assert answering.connection.project == "p"
    assert answering.connection.location == "eu"
    assert answering.connection.clients.endpoint == "h:1"
    assert answering.connection.call_options == CallOptions(timeout=7.0, retry=None)
    assert answering.target == DiscoveryEngineTarget(
        project="p", location="eu", engine="e", collection="c", serving_config="s"
    )
    assert answering.spec == AnswerSpec(max_return_results=3, user_pseudo_id="visitor")
    default = DiscoveryEngineAnswerQuery.connect(project_id="p", data_store_id="d")
    assert (default.target.data_store, default.spec) == ("d", AnswerSpec())
    assert default.connection.call_options == CallOptions()


async def test_a_session_per_call(connections):
    de_connection, _ = connections
    answering = DiscoveryEngineAnswerQuery.create(de_connection, engine_id="test-app")
    first = answering.answer(QUESTION, session="-")
    assert first.session.startswith(f"{answering.target.parent_path}/sessions/")
    second = await answering.aanswer(QUESTION, session=first.session)
    assert second.session == first.session
    assert [turn.query for turn in second.turns] == [QUESTION, QUESTION]
    assert answering.answer(QUESTION).session == ""  # the spec's (no session) otherwise
    other = "projects/p/locations/global/collections/default_collection/engines/x/sessions/1"
    for call in (answering.answer, answering.aanswer):
        with pytest.raises(ConfigurationError, match="is not a session of"):
            await result_of(call, QUESTION, session=other)
    in_session = DiscoveryEngineAnswerQuery.create(
        de_connection, engine_id="test-app", session=first.session
    )
    assert [t.query for t in in_session.answer(QUESTION).turns] == [QUESTION] * 3
