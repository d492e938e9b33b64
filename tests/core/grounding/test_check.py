"""``grounding_core.grounding.check``: checkGrounding as the ``GroundingCheck`` component.

Covers ``GroundingSpec`` (the citation threshold, the claim-level score, the user labels),
the facts (``estimate_tokens``, ``check_answer_candidate``, ``attributes_from_metadata``,
``build_facts`` and ``FactList``'s source map) with Google's limits at their exact edges (200
facts, 10,000 characters a fact, 4,096 answer tokens and ``MAX_ANSWER_CHARS``), the raw
request, ``grounding_result`` (claims' UTF-8 byte spans as string spans in any script, bad
spans repaired with a warning, citations resolved, cited chunks mapped back to the caller's
sources when empty sources were skipped), the component's settings and their
``ConfigurationError``s, ``replace``, ``check``/``acheck`` on the emulator (a blank answer is
not sent), ``run``/``arun``, ``decide`` and ``failure`` (``on_error`` record/raise) and
``GroundingOutcome.enforce``/``raise_if_ungrounded``.
"""

from __future__ import annotations

import copy
import json
import logging
import pickle
import re

import pytest
from google.cloud import discoveryengine_v1 as de
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_core import (
    DEFAULT_CITATION_THRESHOLD,
    DEFAULT_FALLBACK_ANSWER,
    DEFAULT_MIN_SUPPORT_SCORE,
    CitedChunk,
    Claim,
    ConfigurationError,
    DiscoveryEngineConnection,
    GroundingCheck,
    GroundingOutcome,
    GroundingReport,
    GroundingResult,
    GroundingSource,
    GroundingSpec,
    InputError,
    NotFoundError,
    ServiceUnavailableError,
    UngroundedAnswerError,
    grounding_source,
)
from grounding_core.grounding.check import (
    MAX_ANSWER_CHARS,
    MAX_ANSWER_TOKENS,
    MAX_FACT_CHARS,
    MAX_FACTS,
    FactList,
    attributes_from_metadata,
    build_facts,
    check_answer_candidate,
    estimate_tokens,
    grounding_result,
)
from grounding_core.grounding.report import NOTHING_TO_CHECK
from tests.core.emulated import PROJECT, RETRYING, result_of

PARIS = "Paris is the capital of France."
MOON = "The Moon is made of cheese."
CONFIG = f"projects/{PROJECT}/locations/global/groundingConfigs/default_grounding_config"
CHECK_LOGGER = "grounding_core.grounding.check"
SPAN_LOGGER = "grounding_core._convert"
ClaimPb = de.CheckGroundingResponse.Claim
# A code the retry policy retries (quota): UNAVAILABLE would be retried too, but a sync emulator
# channel answers it by watching its connectivity for a while, and a connection closed in that
# while raises in grpc's polling thread.
TRANSIENT = "RESOURCE_EXHAUSTED"


def offline(**kwargs: object) -> DiscoveryEngineConnection:
    """A connection that is never used: its clients are built lazily, nothing connects."""
    return DiscoveryEngineConnection(project_id="p", emulator_host="localhost:1", **kwargs)


def refusal(call, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    return info.value


def words(count: int) -> str:
    """``count`` one-letter words: ``count`` tokens in about twice as many characters."""
    return " ".join(["a"] * count)


def messages(caplog: pytest.LogCaptureFixture, logger: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == logger]


# -- GroundingSpec ---------------------------------------------------------------------------


def test_the_spec_defaults_are_googles():
    assert (DEFAULT_CITATION_THRESHOLD, DEFAULT_MIN_SUPPORT_SCORE) == (0.6, 1.0)
    spec = GroundingSpec()
    assert (spec.citation_threshold, spec.enable_claim_level_score) == (0.6, False)
    assert spec.user_labels == {}


@pytest.mark.parametrize("threshold", [0, 0.0, 0.35, 1, 1.0])
def test_a_citation_threshold_from_0_to_1_is_kept(threshold):
    assert GroundingSpec(citation_threshold=threshold).citation_threshold == threshold


@pytest.mark.parametrize(
    "threshold", [-0.1, 1.5, 1.0000001, float("nan"), float("inf"), "0.5", True, None]
)
def test_a_citation_threshold_outside_0_to_1_says_the_range(threshold):
    # The range comes first, even for a value of the wrong type.
    error = refusal(GroundingSpec, citation_threshold=threshold)
    assert (error.field, error.limit) == ("citation_threshold", "[0, 1]")
    assert "between 0 and 1" in str(error)


def test_the_claim_level_score_must_be_a_bool():
    error = refusal(GroundingSpec, enable_claim_level_score="no")
    assert (error.field, error.limit) == ("enable_claim_level_score", None)
    assert "True or False" in str(error)
    assert GroundingSpec(enable_claim_level_score=True).enable_claim_level_score is True


LABELS = {"team": "search-quality", "env": "", "équipe": "données", "k8s_ns": "a-1", "東京": "値"}


def test_valid_labels_are_kept_as_a_read_only_copy():
    given = dict(LABELS)
    spec = GroundingSpec(user_labels=given)
    given["team"] = "changed"
    assert dict(spec.user_labels) == LABELS
    with pytest.raises(TypeError):
        spec.user_labels["team"] = "x"  # type: ignore[index]
    assert spec == GroundingSpec(user_labels=LABELS)


@pytest.mark.parametrize(
    "labels",
    [
        {f"k{n}": "v" for n in range(64)},  # the most labels allowed
        {"k" * 63: "v" * 63},  # the longest key and value
        {"k": ""},  # an empty value
        {"a_-9é": "x_-"},
    ],
    ids=["64-labels", "63-characters", "empty-value", "every-kind-of-character"],
)
def test_labels_at_googles_limits_are_accepted(labels):
    assert dict(GroundingSpec(user_labels=labels).user_labels) == labels


@pytest.mark.parametrize(
    ("labels", "limit", "words"),
    [
        (["team"], None, "mapping of str to str"),
        ({f"k{n}": "" for n in range(65)}, 64, "65 labels"),
        ({"": "x"}, 63, "label rules"),
        ({"k" * 64: "x"}, 63, "label rules"),
        ({"k": "v" * 64}, 63, "label rules"),
        ({"Team": "x"}, 63, "starts with a lowercase letter"),
        ({"1st": "x"}, 63, "starts with a lowercase letter"),
        ({"_x": "x"}, 63, "starts with a lowercase letter"),
        ({"aXb": "x"}, 63, "lowercase letters, digits"),
        ({"team": "Search"}, 63, "lowercase letters, digits"),
        ({"te am": "x"}, 63, "lowercase letters, digits"),
        ({"team": "a.b"}, 63, "lowercase letters, digits"),
        ({"team": 3}, None, "keys and values must be strings"),
        ({3: "team"}, None, "keys and values must be strings"),
    ],
    ids=[
        "not-a-mapping",
        "65-labels",
        "empty-key",
        "64-character-key",
        "64-character-value",
        "uppercase-start",
        "digit-start",
        "underscore-start",
        "uppercase-inside",
        "uppercase-value",
        "space",
        "dot",
        "int-value",
        "int-key",
    ],
)
def test_labels_break_googles_rules(labels, limit, words):
    error = refusal(GroundingSpec, user_labels=labels)
    assert (error.field, error.limit) == ("user_labels", limit)
    assert words in str(error)


def test_a_spec_with_labels_pickles_and_copies():
    spec = GroundingSpec(0.25, True, {"team": "docs"})
    for copied in (pickle.loads(pickle.dumps(spec)), copy.deepcopy(spec), copy.copy(spec)):
        assert copied == spec
        assert dict(copied.user_labels) == {"team": "docs"}
        with pytest.raises(TypeError):
            copied.user_labels["team"] = "x"  # type: ignore[index]


# -- answer candidates and their token estimate ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("Hello, world!", 4),
        ("a_b", 2),  # the underscore is neither a word character nor punctuation
        ("3.14", 3),
        ("東京は大きい", 6),  # one token per CJK or kana character
        ("ひらがな", 4),
        ("カタカナ", 4),
        ("한국어", 3),
        ("㐀㐁", 2),  # CJK extension A
        ("豈更", 2),  # CJK compatibility ideographs
        ("Zürich naïve", 2),
        ("👩‍🚀!", 4),
    ],
)
def test_the_token_estimate_counts_words_punctuation_and_each_cjk_character(text, tokens):
    assert estimate_tokens(text) == tokens


