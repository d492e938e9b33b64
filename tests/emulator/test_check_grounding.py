"""GroundedGenerationService/CheckGrounding through Google's clients (sync and async)."""

from __future__ import annotations

import pytest
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1alpha, discoveryengine_v1beta

from tests.emulator.conftest import GROUNDING_CONFIG, ONCE, versioned_client

FACTS = [
    {
        "fact_text": "東京都は日本の首都です。人口は約千四百万人です。",
        "attributes": {"uri": "https://example.jp/tokyo", "title": "東京", "lang": "ja"},
    },
    {"fact_text": "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month.", "attributes": {}},
    {"fact_text": "The cafés of Paris serve crème brûlée.", "attributes": {"title": "Cafés"}},
]
ANSWER = (
    "東京都は日本の首都です。Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. "
    "The cafés of Paris serve crème brûlée. Penguins live on the Moon."
)


def request(**spec) -> de.CheckGroundingRequest:
    return de.CheckGroundingRequest(
        grounding_config=GROUNDING_CONFIG,
        answer_candidate=ANSWER,
        facts=FACTS,
        grounding_spec=spec,
    )


def test_claims_have_utf8_byte_spans(grounding_client):
    response = grounding_client.check_grounding(request=request(), **ONCE)
    encoded = ANSWER.encode("utf-8")
    assert len(response.claims) == 4
    for claim in response.claims:
        assert encoded[claim.start_pos : claim.end_pos].decode("utf-8") == claim.claim_text
    assert response.claims[0].claim_text == "東京都は日本の首都です。"
    assert response.claims[1].start_pos > len("東京都は日本の首都です。")  # bytes, not characters


def test_citations_point_at_cited_chunks(grounding_client):
    response = grounding_client.check_grounding(request=request(), **ONCE)
    supported = [c for c in response.claims if c.citation_indices]
    assert [c.claim_text for c in supported][:3] == [
        "東京都は日本の首都です。",
        "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month.",
        "The cafés of Paris serve crème brûlée.",
    ]
    sources = [response.cited_chunks[i].source for c in supported for i in c.citation_indices]
    assert sources[:3] == ["0", "1", "2"]
    tokyo = response.cited_chunks[supported[0].citation_indices[0]]
    assert tokyo.chunk_text == FACTS[0]["fact_text"]
    assert tokyo.uri == "https://example.jp/tokyo"
    assert tokyo.title == "東京"
    assert dict(tokyo.source_metadata) == FACTS[0]["attributes"]
    assert [f.chunk_text for f in response.cited_facts] == [
        c.chunk_text for c in response.cited_chunks
    ]
    penguins = response.claims[3]
    assert penguins.claim_text == "Penguins live on the Moon."
    assert list(penguins.citation_indices) == []
    assert penguins.grounding_check_required is True
    assert response.support_score == pytest.approx(0.75)


def test_claim_scores_only_when_enabled(grounding_client):
    plain = de.CheckGroundingResponse.pb(
        grounding_client.check_grounding(request=request(), **ONCE)
    )
    assert not any(c.HasField("score") for c in plain.claims)
    scored = grounding_client.check_grounding(
        request=request(enable_claim_level_score=True), **ONCE
    )
    assert all(0 <= c.score <= 1 for c in scored.claims)
    assert scored.claims[0].score > scored.claims[3].score


def test_no_facts_means_no_support(grounding_client):
    response = grounding_client.check_grounding(
        request=de.CheckGroundingRequest(
            grounding_config=GROUNDING_CONFIG, answer_candidate="Paris is in France."
        ),
        **ONCE,
    )
    assert response.support_score == 0
    assert list(response.cited_chunks) == []
    assert response.claims[0].claim_text == "Paris is in France."


@pytest.mark.parametrize("module", [discoveryengine_v1beta, discoveryengine_v1alpha])
def test_older_api_versions(emulator, module):
    client = versioned_client(module, "GroundedGenerationServiceClient", emulator.address)
    response = client.check_grounding(
        request=module.CheckGroundingRequest(
            grounding_config=GROUNDING_CONFIG, answer_candidate=ANSWER, facts=FACTS
        ),
        **ONCE,
    )
    encoded = ANSWER.encode("utf-8")
    assert [encoded[c.start_pos : c.end_pos].decode() for c in response.claims] == [
        c.claim_text for c in response.claims
    ]
    assert response.support_score == pytest.approx(0.75)
    client.transport.close()


async def test_async_client(de_async_connection):
    client = de_async_connection.async_client(de.GroundedGenerationServiceAsyncClient)
    response = await client.check_grounding(request=request(), **ONCE)
    assert response.support_score == pytest.approx(0.75)
    assert response.cited_chunks[0].source == "0"
