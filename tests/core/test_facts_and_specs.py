import pytest

from grounding_core import (
    MAX_FACT_CHARS,
    MAX_FACTS,
    AnswerSpec,
    ChunkSearchSpec,
    DeveloperKnowledgeSearchSpec,
    GroundingSource,
    GroundingSpec,
    InputError,
)
from grounding_core.facts import (
    attributes_from_metadata,
    build_facts,
    check_answer_candidate,
    estimate_tokens,
)


def test_build_facts_skips_empty_sources_and_maps_indices():
    facts = build_facts(["a", "", GroundingSource("  \n"), GroundingSource("b", {"uri": "u"})])
    assert facts.texts == ("a", "b")
    assert facts.source_indices == (0, 3)
    assert facts.attributes == ({}, {"uri": "u"})
    assert facts.source_index(1) == 3
    assert facts.source_index(2) is None
    assert facts.source_index(None) is None


def test_attributes_serialize_non_strings_and_drop_none():
    attributes = attributes_from_metadata(
        {
            "title": "Über",
            "page": 3,
            "score": 0.5,
            "ok": True,
            "tags": ["x", "ü"],
            "nested": {"a": [1, {"b": None}]},
            "missing": None,
            7: "int key",
        }
    )
    assert attributes == {
        "title": "Über",
        "page": "3",
        "score": "0.5",
        "ok": "true",
        "tags": '["x", "ü"]',
        "nested": '{"a": [1, {"b": null}]}',
        "7": "int key",
    }


def test_attributes_with_unserializable_values_fall_back_to_str():
    class Thing:
        def __str__(self):
            return "thing"

    # An object is its str(): a string attribute, as a string value is.
    assert attributes_from_metadata({"obj": Thing(), "in": [Thing()]}) == {
        "obj": "thing",
        "in": '["thing"]',
    }


def test_limits_on_facts():
    with pytest.raises(InputError, match=r"201 non-empty sources.*at most 200") as info:
        build_facts(["x"] * (MAX_FACTS + 1))
    assert (info.value.field, info.value.limit) == ("facts", 200)
    # 200 non-empty sources plus empty ones are fine.
    assert len(build_facts(["x"] * MAX_FACTS + [""] * 50).texts) == MAX_FACTS
    with pytest.raises(InputError, match=r"sources\[1\] has 20,000 characters") as info:
        build_facts(["ok", "y" * 20_000])
    assert (info.value.field, info.value.limit) == ("facts[1].fact_text", MAX_FACT_CHARS)
    assert build_facts(["z" * MAX_FACT_CHARS]).texts[0] == "z" * MAX_FACT_CHARS


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        ("a string", "sources must be a list"),
        ([b"bytes"], r"sources\[0\] must be a str or GroundingSource, got bytes"),
        ([None], r"sources\[0\] must be a str or GroundingSource, got NoneType"),
        ([GroundingSource(3)], r"sources\[0\].text must be a string"),  # type: ignore[arg-type]
        (["ok", "bad \ud800 surrogate"], r"facts\[1\].fact_text holds a lone surrogate"),
    ],
)
def test_bad_sources(sources, message):
    with pytest.raises(InputError, match=message):
        build_facts(sources)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("", "answer_candidate is empty"),
        ("  \n\t", "answer_candidate is empty"),
        (None, "answer_candidate must be a string, got NoneType"),
        ("word " * 5000, "about 5000 tokens; CheckGrounding accepts at most 4096"),
        ("bad \udfff", "lone surrogate"),
    ],
)
def test_bad_answers(answer, message):
    with pytest.raises(InputError, match=message) as info:
        check_answer_candidate(answer)
    assert info.value.field == "answer_candidate"


def test_token_estimate_counts_words_punctuation_and_cjk_characters():
    assert estimate_tokens("Hello, world!") == 4
    assert estimate_tokens("東京は大きい") == 6
    assert estimate_tokens("") == 0
    assert check_answer_candidate("東京" * 2000) == "東京" * 2000  # 4,000 tokens: accepted


@pytest.mark.parametrize(
    ("kwargs", "field", "message"),
    [
        ({"k": 0}, "k", "k must be >= 1, got 0"),
        ({"k": -1}, "k", "k must be >= 1, got -1"),
        ({"k": "5"}, "k", "k must be an integer, got str"),
        ({"k": True}, "k", "k must be an integer, got bool"),
        ({"num_next_chunks": 4}, "num_next_chunks", "between 0 and 3, got 4"),
        ({"num_previous_chunks": -1}, "num_previous_chunks", "between 0 and 3"),
        ({"search_mode": "documents", "num_next_chunks": 1}, "chunk_spec", "need search_mode="),
        ({"search_mode": "pages"}, "search_mode", "search_mode must be 'chunks' or 'documents'"),
        ({"relevance_threshold": "HIGHEST"}, "relevance_threshold", "must be one of"),
        ({"boost_spec": [("a", 1)]}, "boost_spec", "boost_spec must be a dict"),
        ({"filter": 3}, "filter", "filter must be a string"),
    ],
)
def test_bad_chunk_search_specs(kwargs, field, message):
    with pytest.raises(InputError, match=message) as info:
        ChunkSearchSpec(**kwargs)
    assert info.value.field == field


def test_large_k_is_allowed_and_paged():
    assert ChunkSearchSpec(k=101).k == 101


def test_developer_knowledge_spec_limits():
    with pytest.raises(InputError, match="filter has 501 characters; the API accepts at most 500"):
        DeveloperKnowledgeSearchSpec(filter="x" * 501)
    with pytest.raises(InputError, match="k must be >= 1"):
        DeveloperKnowledgeSearchSpec(k=0)


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan"), "0.5", True, None])
def test_bad_citation_threshold(value):
    with pytest.raises(InputError, match="citation_threshold must be a number between 0 and 1"):
        GroundingSpec(citation_threshold=value)


def test_good_grounding_spec_bounds():
    assert GroundingSpec(citation_threshold=0).citation_threshold == 0
    assert GroundingSpec(citation_threshold=1).citation_threshold == 1


def test_answer_spec_limits():
    with pytest.raises(InputError, match="max_return_results must be between 1 and 100"):
        AnswerSpec(max_return_results=0)
    with pytest.raises(InputError, match="search_mode must be"):
        AnswerSpec(search_mode="x")  # type: ignore[arg-type]
