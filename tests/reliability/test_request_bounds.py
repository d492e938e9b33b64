"""Each request's cost is bounded, and a request past a bound is refused before the work with
``INVALID_ARGUMENT`` naming the field and the limit (issue 39, probes 1, 2, 3 and 10): Google's
documented bounds (20 condition boost specs; CheckGrounding's 200 facts of 10,000 characters
and 4,096 tokens, which a full-size check now works through) and the emulator's own where
Google is silent (docs/emulator.md: a query's characters, a session's turns, a conversation's
messages, a response's bytes). Through the real server and Google's clients; each bound is
tried exactly at its limit and one past it.
"""

from __future__ import annotations

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de

from grounding_emulator.limits import (
    MAX_BOOST_SPECS,
    MAX_CONVERSATION_MESSAGES,
    MAX_FACT_CHARS,
    MAX_FACTS,
    MAX_QUERY_CHARS,
    MAX_RESPONSE_BYTES,
    MAX_SESSION_TURNS,
)
from tests.emulator.conftest import GROUNDING_CONFIG, assert_error, serving_config

ONCE = {"retry": None, "timeout": 60.0}
APP = "projects/{project}/locations/global/collections/default_collection/engines/{engine}"
ENGINE = APP.format(project="test-project", engine="test-app")
RANKING_CONFIG = "projects/test-project/locations/global/rankingConfigs/default_ranking_config"