def test_an_answer_of_exactly_4096_tokens_is_accepted_and_4097_refused():
    answer = words(MAX_ANSWER_TOKENS)
    assert len(answer) > MAX_ANSWER_TOKENS  # long enough to be counted
    assert check_answer_candidate(answer) is answer
    error = refusal(check_answer_candidate, words(MAX_ANSWER_TOKENS + 1))
    assert (error.field, error.limit) == ("answer_candidate", MAX_ANSWER_TOKENS)
    assert "about 4097 tokens" in str(error)


@pytest.mark.parametrize("size", [MAX_ANSWER_TOKENS - 1, MAX_ANSWER_TOKENS])
def test_an_answer_of_at_most_4096_characters_is_never_refused_for_its_tokens(size):
    answer = "." * size  # one token per character
    assert estimate_tokens(answer) == size
    assert check_answer_candidate(answer) is answer


def test_the_shortest_answer_over_4096_tokens_is_refused():
    error = refusal(check_answer_candidate, "." * (MAX_ANSWER_TOKENS + 1))
    assert (error.field, error.limit) == ("answer_candidate", MAX_ANSWER_TOKENS)


def test_an_answer_at_the_character_bound_is_accepted_and_one_more_is_refused():
    # One run without spaces is one token to the estimate: the character bound refuses it.
    assert MAX_ANSWER_CHARS == 32 * MAX_ANSWER_TOKENS
    edge = "a" * MAX_ANSWER_CHARS
    assert check_answer_candidate(edge) is edge
    error = refusal(check_answer_candidate, edge + "a")
    assert (error.field, error.limit) == ("answer_candidate", MAX_ANSWER_CHARS)
    assert re.search(
        f"^answer_candidate has {MAX_ANSWER_CHARS + 1} characters; .* no text over "
        f"{MAX_ANSWER_CHARS} characters is within: check the answer in parts "
        r"\(for example paragraph by paragraph\)$",
        str(error),
    )


def test_a_cjk_answer_is_counted_per_character():
    assert check_answer_candidate("東京" * 2000) == "東京" * 2000  # 4,000 tokens
    error = refusal(check_answer_candidate, "東京" * 2049)  # 4,098 tokens
    assert (error.field, error.limit) == ("answer_candidate", MAX_ANSWER_TOKENS)


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (42, "must be a string, got int$"),
        (None, "must be a string, got NoneType$"),
        (b"bytes", "must be a string, got bytes$"),
        ("", "is empty: there is nothing to check; generate an answer first$"),
        (" \n\t", "^answer_candidate is empty"),
        ("ok \udc80 then", r"lone surrogate \(U\+DC80\) at character 3"),
    ],
    ids=["int", "none", "bytes", "empty", "blank", "lone-surrogate"],
)
def test_an_answer_that_cannot_be_checked_names_the_field(answer, words):
    error = refusal(check_answer_candidate, answer)
    assert (error.field, error.limit) == ("answer_candidate", None)
    assert re.search(words, str(error))


# -- facts -------------------------------------------------------------------------------------


