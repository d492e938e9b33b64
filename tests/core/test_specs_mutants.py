"""Specs: every refusal's message, field and limit, the boundaries, the kept boost spec (what
``make mutation`` found unasserted in ``grounding_core.specs``)."""

import math

import pytest

from grounding_core import (
    AnswerSpec,
    ChunkSearchSpec,
    DeveloperKnowledgeSearchSpec,
    GroundingSpec,
    InputError,
)
from grounding_core.specs import check_count, check_fraction

BOOST_HINT = (
    "boost_spec must be a dict in the API's BoostSpec form, e.g. "
    "{'condition_boost_specs': [{'condition': 'lang: ANY(\"en\")', 'boost': 0.5}]}"
)


def refusal(call, *args, **kwargs) -> tuple[str, str, object]:
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    return str(info.value), info.value.field, info.value.limit


def test_check_count():
    assert check_count("n", 1, minimum=1) == 1
    assert check_count("n", 5, minimum=1, maximum=5) == 5
    assert check_count("n", 0, minimum=0, maximum=3) == 0
    assert refusal(check_count, "n", True, minimum=0, maximum=3) == (
        "n must be an integer, got bool True",
        "n",
        3,
    )
    assert refusal(check_count, "n", 1.0, minimum=0) == (
        "n must be an integer, got float 1.0",
        "n",
        None,
    )
    assert refusal(check_count, "n", 0, minimum=1) == ("n must be >= 1, got 0", "n", None)
    assert refusal(check_count, "n", 6, minimum=1, maximum=5) == (
        "n must be between 1 and 5, got 6",
        "n",
        5,
    )
    assert refusal(check_count, "n", 0, minimum=1, maximum=5) == (
        "n must be between 1 and 5, got 0",
        "n",
        5,
    )


def test_check_fraction():
    assert check_fraction("t", 0) == 0.0
    assert check_fraction("t", 1) == 1.0
    assert type(check_fraction("t", 1)) is float
    assert check_fraction("t", 0.5) == 0.5
    for value in (True, -0.01, 1.01, math.nan, "0.5", None):
        assert refusal(check_fraction, "t", value) == (
            f"t must be a number between 0 and 1, got {value!r}",
            "t",
            "[0, 1]",
        )


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"k": 0}, ("k must be >= 1, got 0", "k", None)),
        ({"filter": 1}, ("filter must be a string, got int", "filter", None)),
        ({"order_by": None}, ("order_by must be a string, got NoneType", "order_by", None)),
        (
            {"num_previous_chunks": 4},
            ("num_previous_chunks must be between 0 and 3, got 4", "num_previous_chunks", 3),
        ),
        (
            {"num_next_chunks": -1},
            ("num_next_chunks must be between 0 and 3, got -1", "num_next_chunks", 3),
        ),
        (
            {"search_mode": "chunk"},
            ("search_mode must be 'chunks' or 'documents', got 'chunk'", "search_mode", None),
        ),
        (
            {"search_mode": "documents", "num_previous_chunks": 1},
            (
                "num_previous_chunks/num_next_chunks need search_mode='chunks': documents have "
                "no neighbouring chunks",
                "chunk_spec",
                None,
            ),
        ),
        (
            {"search_mode": "documents", "num_next_chunks": 1},
            (
                "num_previous_chunks/num_next_chunks need search_mode='chunks': documents have "
                "no neighbouring chunks",
                "chunk_spec",
                None,
            ),
        ),
        (
            {"relevance_threshold": "HIGH"},
            (
                "relevance_threshold must be one of 'lowest', 'low', 'medium', 'high' or None, "
                "got 'HIGH'",
                "relevance_threshold",
                None,
            ),
        ),
        ({"boost_spec": [("a", 1)]}, (BOOST_HINT, "boost_spec", None)),
    ],
)
def test_chunk_search_spec_refusals(kwargs, expected):
    assert refusal(ChunkSearchSpec, **kwargs) == expected


def test_chunk_search_spec_accepts_the_boundaries():
    spec = ChunkSearchSpec(k=1, num_previous_chunks=3, num_next_chunks=3, search_mode="chunks")
    assert (spec.k, spec.num_previous_chunks, spec.num_next_chunks) == (1, 3, 3)
    assert ChunkSearchSpec(search_mode="documents").search_mode == "documents"
    for threshold in (None, "lowest", "low", "medium", "high"):
        assert ChunkSearchSpec(relevance_threshold=threshold).relevance_threshold == threshold


@pytest.mark.parametrize("spec_type", [ChunkSearchSpec, AnswerSpec])
def test_the_boost_spec_is_a_private_copy(spec_type):
    given = {"condition_boost_specs": [{"condition": "x", "boost": 0.5}]}
    spec = spec_type(boost_spec=given)
    given["condition_boost_specs"][0]["boost"] = 1.0
    assert spec.boost_spec == {"condition_boost_specs": [{"condition": "x", "boost": 0.5}]}
    assert type(spec.boost_spec) is dict
    assert spec_type().boost_spec is None


def test_developer_knowledge_spec():
    assert DeveloperKnowledgeSearchSpec(k=1, filter="x" * 500).filter == "x" * 500
    assert refusal(DeveloperKnowledgeSearchSpec, k=0) == ("k must be >= 1, got 0", "k", None)
    assert refusal(DeveloperKnowledgeSearchSpec, filter="x" * 501) == (
        "filter has 501 characters; the API accepts at most 500: shorten it",
        "filter",
        500,
    )
    assert refusal(DeveloperKnowledgeSearchSpec, filter=5) == (
        "filter must be a string, got int",
        "filter",
        500,
    )


def test_grounding_spec():
    assert GroundingSpec(citation_threshold=1).citation_threshold == 1
    assert refusal(GroundingSpec, citation_threshold=1.5) == (
        "citation_threshold must be a number between 0 and 1, got 1.5",
        "citation_threshold",
        "[0, 1]",
    )


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"max_return_results": 0},
            ("max_return_results must be between 1 and 100, got 0", "max_return_results", 100),
        ),
        (
            {"max_return_results": 101},
            ("max_return_results must be between 1 and 100, got 101", "max_return_results", 100),
        ),
        ({"filter": 1}, ("filter must be a string, got int", "filter", None)),
        ({"order_by": 1}, ("order_by must be a string, got int", "order_by", None)),
        (
            {"search_mode": "x"},
            ("search_mode must be 'chunks' or 'documents', got 'x'", "search_mode", None),
        ),
        ({"boost_spec": 3}, (BOOST_HINT, "boost_spec", None)),
    ],
)
def test_answer_spec_refusals(kwargs, expected):
    assert refusal(AnswerSpec, **kwargs) == expected


def test_answer_spec_accepts_the_boundaries():
    assert AnswerSpec(max_return_results=1).max_return_results == 1
    assert AnswerSpec(max_return_results=100).max_return_results == 100
    assert AnswerSpec(search_mode="documents").search_mode == "documents"
