"""Specs: every refusal's message, field and limit, the boundaries, the kept boost spec (what
``make mutation`` found unasserted in ``grounding_core.specs``)."""

import math

import pytest

from grounding_core import (
    AnswerSpec,
    ChunkSearchSpec,
    DataStoreSpec,
    DeveloperKnowledgeSearchSpec,
    GroundingSpec,
    InputError,
)
from grounding_core.specs import check_count, check_fraction, check_user_labels

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
        ({"filter": 1}, ("ChunkSearchSpec.filter must be a string, got int", "filter", None)),
        (
            {"canonical_filter": b"x"},
            (
                "ChunkSearchSpec.canonical_filter must be a string, got bytes",
                "canonical_filter",
                None,
            ),
        ),
        (
            {"order_by": None},
            ("ChunkSearchSpec.order_by must be a string, got NoneType", "order_by", None),
        ),
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


DOCS = {"search_mode": "documents"}


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"return_snippet": True},
            (
                "return_snippet need search_mode='documents': chunk results carry no snippets "
                "or extractive content (a chunk's text is its content)",
                "return_snippet",
                None,
            ),
        ),
        (
            {"max_extractive_segment_count": 1, "return_extractive_segment_score": True},
            (
                "max_extractive_segment_count, return_extractive_segment_score need "
                "search_mode='documents': chunk results carry no snippets or extractive "
                "content (a chunk's text is its content)",
                "max_extractive_segment_count",
                None,
            ),
        ),
        (
            {**DOCS, "max_extractive_answer_count": 6},
            (
                "max_extractive_answer_count must be between 0 and 5, got 6",
                "max_extractive_answer_count",
                5,
            ),
        ),
        (
            {**DOCS, "max_extractive_segment_count": 11},
            (
                "max_extractive_segment_count must be between 0 and 10, got 11",
                "max_extractive_segment_count",
                10,
            ),
        ),
        (
            {**DOCS, "max_extractive_segment_count": 1, "num_previous_segments": -1},
            ("num_previous_segments must be >= 0, got -1", "num_previous_segments", None),
        ),
        (
            {**DOCS, "num_next_segments": 1},
            (
                "num_next_segments need max_extractive_segment_count > 0: they shape the "
                "extractive segments",
                "num_next_segments",
                None,
            ),
        ),
        (
            {**DOCS, "return_snippet": "yes"},
            (
                "ChunkSearchSpec.return_snippet must be True or False or None, got str",
                "return_snippet",
                None,
            ),
        ),
        (
            {"spell_correction": "AUTO"},
            (
                "spell_correction must be one of 'auto', 'suggestion_only', got 'AUTO'",
                "spell_correction",
                None,
            ),
        ),
        (
            {"query_expansion": "on"},
            (
                "query_expansion must be one of 'auto', 'disabled', got 'on'",
                "query_expansion",
                None,
            ),
        ),
        (
            {"pin_unexpanded_results": True, "query_expansion": "disabled"},
            (
                "pin_unexpanded_results needs query_expansion='auto': only an expanded query "
                "has unexpanded results to pin",
                "pin_unexpanded_results",
                None,
            ),
        ),
        (
            {"user_pseudo_id": "u" * 129},
            (
                "user_pseudo_id has 129 characters; the API accepts at most 128: shorten it",
                "user_pseudo_id",
                128,
            ),
        ),
        (
            {"language_code": 1},
            ("ChunkSearchSpec.language_code must be a string, got int", "language_code", None),
        ),
        (
            {"session": None},
            ("ChunkSearchSpec.session must be a string, got NoneType", "session", None),
        ),
        (
            {"relevance_filter_spec": "LOW"},
            (
                "relevance_filter_spec must be a dict in the API's RelevanceFilterSpec form, "
                "e.g. {'keyword_search_threshold': {'relevance_threshold': 'LOW'}}",
                "relevance_filter_spec",
                None,
            ),
        ),
        (
            {"data_store_specs": ({"data_store": "d"},)},
            (
                "data_store_specs must hold DataStoreSpec records, got dict",
                "data_store_specs",
                None,
            ),
        ),
        (
            {"facet_specs": {"facet_key": {"key": "k"}}},
            (
                "facet_specs must be a list of dicts in the API's form, e.g. "
                "[{'facet_key': {'key': 'lang'}, 'limit': 10}]",
                "facet_specs",
                None,
            ),
        ),
        (
            {"facet_specs": ["lang"]},
            (
                "facet_specs[0] must be a dict in the API's form, e.g. "
                "{'facet_key': {'key': 'lang'}, 'limit': 10}, got str",
                "facet_specs[0]",
                None,
            ),
        ),
        (
            {"facet_specs": [{"facet_key": {"key": "k"}}] * 101},
            ("facet_specs has 101 specs; the API accepts at most 100", "facet_specs", 100),
        ),
    ],
)
def test_chunk_search_spec_option_refusals(kwargs, expected):
    assert refusal(ChunkSearchSpec, **kwargs) == expected