def test_attributes_are_strings_as_they_are_and_json_otherwise():
    class Thing:
        def __str__(self) -> str:
            return "thing"

    attributes = attributes_from_metadata(
        {
            "title": "Über",
            "page": 3,
            "score": 0.5,
            "ok": True,
            "tags": ["x", "ü"],
            "nested": {"a": [1, {"b": None}]},
            "missing": None,
            "nan": float("nan"),  # not JSON: no value, so no attribute
            7: "int key",
            "obj": Thing(),  # an object is its str(): a string attribute
            "in": [Thing()],
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
        "obj": "thing",
        "in": '["thing"]',
    }


def test_no_metadata_is_no_attributes():
    assert attributes_from_metadata(None) == {}
    assert attributes_from_metadata({}) == {}


@pytest.mark.parametrize(
    ("metadata", "path", "field"),
    [
        (["x"], "metadata", "metadata"),
        (("x",), "sources[1].metadata", "sources[1].metadata"),
        ("x", "m", "m"),
    ],
)
def test_metadata_that_is_not_a_mapping_is_refused_by_its_path(metadata, path, field):
    if path == "metadata":
        error = refusal(attributes_from_metadata, metadata)
    else:
        error = refusal(attributes_from_metadata, metadata, path)
    assert (error.field, error.limit) == (field, None)
    assert f"got {type(metadata).__name__}" in str(error)


def test_facts_skip_empty_sources_and_map_each_fact_to_its_source():
    facts = build_facts(
        ["a", "", GroundingSource("  \n"), GroundingSource("b", {"uri": "u"}), GroundingSource("c")]
    )
    assert facts == FactList(("a", "b", "c"), ({}, {"uri": "u"}, {}), (0, 3, 4))
    assert [facts.source_index(i) for i in range(3)] == [0, 3, 4]
    assert facts.source_index(3) is None  # one past the last fact
    assert facts.source_index(-1) is None
    assert facts.source_index(None) is None
    assert build_facts([]) == FactList((), (), ())


def test_a_blank_source_is_skipped_whatever_its_length():
    facts = build_facts([" " * (MAX_FACT_CHARS + 1), "ok"])
    assert (facts.texts, facts.source_indices) == (("ok",), (1,))


def test_a_bulky_source_from_grounding_source_sends_only_its_useful_attributes():
    source = grounding_source(
        "text",
        {
            "title": "T",
            "source": "u",
            "previous_chunks": [{"content": "x"}],
            "rank_signals": {},
            "relevance_score": 0.5,
            "page_start": None,
            "description": "",
        },
    )
    assert build_facts([source]).attributes == (
        {"title": "T", "source": "u", "relevance_score": "0.5"},
    )


def test_exactly_200_facts_are_accepted_and_201_refused():
    facts = build_facts([f"fact {i}" for i in range(MAX_FACTS)] + [""] * 50)
    assert len(facts.texts) == MAX_FACTS
    assert facts.source_indices == tuple(range(MAX_FACTS))
    error = refusal(build_facts, [f"fact {i}" for i in range(MAX_FACTS + 1)])
    assert (error.field, error.limit) == ("facts", MAX_FACTS)
    assert "201 non-empty sources" in str(error)


def test_a_fact_of_exactly_10000_characters_is_accepted_and_10001_refused():
    assert build_facts(["x" * MAX_FACT_CHARS]).texts == ("x" * MAX_FACT_CHARS,)
    # The refused source is named by its position among the sources, empty ones included.
    error = refusal(build_facts, ["", "x" * (MAX_FACT_CHARS + 1)])
    assert (error.field, error.limit) == ("facts[1].fact_text", MAX_FACT_CHARS)
    assert "sources[1] has 10,001 characters" in str(error)


@pytest.mark.parametrize(
    ("sources", "field", "words"),
    [
        ("text", "facts", "got str"),
        (b"raw", "facts", "got bytes"),
        (7, "facts", "got int"),
        (None, "facts", "got NoneType"),
        (["a", 3], "facts[1]", "sources[1] must be a str or GroundingSource, got int"),
        ([None], "facts[0]", "got NoneType"),
        ([b"x"], "facts[0]", "got bytes"),
        (
            [GroundingSource(b"x")],
            "facts[0].fact_text",
            "sources[0].text must be a string, got bytes",
        ),
        (["a", "b", "c\ud800"], "facts[2].fact_text", "lone surrogate (U+D800)"),
    ],
    ids=[
        "str",
        "bytes",
        "int",
        "none",
        "int-item",
        "none-item",
        "bytes-item",
        "bytes-text",
        "lone-surrogate",
    ],
)
def test_sources_that_cannot_be_facts_name_the_field(sources, field, words):
    error = refusal(build_facts, sources)
    assert (error.field, error.limit) == (field, None)
    assert words in str(error)


@pytest.mark.parametrize(
    ("source", "field", "words"),
    [
        (GroundingSource("b", ("x",)), "sources[1].metadata", "must be a dict of attributes"),
        (
            GroundingSource("b", {"k": {"v": b"\xff"}}),
            "sources[1].metadata['k']['v']",
            "not UTF-8",
        ),
        (GroundingSource("b", {"k": "\ud800"}), "sources[1].metadata['k']", "lone surrogate"),
    ],
)
def test_metadata_that_cannot_be_attributes_is_named_by_its_source(source, field, words):
    error = refusal(build_facts, ["a", source])
    assert error.field == field
    assert words in str(error)


# -- the request -------------------------------------------------------------------------------


def test_the_request_has_every_field():
    check = GroundingCheck(
        offline(), citation_threshold=0.8, enable_claim_level_score=True, user_labels=LABELS
    )
    sources = ["", GroundingSource("Fact ✓", {"uri": "u", "page": 2}), "Other."]
    request, facts = check.request("Answer.", sources)
    assert request.grounding_config == check.grounding_config
    assert request.answer_candidate == "Answer."
    assert [(f.fact_text, dict(f.attributes)) for f in request.facts] == [
        ("Fact ✓", {"uri": "u", "page": "2"}),
        ("Other.", {}),
    ]
    assert request.grounding_spec.citation_threshold == pytest.approx(0.8)
    assert request.grounding_spec.enable_claim_level_score is True
    assert dict(request.user_labels) == LABELS
    assert facts == FactList(("Fact ✓", "Other."), ({"uri": "u", "page": "2"}, {}), (1, 2))


def test_the_default_request_asks_for_googles_defaults():
    request, facts = GroundingCheck(offline()).request(PARIS, [PARIS])
    assert request.grounding_spec.citation_threshold == pytest.approx(0.6)
    assert request.grounding_spec.enable_claim_level_score is False
    assert dict(request.user_labels) == {}
    assert facts.source_indices == (0,)


@pytest.mark.parametrize(
    "settings",
    [{}, {"citation_threshold": 0, "enable_claim_level_score": True, "user_labels": {"a": "b"}}],
)
def test_the_raw_request_is_the_proto_plus_one(settings):
    check = GroundingCheck(offline(), **settings)
    sources = ["Paris is in France.", "", GroundingSource("Tokyo 東京", {"n": 1, "t": "x"})]
    fast, facts = check.request("Paris.", sources)
    plain = de.CheckGroundingRequest(
        grounding_config=check.grounding_config,
        answer_candidate="Paris.",
        facts=[
            de.GroundingFact(fact_text=text, attributes=attributes)
            for text, attributes in zip(facts.texts, facts.attributes, strict=True)
        ],
        grounding_spec=de.CheckGroundingSpec(
            citation_threshold=check.spec.citation_threshold,
            enable_claim_level_score=check.spec.enable_claim_level_score,
        ),
        user_labels=dict(check.spec.user_labels),
    )
    # Map fields (the attributes) serialize in no fixed order unless asked to.
    assert fast.SerializeToString(deterministic=True) == de.CheckGroundingRequest.pb(
        plain
    ).SerializeToString(deterministic=True)


def test_the_request_refuses_what_the_api_would():
    check = GroundingCheck(offline())
    assert refusal(check.request, " ", [PARIS]).field == "answer_candidate"
    assert refusal(check.request, PARIS, PARIS).field == "facts"


def test_a_request_over_10_mib_is_refused_before_it_is_sent():
    bulky = {"blob": "x" * 60_000}
    sources = [GroundingSource("y" * MAX_FACT_CHARS, bulky) for _ in range(MAX_FACTS)]
    error = refusal(GroundingCheck(offline()).request, PARIS, sources)
    assert (error.field, error.limit) == ("request", 10 * 1024 * 1024)
    assert "CheckGrounding request" in str(error)


# -- grounding_result: the response as a record ------------------------------------------------


def pb(message):
    return type(message).pb(message)


def converted(answer, claims=(), cited_chunks=(), sources=(), **fields) -> GroundingResult:
    response = de.CheckGroundingResponse(
        claims=list(claims), cited_chunks=list(cited_chunks), **fields
    )
    return grounding_result(answer, pb(response), build_facts(list(sources)))


def byte_span(text: str, part: str, start: int = 0) -> tuple[int, int]:
    first = text.index(part, start)
    return len(text[:first].encode()), len(text[: first + len(part)].encode())


def test_a_result_keeps_every_field():
    answer = "Paris is in France. Lyon too."
    result = converted(
        answer,
        [
            ClaimPb(
                start_pos=0, end_pos=19, claim_text="Paris is in France.", citation_indices=[0]
            ),
            ClaimPb(start_pos=20, end_pos=29, claim_text="Lyon too.", citation_indices=[0]),
        ],
        [de.FactChunk(chunk_text="Paris, France", source="0", source_metadata={"k": "v"})],
        ["", "Paris, France"],
    )
    cited = CitedChunk("Paris, France", source_index=1, fact_index=0, attributes={"k": "v"})
    assert result == GroundingResult(
        answer=answer,
        support_score=None,
        claims=(
            Claim("Paris is in France.", 0, 19, 0, 19, (0,), (cited,)),
            Claim("Lyon too.", 20, 29, 20, 29, (0,), (cited,)),
        ),
        cited_chunks=(cited,),
    )


NON_ASCII_ANSWER = "東京は日本の首都です。 Paris 🇫🇷 est la capitale. مرحبا بكم في القاهرة."
CLAIMS = ["東京は日本の首都です。", "Paris 🇫🇷 est la capitale.", "مرحبا بكم في القاهرة."]


def test_claims_slice_a_non_ascii_answer_and_cite_the_callers_sources():
    response = de.CheckGroundingResponse(
        support_score=0.66,
        cited_chunks=[
            de.FactChunk(chunk_text="Tokyo fact", source="0", source_metadata={"uri": "u0"}),
            de.FactChunk(chunk_text="Paris fact", source="1", uri="u2", title="T2", domain="d2"),
        ],
        cited_facts=[de.CheckGroundingResponse.CheckGroundingFactChunk(chunk_text="Tokyo fact")],
        claims=[
            ClaimPb(
                start_pos=byte_span(NON_ASCII_ANSWER, text)[0],
                end_pos=byte_span(NON_ASCII_ANSWER, text)[1],
                claim_text=text,
                citation_indices=indices,
                score=0.5,
            )
            for text, indices in zip(CLAIMS, [[0], [1], []], strict=True)
        ],
    )
    facts = build_facts(["Tokyo fact", "   ", "Paris fact"])  # the blank source is skipped
    result = grounding_result(NON_ASCII_ANSWER, pb(response), facts)
    assert result.support_score == pytest.approx(0.66)
    assert [c.text for c in result.claims] == CLAIMS
    encoded = NON_ASCII_ANSWER.encode()
    for claim in result.claims:
        assert NON_ASCII_ANSWER[claim.start : claim.end] == claim.text
        assert encoded[claim.byte_start : claim.byte_end].decode() == claim.text
        assert claim.score == 0.5
    # Fact 1 came from source 2: source 1 was blank.
    assert [c.source_indices for c in result.claims] == [(0,), (2,), ()]
    assert [c.status for c in result.claims] == ["supported", "supported", "unsupported"]
    assert result.cited_chunks == (
        CitedChunk("Tokyo fact", source_index=0, fact_index=0, attributes={"uri": "u0"}),
        CitedChunk("Paris fact", source_index=2, fact_index=1, uri="u2", title="T2", domain="d2"),
    )
    assert result.claims[1].citations == (result.cited_chunks[1],)
    assert result.cited_facts == ("Tokyo fact",)
    assert result.unsupported_claims == (result.claims[2],)
    as_dict = json.loads(json.dumps(result.to_dict()))
    assert as_dict["claims"][1]["citations"][0]["source_index"] == 2


CHARACTERS = st.characters(codec="utf-8", exclude_characters="\x00")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(CHARACTERS, min_size=1, max_size=8), min_size=1, max_size=4))
def test_claim_byte_spans_become_string_spans_in_any_script(parts):
    answer = " ".join(parts)
    claims, cursor = [], 0
    for part in parts:
        start, end = byte_span(answer, part, cursor)
        cursor = answer.index(part, cursor) + len(part)
        claims.append(ClaimPb(start_pos=start, end_pos=end, claim_text=part))
    result = converted(answer, claims)
    encoded = answer.encode()
    for part, claim in zip(parts, result.claims, strict=True):
        assert claim.text == part
        assert answer[claim.start : claim.end] == part
        assert encoded[claim.byte_start : claim.byte_end].decode() == part


