"""What the core sends: requests built from targets and specs."""

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    AnswerSpec,
    ChunkSearchSpec,
    DiscoveryEngineTarget,
    GroundingSource,
    GroundingSpec,
    InputError,
)
from grounding_core.answers import answer_query_request, developer_answer_request
from grounding_core.grounding import check_grounding_request
from grounding_core.search import developer_knowledge_request, search_request
from grounding_core.specs import DeveloperKnowledgeSearchSpec

TARGET = DiscoveryEngineTarget(project="p", data_store="d")
MODE = de.SearchRequest.ContentSearchSpec.SearchResultMode


def test_chunk_search_request():
    spec = ChunkSearchSpec(
        k=250,
        filter='lang: ANY("en")',
        order_by="year desc",
        num_previous_chunks=1,
        num_next_chunks=2,
        relevance_threshold="medium",
        boost_spec={"condition_boost_specs": [{"condition": 'lang: ANY("en")', "boost": 0.5}]},
    )
    request = search_request(TARGET, "what is a list?", spec)
    assert request.serving_config == TARGET.serving_config_path
    assert request.page_size == 100  # pages of 100 until k results are collected
    assert request.filter == 'lang: ANY("en")'
    assert request.order_by == "year desc"
    assert request.content_search_spec.search_result_mode == MODE.CHUNKS
    assert request.content_search_spec.chunk_spec.num_previous_chunks == 1
    assert request.content_search_spec.chunk_spec.num_next_chunks == 2
    assert request.relevance_threshold == de.SearchRequest.RelevanceThreshold.MEDIUM
    assert request.relevance_score_spec.return_relevance_score
    assert request.boost_spec.condition_boost_specs[0].boost == 0.5


def test_document_search_request_has_no_chunk_spec():
    request = search_request(TARGET, "q", ChunkSearchSpec(k=5, search_mode="documents"))
    assert request.page_size == 5
    assert request.content_search_spec.search_result_mode == MODE.DOCUMENTS
    assert "chunk_spec" not in request.content_search_spec
    assert request.relevance_threshold == 0


@pytest.mark.parametrize(
    ("query", "message"),
    [("", "query is empty"), ("   ", "query is empty"), (None, "query must be a string")],
)
def test_bad_queries(query, message):
    with pytest.raises(InputError, match=message):
        search_request(TARGET, query, ChunkSearchSpec())


def test_bad_boost_spec_names_the_field():
    with pytest.raises(InputError, match="boost_spec is not a valid BoostSpec") as info:
        search_request(TARGET, "q", ChunkSearchSpec(boost_spec={"no_such_field": 1}))
    assert info.value.field == "boost_spec"
    assert info.value.__cause__ is not None


def test_check_grounding_request():
    request, facts = check_grounding_request(
        TARGET.grounding_config_path,
        "Answer.",
        ["", GroundingSource("Fact ✓", {"uri": "u", "page": 2})],
        GroundingSpec(citation_threshold=0.8, enable_claim_level_score=True),
    )
    assert request.grounding_config == TARGET.grounding_config_path
    assert request.answer_candidate == "Answer."
    assert [f.fact_text for f in request.facts] == ["Fact ✓"]
    assert dict(request.facts[0].attributes) == {"uri": "u", "page": "2"}
    assert request.grounding_spec.citation_threshold == pytest.approx(0.8)
    assert request.grounding_spec.enable_claim_level_score
    assert facts.source_indices == (1,)


def test_answer_query_request():
    target = DiscoveryEngineTarget(project="p", engine="app")
    spec = AnswerSpec(
        include_citations=True,
        max_return_results=5,
        filter='lang: ANY("fr")',
        preamble="Be brief.",
        model_version="stable",
        answer_language_code="fr",
        include_grounding_supports=True,
        ignore_low_relevant_content=True,
        related_questions=True,
        session="s1",
    )
    request = answer_query_request(target, "Qu'est-ce qu'une liste ?", spec)
    assert request.serving_config == target.serving_config_path
    assert request.query.text == "Qu'est-ce qu'une liste ?"
    assert request.session == target.session_path("s1")
    generation = request.answer_generation_spec
    assert generation.include_citations
    assert generation.prompt_spec.preamble == "Be brief."
    assert generation.model_spec.model_version == "stable"
    assert generation.answer_language_code == "fr"
    assert generation.ignore_low_relevant_content is True
    params = request.search_spec.search_params
    assert (params.max_return_results, params.filter) == (5, 'lang: ANY("fr")')
    assert params.search_result_mode == MODE.CHUNKS
    assert request.grounding_spec.include_grounding_supports
    assert request.related_questions_spec.enable


def test_developer_knowledge_requests():
    request = developer_knowledge_request("buckets", DeveloperKnowledgeSearchSpec(k=300))
    assert (request.query, request.page_size) == ("buckets", 100)
    with pytest.raises(InputError, match="query has 501 characters"):
        developer_knowledge_request("q" * 501, DeveloperKnowledgeSearchSpec())
    answer = developer_answer_request("How?", 'data_source = "web.dev"')
    assert (answer.query, answer.filter) == ("How?", 'data_source = "web.dev"')
    with pytest.raises(InputError, match="filter must be a string of at most 500"):
        developer_answer_request("How?", "f" * 501)
