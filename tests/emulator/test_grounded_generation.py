"""GroundedGenerationService/GenerateGroundedContent and StreamGenerateGroundedContent through
Google's unmodified client, over gRPC and REST."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from google.api_core import exceptions as core_exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1 as de

from grounding_emulator import EmulatorServer, ScriptedJudge
from tests.emulator.conftest import ONCE, assert_error, serving_config, versioned_client

LOCATION = "projects/test-project/locations/global"
Source = de.GenerateGroundedContentRequest.GroundingSource
FACTS = [
    de.GroundingFact(
        fact_text="東京都は日本の首都です。人口は約千四百万人です。",
        attributes={"title": "東京", "uri": "https://example.jp/tokyo"},
    ),
    de.GroundingFact(
        fact_text="Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. "
        "The crew 👩‍🚀 launches from Cape Canaveral too.",
        attributes={"title": "Rockets", "uri": "https://example.com/rockets"},
    ),
    de.GroundingFact(
        fact_text="The lighthouse keeper lights the lamp at dusk.",
        attributes={"title": "Keeper"},
    ),
]


def user(text: str) -> de.GroundedGenerationContent:
    return de.GroundedGenerationContent(role="user", parts=[{"text": text}])


def model(text: str) -> de.GroundedGenerationContent:
    return de.GroundedGenerationContent(role="model", parts=[{"text": text}])


def inline_request(*contents, facts=FACTS, **fields) -> de.GenerateGroundedContentRequest:
    return de.GenerateGroundedContentRequest(
        location=LOCATION,
        contents=list(contents),
        grounding_spec={"grounding_sources": [Source(inline_source={"grounding_facts": facts})]},
        **fields,
    )


@pytest.fixture(scope="module")
def client(emulator: EmulatorServer):
    return versioned_client(de, "GroundedGenerationServiceClient", emulator.address)


def answer_text(response) -> str:
    return "".join(p.text for p in response.candidates[0].content.parts)


def test_inline_facts_answer_with_supports_pointing_at_the_facts(client):
    response = client.generate_grounded_content(
        request=inline_request(
            user("Where do rockets 🚀 launch from?"),
            system_instruction={"parts": [{"text": "Answer in one sentence, please."}]},
        ),
        **ONCE,
    )
    candidate = response.candidates[0]
    assert candidate.content.role == "model"
    assert answer_text(response) == FACTS[1].fact_text
    assert candidate.grounding_score == 1.0
    metadata = candidate.grounding_metadata
    support = metadata.grounding_support[0]
    assert support.claim_text == "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month."
    assert support.support_score == 1.0
    [chunk] = [metadata.support_chunks[i] for i in support.support_chunk_indices]
    assert chunk.source == "1"
    assert chunk.chunk_text == FACTS[1].fact_text
    assert (chunk.title, chunk.uri) == ("Rockets", "https://example.com/rockets")
    assert dict(chunk.source_metadata) == dict(FACTS[1].attributes)
    source = de.GenerateGroundedContentResponse.Candidate.GroundingMetadata.RetrievalMetadata.Source
    assert [m.source for m in metadata.retrieval_metadata] == [source.INLINE_CONTENT]


@pytest.mark.parametrize(
    ("question", "claims"),
    [
        ("日本の首都はどこですか？", ["東京都は日本の首都です。"]),
        (
            "Who launches from Cape Canaveral?",
            [
                "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month.",
                "The crew 👩‍🚀 launches from Cape Canaveral too.",
            ],
        ),
    ],
    ids=["cjk", "emoji"],
)
def test_unicode_claim_texts_are_exact_substrings_of_the_answer(client, question, claims):
    response = client.generate_grounded_content(request=inline_request(user(question)), **ONCE)
    text = answer_text(response)
    supports = response.candidates[0].grounding_metadata.grounding_support
    assert [s.claim_text for s in supports] == claims
    for claim in claims:
        assert claim in text


def test_search_source_answers_from_a_served_data_store(client):
    request = de.GenerateGroundedContentRequest(
        location=LOCATION,
        contents=[user("Where do rockets launch from?")],
        grounding_spec={
            "grounding_sources": [
                Source(search_source={"serving_config": serving_config(), "max_result_count": 3})
            ]
        },
    )
    response = client.generate_grounded_content(request=request, **ONCE)
    assert "Cape Canaveral" in answer_text(response)
    metadata = response.candidates[0].grounding_metadata
    cited = [
        metadata.support_chunks[i]
        for s in metadata.grounding_support
        for i in s.support_chunk_indices
    ]
    assert cited
    assert cited[0].uri == "https://example.com/rockets"
    assert cited[0].title == "Rockets 🚀"
    assert (
        "/dataStores/test-docs/branches/default_branch/documents/emoji/chunks/" in cited[0].source
    )
    source = de.GenerateGroundedContentResponse.Candidate.GroundingMetadata.RetrievalMetadata.Source
    assert [m.source for m in metadata.retrieval_metadata] == [source.VERTEX_AI_SEARCH]


def test_multi_turn_answers_the_last_user_turn(client):
    response = client.generate_grounded_content(
        request=inline_request(
            user("Where do rockets 🚀 launch from?"),
            model("Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month."),
            user("Who lights the lighthouse lamp?"),
        ),
        **ONCE,
    )
    # the earlier user turn rephrases the question (as AnswerQuery's sessions do)
    assert answer_text(response).endswith("The lighthouse keeper lights the lamp at dusk.")


def test_stream_parts_join_to_the_answer_and_only_the_last_carries_grounding(client):
    request = inline_request(user("Who launches from Cape Canaveral?"))
    unary = client.generate_grounded_content(request=request, **ONCE)
    responses = list(client.stream_generate_grounded_content(requests=iter([request]), **ONCE))
    assert len(responses) == 2
    assert "".join(answer_text(r) for r in responses) == answer_text(unary)
    for response in responses[:-1]:
        assert not response.candidates[0].grounding_metadata.grounding_support
        assert "grounding_score" not in response.candidates[0]
    last = responses[-1].candidates[0]
    assert last.grounding_score == unary.candidates[0].grounding_score
    assert [s.claim_text for s in last.grounding_metadata.grounding_support] == [
        s.claim_text for s in unary.candidates[0].grounding_metadata.grounding_support
    ]


@pytest.fixture(scope="module")
def scripted(emulator: EmulatorServer) -> Iterator[EmulatorServer]:
    with EmulatorServer(emulator.store, judge=ScriptedJudge()) as server:
        yield server


def test_scripted_verdicts_change_the_scores(scripted):
    judge = scripted.judge
    assert isinstance(judge, ScriptedJudge)
    client = versioned_client(de, "GroundedGenerationServiceClient", scripted.address)
    request = inline_request(user("Who launches from Cape Canaveral?"))
    judge.supported_if_contains("crew", facts=(1,), score=0.75)
    judge.unsupported_if_contains("Rockets")
    try:
        response = client.generate_grounded_content(request=request, **ONCE)
    finally:
        judge.reset()
    candidate = response.candidates[0]
    assert candidate.grounding_score == 0.5
    [support] = candidate.grounding_metadata.grounding_support
    assert support.claim_text == "The crew 👩‍🚀 launches from Cape Canaveral too."
    assert support.support_score == 0.75


def test_google_search_source_is_unimplemented(client):
    request = de.GenerateGroundedContentRequest(
        location=LOCATION,
        contents=[user("How much is Google stock?")],
        grounding_spec={"grounding_sources": [Source(google_search_source={})]},
    )
    with pytest.raises(core_exceptions.MethodNotImplemented) as excinfo:
        client.generate_grounded_content(request=request, **ONCE)
    assert_error(
        excinfo,
        core_exceptions.MethodNotImplemented,
        "grounding_sources[0].google_search_source",
        "inline_source",
    )


def test_tuned_model_is_unimplemented(client):
    request = inline_request(
        user("Who lights the lamp?"),
        generation_spec={"model_id": "projects/p/locations/us-central1/models/123"},
    )
    with pytest.raises(core_exceptions.MethodNotImplemented) as excinfo:
        client.generate_grounded_content(request=request, **ONCE)
    assert_error(excinfo, core_exceptions.MethodNotImplemented, "generation_spec.model_id")


@pytest.mark.parametrize(
    ("request_", "fragments"),
    [
        (inline_request(), ("contents is empty",)),
        (inline_request(user("Hi"), model("Hello")), ("contents[1].role", "user's turn")),
        (
            inline_request(user("Who?"), facts=[{"fact_text": "x"}] * 201),
            ("grounding_facts", "at most 200"),
        ),
        (
            inline_request(user("Who?"), facts=[{"fact_text": "x" * 10_001}]),
            ("grounding_facts[0].fact_text", "at most 10000"),
        ),
        (
            de.GenerateGroundedContentRequest(
                location=LOCATION,
                contents=[user("Who?")],
                grounding_spec={
                    "grounding_sources": [
                        Source(
                            search_source={
                                "serving_config": serving_config(),
                                "max_result_count": 11,
                            }
                        )
                    ]
                },
            ),
            ("search_source.max_result_count", "between 0 and 10"),
        ),
    ],
    ids=["empty-contents", "ends-with-model", "too-many-facts", "long-fact", "max-result-count"],
)
def test_limits_are_refused_naming_the_field(client, request_, fragments):
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        client.generate_grounded_content(request=request_, **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, *fragments)


def test_stream_refusal_is_the_stream_status(client):
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        list(client.stream_generate_grounded_content(requests=iter([inline_request()]), **ONCE))
    assert_error(excinfo, core_exceptions.InvalidArgument, "contents is empty")


def test_rest_transport_answers_as_grpc(emulator, client):
    rest = de.GroundedGenerationServiceClient(
        transport="rest",
        credentials=AnonymousCredentials(),
        client_options={"api_endpoint": emulator.rest_url},
    )
    request = inline_request(user("日本の首都はどこですか？"))
    over_rest = rest.generate_grounded_content(request=request, **ONCE)
    over_grpc = client.generate_grounded_content(request=request, **ONCE)
    assert over_rest == over_grpc
    assert answer_text(over_rest) == "東京都は日本の首都です。"