@pytest.mark.parametrize(
    "char", ["\u0080", "\u07ff", "\u0800", "\uffff", "\U00010000", "\U0010ffff"]
)
def test_claims_around_the_first_and_last_multibyte_characters(char):
    answer = f"{char}. {char}{char}."
    size = len(char.encode())
    result = converted(
        answer,
        [
            ClaimPb(start_pos=0, end_pos=size + 1, claim_text=f"{char}."),
            ClaimPb(start_pos=size + 2, end_pos=3 * size + 3, claim_text=f"{char}{char}."),
        ],
    )
    assert [(c.start, c.end, c.byte_start, c.byte_end) for c in result.claims] == [
        (0, 2, 0, size + 1),
        (3, 6, size + 2, 3 * size + 3),
    ]


def test_a_claim_score_and_a_claim_that_needed_no_check():
    answer = "Hello! Water boils at 100 °C."
    result = converted(
        answer,
        [
            ClaimPb(start_pos=0, end_pos=6, claim_text="Hello!", grounding_check_required=False),
            ClaimPb(
                start_pos=7,
                end_pos=len(answer.encode()),
                claim_text="Water boils at 100 °C.",
                score=0.25,
                grounding_check_required=True,
            ),
            ClaimPb(start_pos=0, end_pos=6, claim_text="Hello!", score=0.0),
        ],
    )
    hello, water, scored_zero = result.claims
    assert (hello.status, hello.score, hello.grounding_check_required) == (
        "not_checked",
        None,
        False,
    )
    assert (water.score, water.grounding_check_required) == (0.25, True)
    assert answer[water.start : water.end] == water.text
    # An unset grounding_check_required means a check was required; a score of 0 is kept.
    assert (scored_zero.grounding_check_required, scored_zero.score) == (True, 0.0)
    assert result.support_score is None
    assert result.checked_claims == (water, scored_zero)


def test_a_support_score_of_zero_is_kept():
    assert converted("x", support_score=0.0).support_score == 0.0


@pytest.mark.parametrize("field", ["start_pos", "end_pos", None])
def test_a_claim_without_both_positions_has_no_span(field, caplog):
    positions = {field: 3} if field else {}
    with caplog.at_level(logging.WARNING, logger=SPAN_LOGGER):
        result = converted("Hello there.", [ClaimPb(claim_text="Hello there.", **positions)])
    assert result.claims == (Claim("Hello there."),)
    assert messages(caplog, SPAN_LOGGER) == []