def test_chunk_search_spec_accepts_the_option_boundaries():
    spec = ChunkSearchSpec(
        search_mode="documents",
        return_snippet=False,
        max_extractive_answer_count=5,
        max_extractive_segment_count=10,
        return_extractive_segment_score=True,
        num_previous_segments=7,
        num_next_segments=7,
        spell_correction="suggestion_only",
        query_expansion="auto",
        pin_unexpanded_results=True,
        canonical_filter='lang: ANY("en")',
        user_pseudo_id="u" * 128,
        facet_specs=[{"facet_key": {"key": "k"}}] * 100,
    )
    assert (spec.max_extractive_answer_count, spec.max_extractive_segment_count) == (5, 10)
    assert (spec.num_previous_segments, spec.num_next_segments) == (7, 7)
    assert len(spec.facet_specs) == 100
    assert type(spec.facet_specs) is tuple
    assert spec.canonical_filter == 'lang: ANY("en")'
    plain = ChunkSearchSpec()
    assert plain.canonical_filter == ""
    assert (plain.return_snippet, plain.spell_correction, plain.query_expansion) == (
        None,
        None,
        None,
    )
    assert ChunkSearchSpec(return_snippet=False).return_snippet is False  # allowed in chunks


def test_the_option_dicts_are_private_copies():
    facet = {"facet_key": {"key": "k"}}
    relevance = {"keyword_search_threshold": {"relevance_threshold": "LOW"}}
    spec = ChunkSearchSpec(facet_specs=[facet], relevance_filter_spec=relevance)
    facet["facet_key"]["key"] = "changed"
    relevance["keyword_search_threshold"]["relevance_threshold"] = "HIGH"
    assert spec.facet_specs == ({"facet_key": {"key": "k"}},)
    assert spec.relevance_filter_spec == {
        "keyword_search_threshold": {"relevance_threshold": "LOW"}
    }
    boost = {"condition_boost_specs": [{"condition": "x", "boost": 0.5}]}
    store = DataStoreSpec("d", boost_spec=boost)
    boost["condition_boost_specs"][0]["boost"] = 1.0
    assert store.boost_spec == {"condition_boost_specs": [{"condition": "x", "boost": 0.5}]}
    assert DataStoreSpec("d").boost_spec is None


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
        "DeveloperKnowledgeSearchSpec.filter must be a string, got int",
        "filter",
        None,
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
        ({"filter": 1}, ("AnswerSpec.filter must be a string, got int", "filter", None)),
        ({"order_by": 1}, ("AnswerSpec.order_by must be a string, got int", "order_by", None)),
        (
            {"search_mode": "x"},
            ("search_mode must be 'chunks' or 'documents', got 'x'", "search_mode", None),
        ),
        ({"boost_spec": 3}, (BOOST_HINT, "boost_spec", None)),
        (
            {"data_store_specs": "d"},
            ("data_store_specs must be a list or tuple, got str", "data_store_specs", None),
        ),
        (
            {"data_store_specs": [{"data_store": "d"}]},
            (
                "data_store_specs must hold DataStoreSpec records, got dict",
                "data_store_specs",
                None,
            ),
        ),
        (
            {"filtering_level": "medium"},
            ("filtering_level must be one of 'low', 'high', got 'medium'", "filtering_level", None),
        ),
        (
            {"max_rephrase_steps": 0},
            ("max_rephrase_steps must be between 1 and 5, got 0", "max_rephrase_steps", 5),
        ),
        (
            {"max_rephrase_steps": 6},
            ("max_rephrase_steps must be between 1 and 5, got 6", "max_rephrase_steps", 5),
        ),
        (
            {"query_classification_types": ["adversarial"]},
            (
                "query_classification_types must be one of 'adversarial_query', "
                "'non_answer_seeking_query', 'jail_breaking_query', "
                "'non_answer_seeking_query_v2', 'user_defined_classification_query', "
                "got 'adversarial'",
                "query_classification_types",
                None,
            ),
        ),
        (
            {"user_pseudo_id": "v" * 129},
            (
                "user_pseudo_id has 129 characters; the API accepts at most 128: shorten it",
                "user_pseudo_id",
                128,
            ),
        ),
        (
            {"user_pseudo_id": 7},
            ("AnswerSpec.user_pseudo_id must be a string, got int", "user_pseudo_id", None),
        ),
        ({"session": 7}, ("AnswerSpec.session must be a string or None, got int", "session", None)),
        (
            {"session": " "},
            (
                "session is empty: give None (no session), '-' (start one) or a session id",
                "session",
                None,
            ),
        ),
    ],
)
def test_answer_spec_refusals(kwargs, expected):
    assert refusal(AnswerSpec, **kwargs) == expected


