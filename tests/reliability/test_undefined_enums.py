"""An enum number the proto does not define is ``INVALID_ARGUMENT`` naming the field, with no
traceback in the server's log (issue 39, probe 5): the attacker's 99 in Search's
``relevance_threshold``, AnswerQuery's ``filtering_level`` and
``query_classification_spec.types``, a session's ``state``; over gRPC with Google's clients
and over REST with Google's REST clients (which send enums as numbers). A number another
version of the proto defines is the servicer's to judge, as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from google.api_core import exceptions as core_exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1beta

from tests.emulator.conftest import assert_error, serving_config, versioned_client

ONCE = {"retry": None, "timeout": 30.0}
ENGINE = "projects/test-project/locations/global/collections/default_collection/engines/test-app"
UNDEFINED = 99


def _answer(**fields: Any) -> de.AnswerQueryRequest:
    return de.AnswerQueryRequest(
        serving_config=f"{ENGINE}/servingConfigs/default_search",
        query={"text": "Who keeps the lighthouse?"},
        **fields,
    )


Call = Callable[[Callable[[type], Any]], object]

PROBES: dict[str, tuple[str, Call]] = {
    "Search relevance_threshold": (
        "relevance_threshold",
        lambda c: c(de.SearchServiceClient).search(
            request=de.SearchRequest(
                serving_config=serving_config(),
                query="lighthouse",
                relevance_threshold=UNDEFINED,
            ),
            **ONCE,
        ),
    ),
    "AnswerQuery filtering_level": (
        "grounding_spec.filtering_level",
        lambda c: c(de.ConversationalSearchServiceClient).answer_query(
            request=_answer(grounding_spec={"filtering_level": UNDEFINED}), **ONCE
        ),
    ),
    "AnswerQuery query_classification_spec.types": (
        "query_understanding_spec.query_classification_spec.types[1]",
        lambda c: c(de.ConversationalSearchServiceClient).answer_query(
            request=_answer(
                query_understanding_spec={"query_classification_spec": {"types": [1, UNDEFINED]}}
            ),
            **ONCE,
        ),
    ),
    "CreateSession session.state": (
        "session.state",
        lambda c: c(de.SessionServiceClient).create_session(
            request=de.CreateSessionRequest(parent=ENGINE, session={"state": UNDEFINED}),
            **ONCE,
        ),
    ),
    "ConverseConversation conversation.state": (
        "conversation.state",
        lambda c: c(de.ConversationalSearchServiceClient).converse_conversation(
            request=de.ConverseConversationRequest(
                name=f"{ENGINE}/conversations/-",
                query={"input": "lighthouse"},
                conversation={"state": UNDEFINED},
            ),
            **ONCE,
        ),
    ),
}


@pytest.fixture
def server_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """The emulator's log records from WARNING up (a traceback is logged at ERROR)."""
    with caplog.at_level(logging.WARNING, logger="grounding_emulator"):
        yield caplog


def _rest(emulator: Any) -> Callable[[type], Any]:
    def client(client_class: type) -> Any:
        return client_class(
            transport="rest",
            credentials=AnonymousCredentials(),
            client_options={"api_endpoint": emulator.rest_url},
        )

    return client


@pytest.mark.parametrize("transport", ["grpc", "rest"])
@pytest.mark.parametrize("probe", list(PROBES))
def test_an_undefined_enum_value_is_refused_naming_its_field(
    emulator, de_connection, server_log, probe, transport
) -> None:
    field, call = PROBES[probe]
    clients = de_connection.client if transport == "grpc" else _rest(emulator)
    error = core_exceptions.InvalidArgument if transport == "grpc" else core_exceptions.BadRequest
    with pytest.raises(error) as excinfo:
        call(clients)
    assert_error(excinfo, error, f"{field} {UNDEFINED} is not a value of", "use one of")
    assert not [r for r in server_log.records if r.exc_info or r.levelno >= logging.ERROR]


def test_a_value_another_version_defines_is_not_refused(emulator, server_log) -> None:
    # v1beta's AssistAnswer.State has CANCELLED (5), v1's has not: the v1beta call is served.
    sessions = versioned_client(discoveryengine_v1beta, "SessionServiceClient", emulator.address)
    session = sessions.create_session(
        parent=ENGINE,
        session={"turns": [{"query": {"text": "q"}, "detailed_assist_answer": {"state": 5}}]},
        **ONCE,
    )
    assert session.turns[0].query.text == "q"
    assert not server_log.records