def test_a_citation_index_one_past_the_end_is_kept_but_left_unresolved(caplog):
    with caplog.at_level(logging.WARNING, logger=SPAN_LOGGER):
        result = converted(
            "ok",
            [ClaimPb(start_pos=0, end_pos=2, claim_text="ok", citation_indices=[0, 1])],
            [de.FactChunk(chunk_text="f", source="0")],
            ["f"],
        )
    (claim,) = result.claims
    assert claim.citation_indices == (0, 1)
    assert claim.citations == (CitedChunk("f", source_index=0, fact_index=0),)
    (warning,) = messages(caplog, SPAN_LOGGER)
    assert "claims[0].citation_indices points at index 1" in warning


def test_a_cited_chunk_of_another_source_has_no_source_index():
    result = converted(
        "a",
        cited_chunks=[
            de.FactChunk(chunk_text="web", source="google-search"),
            de.FactChunk(chunk_text="x", source="7"),  # a fact that was not sent
            de.FactChunk(chunk_text="y", source="-1"),
        ],
        sources=["f"],
    )
    assert [(c.fact_index, c.source_index) for c in result.cited_chunks] == [
        (None, None),
        (7, None),
        (None, None),
    ]


def test_valid_spans_log_nothing(caplog):
    with caplog.at_level(logging.WARNING, logger=SPAN_LOGGER):
        result = converted(
            "ab. ab.",
            [
                ClaimPb(start_pos=4, end_pos=7, claim_text="ab."),
                ClaimPb(start_pos=0, end_pos=3, claim_text="ab."),
            ],
        )
    assert [(c.start, c.end) for c in result.claims] == [(4, 7), (0, 3)]
    assert messages(caplog, SPAN_LOGGER) == []


def test_spans_counted_in_characters_are_repaired_to_the_claim_text(caplog):
    answer = "Ünïcödé first. Second ✓ claim."
    start = answer.index("Second")  # a buggy server that counted characters, not bytes
    with caplog.at_level(logging.WARNING, logger=SPAN_LOGGER):
        (claim,) = converted(
            answer, [ClaimPb(start_pos=start, end_pos=start + 15, claim_text="Second ✓ claim.")]
        ).claims
    assert answer[claim.start : claim.end] == "Second ✓ claim."
    assert answer.encode()[claim.byte_start : claim.byte_end].decode() == "Second ✓ claim."
    (warning,) = messages(caplog, SPAN_LOGGER)
    assert warning.startswith("claims[0] start_pos/end_pos: the service sent bytes")
    assert "not to the claim text 'Second ✓ claim.'" in warning


def test_repeated_claim_text_is_repaired_to_its_next_occurrence(caplog):
    # Offsets counted in characters: every claim after the "é" is off by one byte.
    answer = "é. Yes. Yes. Yes."
    claims = [ClaimPb(start_pos=0, end_pos=3, claim_text="é.")] + [
        ClaimPb(start_pos=s, end_pos=s + 4, claim_text="Yes.") for s in (3, 8, 13)
    ]
    with caplog.at_level(logging.WARNING, logger=SPAN_LOGGER):
        result = converted(answer, claims)
    assert [(c.start, c.end) for c in result.claims] == [(0, 2), (3, 7), (8, 12), (13, 17)]
    assert [(c.byte_start, c.byte_end) for c in result.claims] == [
        (0, 3),
        (4, 8),
        (9, 13),
        (14, 18),
    ]
    warnings = messages(caplog, SPAN_LOGGER)
    assert [w.split(":")[0] for w in warnings] == [
        "claims[1] start_pos/end_pos",
        "claims[2] start_pos/end_pos",
        "claims[3] start_pos/end_pos",
    ]
    assert "using characters [8, 12) instead" in warnings[1]


@pytest.mark.parametrize(
    ("answer", "claims", "spans"),
    [
        # after a valid span, repeated text is searched after it
        ("ab. ab. cd.", [(0, 3, "ab."), (8, 11, "ab.")], [(0, 3), (4, 7)]),
        # text found only before the cursor is found from the start
        ("A. A. B.", [(6, 8, "B."), (6, 8, "A.")], [(6, 8), (0, 2)]),
        # a first claim whose bytes slice other text; its text is at 0 and again later
        ("ab. ab.", [(1, 4, "ab.")], [(0, 3)]),
        # a valid span with the wrong text, whose text is at the start
        ("ab. cd.", [(4, 7, "ab.")], [(0, 3)]),
        # a claim at the very start, whose end falls inside a character
        ("Ünï. Rest.", [(0, 4, "Ünï.")], [(0, 4)]),
    ],
    ids=["after-a-valid-span", "before-the-cursor", "at-the-start", "moved-to-start", "inside"],
)
def test_bad_spans_are_repaired_to_where_the_claim_text_is(answer, claims, spans):
    result = converted(
        answer, [ClaimPb(start_pos=s, end_pos=e, claim_text=t) for s, e, t in claims]
    )
    assert [(c.start, c.end) for c in result.claims] == spans
    for claim in result.claims:
        assert answer[claim.start : claim.end] == claim.text


def test_a_valid_span_whose_claim_text_is_nowhere_is_kept_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger=SPAN_LOGGER):
        (claim,) = converted("ab. cd.", [ClaimPb(start_pos=4, end_pos=7, claim_text="xy.")]).claims
    assert (claim.start, claim.end, claim.text) == (4, 7, "xy.")
    (warning,) = messages(caplog, SPAN_LOGGER)
    assert "slice to 'cd.', not to the claim text 'xy.'" in warning


@pytest.mark.parametrize(
    ("byte_start", "byte_end", "span"),
    [(0, 2, (0, 1)), (1, 4, (0, 2)), (4, 5, (1, 2)), (2, 2, (0, 1)), (1, 99, (0, 2))],
)
def test_offsets_inside_or_past_characters_round_outwards(byte_start, byte_end, span, caplog):
    with caplog.at_level(logging.WARNING, logger=SPAN_LOGGER):
        (claim,) = converted(
            "日本", [ClaimPb(start_pos=byte_start, end_pos=byte_end, claim_text="zz")]
        ).claims
    assert (claim.start, claim.end) == span
    assert (claim.byte_start, claim.byte_end) == (3 * span[0], 3 * span[1])
    (warning,) = messages(caplog, SPAN_LOGGER)
    assert f"bytes [{byte_start}, {byte_end}), which do not fit the text" in warning


# -- the component's settings ------------------------------------------------------------------


def test_the_component_defaults():
    connection = offline()
    check = GroundingCheck(connection)
    assert check.connection is connection
    assert check.grounding_config == (
        "projects/p/locations/global/groundingConfigs/default_grounding_config"
    )
    assert check.spec == GroundingSpec()
    assert check.min_support_score == DEFAULT_MIN_SUPPORT_SCORE
    assert check.on_ungrounded == "annotate"
    assert check.fallback_answer == DEFAULT_FALLBACK_ANSWER
    assert check.on_error == "raise"


