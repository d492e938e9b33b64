"""Every long loop of the engines checks its call (``call_state.check_call``) once per unit of
work, so a call that is no longer wanted stops at the next unit (issue 39).

Each test runs an engine inside ``serving`` a call that ends after a given number of checks
(``EndsAfter``): the engine must raise at the very next check, named after the unit it had
reached, and the call must not be asked again (the work stopped). Counted, not timed: the same
input stops at the same unit on every run.
"""

from __future__ import annotations

import datetime as _dt

import pytest

from grounding_emulator import CorpusStore
from grounding_emulator.answer.session_listing import list_sessions
from grounding_emulator.answer.sessions import Session
from grounding_emulator.call_state import (
    CallCancelled,
    CallDeadlineExceeded,
    check_call,
    checked,
    serving,
)
from grounding_emulator.grounding.check import run_check
from grounding_emulator.grounding.judge import Fact, Verdict, ask, claims_of
from grounding_emulator.grounding.lexical.judge import LexicalJudge
from grounding_emulator.rank.scorer import score_records
from grounding_emulator.search.engine import ConditionBoost, SearchParams, search
from grounding_emulator.search.facets import FacetRequest
from grounding_emulator.search.spelling import correct_query
from tests.conftest import write_corpus

UNITS = 3  # the checks a call passes before it ends


class EndsAfter:
    """A call (``call_state.CallContext``) active for its first ``checks`` checks; then its
    deadline has passed (``expired``) or it was cancelled."""

    def __init__(self, checks: int, *, expired: bool = True) -> None:
        self.left = checks
        self.expired = expired
        self.asked = 0

    def is_active(self) -> bool:
        self.asked += 1
        self.left -= 1
        return self.left >= 0

    def time_remaining(self) -> float | None:
        return 0.0 if self.expired else 5.0


def stops_at(unit: str, work, *, checks: int = UNITS) -> EndsAfter:
    """Run ``work()`` in a call that ends after ``checks`` checks: it must raise
    ``DEADLINE_EXCEEDED`` at check ``checks + 1``, named ``unit``, and ask no more."""
    call = EndsAfter(checks)
    with serving(call), pytest.raises(CallDeadlineExceeded) as raised:
        work()
    assert f"at {unit}" in str(raised.value), str(raised.value)
    assert call.asked == checks + 1  # stopped at the first check after the end: no more work
    return call


@pytest.fixture(scope="module")
def docs(emulator):
    return emulator.store.get("test-docs")


def test_outside_a_call_checks_do_nothing() -> None:
    check_call("anything")
    assert list(checked(range(3), "item")) == [0, 1, 2]


def test_a_cancelled_call_stops_with_cancelled() -> None:
    with serving(EndsAfter(0, expired=False)), pytest.raises(CallCancelled, match="item 1"):
        list(checked(range(3), "item"))


def test_checked_items_stop_at_the_next_item() -> None:
    seen: list[int] = []

    def work() -> None:
        seen.extend(checked(range(10), "item"))

    stops_at("item 4", work)
    assert seen == [0, 1, 2]


def test_query_expansion_widens_each_term_once_and_stops(docs) -> None:
    # Words of the corpus's first letters that no chunk holds: each one is widened.
    words = [f"light{letter}zz" for letter in "abcdefghij"]
    params = SearchParams(query=" ".join(words * 3), query_expansion=True, spell_correction="")
    # the exact query's scoring is checked first, then each distinct term as it is widened
    stops_at("query term widened 3", lambda: search(docs, params))


def test_spell_correction_checks_each_distinct_word(docs) -> None:
    query = " ".join(["lighthuose", "keepr", "stairz", "logbok"] * 5)  # repeats: looked up once
    stops_at("query word spell-checked 4", lambda: correct_query(docs, query))


def test_boost_conditions_stop_at_the_next_condition(docs) -> None:
    boosts = tuple(ConditionBoost("true", 0.5) for _ in range(20))  # every document: no filter
    params = SearchParams(query="lighthouse", boosts=boosts)
    stops_at("boost condition 4 of 20", lambda: search(docs, params))


def test_facets_stop_at_the_next_facet(docs) -> None:
    facets = tuple(FacetRequest(key="group") for _ in range(10))
    params = SearchParams(query="lighthouse", facets=facets)
    # the query's scoring and the results' ranking are checked first
    stops_at("facet spec 2", lambda: search(docs, params))


def test_rank_stops_at_the_next_record() -> None:
    records = [(f"Title {i}", "The keeper climbs the stairs.") for i in range(200)]
    stops_at("record truncated 4", lambda: score_records("keeper", records, "semantic-ranker-512"))


def test_the_lexical_judge_stops_at_the_next_fact() -> None:
    facts = [Fact(f"The keeper {i} climbs the stairs every night.") for i in range(50)]
    judge = LexicalJudge()
    claims = claims_of("The keeper climbs the stairs.")
    # the claims are handed over one at a time (one check each), then the facts are prepared
    stops_at("fact prepared 3", lambda: ask(judge, claims, facts, 0.6))


def test_every_judge_gets_its_claims_one_check_at_a_time() -> None:
    def judge(claims, facts, threshold):
        return [Verdict.supported() for _ in claims]

    answer = " ".join(f"Claim number {i} holds." for i in range(10))
    stops_at("claim 4 of 10", lambda: run_check(answer, [Fact("Claims hold.")], judge))


def test_a_list_page_stops_at_the_next_item() -> None:
    now = _dt.datetime(2026, 1, 1, tzinfo=_dt.timezone.utc)
    sessions = [
        Session(name=f"s{i}", key=f"s{i}", parent="p", start_time=now, update_time=now, sequence=i)
        for i in range(20)
    ]
    stops_at("listed item 4", lambda: list_sessions(sessions, scope="p"))


def test_a_filter_stops_between_blocks_of_documents(tmp_path) -> None:
    records = [
        {"id": f"d{i}", "content": f"Note {i}.", "struct_data": {"n": i}} for i in range(2100)
    ]
    path = write_corpus(tmp_path / "many.jsonl", records)
    store = CorpusStore()
    store.ingest("many", path)
    params = SearchParams(query="note", filter="n < 5")
    stops_at("matching documents 2048 of 2100", lambda: search(store.get("many"), params), checks=2)
