"""Grounding judges on a running emulator, through Google's GroundedGenerationServiceClient and
ConversationalSearchServiceClient: scripted verdicts arrive as the response's claims, queued
checks are taken in order, a bad judge is a clear INTERNAL error, a user's judge is asked the
request's claims, facts and threshold."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de

from grounding_emulator import (
    Claim,
    CorpusStore,
    EmulatorServer,
    Fact,
    LexicalJudge,
    ScriptedJudge,
    Verdict,
)
from grounding_emulator.grounding.claims import SegmentKind
from tests.emulator.conftest import (
    GROUNDING_CONFIG,
    ONCE,
    assert_error,
    serving_config,
    versioned_client,
)

ANSWER = "Paris is the capital of France. Penguins live on the Moon. Thanks for asking!"
PARIS, PENGUINS, THANKS = (
    "Paris is the capital of France.",
    "Penguins live on the Moon.",
    "Thanks for asking!",
)
FACTS = [
    {"fact_text": "Penguins live in Antarctica.", "attributes": {"title": "Penguins"}},
    {
        "fact_text": "Paris is the capital of France.",
        "attributes": {"uri": "https://example.fr/paris", "title": "Paris"},
    },
    {"fact_text": "France is in Europe.", "attributes": {}},
]


def request(answer: str = ANSWER, **spec: object) -> de.CheckGroundingRequest:
    return de.CheckGroundingRequest(
        grounding_config=GROUNDING_CONFIG,
        answer_candidate=answer,
        facts=FACTS,
        grounding_spec=spec,
    )


def verdicts_of(response: de.CheckGroundingResponse) -> list[tuple[str, bool, list[str], float]]:
    """Per claim: text, grounding_check_required, cited fact indices (``source``), score."""
    return [
        (
            claim.claim_text,
            claim.grounding_check_required,
            [response.cited_chunks[i].source for i in claim.citation_indices],
            round(claim.score, 6),
        )
        for claim in response.claims
    ]


@pytest.fixture(scope="module")
def scripted_server(emulator: EmulatorServer) -> Iterator[EmulatorServer]:
    """A second emulator on the session's corpus, with a scripted judge."""
    with EmulatorServer(emulator.store, judge=ScriptedJudge()) as server:
        yield server


@pytest.fixture
def judge(scripted_server: EmulatorServer) -> Iterator[ScriptedJudge]:
    """The scripted server's judge, left without rules, queue or odd fallback."""
    scripted = scripted_server.judge
    assert isinstance(scripted, ScriptedJudge)
    fallback = scripted.fallback
    yield scripted
    scripted.reset()
    scripted.fallback = fallback


@pytest.fixture(scope="module")
def client(scripted_server: EmulatorServer) -> Iterator[de.GroundedGenerationServiceClient]:
    grounding = versioned_client(de, "GroundedGenerationServiceClient", scripted_server.address)
    yield grounding
    grounding.transport.close()


def test_the_default_judge_is_lexical(emulator):
    assert isinstance(emulator.judge, LexicalJudge)
    assert repr(emulator).endswith("judge=LexicalJudge(language=None))")


def test_scripted_verdicts_arrive_as_claims(judge, client):
    judge.supported_if_contains("Paris", facts=(2, 1), score=0.8)
    judge.unsupported_if_contains("Penguins", score=0.3)
    judge.not_checked_if_contains("Thanks")
    response = client.check_grounding(request=request(enable_claim_level_score=True), **ONCE)
    assert verdicts_of(response) == [
        (PARIS, True, ["2", "1"], 0.8),
        (PENGUINS, True, [], 0.3),
        (THANKS, False, [], 0.0),
    ]
    assert [list(c.citation_indices) for c in response.claims] == [[0, 1], [], []]
    assert [(c.chunk_text, c.uri, c.title) for c in response.cited_chunks] == [
        ("France is in Europe.", "", ""),
        ("Paris is the capital of France.", "https://example.fr/paris", "Paris"),
    ]
    assert response.support_score == pytest.approx(0.5)


def test_the_first_matching_rule_decides(judge, client):
    judge.unsupported_if_contains("Paris")
    judge.supported_if_contains("capital", facts=(1,))
    response = client.check_grounding(request=request(), **ONCE)
    assert verdicts_of(response)[0] == (PARIS, True, [], 0.0)


