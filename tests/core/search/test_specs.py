"""``grounding_core.search.specs``: the search options and their limits.

``ChunkSearchSpec`` (Discovery Engine), ``DataStoreSpec`` and ``DeveloperKnowledgeSearchSpec``:
their defaults, Google's documented limits exactly at the limit and one past it, every refusal
(``InputError`` with its ``field`` and ``limit``), the options only documents mode has, which
content ``document_text`` may choose, and the private copies a frozen spec keeps of the dicts and
lists it is given. Also the ``*Options`` TypedDicts (``SearchOptions``, ``SummaryOptions``,
``AnswerOptions``): each has exactly its spec's fields and types, so that they cannot drift.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

import pytest

from grounding_core import DEFAULT_SEARCH_K, InputError
from grounding_core.answers.answer_query import AnswerOptions, AnswerSpec
from grounding_core.search import specs
from grounding_core.search.specs import (
    ChunkSearchSpec,
    DataStoreSpec,
    DeveloperKnowledgeSearchSpec,
    SearchOptions,
)
from grounding_core.search.summaries import SummaryOptions, SummarySpec

DOCS: dict[str, Any] = {"search_mode": "documents"}
BOOST = {"condition_boost_specs": [{"condition": 'lang: ANY("en")', "boost": 0.5}]}
SURROGATE = r"holds a lone surrogate \(U\+D800\)"


def test_the_documented_limits_and_defaults():
    assert (specs.MAX_PAGE_SIZE, specs.MAX_CHUNK_NEIGHBOURS) == (100, 3)
    assert specs.MAX_DEVELOPER_KNOWLEDGE_TEXT == 500
    assert (specs.DEFAULT_SEARCH_K, DEFAULT_SEARCH_K, specs.DEFAULT_DEVELOPER_KNOWLEDGE_K) == (
        4,
        4,
        5,
    )
    assert (specs.MAX_EXTRACTIVE_ANSWERS, specs.MAX_EXTRACTIVE_SEGMENTS) == (5, 10)
    assert specs.MAX_FACET_SPECS == 100
    assert specs.THRESHOLDS == ("lowest", "low", "medium", "high")
    assert specs.SEARCH_MODES == ("chunks", "documents")
    assert specs.DOCUMENT_TEXTS == (
        "auto",
        "extractive_segments",
        "extractive_answers",
        "snippets",
        "struct_data",
        "struct_json",
    )


def fields_of(record: object) -> dict[str, object]:
    return {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}  # type: ignore[arg-type]


def test_a_default_chunk_search_spec_asks_for_four_chunks_and_nothing_else():
    assert fields_of(ChunkSearchSpec()) == {
        "k": 4,
        "filter": "",
        "boost_spec": None,
        "order_by": "",
        "num_previous_chunks": 0,
        "num_next_chunks": 0,
        "relevance_threshold": None,
        "search_mode": "chunks",
        "return_snippet": None,
        "max_extractive_answer_count": 0,
        "max_extractive_segment_count": 0,
        "return_extractive_segment_score": False,
        "num_previous_segments": 0,
        "num_next_segments": 0,
        "document_text": "auto",
        "spell_correction": None,
        "query_expansion": None,
        "pin_unexpanded_results": False,
        "canonical_filter": "",
        "language_code": "",
        "user_pseudo_id": "",
        "session": "",
        "relevance_filter_spec": None,
        "data_store_specs": (),
        "facet_specs": (),
    }


@pytest.mark.parametrize(
    "kwargs",
    [
        {"k": 1},
        {"k": 101},  # no upper bound: fetched in pages of 100
        {"k": 10_000},
        {"num_previous_chunks": 3, "num_next_chunks": 3},
        {"num_previous_chunks": 0, "num_next_chunks": 0},
        *({"relevance_threshold": t} for t in (None, "lowest", "low", "medium", "high")),
        {"search_mode": "chunks"},
        {"search_mode": "documents"},
        {"return_snippet": False},  # asks for nothing: allowed in chunk mode
        {"return_snippet": None},
        {"spell_correction": "auto"},
        {"spell_correction": "suggestion_only"},
        {"query_expansion": "auto", "pin_unexpanded_results": True},
        {"query_expansion": "disabled"},
        {"user_pseudo_id": "u" * 128},
        {"user_pseudo_id": "é" * 128},
        {"canonical_filter": 'lang: ANY("日本語") AND NOT script: ANY("😀")'},
        {"language_code": "fr-CA", "session": "s", "order_by": "rank desc", "filter": "f"},
        {"facet_specs": [{"facet_key": {"key": "k"}}] * 100},
        {"facet_specs": []},
        {"data_store_specs": [DataStoreSpec("a"), DataStoreSpec("b")]},
        {"relevance_filter_spec": {}},
        {"boost_spec": {}},
        {
            **DOCS,
            "return_snippet": True,
            "max_extractive_answer_count": 5,
            "max_extractive_segment_count": 10,
            "return_extractive_segment_score": True,
            "num_previous_segments": 7,
            "num_next_segments": 7,
        },
        {**DOCS, "max_extractive_answer_count": 0, "max_extractive_segment_count": 0},
        {**DOCS, "max_extractive_segment_count": 1, "num_previous_segments": 0},
    ],
)
def test_values_within_the_limits_are_kept(kwargs):
    spec = ChunkSearchSpec(**kwargs)
    for name, value in kwargs.items():
        expected = tuple(value) if isinstance(value, list) else value
        assert getattr(spec, name) == expected


# (options, field, limit, the essential words of the message)
CHUNK_SEARCH_REFUSALS = [
    ({"k": 0}, "k", None, r"^k must be >= 1, got 0"),
    ({"k": -1}, "k", None, r"^k must be >= 1, got -1"),
    ({"k": "5"}, "k", None, r"^ChunkSearchSpec\.k must be an integer, got str"),
    ({"k": True}, "k", None, r"^ChunkSearchSpec\.k must be an integer, got bool"),
    ({"k": 2.0}, "k", None, r"^ChunkSearchSpec\.k must be an integer, got float"),
    ({"filter": 1}, "filter", None, r"^ChunkSearchSpec\.filter must be a string, got int"),
    ({"filter": "\ud800"}, "ChunkSearchSpec.filter", None, SURROGATE),
    ({"canonical_filter": b"x"}, "canonical_filter", None, "must be a string, got bytes"),
    ({"canonical_filter": None}, "canonical_filter", None, "must be a string, got NoneType"),
    ({"canonical_filter": "\ud800"}, "ChunkSearchSpec.canonical_filter", None, SURROGATE),
    ({"order_by": None}, "order_by", None, "order_by must be a string, got NoneType"),
    ({"language_code": 1}, "language_code", None, "language_code must be a string, got int"),
    ({"language_code": "\ud800"}, "ChunkSearchSpec.language_code", None, SURROGATE),
    ({"session": None}, "session", None, "session must be a string, got NoneType"),
    ({"user_pseudo_id": 7}, "user_pseudo_id", None, "user_pseudo_id must be a string, got int"),
    (
        {"user_pseudo_id": "u" * 129},
        "user_pseudo_id",
        128,
        r"^user_pseudo_id has 129 characters; the API accepts at most 128",
    ),
    ({"num_previous_chunks": 4}, "num_previous_chunks", 3, r"between 0 and 3, got 4"),
    ({"num_previous_chunks": -1}, "num_previous_chunks", 3, r"between 0 and 3, got -1"),
    ({"num_next_chunks": 4}, "num_next_chunks", 3, r"^num_next_chunks must be between 0 and 3"),
    ({"num_next_chunks": -1}, "num_next_chunks", 3, r"between 0 and 3, got -1"),
    ({"search_mode": "chunk"}, "search_mode", None, r"'chunks', 'documents', got 'chunk'"),
    ({"search_mode": "pages"}, "search_mode", None, r"^search_mode must be one of"),
    ({**DOCS, "num_previous_chunks": 1}, "chunk_spec", None, "need search_mode='chunks'"),
    ({**DOCS, "num_next_chunks": 1}, "chunk_spec", None, "no neighbouring chunks"),
    (
        {"relevance_threshold": "HIGH"},
        "relevance_threshold",
        None,
        r"one of None, 'lowest', 'low', 'medium', 'high', got 'HIGH'",
    ),
    ({"relevance_threshold": 3}, "relevance_threshold", None, r"^relevance_threshold must be"),
    ({"boost_spec": [("a", 1)]}, "boost_spec", None, r"^boost_spec must be a dict.*BoostSpec"),
    ({"boost_spec": "up"}, "boost_spec", None, r"^boost_spec must be a dict"),
    ({"boost_spec": 3}, "boost_spec", None, r"condition_boost_specs"),
    (
        {"boost_spec": {"condition_boost_specs": [{"condition": "\ud800"}]}},
        "boost_spec['condition_boost_specs'][0]['condition']",
        None,
        SURROGATE,
    ),
    ({"spell_correction": "AUTO"}, "spell_correction", None, r"'auto', 'suggestion_only'"),
    ({"spell_correction": ""}, "spell_correction", None, r"^spell_correction must be one of"),
    ({"query_expansion": "on"}, "query_expansion", None, r"'auto', 'disabled', got 'on'"),
    (
        {"query_expansion": "disabled", "pin_unexpanded_results": True},
        "pin_unexpanded_results",
        None,
        r"^pin_unexpanded_results needs query_expansion='auto'",
    ),
    (
        {"pin_unexpanded_results": True},
        "pin_unexpanded_results",
        None,
        r"only an expanded query has unexpanded results to pin$",
    ),
    (
        {"relevance_filter_spec": "LOW"},
        "relevance_filter_spec",
        None,
        r"^relevance_filter_spec must be a dict in the API's RelevanceFilterSpec form, "
        r"e\.g\. \{'keyword_search_threshold': .*\}, got str$",
    ),
    (
        {"relevance_filter_spec": {"k": "\ud800"}},
        "relevance_filter_spec['k']",
        None,
        SURROGATE,
    ),
    (
        {"data_store_specs": ({"data_store": "d"},)},
        "data_store_specs",
        None,
        r"^data_store_specs must hold DataStoreSpec records, got dict",
    ),
    ({"data_store_specs": "d"}, "data_store_specs", None, r"must be a list or tuple, got str"),
    ({"data_store_specs": b"d"}, "data_store_specs", None, r"list or tuple, got bytes"),
    ({"data_store_specs": 5}, "data_store_specs", None, r"list or tuple, got int"),
    ({"facet_specs": "lang"}, "facet_specs", None, r"^facet_specs must be a list of dicts"),
    ({"facet_specs": b"lang"}, "facet_specs", None, r"^facet_specs must be a list of dicts"),
    ({"facet_specs": {"facet_key": {"key": "k"}}}, "facet_specs", None, r"'limit': 10\}\]"),
    ({"facet_specs": 5}, "facet_specs", None, r"^facet_specs must be a list"),
    (
        {"facet_specs": ["lang"]},
        "facet_specs[0]",
        None,
        r"^facet_specs\[0\] must be a dict in the API's FacetSpec form, "
        r"e\.g\. \{'facet_key': .*\}, got str$",
    ),
    ({"facet_specs": [{}, 5]}, "facet_specs[1]", None, r"^facet_specs\[1\] must be a dict.*int"),
    (
        {"facet_specs": [{}, {"facet_key": {"key": "\ud800"}}]},
        "facet_specs[1]['facet_key']['key']",
        None,
        SURROGATE,
    ),
    (
        {"facet_specs": [{"facet_key": {"key": "k"}}] * 101},
        "facet_specs",
        100,
        r"^facet_specs has 101 specs; the API accepts at most 100",
    ),
]


@pytest.mark.parametrize(("kwargs", "field", "limit", "words"), CHUNK_SEARCH_REFUSALS)
def test_a_chunk_search_spec_refuses_what_the_service_would(kwargs, field, limit, words):
    with pytest.raises(InputError, match=words) as info:
        ChunkSearchSpec(**kwargs)
    assert (info.value.field, info.value.limit) == (field, limit)


def test_a_dict_option_holding_itself_is_refused():
    loop: dict[str, Any] = {"condition": "x"}
    loop["again"] = loop
    with pytest.raises(InputError, match=r"^boost_spec\['again'\] is circular") as info:
        ChunkSearchSpec(boost_spec=loop)
    assert info.value.field == "boost_spec['again']"


DOCUMENT_OPTIONS = [
    ("return_snippet", True),
    ("max_extractive_answer_count", 1),
    ("max_extractive_segment_count", 1),
    ("return_extractive_segment_score", True),
    ("num_previous_segments", 1),
    ("num_next_segments", 1),
]


@pytest.mark.parametrize(("name", "value"), DOCUMENT_OPTIONS)
def test_each_documents_option_needs_documents_mode(name, value):
    with pytest.raises(InputError, match=f"^{name} need search_mode='documents'") as info:
        ChunkSearchSpec(**{name: value})
    assert (info.value.field, info.value.limit) == (name, None)
    assert str(info.value).endswith("extractive content (a chunk's text is its content)")


def test_every_documents_option_given_in_chunk_mode_is_named_first_one_as_field():
    given = {name: value for name, value in DOCUMENT_OPTIONS}
    with pytest.raises(InputError) as info:
        ChunkSearchSpec(**given)
    names = ", ".join(name for name, _ in DOCUMENT_OPTIONS)
    assert str(info.value).startswith(f"{names} need search_mode='documents'")
    assert info.value.field == "return_snippet"


@pytest.mark.parametrize(
    ("kwargs", "field", "limit", "words"),
    [
        (
            {"max_extractive_answer_count": 6},
            "max_extractive_answer_count",
            5,
            r"^max_extractive_answer_count must be between 0 and 5, got 6",
        ),
        ({"max_extractive_answer_count": -1}, "max_extractive_answer_count", 5, r"got -1"),
        (
            {"max_extractive_segment_count": 11},
            "max_extractive_segment_count",
            10,
            r"^max_extractive_segment_count must be between 0 and 10, got 11",
        ),
        ({"max_extractive_segment_count": -1}, "max_extractive_segment_count", 10, r"got -1"),
        (
            {"max_extractive_segment_count": 1, "num_previous_segments": -1},
            "num_previous_segments",
            None,
            r"^num_previous_segments must be >= 0, got -1",
        ),
        (
            {"max_extractive_segment_count": 1, "num_next_segments": -1},
            "num_next_segments",
            None,
            r"^num_next_segments must be >= 0, got -1",
        ),
        (
            {"return_snippet": "yes"},
            "return_snippet",
            None,
            r"^ChunkSearchSpec\.return_snippet must be True or False or None, got str",
        ),
        (
            {"return_extractive_segment_score": "no"},
            "return_extractive_segment_score",
            None,
            r"must be True or False, got str",
        ),
        (
            {"return_extractive_segment_score": True},
            "return_extractive_segment_score",
            None,
            r"^return_extractive_segment_score need max_extractive_segment_count > 0",
        ),
        (
            {"num_previous_segments": 1},
            "num_previous_segments",
            None,
            r"^num_previous_segments need max_extractive_segment_count > 0",
        ),
        (
            {"num_next_segments": 1, "max_extractive_answer_count": 1},
            "num_next_segments",
            None,
            r"^num_next_segments need max_extractive_segment_count > 0: they shape",
        ),
        (
            {"return_extractive_segment_score": True, "num_previous_segments": 1},
            "return_extractive_segment_score",
            None,
            r"^return_extractive_segment_score, num_previous_segments need",
        ),
    ],
)
def test_documents_mode_content_has_google_s_limits(kwargs, field, limit, words):
    with pytest.raises(InputError, match=words) as info:
        ChunkSearchSpec(**DOCS, **kwargs)
    assert (info.value.field, info.value.limit) == (field, limit)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (
            {**DOCS, "document_text": "segments"},
            r"^document_text must be one of 'auto', 'extractive_segments', "
            r"'extractive_answers', 'snippets', 'struct_data', 'struct_json', got 'segments'",
        ),
        ({"document_text": "snippets"}, r"^document_text='snippets' needs search_mode='documents'"),
        ({"document_text": "struct_data"}, r"^document_text='struct_data' needs search_mode="),
        (
            {"document_text": "extractive_segments"},
            r"chunk result's text is its content \(leave document_text 'auto' in chunk mode\)$",
        ),
        (
            {**DOCS, "document_text": "extractive_segments", "max_extractive_answer_count": 1},
            r"^document_text='extractive_segments' needs extractive segments, but "
            r"max_extractive_segment_count=0 asks for none: set it to 1\.\.10",
        ),
        (
            {**DOCS, "document_text": "extractive_answers", "max_extractive_segment_count": 1},
            r"^document_text='extractive_answers' needs extractive answers, but "
            r"max_extractive_answer_count=0 asks for none: set it to 1\.\.5",
        ),
        (
            {**DOCS, "document_text": "snippets", "return_snippet": False},
            r"^document_text='snippets' needs snippets, but return_snippet=False asks for "
            r"none: leave it None or set it True",
        ),
    ],
    ids=[
        "unknown",
        "chunk-mode",
        "chunk-mode-struct",
        "chunk-mode-segments",
        "no-segments",
        "no-answers",
        "no-snippets",
    ],
)
def test_document_text_must_name_content_that_was_asked_for(kwargs, words):
    with pytest.raises(InputError, match=words) as info:
        ChunkSearchSpec(**kwargs)
    assert (info.value.field, info.value.limit) == ("document_text", None)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"document_text": "auto"},
        {**DOCS, "document_text": "auto", "return_snippet": False},
        {**DOCS, "document_text": "extractive_segments", "max_extractive_segment_count": 1},
        {**DOCS, "document_text": "extractive_answers", "max_extractive_answer_count": 1},
        {**DOCS, "document_text": "snippets"},  # snippets come unless refused
        {**DOCS, "document_text": "snippets", "return_snippet": True},
        {**DOCS, "document_text": "struct_data", "return_snippet": False},
    ],
)
def test_document_text_accepts_the_content_asked_for(kwargs):
    assert ChunkSearchSpec(**kwargs).document_text == kwargs["document_text"]


def test_the_dict_options_are_private_deep_copies():
    boost = {"condition_boost_specs": [{"condition": "x", "boost": 0.5}]}
    facet = {"facet_key": {"key": "k"}}
    relevance = {"keyword_search_threshold": {"relevance_threshold": "LOW"}}
    spec = ChunkSearchSpec(boost_spec=boost, facet_specs=[facet], relevance_filter_spec=relevance)
    boost["condition_boost_specs"][0]["boost"] = 1.0
    facet["facet_key"]["key"] = "changed"
    relevance["keyword_search_threshold"]["relevance_threshold"] = "HIGH"
    assert spec.boost_spec == {"condition_boost_specs": [{"condition": "x", "boost": 0.5}]}
    assert spec.facet_specs == ({"facet_key": {"key": "k"}},)
    assert spec.relevance_filter_spec == {
        "keyword_search_threshold": {"relevance_threshold": "LOW"}
    }


def test_read_only_mappings_are_kept_as_plain_dicts_and_lists_as_tuples():
    stores = [DataStoreSpec("a")]
    spec = ChunkSearchSpec(
        boost_spec=MappingProxyType({"condition_boost_specs": []}),
        relevance_filter_spec=MappingProxyType({"k": "v"}),
        facet_specs=[MappingProxyType({"facet_key": {"key": "lang"}})],
        data_store_specs=stores,
    )
    stores.append(DataStoreSpec("b"))
    assert type(spec.boost_spec) is dict
    assert type(spec.relevance_filter_spec) is dict
    assert [type(f) for f in spec.facet_specs] == [dict]
    assert type(spec.facet_specs) is tuple
    assert spec.data_store_specs == (DataStoreSpec("a"),)
    assert type(spec.data_store_specs) is tuple


def test_a_data_store_spec():
    assert fields_of(DataStoreSpec("d")) == {"data_store": "d", "filter": "", "boost_spec": None}
    boost = {"condition_boost_specs": [{"condition": "x", "boost": 0.5}]}
    full = "projects/123/locations/global/collections/default_collection/dataStores/docs"
    store = DataStoreSpec(full, filter='lang: ANY("en")', boost_spec=boost)
    boost["condition_boost_specs"][0]["boost"] = 1.0
    assert fields_of(store) == {
        "data_store": full,
        "filter": 'lang: ANY("en")',
        "boost_spec": {"condition_boost_specs": [{"condition": "x", "boost": 0.5}]},
    }
    assert type(DataStoreSpec("d", boost_spec=MappingProxyType({})).boost_spec) is dict


@pytest.mark.parametrize(
    ("args", "kwargs", "field", "words"),
    [
        ((" ",), {}, "data_store_specs.data_store", r"^data_store is empty: give a data store"),
        (("",), {}, "data_store_specs.data_store", r"^data_store is empty"),
        ((1,), {}, "data_store", r"^DataStoreSpec\.data_store must be a string, got int"),
        (("d",), {"filter": 1}, "filter", r"^DataStoreSpec\.filter must be a string, got int"),
        (("d",), {"filter": b"x"}, "filter", r"must be a string, got bytes"),
        (("d",), {"boost_spec": "up"}, "boost_spec", r"^boost_spec must be a dict"),
        (("\ud800",), {}, "DataStoreSpec.data_store", SURROGATE),
    ],
)
def test_a_data_store_spec_refuses(args, kwargs, field, words):
    with pytest.raises(InputError, match=words) as info:
        DataStoreSpec(*args, **kwargs)
    assert (info.value.field, info.value.limit) == (field, None)


def test_a_developer_knowledge_search_spec():
    assert fields_of(DeveloperKnowledgeSearchSpec()) == {"k": 5, "filter": ""}
    spec = DeveloperKnowledgeSearchSpec(k=1, filter="x" * 500)
    assert (spec.k, spec.filter) == (1, "x" * 500)
    assert DeveloperKnowledgeSearchSpec(k=1000).k == 1000


@pytest.mark.parametrize(
    ("kwargs", "field", "limit", "words"),
    [
        ({"k": 0}, "k", None, r"^k must be >= 1, got 0"),
        ({"k": 2.0}, "k", None, r"^DeveloperKnowledgeSearchSpec\.k must be an integer, got float"),
        ({"filter": "x" * 501}, "filter", 500, r"^filter has 501 characters; .* at most 500"),
        ({"filter": 5}, "filter", None, r"^DeveloperKnowledgeSearchSpec\.filter must be a string"),
        ({"filter": "\ud800"}, "DeveloperKnowledgeSearchSpec.filter", None, SURROGATE),
    ],
)
def test_a_developer_knowledge_search_spec_refuses(kwargs, field, limit, words):
    with pytest.raises(InputError, match=words) as info:
        DeveloperKnowledgeSearchSpec(**kwargs)
    assert (info.value.field, info.value.limit) == (field, limit)


# -- the options TypedDicts ---------------------------------------------------------------------

OPTIONS = [
    (SearchOptions, ChunkSearchSpec),
    (SummaryOptions, SummarySpec),
    (AnswerOptions, AnswerSpec),
]


def option_type(spec_type: object) -> object:
    """The type an option takes for a spec field of ``spec_type``: a ``tuple[X, ...]`` field
    takes any ``Sequence[X]`` (the spec keeps a tuple of it)."""
    if typing.get_origin(spec_type) is tuple:
        item, rest = typing.get_args(spec_type)
        assert rest is Ellipsis
        return Sequence[item]  # type: ignore[valid-type]
    return spec_type


def spec_option_types(spec: type) -> dict[str, object]:
    hints = typing.get_type_hints(spec)
    return {f.name: option_type(hints[f.name]) for f in dataclasses.fields(spec)}


@pytest.mark.parametrize(("options", "spec"), OPTIONS, ids=lambda t: t.__name__)
def test_the_options_have_the_fields_and_types_of_their_spec(options, spec):
    assert typing.get_type_hints(options) == spec_option_types(spec)
    assert options.__required_keys__ == frozenset()  # each may be left out: the spec's default


@pytest.mark.parametrize(("options", "spec"), OPTIONS, ids=lambda t: t.__name__)
def test_every_option_builds_its_spec(options, spec):
    defaults = {f.name: getattr(spec(), f.name) for f in dataclasses.fields(spec)}
    assert set(defaults) == set(options.__optional_keys__)
    assert spec(**defaults) == spec()


def test_the_comparison_sees_a_drift():
    assert option_type(tuple[int, ...]) == Sequence[int]
    assert option_type(str | None) == (str | None)
    search = spec_option_types(ChunkSearchSpec)
    assert typing.get_type_hints(AnswerOptions) != search
    assert {**search, "k": str} != typing.get_type_hints(SearchOptions)
