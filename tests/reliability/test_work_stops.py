"""A call whose deadline has passed is not worked on (issue 39, probes 1 and 3): through the
real server and Google's clients, each of the attacker's heavy calls, at the emulator's bounds,
is made with a short deadline while an injected delay holds it; the delay wakes when the
deadline passes, and the server's worker must then answer ``DEADLINE_EXCEEDED`` without doing
the work (its log names where the work stopped), not finish the work nobody reads.

Deterministic: the delay outlasts the deadline whatever the machine's speed, and the assertion
is on what the server did, never on how long it took. That every long loop stops at its next
unit once the call has ended is ``tests/emulator/test_call_state.py``; that a call already in
its work stops at the next claim is ``tests/emulator/test_pathological_inputs.py``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de

from grounding_emulator.limits import (
    MAX_BOOST_SPECS,
    MAX_FACT_CHARS,
    MAX_FACTS,
    MAX_QUERY_CHARS,
    MAX_RANK_RECORDS,
)
from tests.emulator.conftest import GROUNDING_CONFIG, serving_config

DEADLINE = 0.5  # seconds; the injected delay holds the call far longer
HELD = 60.0
ENGINE = "projects/test-project/locations/global/collections/default_collection/engines/test-app"
RANKING_CONFIG = "projects/test-project/locations/global/rankingConfigs/default_ranking_config"
LONG_QUERY = ("lighthouse keeper stairs logbook lamp " * (MAX_QUERY_CHARS // 30))[:MAX_QUERY_CHARS]
HANDLERS = "grounding_emulator.wire.handlers"


def _claims(count: int) -> str:
    return " ".join(f"Keeper {i} climbs." for i in range(count))


def _session_with_answer(answers: Any) -> str:
    response = answers.answer_query(
        request=de.AnswerQueryRequest(
            serving_config=f"{ENGINE}/servingConfigs/default_search",
            query={"text": "Who keeps the lighthouse?"},
            session=f"{ENGINE}/sessions/-",
        ),
        timeout=30,
    )
    return str(response.session.name)


Probe = Callable[[Any, float], object]

PROBES: dict[str, tuple[str, Probe]] = {
    "Search with query expansion AUTO and the longest query": (
        "Search",
        lambda c, t: c(de.SearchServiceClient).search(
            request=de.SearchRequest(
                serving_config=serving_config(),
                query=LONG_QUERY,
                query_expansion_spec={"condition": "AUTO"},
            ),
            timeout=t,
            retry=None,
        ),
    ),
    "Search with the most boost conditions": (
        "Search",
        lambda c, t: c(de.SearchServiceClient).search(
            request=de.SearchRequest(
                serving_config=serving_config(),
                query="lighthouse",
                boost_spec={
                    "condition_boost_specs": [
                        {"condition": f'group: ANY("g{i}")', "boost": 0.5}
                        for i in range(MAX_BOOST_SPECS)
                    ]
                },
            ),
            timeout=t,
            retry=None,
        ),
    ),
    "Rank with the longest query and the most records": (
        "Rank",
        lambda c, t: c(de.RankServiceClient).rank(
            request=de.RankRequest(
                ranking_config=RANKING_CONFIG,
                query=LONG_QUERY,
                records=[
                    {"id": str(i), "content": "The keeper climbs the stairs. " * 40}
                    for i in range(MAX_RANK_RECORDS)
                ],
            ),
            timeout=t,
            retry=None,
        ),
    ),
    "CheckGrounding at every documented limit": (
        "CheckGrounding",
        lambda c, t: c(de.GroundedGenerationServiceClient).check_grounding(
            request=de.CheckGroundingRequest(
                grounding_config=GROUNDING_CONFIG,
                answer_candidate=_claims(800),
                facts=[
                    {"fact_text": (f"Keeper {i} climbs the stairs. " * 400)[:MAX_FACT_CHARS]}
                    for i in range(MAX_FACTS)
                ],
            ),
            timeout=t,
            retry=None,
        ),
    ),
    "AnswerQuery": (
        "AnswerQuery",
        lambda c, t: c(de.ConversationalSearchServiceClient).answer_query(
            request=de.AnswerQueryRequest(
                serving_config=f"{ENGINE}/servingConfigs/default_search",
                query={"text": LONG_QUERY},
            ),
            timeout=t,
            retry=None,
        ),
    ),
    "StreamAnswerQuery": (
        "StreamAnswerQuery",
        lambda c, t: list(
            c(de.ConversationalSearchServiceClient).stream_answer_query(
                request=de.AnswerQueryRequest(
                    serving_config=f"{ENGINE}/servingConfigs/default_search",
                    query={"text": LONG_QUERY},
                ),
                timeout=t,
                retry=None,
            )
        ),
    ),
    "ConverseConversation": (
        "ConverseConversation",
        lambda c, t: c(de.ConversationalSearchServiceClient).converse_conversation(
            request=de.ConverseConversationRequest(
                name=f"{ENGINE}/conversations/-", query={"input": LONG_QUERY}
            ),
            timeout=t,
            retry=None,
        ),
    ),
    "GetSession with answer details": (
        "GetSession",
        lambda c, t: c(de.SessionServiceClient).get_session(
            request=de.GetSessionRequest(
                name=_session_with_answer(c(de.ConversationalSearchServiceClient)),
                include_answer_details=True,
            ),
            timeout=t,
            retry=None,
        ),
    ),
    "ListSessions": (
        "ListSessions",
        lambda c, t: c(de.SessionServiceClient).list_sessions(
            request=de.ListSessionsRequest(parent=ENGINE, page_size=1000), timeout=t, retry=None
        ),
    ),
}


class _Stopped(logging.Handler):
    """The server's log line for a call of ``method`` that its client had given up:
    ``DEADLINE_EXCEEDED``, or ``CANCELLED`` when the client's own timer ended the call a moment
    before the server's deadline passed (the same deadline, two clocks)."""

    def __init__(self, method: str) -> None:
        super().__init__(logging.DEBUG)
        self.method = f"/{method}:"
        self.message = ""
        self.seen = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if self.method in text and ("DEADLINE_EXCEEDED" in text or "CANCELLED" in text):
            self.message = text
            self.seen.set()


@pytest.mark.parametrize("probe", list(PROBES))
def test_a_call_past_its_deadline_is_not_worked_on(emulator, de_connection, probe) -> None:
    method, call = PROBES[probe]
    logger = logging.getLogger(HANDLERS)
    stopped = _Stopped(method)
    level = logger.level
    logger.addHandler(stopped)
    logger.setLevel(logging.DEBUG)
    try:
        emulator.faults.delay(method, seconds=HELD, times=1)
        with pytest.raises(core_exceptions.DeadlineExceeded):
            call(de_connection.client, DEADLINE)
        assert stopped.seen.wait(HELD), "the server never ended the call"
    finally:
        logger.removeHandler(stopped)
        logger.setLevel(level)
    assert stopped.message.endswith("at the start of its work; the work was stopped")