def _query(length: int) -> str:
    """A query of ``length`` characters, its last one a 4-byte UTF-8 character."""
    return ("lighthouse keeper " * (length // 18 + 1))[: length - 1] + "🚀"


def _boosts(count: int) -> dict[str, object]:
    return {"condition_boost_specs": [{"condition": "true", "boost": 0.1}] * count}


@pytest.fixture
def clients(de_connection):
    return de_connection.client


# -- a query's length (Google documents none: the emulator's bound) ---------------------------


def _search(clients, query: str) -> object:
    return clients(de.SearchServiceClient).search(
        request=de.SearchRequest(
            serving_config=serving_config(),
            query=query,
            query_expansion_spec={"condition": "AUTO"},
        ),
        **ONCE,
    )


def _answer(clients, query: str) -> object:
    return clients(de.ConversationalSearchServiceClient).answer_query(
        request=de.AnswerQueryRequest(
            serving_config=f"{ENGINE}/servingConfigs/default_search", query={"text": query}
        ),
        **ONCE,
    )


def _rank(clients, query: str) -> object:
    return clients(de.RankServiceClient).rank(
        request=de.RankRequest(
            ranking_config=RANKING_CONFIG,
            query=query,
            records=[{"id": str(i), "content": "The keeper climbs."} for i in range(200)],
        ),
        **ONCE,
    )


def _converse(clients, query: str) -> object:
    return clients(de.ConversationalSearchServiceClient).converse_conversation(
        request=de.ConverseConversationRequest(
            name=f"{ENGINE}/conversations/-", query={"input": query}
        ),
        **ONCE,
    )


QUERIES = {
    "Search query": (_search, "query"),
    "AnswerQuery query.text": (_answer, "query.text"),
    "Rank query": (_rank, "query"),
    "ConverseConversation query.input": (_converse, "query.input"),
}


@pytest.mark.parametrize("probe", list(QUERIES))
def test_a_query_at_the_bound_is_served_and_one_past_it_refused(clients, probe) -> None:
    call, field = QUERIES[probe]
    assert call(clients, _query(MAX_QUERY_CHARS)) is not None
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        call(clients, _query(MAX_QUERY_CHARS + 1))
    assert_error(
        excinfo,
        core_exceptions.InvalidArgument,
        f"{field} has {MAX_QUERY_CHARS + 1} characters",
        f"at most {MAX_QUERY_CHARS}",
    )


def test_the_attackers_half_megabyte_query_is_refused_before_the_work(clients) -> None:
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        _search(clients, "xylophonic " * 50_000)
    assert_error(excinfo, core_exceptions.InvalidArgument, "query has 550000 characters")


# -- condition boost specs: "Maximum number of specifications is 20" ---------------------------


def _boosted(clients, where: str, count: int) -> object:
    if where == "AnswerQuery":
        return clients(de.ConversationalSearchServiceClient).answer_query(
            request=de.AnswerQueryRequest(
                serving_config=f"{ENGINE}/servingConfigs/default_search",
                query={"text": "lighthouse keeper"},
                search_spec={"search_params": {"boost_spec": _boosts(count)}},
            ),
            **ONCE,
        )
    if where == "ConverseConversation":
        return clients(de.ConversationalSearchServiceClient).converse_conversation(
            request=de.ConverseConversationRequest(
                name=f"{ENGINE}/conversations/-",
                query={"input": "lighthouse keeper"},
                boost_spec=_boosts(count),
            ),
            **ONCE,
        )
    spec: dict[str, object] = {"boost_spec": _boosts(count)}
    if where == "data_store_specs":
        spec = {
            "data_store_specs": [
                {
                    "data_store": "projects/test-project/locations/global/collections/"
                    "default_collection/dataStores/test-docs",
                    "boost_spec": _boosts(count),
                }
            ]
        }
    return clients(de.SearchServiceClient).search(
        request=de.SearchRequest(serving_config=serving_config(), query="lighthouse", **spec),
        **ONCE,
    )


BOOSTED = {
    "Search": "boost_spec.condition_boost_specs",
    "data_store_specs": "data_store_specs[0].boost_spec.condition_boost_specs",
    "AnswerQuery": "search_spec.search_params.boost_spec.condition_boost_specs",
    "ConverseConversation": "boost_spec.condition_boost_specs",
}


@pytest.mark.parametrize("where", list(BOOSTED))
@pytest.mark.parametrize("count", [MAX_BOOST_SPECS + 1, 25, 200])
def test_more_than_twenty_boost_conditions_are_refused(clients, where, count) -> None:
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        _boosted(clients, where, count)
    assert_error(
        excinfo,
        core_exceptions.InvalidArgument,
        f"{BOOSTED[where]} has {count} specifications",
        f"at most {MAX_BOOST_SPECS}",
    )


@pytest.mark.parametrize("where", list(BOOSTED))
def test_twenty_boost_conditions_are_served(clients, where) -> None:
    assert _boosted(clients, where, MAX_BOOST_SPECS) is not None


# -- CheckGrounding at every documented limit -----------------------------------------------------


def test_a_check_at_every_documented_limit_is_answered(clients) -> None:
    # 800 claims of 5 tokens (4,000 of the 4,096), 200 distinct facts of 10,000 characters.
    answer = " ".join(f"Keeper {i} climbs stairs." for i in range(800))
    facts = [
        {"fact_text": (f"Keeper {i} climbs the stairs of lighthouse {i}. " * 300)[:MAX_FACT_CHARS]}
        for i in range(MAX_FACTS)
    ]
    response = clients(de.GroundedGenerationServiceClient).check_grounding(
        request=de.CheckGroundingRequest(
            grounding_config=GROUNDING_CONFIG, answer_candidate=answer, facts=facts
        ),
        retry=None,
        timeout=600,
    )
    assert len(response.claims) == 800
    assert response.claims[7].citation_indices  # "Keeper 7 climbs stairs." is fact 7's
    assert response.cited_chunks[response.claims[7].citation_indices[0]].source == "7"


# -- sessions and conversations: turns, messages, response bytes ------------------------------


def _parent(project: str) -> str:
    return APP.format(project=project, engine="python-docs-app")


def _turns(count: int, *, query: str = "q", answer: str = "") -> list[dict[str, object]]:
    return [{"query": {"text": query}, "answer": answer}] * count


def _create_session(clients, parent: str, turns: list[dict[str, object]]) -> de.Session:
    return clients(de.SessionServiceClient).create_session(
        request=de.CreateSessionRequest(parent=parent, session={"turns": turns}), **ONCE
    )


def test_a_session_holds_at_most_its_bound_of_turns(clients) -> None:
    parent = _parent("bounds-turns")
    full = _create_session(clients, parent, _turns(MAX_SESSION_TURNS))
    assert len(full.turns) == MAX_SESSION_TURNS
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        _create_session(clients, parent, _turns(MAX_SESSION_TURNS + 1))
    assert_error(
        excinfo,
        core_exceptions.InvalidArgument,
        f"session.turns has {MAX_SESSION_TURNS + 1} turns",
        f"at most {MAX_SESSION_TURNS}",
    )
    # A full session takes no answer more: refused before the work, the session unchanged.
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        clients(de.ConversationalSearchServiceClient).answer_query(
            request=de.AnswerQueryRequest(
                serving_config=f"{parent}/servingConfigs/default_search",
                query={"text": "What is a list?"},
                session=full.name,
            ),
            **ONCE,
        )
    assert_error(excinfo, core_exceptions.InvalidArgument, "session:", "sessions/-")
    session = clients(de.SessionServiceClient).get_session(name=full.name, **ONCE)
    assert len(session.turns) == MAX_SESSION_TURNS


def test_a_turns_query_is_bounded_like_a_query(clients) -> None:
    parent = _parent("bounds-turn-query")
    assert _create_session(clients, parent, _turns(1, query=_query(MAX_QUERY_CHARS))).turns
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        _create_session(clients, parent, _turns(2, query=_query(MAX_QUERY_CHARS + 1)))
    assert_error(
        excinfo,
        core_exceptions.InvalidArgument,
        f"session.turns[0].query.text has {MAX_QUERY_CHARS + 1} characters",
    )


def test_answer_details_past_the_response_bound_are_refused(clients) -> None:
    parent = _parent("bounds-details")
    answered = clients(de.ConversationalSearchServiceClient).answer_query(
        request=de.AnswerQueryRequest(
            serving_config=f"{parent}/servingConfigs/default_search",
            query={"text": "How do list comprehensions work?"},
            session=f"{parent}/sessions/-",
        ),
        **ONCE,
    )
    # 900 turns of the longest query, each naming that answer: about 12 MB with the details.
    turns = _turns(900, query=_query(MAX_QUERY_CHARS), answer=answered.answer.name)
    session = _create_session(clients, parent, turns)
    sessions = clients(de.SessionServiceClient)
    assert len(sessions.get_session(name=session.name, **ONCE).turns) == 900
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.get_session(
            request=de.GetSessionRequest(name=session.name, include_answer_details=True), **ONCE
        )
    assert_error(
        excinfo,
        core_exceptions.InvalidArgument,
        "include_answer_details",
        f"response bound of {MAX_RESPONSE_BYTES}",
        "GetAnswer",
    )
    sessions.delete_session(name=session.name, **ONCE)


def test_a_list_page_ends_before_the_response_bound(clients) -> None:
    parent = _parent("bounds-list")
    # Two sessions of about 6 MB: together past the 10 MiB bound, each within it.
    made = [_create_session(clients, parent, _turns(600, query=_query(MAX_QUERY_CHARS)))]
    made.append(_create_session(clients, parent, _turns(600, query=_query(MAX_QUERY_CHARS))))
    sessions = clients(de.SessionServiceClient)
    first = sessions.list_sessions(
        request=de.ListSessionsRequest(parent=parent, page_size=2), **ONCE
    )
    assert [s.name for s in first.sessions] == [made[0].name]
    assert first.next_page_token
    second = sessions.list_sessions(
        request=de.ListSessionsRequest(
            parent=parent, page_size=2, page_token=first.next_page_token
        ),
        **ONCE,
    )
    assert [s.name for s in second.sessions] == [made[1].name]
    assert not second.next_page_token
    for session in made:
        sessions.delete_session(name=session.name, **ONCE)


def test_a_conversation_holds_at_most_its_bound_of_messages(clients) -> None:
    parent = _parent("bounds-messages")
    conversations = clients(de.ConversationalSearchServiceClient)
    message = {"user_input": {"input": "What is a list?"}}

    def create(count: int) -> de.Conversation:
        return conversations.create_conversation(
            request=de.CreateConversationRequest(
                parent=parent, conversation={"messages": [message] * count}
            ),
            **ONCE,
        )

    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        create(MAX_CONVERSATION_MESSAGES + 1)
    assert_error(
        excinfo,
        core_exceptions.InvalidArgument,
        f"conversation.messages has {MAX_CONVERSATION_MESSAGES + 1} messages",
        f"at most {MAX_CONVERSATION_MESSAGES}",
    )
    almost = create(MAX_CONVERSATION_MESSAGES - 1)  # a turn adds two messages: no room
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        conversations.converse_conversation(
            request=de.ConverseConversationRequest(
                name=almost.name, query={"input": "What is a tuple?"}
            ),
            **ONCE,
        )
    assert_error(excinfo, core_exceptions.InvalidArgument, "name:", "conversations/-")
    kept = conversations.get_conversation(name=almost.name, **ONCE)
    assert len(kept.messages) == MAX_CONVERSATION_MESSAGES - 1
