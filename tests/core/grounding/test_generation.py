"""``grounding_core.grounding.generation``: grounded generation through Google's unmodified
clients, over gRPC, against the emulator (inline sources and a served data store; sync, async
and streamed; multi-turn; Unicode spans; scripted verdicts; refusals)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from google.api_core import exceptions as core_exceptions

from grounding_core import (
    DiscoveryEngineConnection,
    GroundingSource,
    InputError,
    InvalidRequestError,
    NotFoundError,
)
from grounding_core.grounding.generation import (
    DiscoveryEngineGroundedGeneration,
    GroundedGeneration,
)
from grounding_emulator import EmulatorServer, ScriptedJudge
from tests.conftest import PROJECT, TEST_DATA_STORE, TEST_ENGINE

TOKYO = GroundingSource(
    "東京都は日本の首都です。人口は約千四百万人です。",
    {"title": "東京", "uri": "https://example.jp/tokyo"},
)
ROCKETS = GroundingSource(
    "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. "
    "The crew 👩‍🚀 launches from Cape Canaveral too.",
    {"title": "Rockets", "uri": "https://example.com/rockets"},
)
CAFES = GroundingSource(
    "The cafe\u0301s of Pa\u0301ris serve cre\u0300me bru\u0302le\u0301e.", {"title": "Cafés"}
)
SOURCES = [TOKYO, ROCKETS, CAFES]
IDS = ["tokyo", "rockets", "cafes"]


@pytest.fixture(scope="module")
def generating(de_connection: DiscoveryEngineConnection) -> DiscoveryEngineGroundedGeneration:
    return DiscoveryEngineGroundedGeneration(de_connection)


def assert_exact_spans(generation: GroundedGeneration) -> None:
    answer, encoded = generation.answer, generation.answer.encode()
    assert generation.claims
    for claim in generation.claims:
        assert claim.start is not None
        assert claim.end is not None
        assert answer[claim.start : claim.end] == claim.text
        assert claim.byte_start is not None
        assert claim.byte_end is not None
        assert encoded[claim.byte_start : claim.byte_end].decode() == claim.text


def test_inline_sources_answer_with_claims_scores_and_the_cited_source(generating):
    generation = generating.generate(
        "Who launches from Cape Canaveral?", sources=SOURCES, source_ids=IDS
    )
    assert generation.answer == ROCKETS.text
    assert generation.grounding_score == 1.0
    assert [c.text for c in generation.claims] == [
        "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month.",
        "The crew 👩‍🚀 launches from Cape Canaveral too.",
    ]
    assert [(c.start, c.end, c.byte_start, c.byte_end) for c in generation.claims] == [
        (0, 52, 0, 61),
        (53, 99, 62, 116),
    ]
    assert [c.score for c in generation.claims] == [1.0, 1.0]
    assert [c.source_indices for c in generation.claims] == [(1,), (1,)]
    assert generation.sources == tuple(SOURCES)
    metadata = generation.metadata()
    assert metadata["grounding_score"] == 1.0
    assert metadata["support_score"] == 1.0
    assert metadata["passed"] is True
    assert metadata["source_ids"] == IDS
    assert [c["source_ids"] for c in metadata["claims"]] == [["rockets"], ["rockets"]]
    assert [(s.start, s.end, s.source_id, s.url) for s in generation.citations()] == [
        (0, 52, "rockets", "https://example.com/rockets"),
        (53, 99, "rockets", "https://example.com/rockets"),
    ]


@pytest.mark.parametrize(
    ("question", "first_claim"),
    [
        ("日本の首都はどこですか？", "東京都は日本の首都です。"),
        (
            "Who launches from Cape Canaveral?",
            "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month.",
        ),
        ("What do the cafe\u0301s of Pa\u0301ris serve?", CAFES.text),
    ],
    ids=["cjk", "emoji", "combining"],
)
def test_unicode_claim_spans_slice_the_answer_exactly(generating, question, first_claim):
    generation = generating.generate(question, sources=SOURCES)
    assert generation.claims[0].text == first_claim
    assert_exact_spans(generation)


def test_the_stream_yields_the_text_then_the_same_grounding_as_the_whole_answer(generating):
    items = list(generating.stream("Who launches from Cape Canaveral?", sources=SOURCES))
    *texts, last = items
    assert texts == [
        "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. ",
        "The crew 👩‍🚀 launches from Cape Canaveral too.",
    ]
    assert isinstance(last, GroundedGeneration)
    whole = generating.generate("Who launches from Cape Canaveral?", sources=SOURCES)
    assert last.answer == "".join(texts) == whole.answer
    assert last.claims == whole.claims
    assert last.grounding_score == whole.grounding_score == 1.0


async def test_async_answer_and_stream_use_googles_async_client(de_async_connection):
    generating = DiscoveryEngineGroundedGeneration(de_async_connection)
    generation = await generating.agenerate("日本の首都はどこですか？", sources=SOURCES)
    assert generation.claims[0].text == "東京都は日本の首都です。"
    assert generation.claims[0].source_indices == (0,)
    items = [item async for item in generating.astream("日本の首都はどこですか？", sources=SOURCES)]
    assert "".join(i for i in items if isinstance(i, str)) == generation.answer
    assert isinstance(items[-1], GroundedGeneration)
    assert items[-1].claims == generation.claims


def test_a_data_store_source_grounds_on_its_chunks_named_by_resource_name(de_connection):
    generating = DiscoveryEngineGroundedGeneration(
        de_connection, data_store_id=TEST_DATA_STORE, max_result_count=3
    )
    generation = generating.generate("Where do rockets launch from?")
    assert "Cape Canaveral" in generation.answer
    assert generation.grounding_score is not None
    assert generation.grounding_score > 0
    assert_exact_spans(generation)
    prefix = f"projects/{PROJECT}/locations/global/collections/default_collection/dataStores/"
    assert generation.report.source_ids
    assert all(i.startswith(prefix + TEST_DATA_STORE) for i in generation.report.source_ids)
    cited = generation.sources[generation.claims[0].source_indices[0]]
    assert cited.metadata["uri"] == "https://example.com/rockets"
    assert cited.metadata["title"] == "Rockets 🚀"


def test_an_engine_source_and_inline_sources_add_up(de_connection):
    generating = DiscoveryEngineGroundedGeneration(de_connection, engine_id=TEST_ENGINE)
    generation = generating.generate(
        "日本の首都はどこですか？", sources=[TOKYO], source_ids=["tokyo"]
    )
    assert generation.sources[0] == TOKYO
    assert generation.report.source_ids[0] == "tokyo"
    assert_exact_spans(generation)


def test_multi_turn_answers_the_last_user_turn(generating):
    generation = generating.generate(
        [
            ("user", "Tell me about Tokyo."),
            ("model", "Tokyo is in Japan."),
            ("user", "Who launches from Cape Canaveral?"),
        ],
        sources=SOURCES,
        system_instruction="Answer briefly.",
    )
    assert generation.answer == ROCKETS.text


@pytest.fixture(scope="module")
def scripted(emulator: EmulatorServer) -> Iterator[EmulatorServer]:
    with EmulatorServer(emulator.store, judge=ScriptedJudge()) as server:
        yield server


def test_scripted_verdicts_change_the_support_scores(scripted):
    judge = scripted.judge
    assert isinstance(judge, ScriptedJudge)
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=scripted.address)
    generating = DiscoveryEngineGroundedGeneration(connection)
    judge.supported_if_contains("crew", facts=(1,), score=0.75)
    judge.unsupported_if_contains("Rockets")
    try:
        generation = generating.generate("Who launches from Cape Canaveral?", sources=SOURCES)
    finally:
        judge.reset()
        connection.close()
    assert generation.grounding_score == 0.5
    unsupported, claim = generation.claims
    assert claim.text == "The crew 👩‍🚀 launches from Cape Canaveral too."
    assert (claim.status, claim.score) == ("supported", 0.75)
    assert generation.answer[claim.start : claim.end] == claim.text
    assert unsupported.text == "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month."
    assert (unsupported.status, unsupported.score) == ("unsupported", None)
    assert (unsupported.start, unsupported.end, unsupported.byte_end) == (0, 52, 61)
    assert generation.report.passed is False


@pytest.mark.parametrize(
    ("contents", "sources", "field"),
    [
        ([], [TOKYO], "contents"),
        ("   ", [TOKYO], "contents[0].parts"),
        ([("user", "Hi?"), ("model", "Hello.")], [TOKYO], "contents[1].role"),
        ([("system", "Hi?")], [TOKYO], "contents[0].role"),
        ("Where?", [], "sources"),
        ("Where?", [GroundingSource("  ")], "sources"),
    ],
    ids=["no-turns", "blank-question", "ends-with-model", "bad-role", "no-source", "blank-source"],
)
def test_bad_input_is_refused_naming_the_field(generating, contents, sources, field):
    with pytest.raises(InputError) as excinfo:
        generating.generate(contents, sources=sources)
    assert excinfo.value.field == field


def test_more_than_200_facts_are_refused_with_the_limit(generating):
    sources = [GroundingSource(f"Fact number {i}.") for i in range(201)]
    with pytest.raises(InputError, match="201 non-empty sources") as excinfo:
        generating.generate("Which fact?", sources=sources)
    assert (excinfo.value.field, excinfo.value.limit) == ("sources", 200)
    with pytest.raises(InputError):
        list(generating.stream("Which fact?", sources=sources))


def test_max_result_count_is_refused_outside_one_to_ten(de_connection):
    with pytest.raises(InputError) as excinfo:
        DiscoveryEngineGroundedGeneration(
            de_connection, data_store_id=TEST_DATA_STORE, max_result_count=11
        )
    assert (excinfo.value.field, excinfo.value.limit) == ("max_result_count", 10)


TUNED = "projects/p/locations/global/models/tuned"


@pytest.mark.parametrize("call", ["generate", "stream"])
def test_what_the_service_does_not_support_is_an_invalid_request_saying_what(de_connection, call):
    # The emulator answers UNIMPLEMENTED to a tuned model (as to Google Search grounding).
    generating = DiscoveryEngineGroundedGeneration(de_connection, model_id=TUNED)
    answer = {
        "generate": lambda: generating.generate("Where?", sources=[TOKYO]),
        "stream": lambda: list(generating.stream("Where?", sources=[TOKYO])),
    }[call]
    with pytest.raises(InvalidRequestError) as excinfo:
        answer()
    error = excinfo.value
    assert type(error.cause) is core_exceptions.MethodNotImplemented
    assert error.__cause__ is error.cause
    message = str(error)
    operation = "GenerateGroundedContent" if call == "generate" else "StreamGenerateGroundedContent"
    assert message.startswith(f"{operation} on projects/{PROJECT}/locations/global failed: ")
    assert f"UNIMPLEMENTED: generation_spec.model_id '{TUNED}' names a tuned model" in message
    assert "the service does not support what the request asks for" in message


async def test_the_async_call_maps_unimplemented_the_same(de_async_connection):
    generating = DiscoveryEngineGroundedGeneration(de_async_connection, model_id=TUNED)
    with pytest.raises(InvalidRequestError, match="names a tuned model"):
        await generating.agenerate("Where?", sources=[TOKYO])


def test_a_data_store_that_is_not_served_is_a_not_found_error(de_connection):
    generating = DiscoveryEngineGroundedGeneration(de_connection, data_store_id="no-such-store")
    with pytest.raises(NotFoundError, match="no-such-store"):
        generating.generate("Where?")


def test_invalid_argument_from_the_service_is_mapped(de_connection):
    generating = DiscoveryEngineGroundedGeneration(
        de_connection, data_store_id=TEST_DATA_STORE, filter="lang: NOPE("
    )
    with pytest.raises(InvalidRequestError, match="filter"):
        generating.generate("Where do rockets launch from?")