def test_the_component_takes_every_setting():
    connection = DiscoveryEngineConnection(
        project_id="p", location="eu", emulator_host="localhost:1"
    )
    check = GroundingCheck(
        connection,
        grounding_config="strict",
        citation_threshold=0.8,
        enable_claim_level_score=True,
        user_labels={"team": "docs"},
        min_support_score=0.9,
        on_ungrounded="fallback",
        fallback_answer="No.",
        on_error="record",
    )
    assert check.grounding_config == "projects/p/locations/eu/groundingConfigs/strict"
    assert check.spec == GroundingSpec(0.8, True, {"team": "docs"})
    assert (check.min_support_score, check.on_ungrounded) == (0.9, "fallback")
    assert (check.fallback_answer, check.on_error) == ("No.", "record")


@pytest.mark.parametrize("score", [0, 1])
def test_the_pass_mark_may_be_0_or_1_and_is_a_float(score):
    check = GroundingCheck(offline(), min_support_score=score)
    assert check.min_support_score == score
    assert type(check.min_support_score) is float


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"citation_threshold": 1.5}, "citation_threshold"),
        ({"citation_threshold": -1}, "citation_threshold"),
        ({"enable_claim_level_score": "yes"}, "enable_claim_level_score"),
        ({"user_labels": {"Team": "docs"}}, "user_labels"),
        ({"min_support_score": -0.1}, "min_support_score"),
        ({"min_support_score": 2}, "min_support_score"),
        ({"min_support_score": "high"}, "min_support_score"),
        ({"on_ungrounded": "ignore"}, "on_ungrounded"),
        ({"on_error": "swallow"}, "on_error"),
        ({"fallback_answer": None}, "fallback_answer"),
        ({"fallback_answer": 5}, "fallback_answer"),
        ({"fallback_answer": "no \ud800"}, "fallback_answer"),
    ],
)
def test_a_bad_setting_is_a_configuration_error_naming_it(settings, field):
    with pytest.raises(ConfigurationError, match=field) as info:
        GroundingCheck(offline(), **settings)
    cause = info.value.__cause__
    assert isinstance(cause, InputError)
    assert cause.field == field


@pytest.mark.parametrize("config", ["a/b", "", "x y"])
def test_a_bad_grounding_config_is_a_configuration_error(config):
    with pytest.raises(ConfigurationError, match="grounding_config"):
        GroundingCheck(offline(), grounding_config=config)


def test_a_replaced_component_keeps_the_other_settings_and_is_checked_again():
    connection = DiscoveryEngineConnection(
        project_id="p", location="eu", emulator_host="localhost:1"
    )
    check = GroundingCheck(
        connection,
        grounding_config="strict",
        citation_threshold=0.8,
        enable_claim_level_score=True,
        user_labels={"team": "docs"},
        min_support_score=0.9,
        on_ungrounded="fallback",
        fallback_answer="No.",
    )
    variant = check.replace(on_error="record")
    assert variant.connection is connection
    assert variant.on_error == "record"
    settings = (
        "grounding_config",
        "spec",
        "min_support_score",
        "on_ungrounded",
        "fallback_answer",
    )
    assert [getattr(variant, s) for s in settings] == [getattr(check, s) for s in settings]
    assert check.on_error == "raise"  # the original is unchanged
    assert check.replace(grounding_config="other").grounding_config.endswith("/other")
    assert check.replace(citation_threshold=0.1).spec == GroundingSpec(0.1, True, {"team": "docs"})
    with pytest.raises(ConfigurationError, match="on_error"):
        check.replace(on_error="never")
    with pytest.raises(TypeError):
        check.replace(spec=GroundingSpec())


def test_a_replaced_subclass_is_a_plain_check_with_the_same_settings():
    class Wrapped(GroundingCheck):
        """What a caller adds around the check."""

    wrapped = Wrapped(offline(), min_support_score=0.5)
    variant = wrapped.replace(on_error="record")
    assert type(variant) is GroundingCheck
    assert (variant.min_support_score, variant.on_error) == (0.5, "record")


def test_the_repr_shows_the_settings_and_no_secret():
    connection = offline(client_options={"api_key": "SECRET"})
    text = repr(GroundingCheck(connection, min_support_score=0.7))
    assert text == (
        "GroundingCheck(grounding_config='projects/p/locations/global/groundingConfigs/"
        "default_grounding_config', citation_threshold=0.6, min_support_score=0.7, "
        "on_ungrounded='annotate', on_error='raise', endpoint='localhost:1')"
    )


# -- the policies (decide, failure, the outcome) ----------------------------------------------


def scored_report(min_support_score: float) -> GroundingReport[str]:
    """A report whose support score is 0.66 (passes at 0.6, fails at 0.9), one claim
    unsupported."""
    answer = "Paris is big. Lyon is old."
    cited = CitedChunk("fact", source_index=0, fact_index=0)
    claims = (
        Claim("Paris is big.", 0, 13, 0, 13, (0,), (cited,)),
        Claim("Lyon is old.", 14, 26, 14, 26),
    )
    result = GroundingResult(answer, 0.66, claims, (cited,))
    return GroundingReport(result, ("a",), (), min_support_score=min_support_score)


def test_an_outcome_by_default_annotates_and_keeps_the_answer():
    report = scored_report(0.9)
    outcome = GroundingOutcome(report)
    assert (outcome.report, outcome.on_ungrounded) == (report, "annotate")
    assert (outcome.fallback_answer, outcome.error) == (None, None)
    outcome.enforce()


@pytest.mark.parametrize("policy", ["annotate", "raise", "fallback"])
def test_a_passing_answer_is_kept_under_every_policy(policy):
    check = GroundingCheck(offline(), on_ungrounded=policy, fallback_answer="No.")
    passing = scored_report(0.6)
    outcome = check.decide(passing)
    assert outcome == GroundingOutcome(passing, policy, None, None)
    outcome.enforce()
    outcome.raise_if_ungrounded()


def test_annotate_keeps_an_ungrounded_answer():
    failing = scored_report(0.9)
    outcome = GroundingCheck(offline()).decide(failing)
    assert outcome == GroundingOutcome(failing, "annotate", None, None)
    outcome.enforce()


def test_fallback_replaces_an_ungrounded_answer():
    failing = scored_report(0.9)
    check = GroundingCheck(offline(), on_ungrounded="fallback", fallback_answer="No.")
    outcome = check.decide(failing)
    assert outcome == GroundingOutcome(failing, "fallback", "No.", None)
    outcome.enforce()


def test_raise_raises_only_when_enforced():
    failing = scored_report(0.9)
    outcome = GroundingCheck(offline(), on_ungrounded="raise").decide(failing)
    assert outcome == GroundingOutcome(failing, "raise", None, None)
    with pytest.raises(UngroundedAnswerError, match=r"0\.66 is below the required 0\.90") as info:
        outcome.enforce()
    assert info.value.result is failing
    assert info.value.__cause__ is None


@pytest.mark.parametrize("policy", ["annotate", "fallback"])
def test_raise_if_ungrounded_raises_whatever_the_policy(policy):
    failing = scored_report(0.9)
    outcome = GroundingCheck(offline(), on_ungrounded=policy).decide(failing)
    outcome.enforce()
    with pytest.raises(UngroundedAnswerError) as info:
        outcome.raise_if_ungrounded()
    assert info.value.result is failing