def test_answer_spec_accepts_the_boundaries():
    assert AnswerSpec(max_return_results=1).max_return_results == 1
    assert AnswerSpec(max_return_results=100).max_return_results == 100
    assert AnswerSpec(search_mode="documents").search_mode == "documents"
    assert AnswerSpec(search_mode=None).search_mode is None
    assert AnswerSpec(max_rephrase_steps=1).max_rephrase_steps == 1
    assert AnswerSpec(max_rephrase_steps=5).max_rephrase_steps == 5
    assert AnswerSpec(user_pseudo_id="v" * 128).user_pseudo_id == "v" * 128
    assert AnswerSpec(session="-").session == "-"


def test_answer_spec_keeps_its_own_tuples():
    stores = [DataStoreSpec("a")]
    kinds = ["jail_breaking_query"]
    spec = AnswerSpec(data_store_specs=stores, query_classification_types=kinds)
    stores.append(DataStoreSpec("b"))
    kinds.clear()
    assert spec.data_store_specs == (DataStoreSpec("a"),)
    assert spec.query_classification_types == ("jail_breaking_query",)
    assert AnswerSpec(filtering_level="low").filtering_level == "low"
    assert AnswerSpec(filtering_level="high").filtering_level == "high"


def test_data_store_spec():
    assert DataStoreSpec("d", filter="x").filter == "x"
    assert refusal(DataStoreSpec, " ") == (
        "data_store is empty: give a data store id or its full resource name",
        "data_store_specs.data_store",
        None,
    )
    assert refusal(DataStoreSpec, 1) == (
        "DataStoreSpec.data_store must be a string, got int",
        "data_store",
        None,
    )
    assert refusal(DataStoreSpec, "d", filter=1) == (
        "DataStoreSpec.filter must be a string, got int",
        "filter",
        None,
    )


FACETS_HINT = (
    "facet_specs must be a list of dicts in the API's form, e.g. "
    "[{'facet_key': {'key': 'lang'}, 'limit': 10}]"
)


@pytest.mark.parametrize("facets", ["lang", b"lang", {"facet_key": {"key": "lang"}}, 5])
def test_facet_specs_must_be_a_list(facets):
    assert refusal(ChunkSearchSpec, facet_specs=facets) == (FACETS_HINT, "facet_specs", None)


def test_an_uppercase_x_is_not_a_label_character():
    assert dict(check_user_labels({"a_-9é": "x_-"})) == {"a_-9é": "x_-"}
    assert refusal(check_user_labels, {"aXb": "v"}) == (
        "user_labels: the key 'aXb' has 'X': use lowercase letters, digits, '_' and '-' "
        "(international characters are allowed)",
        "user_labels",
        None,
    )


def test_every_segment_option_needs_segments():
    assert refusal(ChunkSearchSpec, **DOCS, return_extractive_segment_score=True) == (
        "return_extractive_segment_score need max_extractive_segment_count > 0: they shape "
        "the extractive segments",
        "return_extractive_segment_score",
        None,
    )
    both = {**DOCS, "return_extractive_segment_score": True, "num_previous_segments": 1}
    assert refusal(ChunkSearchSpec, **both)[:2] == (
        "return_extractive_segment_score, num_previous_segments need "
        "max_extractive_segment_count > 0: they shape the extractive segments",
        "return_extractive_segment_score",
    )


SURROGATE = (
    "holds a lone surrogate (U+D800) at character 0, which is not valid UTF-8 and cannot be "
    "sent: decode the text properly (both halves of a surrogate pair) or remove it"
)


@pytest.mark.parametrize(
    ("spec_type", "kwargs", "message", "field"),
    [
        (
            ChunkSearchSpec,
            {"return_extractive_segment_score": "no"},
            "ChunkSearchSpec.return_extractive_segment_score must be True or False, got str",
            "return_extractive_segment_score",
        ),
        (
            DeveloperKnowledgeSearchSpec,
            {"k": 2.0},
            "DeveloperKnowledgeSearchSpec.k must be an integer, got float",
            "k",
        ),
        (
            GroundingSpec,
            {"enable_claim_level_score": "no"},
            "GroundingSpec.enable_claim_level_score must be True or False, got str",
            "enable_claim_level_score",
        ),
        (
            DataStoreSpec,
            {"data_store": "d", "filter": b"x"},
            "DataStoreSpec.filter must be a string, got bytes",
            "filter",
        ),
        (
            AnswerSpec,
            {"include_citations": "no"},
            "AnswerSpec.include_citations must be True or False, got str",
            "include_citations",
        ),
        (
            AnswerSpec,
            {"ignore_low_relevant_content": 0},
            "AnswerSpec.ignore_low_relevant_content must be True or False or None, got int",
            "ignore_low_relevant_content",
        ),
        (
            AnswerSpec,
            {"model_version": "\ud800"},
            f"AnswerSpec.model_version {SURROGATE}",
            "AnswerSpec.model_version",
        ),
        (
            ChunkSearchSpec,
            {"language_code": "\ud800"},
            f"ChunkSearchSpec.language_code {SURROGATE}",
            "ChunkSearchSpec.language_code",
        ),
        (
            ChunkSearchSpec,
            {"canonical_filter": "\ud800"},
            f"ChunkSearchSpec.canonical_filter {SURROGATE}",
            "ChunkSearchSpec.canonical_filter",
        ),
    ],
)
def test_every_spec_checks_its_declared_types(spec_type, kwargs, message, field):
    assert refusal(spec_type, **kwargs)[:2] == (message, field)


