"""The hand-tuned hot paths give what the plain, slower code they replaced gave.

Search and check requests are built as raw protobuf messages (not through proto-plus), chunk
rank signals become metadata without ``to_dict``, and a short answer skips the token count:
each is pinned here against the straightforward form.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.cloud import discoveryengine_v1 as de
from hypothesis import given
from hypothesis import strategies as st

from grounding_core import (
    ChunkSearchSpec,
    DataStoreSpec,
    DiscoveryEngineTarget,
    GroundingSource,
    GroundingSpec,
    InputError,
    RankSignals,
)
from grounding_core.facts import MAX_ANSWER_TOKENS, check_answer_candidate
from grounding_core.grounding import check_grounding_request
from grounding_core.metadata import rank_signals_metadata
from grounding_core.search import SEARCH_RESULT_MODES, search_request

TARGET = DiscoveryEngineTarget(project="p", data_store="docs")


def _proto_plus_search_request(query: str, spec: ChunkSearchSpec) -> de.SearchRequest:
    content: dict[str, Any] = {"search_result_mode": SEARCH_RESULT_MODES[spec.search_mode]}
    if spec.search_mode == "chunks":
        content["chunk_spec"] = {
            "num_previous_chunks": spec.num_previous_chunks,
            "num_next_chunks": spec.num_next_chunks,
        }
    else:
        if spec.return_snippet is not False:
            content["snippet_spec"] = {"return_snippet": True}
        if spec.max_extractive_answer_count or spec.max_extractive_segment_count:
            content["extractive_content_spec"] = {
                "max_extractive_answer_count": spec.max_extractive_answer_count,
                "max_extractive_segment_count": spec.max_extractive_segment_count,
                "return_extractive_segment_score": spec.return_extractive_segment_score,
                "num_previous_segments": spec.num_previous_segments,
                "num_next_segments": spec.num_next_segments,
            }
    options: dict[str, Any] = {
        "language_code": spec.language_code,
        "user_pseudo_id": spec.user_pseudo_id,
        "session": spec.session,
        "data_store_specs": [
            {
                "data_store": TARGET.location_path
                + "/collections/default_collection/dataStores/"
                + d.data_store,
                "filter": d.filter,
                **({"boost_spec": d.boost_spec} if d.boost_spec else {}),
            }
            for d in spec.data_store_specs
        ],
        "facet_specs": list(spec.facet_specs),
    }
    if spec.spell_correction is not None:
        options["spell_correction_spec"] = {"mode": spec.spell_correction.upper()}
    if spec.query_expansion is not None:
        options["query_expansion_spec"] = {
            "condition": spec.query_expansion.upper(),
            "pin_unexpanded_results": spec.pin_unexpanded_results,
        }
    if spec.relevance_filter_spec is not None:
        options["relevance_filter_spec"] = spec.relevance_filter_spec
    request = de.SearchRequest(
        serving_config=TARGET.serving_config_path,
        relevance_threshold=(spec.relevance_threshold or "relevance_threshold_unspecified").upper(),
        query=query,
        page_size=min(spec.k, 100),
        filter=spec.filter,
        canonical_filter=spec.canonical_filter,
        order_by=spec.order_by,
        content_search_spec=content,
        relevance_score_spec={"return_relevance_score": True},
        **options,
    )
    if spec.boost_spec is not None:
        request.boost_spec = de.SearchRequest.BoostSpec(spec.boost_spec)
    return request


@pytest.mark.parametrize(
    "spec",
    [
        ChunkSearchSpec(),
        ChunkSearchSpec(k=500, num_previous_chunks=2, num_next_chunks=3),
        ChunkSearchSpec(k=3, search_mode="documents", relevance_threshold="lowest"),
        ChunkSearchSpec(filter='lang: ANY("en")', order_by="title", relevance_threshold="high"),
        ChunkSearchSpec(boost_spec={"condition_boost_specs": [{"condition": "x", "boost": 0.5}]}),
        ChunkSearchSpec(search_mode="documents", return_snippet=False),
        ChunkSearchSpec(
            search_mode="documents",
            max_extractive_answer_count=2,
            max_extractive_segment_count=3,
            return_extractive_segment_score=True,
            num_previous_segments=1,
            num_next_segments=2,
        ),
        ChunkSearchSpec(
            spell_correction="suggestion_only",
            query_expansion="auto",
            pin_unexpanded_results=True,
            canonical_filter='lang: ANY("en")',
            language_code="en-US",
            user_pseudo_id="visitor-1",
            session="projects/p/locations/global/collections/default_collection/engines/e/sessions/s",
            relevance_filter_spec={"keyword_search_threshold": {"relevance_threshold": "LOW"}},
            data_store_specs=(
                DataStoreSpec("docs", filter='lang: ANY("en")'),
                DataStoreSpec(
                    "manuals",
                    boost_spec={"condition_boost_specs": [{"condition": "y", "boost": 1}]},
                ),
            ),
            facet_specs=({"facet_key": {"key": "lang"}, "limit": 5},),
        ),
    ],
)
def test_search_request_is_the_proto_plus_one(spec):
    fast = search_request(TARGET, "what is a list?", spec)
    plain = _proto_plus_search_request("what is a list?", spec)
    assert fast == plain
    assert de.SearchRequest.serialize(fast) == de.SearchRequest.serialize(plain)


@pytest.mark.parametrize(
    "spec", [GroundingSpec(), GroundingSpec(citation_threshold=0, enable_claim_level_score=True)]
)
def test_check_grounding_request_is_the_proto_plus_one(spec):
    sources = ["Paris is in France.", "", GroundingSource("Tokyo 東京", {"n": 1, "t": "x"})]
    fast, facts = check_grounding_request("projects/p/groundingConfigs/g", "Paris.", sources, spec)
    plain = de.CheckGroundingRequest(
        grounding_config="projects/p/groundingConfigs/g",
        answer_candidate="Paris.",
        facts=[
            de.GroundingFact(fact_text=text, attributes=attributes)
            for text, attributes in zip(facts.texts, facts.attributes, strict=True)
        ],
        grounding_spec=de.CheckGroundingSpec(
            citation_threshold=spec.citation_threshold,
            enable_claim_level_score=spec.enable_claim_level_score,
        ),
    )
    assert fast == plain
    # Map fields (the attributes) serialize in no fixed order unless asked to.
    pb = de.CheckGroundingRequest.pb
    assert pb(fast).SerializeToString(deterministic=True) == pb(plain).SerializeToString(
        deterministic=True
    )


SCORES = st.none() | st.floats(allow_nan=False, width=32)


@given(
    st.builds(
        RankSignals,
        keyword_similarity_score=SCORES,
        relevance_score=SCORES,
        semantic_similarity_score=SCORES,
        pctr_rank=SCORES,
        default_rank=SCORES,
        custom_signals=st.dictionaries(st.text(max_size=5), st.floats(allow_nan=False), max_size=3),
        precomputed_expression_values=st.lists(st.floats(allow_nan=False), max_size=3).map(tuple),
    )
)
def test_rank_signals_metadata_is_to_dict_without_empty_values(signals):
    expected = {k: v for k, v in signals.to_dict().items() if v not in (None, {}, [])}
    assert rank_signals_metadata(signals) == expected


def test_a_short_answer_skips_the_token_count_and_a_long_one_is_still_refused():
    assert check_answer_candidate("x" * MAX_ANSWER_TOKENS) == "x" * MAX_ANSWER_TOKENS
    with pytest.raises(InputError, match="tokens"):
        check_answer_candidate("word " * (MAX_ANSWER_TOKENS + 1))