def test_an_error_given_to_decide_is_kept_in_the_outcome():
    error = ServiceUnavailableError("down")
    passing = scored_report(0.6)
    assert GroundingCheck(offline()).decide(passing, error) == GroundingOutcome(
        passing, "annotate", None, error
    )


def test_on_error_raise_raises_the_error_itself():
    error = ServiceUnavailableError("CheckGrounding: down")
    with pytest.raises(ServiceUnavailableError) as info:
        GroundingCheck(offline()).failure(error, ["a"], [GroundingSource("a")])
    assert info.value is error


def test_on_error_record_logs_the_error_and_reports_a_failed_check(caplog):
    error = ServiceUnavailableError("CheckGrounding: down")
    check = GroundingCheck(offline(), on_error="record", min_support_score=0.7)
    facts = [GroundingSource("a"), GroundingSource("b")]
    with caplog.at_level(logging.WARNING, logger=CHECK_LOGGER):
        outcome = check.failure(error, ["a", "b"], facts, ["id-a", "id-b"])
    assert messages(caplog, CHECK_LOGGER) == [
        "the grounding check failed; the answer is kept: CheckGrounding: down"
    ]
    assert caplog.records[0].levelno == logging.WARNING
    assert caplog.records[0].exc_info[1] is error
    assert outcome == GroundingOutcome(
        GroundingReport(
            None,
            ("a", "b"),
            tuple(facts),
            min_support_score=0.7,
            error="ServiceUnavailableError: CheckGrounding: down",
            source_ids=("id-a", "id-b"),
        ),
        "annotate",
        None,
        error,
    )
    outcome.enforce()


def test_a_recorded_failure_names_its_sources_by_position_by_default():
    check = GroundingCheck(offline(), on_error="record")
    outcome = check.failure(InputError("no text", field="x"), ["a", "b"], [])
    assert outcome.report.source_ids == ("0", "1")


def test_a_recorded_failure_falls_back():
    error = InputError("no text", field="response")
    check = GroundingCheck(offline(), on_error="record", on_ungrounded="fallback")
    outcome = check.failure(error, [], [])
    assert (outcome.fallback_answer, outcome.error) == (DEFAULT_FALLBACK_ANSWER, error)
    assert outcome.report.error == "InputError: no text"


@pytest.mark.parametrize("policy", ["raise", "annotate"])
def test_a_recorded_failure_raises_with_its_cause_when_asked(policy):
    error = ServiceUnavailableError("CheckGrounding: down")
    check = GroundingCheck(offline(), on_error="record", on_ungrounded=policy)
    outcome = check.failure(error, ["a"], [GroundingSource("a")])
    raising = outcome.enforce if policy == "raise" else outcome.raise_if_ungrounded
    with pytest.raises(UngroundedAnswerError, match="could not be checked") as info:
        raising()
    assert info.value.__cause__ is error
    assert info.value.result is outcome.report
    assert "ServiceUnavailableError: CheckGrounding: down" in str(info.value)


def test_an_empty_answer_never_raises_and_falls_back():
    empty = GroundingReport.nothing_to_check("", ("a",), ())
    raising = GroundingCheck(offline(), on_ungrounded="raise").decide(empty)
    raising.enforce()
    raising.raise_if_ungrounded()
    falling = GroundingCheck(offline(), on_ungrounded="fallback").decide(empty)
    assert falling.fallback_answer == DEFAULT_FALLBACK_ANSWER


# -- checks on the emulator --------------------------------------------------------------------


@pytest.fixture
def connection(connections):
    return connections[0]


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_check_reports_on_the_callers_objects(connection, caplog, asynchronous):
    check = GroundingCheck(connection, min_support_score=0.9)
    checking = check.acheck if asynchronous else check.check
    answer = f"{PARIS} {MOON}"
    sources = ["doc-empty", "doc-paris"]
    facts = [GroundingSource(""), GroundingSource(PARIS, {"uri": "u", "n": 3})]
    with caplog.at_level(logging.DEBUG, logger=CHECK_LOGGER):
        report = await result_of(checking, answer, sources, facts, ["e", "p"])
    assert messages(caplog, CHECK_LOGGER) == ["support score 0.5 for 2 sources"]
    cited = CitedChunk(
        PARIS, source_index=1, fact_index=0, attributes={"uri": "u", "n": "3"}, uri="u"
    )
    assert report == GroundingReport(
        GroundingResult(
            answer,
            0.5,
            (
                Claim(PARIS, 0, 31, 0, 31, (0,), (cited,)),
                Claim(MOON, 32, 59, 32, 59),
            ),
            (cited,),
            (PARIS,),
        ),
        ("doc-empty", "doc-paris"),
        tuple(facts),
        min_support_score=0.9,
        source_ids=("e", "p"),
    )
    assert [c.sources for c in report.claims] == [("doc-paris",), ()]
    assert not report.passed


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_check_asks_for_claim_scores_and_sends_the_labels(connection, asynchronous):
    check = GroundingCheck(connection, enable_claim_level_score=True, user_labels=LABELS)
    checking = check.acheck if asynchronous else check.check
    report = await result_of(checking, f"{PARIS} {MOON}", ["d"], [GroundingSource(PARIS)])
    assert [c.score for c in report.claims] == [1.0, 0.0]
    assert report.source_ids == ("0",)
    assert report.min_support_score == 1.0


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_passing_check_names_its_sources_by_position(connection, asynchronous):
    check = GroundingCheck(connection)
    checking = check.acheck if asynchronous else check.check
    report = await result_of(checking, PARIS, ["d"], [GroundingSource(PARIS)])
    assert (report.support_score, report.passed) == (1.0, True)
    assert report.metadata()["claims"][0]["source_ids"] == ["0"]
    assert report.claims[0].score is None  # no claim-level score unless asked