def test_the_citation_threshold_says_its_range_before_its_type():
    assert refusal(GroundingSpec, citation_threshold=math.inf) == (
        "citation_threshold must be a number between 0 and 1, got inf",
        "citation_threshold",
        "[0, 1]",
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"boost_spec": {"condition_boost_specs": [{"condition": "\ud800"}]}},
            f"boost_spec['condition_boost_specs'][0]['condition'] {SURROGATE}",
        ),
        (
            {"relevance_filter_spec": {"k": "\ud800"}},
            f"relevance_filter_spec['k'] {SURROGATE}",
        ),
        ({"facet_specs": [{}, {"facet_key": {"key": "\ud800"}}]}, f"facet_specs[1]['facet_key']"
         f"['key'] {SURROGATE}"),
    ],
)  # fmt: skip
def test_dict_options_hold_no_lone_surrogate(kwargs, message):
    assert refusal(ChunkSearchSpec, **kwargs)[0] == message


def test_dict_options_hold_no_cycle():
    loop: dict = {"condition": "x"}
    loop["again"] = loop
    for spec_type in (ChunkSearchSpec, AnswerSpec):
        assert refusal(spec_type, boost_spec=loop)[0] == (
            "boost_spec['again'] is circular (it contains itself): break the cycle"
        )


# -- document_text (which documents-mode content is the text) ---------------------------------


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {**DOCS, "document_text": "segments"},
            (
                "document_text must be one of 'auto', 'extractive_segments', "
                "'extractive_answers', 'snippets', 'struct_data', got 'segments'",
                "document_text",
                None,
            ),
        ),
        (
            {"document_text": "snippets"},
            (
                "document_text='snippets' needs search_mode='documents': a chunk result's text "
                "is its content (leave document_text 'auto' in chunk mode)",
                "document_text",
                None,
            ),
        ),
        (
            {"document_text": "struct_data"},
            (
                "document_text='struct_data' needs search_mode='documents': a chunk result's "
                "text is its content (leave document_text 'auto' in chunk mode)",
                "document_text",
                None,
            ),
        ),
        (
            {**DOCS, "document_text": "extractive_segments", "max_extractive_answer_count": 1},
            (
                "document_text='extractive_segments' needs extractive segments, but "
                "max_extractive_segment_count=0 asks for none: set it to 1..10",
                "document_text",
                None,
            ),
        ),
        (
            {**DOCS, "document_text": "extractive_answers", "max_extractive_segment_count": 1},
            (
                "document_text='extractive_answers' needs extractive answers, but "
                "max_extractive_answer_count=0 asks for none: set it to 1..5",
                "document_text",
                None,
            ),
        ),
        (
            {**DOCS, "document_text": "snippets", "return_snippet": False},
            (
                "document_text='snippets' needs snippets, but return_snippet=False asks for "
                "none: leave it None or set it True",
                "document_text",
                None,
            ),
        ),
    ],
    ids=["unknown", "chunk-mode", "chunk-mode-struct", "no-segments", "no-answers", "no-snippets"],
)
def test_document_text_refusals(kwargs, expected):
    assert refusal(ChunkSearchSpec, **kwargs) == expected


@pytest.mark.parametrize(
    "kwargs",
    [
        {"document_text": "auto"},
        {**DOCS, "document_text": "auto", "return_snippet": False},
        {**DOCS, "document_text": "extractive_segments", "max_extractive_segment_count": 1},
        {**DOCS, "document_text": "extractive_answers", "max_extractive_answer_count": 1},
        {**DOCS, "document_text": "snippets"},
        {**DOCS, "document_text": "snippets", "return_snippet": True},
        {**DOCS, "document_text": "struct_data", "return_snippet": False},
    ],
)
def test_document_text_accepts_the_content_asked_for(kwargs):
    assert ChunkSearchSpec(**kwargs).document_text == kwargs["document_text"]
