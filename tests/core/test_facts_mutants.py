"""The limits of a check at their exact edges, and every field of the errors that enforce them.

CheckGrounding takes at most 4,096 answer tokens, 200 facts and 10,000 characters a fact: the
edge value passes, one more is refused, with the field and the limit named.
"""

import pytest

from grounding_core import MAX_FACT_CHARS, MAX_FACTS, GroundingSource, InputError
from grounding_core.facts import (
    MAX_ANSWER_CHARS,
    MAX_ANSWER_TOKENS,
    attributes_from_metadata,
    build_facts,
    check_answer_candidate,
    estimate_tokens,
)


def words(count: int) -> str:
    """``count`` one-letter words: ``count`` tokens in about twice as many characters."""
    return " ".join(["a"] * count)


def test_an_answer_of_exactly_4096_tokens_is_accepted():
    answer = words(MAX_ANSWER_TOKENS)
    assert len(answer) > MAX_ANSWER_TOKENS  # long enough to be counted
    assert estimate_tokens(answer) == MAX_ANSWER_TOKENS
    assert check_answer_candidate(answer) == answer


def test_an_answer_of_4097_tokens_is_refused_with_field_and_limit():
    with pytest.raises(InputError) as info:
        check_answer_candidate(words(MAX_ANSWER_TOKENS + 1))
    assert str(info.value) == (
        "answer_candidate is about 4097 tokens; CheckGrounding accepts at most 4096: check the "
        "answer in parts (for example paragraph by paragraph)"
    )
    assert (info.value.field, info.value.limit) == ("answer_candidate", MAX_ANSWER_TOKENS)


def test_an_answer_at_the_character_bound_is_accepted_and_one_more_is_refused():
    # One run without spaces is one token to the estimate: the character bound refuses it.
    edge = "a" * MAX_ANSWER_CHARS
    assert check_answer_candidate(edge) == edge
    with pytest.raises(InputError) as info:
        check_answer_candidate(edge + "a")
    assert str(info.value) == (
        "answer_candidate has 131073 characters; CheckGrounding accepts at most 4096 tokens, "
        "which no text over 131072 characters is within: check the answer in parts (for "
        "example paragraph by paragraph)"
    )
    assert (info.value.field, info.value.limit) == ("answer_candidate", MAX_ANSWER_CHARS)


def test_a_short_answer_of_many_characters_is_not_refused():
    # 4,096 characters can hold at most 4,096 tokens: the edge itself is never refused.
    answer = "." * MAX_ANSWER_TOKENS
    assert estimate_tokens(answer) == MAX_ANSWER_TOKENS
    assert check_answer_candidate(answer) == answer


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (42, "answer_candidate must be a string, got int"),
        (None, "answer_candidate must be a string, got NoneType"),
        (
            " \n\t",
            "answer_candidate is empty: there is nothing to check; generate an answer first",
        ),
        (
            "ok \udc80 then",
            "answer_candidate holds a lone surrogate (U+DC80) at character 3, which is not valid "
            "UTF-8 and cannot be sent: decode the text properly (both halves of a surrogate "
            "pair) or remove it",
        ),
    ],
    ids=["int", "none", "blank", "lone-surrogate"],
)
def test_bad_answers_name_the_field(answer, message):
    with pytest.raises(InputError) as info:
        check_answer_candidate(answer)
    assert str(info.value) == message
    assert (info.value.field, info.value.limit) == ("answer_candidate", None)


def test_exactly_200_facts_are_accepted_and_201_refused():
    facts = build_facts([f"fact {i}" for i in range(MAX_FACTS)])
    assert len(facts.texts) == MAX_FACTS
    assert facts.source_indices == tuple(range(MAX_FACTS))
    with pytest.raises(InputError) as info:
        build_facts([f"fact {i}" for i in range(MAX_FACTS + 1)])
    assert str(info.value) == (
        "201 non-empty sources were given; CheckGrounding accepts at most 200 facts: pass the "
        "200 best-ranked sources"
    )
    assert (info.value.field, info.value.limit) == ("facts", MAX_FACTS)


def test_a_fact_of_exactly_10000_characters_is_accepted_and_10001_refused():
    assert build_facts(["x" * MAX_FACT_CHARS]).texts == ("x" * MAX_FACT_CHARS,)
    with pytest.raises(InputError) as info:
        build_facts(["", "x" * (MAX_FACT_CHARS + 1)])
    assert str(info.value) == (
        "sources[1] has 10,001 characters; a fact may have at most 10,000: split the source "
        "into smaller chunks"
    )
    assert (info.value.field, info.value.limit) == ("facts[1].fact_text", MAX_FACT_CHARS)


@pytest.mark.parametrize(
    ("sources", "message", "field"),
    [
        ("text", "sources must be a list of texts or GroundingSource, got str", "facts"),
        (b"raw", "sources must be a list of texts or GroundingSource, got bytes", "facts"),
        (7, "sources must be a list of texts or GroundingSource, got int", "facts"),
        (["a", 3], "sources[1] must be a str or GroundingSource, got int", "facts[1]"),
        (
            [GroundingSource(b"x")],  # type: ignore[arg-type]
            "sources[0].text must be a string, got bytes",
            "facts[0].fact_text",
        ),
        (
            ["a", "b", "c\ud800"],
            "facts[2].fact_text holds a lone surrogate (U+D800) at character 1, which is not "
            "valid UTF-8 and cannot be sent: decode the text properly (both halves of a "
            "surrogate pair) or remove it",
            "facts[2].fact_text",
        ),
    ],
    ids=["str", "bytes", "int", "int-item", "bytes-text", "lone-surrogate"],
)
def test_bad_sources_name_the_field(sources, message, field):
    with pytest.raises(InputError) as info:
        build_facts(sources)
    assert str(info.value) == message
    assert (info.value.field, info.value.limit) == (field, None)


def test_metadata_becomes_attributes_named_by_its_source():
    facts = build_facts(
        ["", GroundingSource("a", None), GroundingSource("b", {"n": 1.5, "x": None, "s": "é"})]
    )
    assert facts.attributes == ({}, {"n": "1.5", "s": "é"})
    assert facts.source_indices == (1, 2)
    assert attributes_from_metadata({"l": ["ü", None]}) == {"l": '["ü", null]'}
    with pytest.raises(InputError) as info:
        build_facts(["a", GroundingSource("b", ("x",))])  # type: ignore[arg-type]
    assert str(info.value) == "sources[1].metadata must be a dict of attributes, got tuple"
    assert (info.value.field, info.value.limit) == ("sources[1].metadata", None)
    with pytest.raises(InputError) as info:
        attributes_from_metadata(["x"])  # type: ignore[arg-type]
    assert str(info.value) == "metadata must be a dict of attributes, got list"
    with pytest.raises(InputError) as info:
        build_facts(["a", "b", GroundingSource("c", {"k": {"v": b"\xff"}})])
    assert str(info.value) == (
        "sources[2].metadata['k']['v'] is bytes that are not UTF-8 text: decode it"
    )