@pytest.mark.parametrize("asynchronous", [False, True])
@pytest.mark.parametrize("answer", ["", " \n\t"])
async def test_an_empty_answer_is_not_sent(connection, emulator, asynchronous, answer):
    check = GroundingCheck(connection, min_support_score=0.5)
    emulator.faults.fail("CheckGrounding", code="NOT_FOUND", times=1)
    checking = check.acheck if asynchronous else check.check
    report = await result_of(checking, answer, ["doc"], [GroundingSource(PARIS)], ["p"])
    assert emulator.faults.pending == 1  # no call consumed the fault
    assert report == GroundingReport(
        GroundingResult(answer, None),
        ("doc",),
        (GroundingSource(PARIS),),
        min_support_score=0.5,
        source_ids=("p",),
        skipped_reason=NOTHING_TO_CHECK,
    )


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_an_answer_that_is_no_string_is_refused_by_name(connection, asynchronous):
    check = GroundingCheck(connection)
    checking = check.acheck if asynchronous else check.check
    with pytest.raises(InputError, match="got NoneType") as info:
        await result_of(checking, None, [], [])
    assert info.value.field == "answer_candidate"


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_failed_call_names_the_grounding_config(connection, emulator, asynchronous):
    check = GroundingCheck(connection)
    emulator.faults.fail("CheckGrounding", code="NOT_FOUND", times=1)
    with pytest.raises(NotFoundError, match=f"CheckGrounding on {CONFIG}") as info:
        await result_of(check.acheck if asynchronous else check.check, PARIS, ["d"], [PARIS])
    assert info.value.__cause__ is info.value.cause


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_check_uses_the_connections_retry_policy(emulator, asynchronous):
    retrying = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, **RETRYING
    )
    check = GroundingCheck(retrying)
    emulator.faults.fail("CheckGrounding", code=TRANSIENT, times=1)
    report = await result_of(check.acheck if asynchronous else check.check, PARIS, ["d"], [PARIS])
    assert report.passed
    assert emulator.faults.pending == 0
    if asynchronous:
        await retrying.aclose()
    retrying.close()


NON_ASCII_SOURCES = [
    GroundingSource(
        "東京都は日本の首都です。人口は約千四百万人です。",
        {"uri": "https://example.jp/tokyo", "title": "東京", "year": 2024},
    ),
    GroundingSource(""),  # skipped: citations still point at the right sources
    GroundingSource("القاهرة هي عاصمة مصر."),
    GroundingSource("Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month."),
    GroundingSource("The cafe\u0301s of Pa\u0301ris serve cre\u0300me bru\u0302le\u0301e."),
]
NON_ASCII_CHECKED = (
    "東京都は日本の首都です。 القاهرة هي عاصمة مصر. "
    "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. "
    "The cafe\u0301s of Pa\u0301ris serve cre\u0300me bru\u0302le\u0301e. "
    "Penguins 🐧 live on the Moon."
)


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_check_in_any_script_slices_the_answer_and_cites_the_right_sources(
    connection, asynchronous
):
    check = GroundingCheck(connection)
    checking = check.acheck if asynchronous else check.check
    sources = list(range(len(NON_ASCII_SOURCES)))
    report = await result_of(checking, NON_ASCII_CHECKED, sources, NON_ASCII_SOURCES)
    encoded = NON_ASCII_CHECKED.encode()
    for claim in report.result.claims:
        assert NON_ASCII_CHECKED[claim.start : claim.end] == claim.text
        assert encoded[claim.byte_start : claim.byte_end].decode() == claim.text
    assert [(c.text, c.claim.source_indices) for c in report.claims] == [
        ("東京都は日本の首都です。", (0,)),
        ("القاهرة هي عاصمة مصر.", (2,)),
        ("Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month.", (3,)),
        ("The cafe\u0301s of Pa\u0301ris serve cre\u0300me bru\u0302le\u0301e.", (4,)),
        ("Penguins 🐧 live on the Moon.", ()),
    ]
    assert report.claims[0].sources == (0,)
    tokyo = report.result.claims[0].citations[0]
    assert (tokyo.uri, tokyo.title, tokyo.attributes["year"]) == (
        "https://example.jp/tokyo",
        "東京",
        "2024",
    )
    assert report.support_score == pytest.approx(0.8)


# -- run and arun: the policies applied to checks on the emulator -----------------------------


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_run_keeps_a_grounded_answer_and_falls_back_from_an_ungrounded_one(
    connection, asynchronous
):
    check = GroundingCheck(connection, on_ungrounded="fallback", fallback_answer="No.")
    running = check.arun if asynchronous else check.run
    sources = ["doc-paris", "doc-moon"]
    facts = [GroundingSource(PARIS), GroundingSource("The Moon orbits the Earth.")]
    kept = await result_of(running, PARIS, sources, facts, ["p", "m"])
    report = check.check(PARIS, sources, facts, ["p", "m"])
    assert kept == GroundingOutcome(report, "fallback", None, None)
    replaced = await result_of(running, f"{PARIS} {MOON}", sources, facts)
    assert replaced.fallback_answer == "No."
    assert replaced.report.support_score == pytest.approx(0.5)
    assert replaced.report.source_ids == ("0", "1")
    assert replaced.error is None


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_run_gives_a_blank_answer_a_report_with_nothing_to_check(connection, asynchronous):
    check = GroundingCheck(connection, on_ungrounded="raise")
    running = check.arun if asynchronous else check.run
    outcome = await result_of(running, " ", ["d"], [GroundingSource(PARIS)])
    assert outcome.report.skipped_reason == NOTHING_TO_CHECK
    assert (outcome.fallback_answer, outcome.error) == (None, None)
    outcome.enforce()


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_failed_call_raises_under_on_error_raise(connection, emulator, asynchronous):
    check = GroundingCheck(connection)
    emulator.faults.fail("CheckGrounding", code=TRANSIENT, times=1)
    with pytest.raises(ServiceUnavailableError, match=f"CheckGrounding on {CONFIG}"):
        await result_of(check.arun if asynchronous else check.run, PARIS, ["d"], [PARIS])


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_failed_call_is_recorded_with_the_sources_and_their_ids(
    connection, emulator, asynchronous
):
    check = GroundingCheck(connection, min_support_score=0.9, on_error="record")
    running = check.arun if asynchronous else check.run
    facts = [GroundingSource(PARIS), GroundingSource(MOON)]
    emulator.faults.fail("CheckGrounding", code=TRANSIENT, times=1)
    outcome = await result_of(running, PARIS, ["a", "b"], facts, ["id-a", "id-b"])
    assert isinstance(outcome.error, ServiceUnavailableError)
    failed = outcome.report
    assert failed.error.startswith("ServiceUnavailableError: CheckGrounding on ")
    assert (failed.result, failed.sources, failed.grounding_sources) == (
        None,
        ("a", "b"),
        tuple(facts),
    )
    assert (failed.source_ids, failed.min_support_score) == (("id-a", "id-b"), 0.9)
    assert not failed.passed


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_input_limits_are_enforced_before_the_call_and_follow_on_error(
    connection, emulator, asynchronous
):
    emulator.faults.fail("CheckGrounding", code="NOT_FOUND", times=1)
    recording = GroundingCheck(connection, on_error="record")
    running = recording.arun if asynchronous else recording.run
    outcome = await result_of(running, PARIS * 2000, ["d"], [GroundingSource(PARIS)])
    assert isinstance(outcome.error, InputError)
    assert (outcome.error.field, outcome.error.limit) == ("answer_candidate", MAX_ANSWER_TOKENS)
    assert outcome.report.error.startswith("InputError: answer_candidate is about ")
    raising = recording.replace(on_error="raise")
    with pytest.raises(InputError):
        await result_of(raising.arun if asynchronous else raising.run, PARIS, [], PARIS)
    assert emulator.faults.pending == 1  # neither was sent