def test_claims_no_rule_matches_get_the_lexical_verdict(judge, client, grounding_client):
    judge.supported_if_contains("Penguins", facts=(0,), score=0.9)
    scripted = client.check_grounding(request=request(enable_claim_level_score=True), **ONCE)
    lexical = grounding_client.check_grounding(
        request=request(enable_claim_level_score=True), **ONCE
    )
    assert verdicts_of(lexical)[1][:3] == (PENGUINS, True, [])
    assert verdicts_of(scripted) == [
        verdicts_of(lexical)[0],
        (PENGUINS, True, ["0"], 0.9),
        verdicts_of(lexical)[2],
    ]
    assert verdicts_of(lexical)[0][:3] == (PARIS, True, ["1"])
    assert verdicts_of(lexical)[2] == (THANKS, False, [], 0.0)
    assert scripted.support_score == pytest.approx(1.0)


def test_queued_checks_are_taken_in_order(judge, client):
    judge.unsupported_if_contains("Paris")
    judge.next_check(Verdict.not_checked(), Verdict.supported(), Verdict.supported(facts=(2,)))
    judge.next_check(
        Verdict.supported(facts=(1, 0), score=0.7), Verdict.unsupported(0.2), Verdict.not_checked()
    )
    assert judge.queued_checks == 2
    first = client.check_grounding(request=request(enable_claim_level_score=True), **ONCE)
    assert judge.queued_checks == 1
    second = client.check_grounding(request=request(enable_claim_level_score=True), **ONCE)
    assert judge.queued_checks == 0
    third = client.check_grounding(request=request(enable_claim_level_score=True), **ONCE)
    assert verdicts_of(first) == [
        (PARIS, False, [], 0.0),
        (PENGUINS, True, ["0"], 1.0),
        (THANKS, True, ["2"], 1.0),
    ]
    assert first.support_score == pytest.approx(1.0)
    assert verdicts_of(second) == [
        (PARIS, True, ["1", "0"], 0.7),
        (PENGUINS, True, [], 0.2),
        (THANKS, False, [], 0.0),
    ]
    assert second.support_score == pytest.approx(0.5)
    assert verdicts_of(third)[0] == (PARIS, True, [], 0.0)  # the rule again
    assert third.support_score == 0.0


def test_a_queued_check_must_have_one_verdict_per_claim(judge, client):
    judge.next_check(Verdict.supported())
    with pytest.raises(core_exceptions.GoogleAPICallError) as excinfo:
        client.check_grounding(request=request(), **ONCE)
    assert_error(
        excinfo,
        core_exceptions.InternalServerError,
        "the scripted judge's queued check has 1 verdicts, but the answer has 3 claims",
        repr(PENGUINS),
    )
    assert judge.queued_checks == 0


def raises(claims: Sequence[Claim], facts: Sequence[Fact], threshold: float) -> list[Verdict]:
    raise RuntimeError("model unavailable")


def too_few(claims: Sequence[Claim], facts: Sequence[Fact], threshold: float) -> list[Verdict]:
    return [Verdict.supported()]


def cites_a_missing_fact(
    claims: Sequence[Claim], facts: Sequence[Fact], threshold: float
) -> list[Verdict]:
    return [Verdict.supported(facts=(7,)) for _ in claims]


def returns_dicts(claims: Sequence[Claim], facts: Sequence[Fact], threshold: float) -> list[dict]:
    return [{"grounding_check_required": True} for _ in claims]


def scores_too_high(
    claims: Sequence[Claim], facts: Sequence[Fact], threshold: float
) -> list[Verdict]:
    return [Verdict(True, (0,), 1.5) for _ in claims]


def returns_nothing(claims: Sequence[Claim], facts: Sequence[Fact], threshold: float) -> None:
    return None


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (raises, "failed: RuntimeError('model unavailable')"),
        (too_few, "returned 1 verdicts for 3 claims; it must return one per claim"),
        (cites_a_missing_fact, "cites fact 7 in verdict 0 (claim 'Paris is the capital"),
        (returns_dicts, "returned a dict as verdict 0; it must be a Verdict"),
        (scores_too_high, "failed: ValueError('Verdict.score must be in [0, 1], got 1.5')"),
        (returns_nothing, "returned NoneType; it must return a sequence of Verdict"),
    ],
)
def test_a_bad_judge_is_a_clear_internal_error(judge, client, bad, problem):
    judge.fallback = bad
    with pytest.raises(core_exceptions.GoogleAPICallError) as excinfo:
        client.check_grounding(request=request(), **ONCE)
    assert_error(
        excinfo,
        core_exceptions.InternalServerError,
        f"the judge {bad.__module__}.{bad.__qualname__} ",
        problem,
    )


def test_a_bad_judge_leaves_request_errors_alone(judge, client):
    judge.fallback = raises
    with pytest.raises(core_exceptions.InvalidArgument, match="answer_candidate is empty"):
        client.check_grounding(request=request(answer="  "), **ONCE)


class Recorder:
    """A user's own judge: supports every claim with the last fact, and records its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple[Claim, ...], tuple[Fact, ...], float]] = []

    def __call__(
        self, claims: Sequence[Claim], facts: Sequence[Fact], citation_threshold: float
    ) -> list[Verdict]:
        self.calls.append((tuple(claims), tuple(facts), citation_threshold))
        return [Verdict.supported(facts=(len(facts) - 1,), score=0.5) for _ in claims]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [({}, 0.6), ({"citation_threshold": 0.0}, 0.0), ({"citation_threshold": 0.9}, 0.9)],
)
def test_a_users_judge_is_asked_the_requests_claims_facts_and_threshold(spec, expected):
    recorder = Recorder()
    answer = "# Café\n\n- Paris is in France.\n- Es ist schön 🇫🇷."
    with EmulatorServer(CorpusStore(), judge=recorder) as server:
        assert server.judge is recorder
        client = versioned_client(de, "GroundedGenerationServiceClient", server.address)
        response = client.check_grounding(request=request(answer, **spec), **ONCE)
        client.transport.close()
    ((claims, facts, threshold),) = recorder.calls
    assert threshold == pytest.approx(expected)
    assert claims == (
        Claim("Café", 2, 6, SegmentKind.HEADING),
        Claim("Paris is in France.", 10, 29, SegmentKind.LIST_ITEM),
        Claim("Es ist schön 🇫🇷.", 32, 48, SegmentKind.LIST_ITEM),
    )
    assert [answer[c.start : c.end] for c in claims] == [c.text for c in claims]
    assert facts == (
        Fact("Penguins live in Antarctica.", {"title": "Penguins"}),
        Fact(
            "Paris is the capital of France.",
            {"uri": "https://example.fr/paris", "title": "Paris"},
        ),
        Fact("France is in Europe.", {}),
    )
    assert [c.claim_text for c in response.claims] == [c.text for c in claims]
    assert [list(c.citation_indices) for c in response.claims] == [[0], [0], [0]]
    assert [c.source for c in response.cited_chunks] == ["2"]
    assert response.support_score == 1.0


def all_unsupported(
    claims: Sequence[Claim], facts: Sequence[Fact], threshold: float
) -> list[Verdict]:
    return [Verdict.unsupported(0.25) for _ in claims]


def test_answer_query_is_grounded_by_the_same_judge(judge, scripted_server, answer_client):
    judge.fallback = all_unsupported
    answers = versioned_client(de, "ConversationalSearchServiceClient", scripted_server.address)

    def answer(**grounding_spec: object) -> de.Answer:
        return answers.answer_query(
            request=de.AnswerQueryRequest(
                serving_config=serving_config("test-docs"),
                query={"text": "東京の首都"},
                grounding_spec=grounding_spec,
            ),
            **ONCE,
        ).answer

    try:
        scripted = answer(include_grounding_supports=True)
        withdrawn = answer(filtering_level="FILTERING_LEVEL_LOW")
    finally:
        answers.transport.close()
    lexical = answer_client.answer_query(
        request=de.AnswerQueryRequest(
            serving_config=serving_config("test-docs"),
            query={"text": "東京の首都"},
            grounding_spec={"include_grounding_supports": True},
        ),
        **ONCE,
    ).answer
    assert "東京都は日本の首都です。" in scripted.answer_text
    assert scripted.answer_text == lexical.answer_text
    assert lexical.grounding_score > 0
    assert scripted.grounding_score == 0.0
    assert len(scripted.grounding_supports) == len(lexical.grounding_supports) > 0
    for support in scripted.grounding_supports:
        assert (support.grounding_check_required, list(support.sources)) == (True, [])
        assert support.grounding_score == pytest.approx(0.25)
    assert withdrawn.answer_text == ""
    assert list(withdrawn.answer_skipped_reasons) == [
        de.Answer.AnswerSkippedReason.LOW_GROUNDED_ANSWER
    ]


def test_a_judge_that_is_not_callable_is_refused_before_the_server_starts():
    with pytest.raises(TypeError, match=r"judge must be a callable .* got str"):
        EmulatorServer(CorpusStore(), judge="lexical")
