"""``grounding_core.peers``: what the adapters' constructors do with the keyword arguments they get.

Covers the peer tables (every name of every table translated to ours, or ignored, or refused,
each value checked), ``translate_peer_arguments`` (one ``DeprecationWarning`` naming the peer,
its name, ours and the value, pointing at the caller's line; the peers' defaults applied only
with a peer name of the component, ours winning; clashes between names refused; no peer name:
a copy, no warning), the peers' environment variables ``$PROJECT_ID`` / ``$DATA_STORE_ID``
(read only where ours are unset, and only for a component that takes ``project_id`` /
``data_store_id``), ``peer_table_of``, ``unknown_arguments_message``,
``refuse_unknown_arguments``, ``init_without_inputs``, the module's example, and a translated
search on the emulator.
"""

from __future__ import annotations

import doctest
import json
import os
import warnings
from typing import TypedDict

import pytest
from google.cloud import discoveryengine_v1 as de
from google.oauth2 import service_account
from pydantic import BaseModel, ValidationError
from typing_extensions import Unpack

from grounding_core import (
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
    InputError,
    peers,
)
from grounding_core.peers import (
    LANGCHAIN_PEER,
    LLAMAINDEX_PEER,
    PEER_CHECKER_ARGUMENTS,
    PEER_CONNECTION_ARGUMENTS,
    PEER_DATA_STORE_ENV_VAR,
    PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS,
    PEER_PROJECT_ENV_VAR,
    PEER_RANKER_ARGUMENTS,
    PEER_RETRIEVER_ARGUMENTS,
    PEER_SUMMARY_ARGUMENTS,
    PeerArgument,
    PeerTable,
    init_without_inputs,
    peer_table_of,
    refuse_unknown_arguments,
    translate_peer_arguments,
    unknown_arguments_message,
)
from grounding_core.search.discovery_engine import search_request

from .peer_inputs import EMAIL, SPELL, service_account_file

MODE = de.SearchRequest.ContentSearchSpec.SearchResultMode
EXPANSION = de.SearchRequest.QueryExpansionSpec.Condition
TABLES = {
    "retriever": PEER_RETRIEVER_ARGUMENTS,
    "llamaindex-retriever": PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS,
    "checker": PEER_CHECKER_ARGUMENTS,
    "ranker": PEER_RANKER_ARGUMENTS,
    "summary": PEER_SUMMARY_ARGUMENTS,
    "connection": PEER_CONNECTION_ARGUMENTS,
}
ENV_VARS = ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "GROUNDING_DATA_STORE")
DEPRECATED = "Write our names: the peers' names are deprecated."


@pytest.fixture(autouse=True)
def _no_project_or_data_store_in_the_environment(monkeypatch):
    for name in (*ENV_VARS, PEER_PROJECT_ENV_VAR, PEER_DATA_STORE_ENV_VAR):
        monkeypatch.delenv(name, raising=False)


def translated(table: PeerTable, component: str = "Component", **arguments):
    """``translate_peer_arguments`` and the one DeprecationWarning it gives."""
    with pytest.warns(DeprecationWarning, match=f"^{component} got ") as record:
        result = translate_peer_arguments(component, table, arguments)
    assert len(record) == 1
    message = str(record[0].message)
    assert message.endswith(DEPRECATED)
    if "MUTANT_UNDER_TEST" not in os.environ:  # mutmut's trampoline adds a frame of its own
        assert record[0].filename == __file__  # the caller's line, not ours
    return result, message


def refused(table: PeerTable, **arguments) -> TypeError:
    with pytest.raises(TypeError) as info:
        translate_peer_arguments("R", table, arguments)
    return info.value


# -- no peer names -----------------------------------------------------------------------------


@pytest.mark.parametrize("table", [*TABLES.values(), None], ids=[*TABLES, "none"])
def test_no_peer_name_is_a_copy_without_warning(table):
    arguments = {"k": 3, "location": "eu"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = translate_peer_arguments("C", table, arguments, known={"k", "location"})
    assert result == arguments
    assert result is not arguments


def test_without_a_table_peer_names_are_left_as_they_are():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert translate_peer_arguments("C", None, {"location_id": "eu"}) == {"location_id": "eu"}


# -- the LangChain retriever ------------------------------------------------------------------

PEER_DEFAULTS = {"k": 5, "spell_correction": "auto", "query_expansion": "disabled"}
SEGMENTS = {
    "search_mode": "documents",
    "return_snippet": False,
    "max_extractive_segment_count": 1,
    "num_previous_segments": 1,
    "num_next_segments": 1,
    "document_text": "extractive_segments",
    "metadata_layout": "flat",
}
FLAT = {"metadata_layout": "flat"}
# Our names for every option the LangChain peer's defaults set: none is left to apply.
CHUNKS = {"k": 4, "spell_correction": None, "query_expansion": None, "search_mode": "chunks"}
# The content the LangChain peer asks for per engine_data_type (without extractive answers).
CONTENT = {
    0: {key: v for key, v in SEGMENTS.items() if key != "search_mode"},
    1: {"return_snippet": False, "document_text": "struct_json", **FLAT},
    2: {
        "return_snippet": True,
        "max_extractive_answer_count": 1,
        "document_text": "snippets",
        **FLAT,
    },
}

# (peer name, value, our arguments it becomes) for the LangChain retriever's table
LANGCHAIN_ALIASES = [
    ("location_id", "eu", {"location": "eu"}),
    ("search_engine_id", "docs", {"data_store_id": "docs"}),
    ("max_documents", 10, {"k": 10}),
    ("max_documents", 1, {"k": 1}),
    ("engine_data_type", 0, {"search_mode": "documents"}),
    ("engine_data_type", 1, {"search_mode": "documents"}),
    ("engine_data_type", 2, {"search_mode": "documents"}),
    ("get_extractive_answers", True, {"document_text": "extractive_answers"}),
    ("get_extractive_answers", False, {}),
    ("query_expansion_condition", 0, {"query_expansion": None}),
    ("query_expansion_condition", 1, {"query_expansion": "disabled"}),
    ("query_expansion_condition", 2, {"query_expansion": "auto"}),
    ("spell_correction_mode", 0, {"spell_correction": None}),
    ("spell_correction_mode", 1, {"spell_correction": "suggestion_only"}),
    ("spell_correction_mode", 2, {"spell_correction": "auto"}),
    ("beta", True, {}),
    ("beta", False, {}),
]


@pytest.mark.parametrize(("name", "value", "ours"), LANGCHAIN_ALIASES)
def test_each_langchain_retriever_name_maps_to_ours(name, value, ours):
    # Every option the defaults would set is given: the result is the alias alone.
    given = {key: v for key, v in CHUNKS.items() if key not in ours}
    result, message = translated(PEER_RETRIEVER_ARGUMENTS, **given, **{name: value})
    if name == "engine_data_type":  # documents mode: the type's content comes with it
        assert result == {**given, **ours, **CONTENT[value]}
    else:
        assert result == {**given, **ours}
    assert f"{LANGCHAIN_PEER}'s name: VertexAISearchRetriever's `{name}={value!r}`" in message


def test_the_warning_names_the_new_name_and_value():
    _, message = translated(
        PEER_RETRIEVER_ARGUMENTS, "DiscoveryEngineRetriever", location_id="eu", **CHUNKS
    )
    assert message.startswith(
        "DiscoveryEngineRetriever got langchain-google-community's name: "
        "VertexAISearchRetriever's `location_id='eu'` is `location='eu'` here."
    )
    assert "defaults" not in message


def test_a_conversion_with_a_note_says_it():
    _, message = translated(PEER_RETRIEVER_ARGUMENTS, engine_data_type=1)
    assert "`engine_data_type=1` is `search_mode='documents'` here (the content the peer " in (
        message
    )


def test_two_names_of_two_peers_are_listed_in_one_warning(tmp_path):
    path = str(service_account_file(tmp_path / "key.json"))
    result, message = translated(
        PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS,
        max_documents=3,
        credentials_path=path,
        search_mode="chunks",
        spell_correction=None,
        query_expansion=None,
    )
    assert result["similarity_top_k"] == 3
    assert message.startswith(f"Component got {LANGCHAIN_PEER} and {LLAMAINDEX_PEER}'s names: ")
    assert "`max_documents=3` is `similarity_top_k=3` here; " in message


@pytest.mark.parametrize(
    ("value", "shown"),
    [("e" * 58, repr("e" * 58)), ("e" * 59, repr("e" * 59)[:60] + "...")],
    ids=["60-characters", "61-characters"],
)
def test_a_long_value_is_cut_in_the_warning(value, shown):
    _, message = translated(PEER_CONNECTION_ARGUMENTS, location_id=value)
    assert f"`location_id={shown}`" in message


def test_ignored_names_say_why():
    _, message = translated(PEER_RETRIEVER_ARGUMENTS, beta=True, **CHUNKS)
    assert "VertexAISearchRetriever's `beta=True` is ignored here: v1 serves everything" in message
    _, message = translated(PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, user_agent="my-app/1.0")
    assert "`user_agent='my-app/1.0'` is ignored here: Google's client library sends" in message
    assert f"{LLAMAINDEX_PEER}'s name" in message
    _, message = translated(PEER_RETRIEVER_ARGUMENTS, get_extractive_answers=False, **CHUNKS)
    assert "`get_extractive_answers=False` is the peer's default, and changes nothing here" in (
        message
    )


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"location_id": "eu"}, {"location": "eu", **PEER_DEFAULTS, **SEGMENTS}),
        (
            {"get_extractive_answers": True},
            {
                **PEER_DEFAULTS,
                "search_mode": "documents",
                "return_snippet": False,
                "max_extractive_answer_count": 1,
                "document_text": "extractive_answers",
                **FLAT,
            },
        ),
        (
            {"engine_data_type": 1},
            {
                **PEER_DEFAULTS,
                "search_mode": "documents",
                "return_snippet": False,
                "document_text": "struct_json",
                **FLAT,
            },
        ),
        (
            {"engine_data_type": 1, "get_extractive_answers": True},
            {
                **PEER_DEFAULTS,
                "search_mode": "documents",
                "return_snippet": False,
                "document_text": "extractive_answers",
                **FLAT,
            },
        ),
        (
            {"engine_data_type": 2},
            {
                **PEER_DEFAULTS,
                "search_mode": "documents",
                "return_snippet": True,
                "max_extractive_answer_count": 1,
                "document_text": "snippets",
                **FLAT,
            },
        ),
        (
            {"engine_data_type": 2, "get_extractive_answers": True},
            {
                **PEER_DEFAULTS,
                "search_mode": "documents",
                "return_snippet": True,
                "max_extractive_answer_count": 1,
                "document_text": "extractive_answers",
                **FLAT,
            },
        ),
    ],
)
def test_the_langchain_peers_defaults_follow_its_content_spec(given, expected):
    result, message = translated(PEER_RETRIEVER_ARGUMENTS, **given)
    assert result == expected
    assert " As VertexAISearchRetriever did, the options not given take its defaults: k=5, " in (
        message
    )
    assert message.endswith(f"(pass any of them to change it). {DEPRECATED}")


def test_our_names_win_over_the_peers_defaults():
    result, message = translated(
        PEER_RETRIEVER_ARGUMENTS, location_id="eu", k=2, max_extractive_segment_count=3
    )
    assert (result["k"], result["max_extractive_segment_count"]) == (2, 3)
    assert "k=5" not in message
    assert "max_extractive_segment_count=1" not in message
    # Chunk mode chosen in our name: the peer's documents-mode content is not applied.
    result, _ = translated(PEER_RETRIEVER_ARGUMENTS, location_id="eu", search_mode="chunks")
    assert result == {"location": "eu", "search_mode": "chunks", **PEER_DEFAULTS}
    result, _ = translated(PEER_RETRIEVER_ARGUMENTS, location_id="eu", search_mode="documents")
    assert result == {"location": "eu", **PEER_DEFAULTS, **SEGMENTS}


def test_connection_names_bring_no_search_defaults(tmp_path):
    path = service_account_file(tmp_path / "key.json")
    result, message = translated(PEER_RETRIEVER_ARGUMENTS, credentials_path=str(path))
    assert set(result) == {"credentials"}
    assert "defaults" not in message
    result, _ = translated(PEER_CONNECTION_ARGUMENTS, location_id="us")
    assert result == {"location": "us"}


# -- the LlamaIndex retriever -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (
            {"max_documents": 10},
            {
                "similarity_top_k": 10,
                "spell_correction": "suggestion_only",
                "query_expansion": "disabled",
                "search_mode": "documents",
                "return_snippet": False,
                "max_extractive_segment_count": 1,
                "return_extractive_segment_score": True,
                "document_text": "extractive_segments",
            },
        ),
        (
            {"engine_data_type": 1},
            {
                "similarity_top_k": 5,
                "spell_correction": "suggestion_only",
                "query_expansion": "disabled",
                "search_mode": "documents",
                "return_snippet": False,
                "document_text": "struct_json",
            },
        ),
        (
            {"engine_data_type": 2},
            {
                "similarity_top_k": 5,
                "spell_correction": "suggestion_only",
                "query_expansion": "disabled",
                "search_mode": "documents",
                "return_snippet": True,
                "max_extractive_segment_count": 1,
                "max_extractive_answer_count": 1,
                "return_extractive_segment_score": True,
                "document_text": "extractive_segments",
            },
        ),
        (
            {"location_id": "eu", "search_mode": "chunks"},
            {
                "location": "eu",
                "search_mode": "chunks",
                "similarity_top_k": 5,
                "spell_correction": "suggestion_only",
                "query_expansion": "disabled",
            },
        ),
    ],
)
def test_the_llamaindex_peers_defaults(given, expected):
    result, message = translated(PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, **given)
    assert result == expected
    assert "the options not given take its defaults: " in message


def test_the_llamaindex_peers_names():
    _, message = translated(PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, max_documents=10)
    assert "VertexAISearchRetriever's `max_documents=10` is `similarity_top_k=10` here" in message
    chunks = {**{k: v for k, v in CHUNKS.items() if k != "k"}, "similarity_top_k": 4}
    result, _ = translated(PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, user_agent=None, **chunks)
    assert result == chunks


# -- the checker, the ranker and the summary ----------------------------------------------------


def test_credentials_path_loads_the_service_account(tmp_path):
    path = service_account_file(tmp_path / "key.json")
    result, message = translated(PEER_CHECKER_ARGUMENTS, credentials_path=str(path))
    credentials = result["credentials"]
    assert isinstance(credentials, service_account.Credentials)
    assert credentials.service_account_email == EMAIL
    shown = repr(str(path))[:60] + "..."  # a long value is cut
    assert (
        f"VertexAICheckGroundingWrapper's `credentials_path={shown}` is "
        "`credentials=<Credentials>` here (loaded with google.oauth2.service_account"
    ) in message
    assert "PRIVATE KEY" not in message


REMEDY = (
    "give the path of a service account key file (JSON), or pass credentials= (e.g. "
    "google.oauth2.service_account.Credentials.from_service_account_file(path))"
)


def test_an_unreadable_credentials_path_names_the_field_and_the_reason(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(InputError, match=r"^credentials_path .* cannot be read") as info:
        translate_peer_arguments("G", PEER_CHECKER_ARGUMENTS, {"credentials_path": str(missing)})
    assert (info.value.field, info.value.limit) == ("credentials_path", None)
    assert isinstance(info.value.__cause__, FileNotFoundError)
    assert f"cannot be read (No such file or directory): {REMEDY}" in str(info.value)


def test_a_credentials_path_that_is_not_json_shows_none_of_the_file(tmp_path):
    path = tmp_path / "key.json"
    path.write_text("PRIVATE KEY SECRET", encoding="utf-8")
    with pytest.raises(InputError, match="is not a JSON key file") as info:
        translate_peer_arguments("G", PEER_CHECKER_ARGUMENTS, {"credentials_path": str(path)})
    assert (info.value.field, info.value.limit) == ("credentials_path", None)
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__ is True
    assert str(info.value).endswith(REMEDY)
    assert "SECRET" not in str(info.value)


@pytest.mark.parametrize(
    "info",
    [
        {"type": "service_account", "private_key": "SECRET"},
        {
            "type": "service_account",
            "private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
            "client_email": EMAIL,
            "token_uri": "https://oauth2.googleapis.com/token",
        },
    ],
    ids=["missing-fields", "a-bad-key"],
)
def test_a_credentials_path_that_is_not_a_service_account_key(tmp_path, info):
    path = tmp_path / "key.json"
    path.write_text(json.dumps(info), "utf-8")
    with pytest.raises(InputError, match="is not a service account key") as raised:
        translate_peer_arguments("G", PEER_CHECKER_ARGUMENTS, {"credentials_path": str(path)})
    error, cause = raised.value, raised.value.__cause__
    assert (error.field, error.limit) == ("credentials_path", None)
    assert isinstance(cause, ValueError)
    # google-auth's message (it names fields, never their values), cut at 200 characters.
    assert f"({type(cause).__name__}: {str(cause)[:200]}): {REMEDY}" in str(error)
    assert "SECRET" not in str(error)


def test_a_long_google_auth_message_is_cut(tmp_path):
    path = tmp_path / "key.json"
    key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
    path.write_text(
        json.dumps(
            {
                "type": "service_account",
                "private_key": key,
                "client_email": EMAIL,
                "token_uri": "https://t",
            }
        ),
        "utf-8",
    )
    with pytest.raises(InputError) as raised:
        translate_peer_arguments("G", PEER_CHECKER_ARGUMENTS, {"credentials_path": str(path)})
    cause = str(raised.value.__cause__)
    assert len(cause) > 201
    assert f": {cause[:200]}): " in str(raised.value)
    assert f"{cause[:201]}): " not in str(raised.value)


def test_a_key_file_that_is_not_a_json_object_names_the_field(tmp_path):
    path = tmp_path / "key.json"
    path.write_text("[]", "utf-8")
    with pytest.raises(InputError, match="is not a service account key") as raised:
        translate_peer_arguments("G", PEER_CHECKER_ARGUMENTS, {"credentials_path": str(path)})
    assert raised.value.field == "credentials_path"


@pytest.mark.parametrize(
    ("given", "ours", "words"),
    [
        ({"title_field": "name"}, {"title_fields": ("name",)}, "`title_fields=('name',)` here"),
        ({"title_field": None}, {}, "`title_field=None` is the peer's default"),
        ({"id_field": "doc_id"}, {}, "`id_field='doc_id'` is ignored here: each document"),
        ({"id_field": None}, {}, "`id_field=None` is the peer's default, and changes nothing"),
        (
            {"ignore_record_details_in_response": False},
            {},
            "`ignore_record_details_in_response=False` is the peer's default, and changes nothing",
        ),
        (
            {"ignore_record_details_in_response": True},
            {},
            "`ignore_record_details_in_response=True` is ignored here: the reranker always",
        ),
        ({"location_id": "eu"}, {"location": "eu"}, "VertexAIRank's `location_id='eu'`"),
    ],
)
def test_the_rankers_names(given, ours, words):
    result, message = translated(PEER_RANKER_ARGUMENTS, **given)
    assert result == ours
    assert words in message


def test_the_summary_names():
    result, message = translated(
        PEER_SUMMARY_ARGUMENTS,
        summary_prompt="Answer briefly.",
        summary_include_citations=False,
        summary_spec_kwargs={
            "ignore_adversarial_query": True,
            "model_spec": {"version": "stable"},
            "language_code": "en",
        },
        max_documents=5,
    )
    assert result == {
        "preamble": "Answer briefly.",
        "include_citations": False,
        "ignore_adversarial_query": True,
        "model_version": "stable",
        "language_code": "en",
        "result_count": 3,
    }
    assert "`summary_prompt='Answer briefly.'` is `preamble='Answer briefly.'` here" in message
    assert "`max_documents=5` is ignored here: the summary reads one page of result_count" in (
        message
    )
    assert "As VertexAISearchSummaryTool did, the options not given take its defaults: " in message
    assert "result_count=3 (pass any of them to change it)." in message


def test_the_summary_result_count_in_our_name_wins_over_the_peers_default():
    result, message = translated(PEER_SUMMARY_ARGUMENTS, summary_prompt="p", result_count=7)
    assert result == {"preamble": "p", "result_count": 7}
    assert "defaults" not in message
    result, _ = translated(PEER_SUMMARY_ARGUMENTS, summary_result_count=1)
    assert result == {"result_count": 1}


def test_a_name_that_sets_two_of_ours_lists_both():
    _, message = translated(
        PEER_SUMMARY_ARGUMENTS,
        summary_spec_kwargs={"summary_result_count": 4, "include_citations": False},
    )
    assert "is `result_count=4, include_citations=False` here" in message


def test_every_summary_spec_key_maps_to_our_field():
    kwargs = {
        "summary_result_count": 4,
        "include_citations": False,
        "ignore_adversarial_query": True,
        "ignore_non_summary_seeking_query": True,
        "ignore_low_relevant_content": True,
        "ignore_jail_breaking_query": True,
        "model_prompt_spec": {"preamble": "Be brief."},
        "language_code": "fr",
        "model_spec": {"version": "preview"},
        "use_semantic_chunks": True,
    }
    result, message = translated(PEER_SUMMARY_ARGUMENTS, summary_spec_kwargs=kwargs)
    assert result == {
        "result_count": 4,
        "include_citations": False,
        "ignore_adversarial_query": True,
        "ignore_non_summary_seeking_query": True,
        "ignore_low_relevant_content": True,
        "ignore_jail_breaking_query": True,
        "preamble": "Be brief.",
        "language_code": "fr",
        "model_version": "preview",
        "use_semantic_chunks": True,
    }
    assert "defaults" not in message  # result_count given: no default left to apply


# -- refusals ----------------------------------------------------------------------------------


def test_a_peer_name_with_our_name_is_refused_naming_both():
    error = refused(PEER_RETRIEVER_ARGUMENTS, location_id="eu", location="us")
    assert str(error).startswith(
        "R got both `location_id` (langchain-google-community's name for `location`) and "
        "`location`: keep `location`"
    )
    error = refused(PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, max_documents=3, similarity_top_k=4)
    assert "both `max_documents` (llama-index-retrievers-vertexai-search's name for " in str(error)
    error = refused(PEER_RETRIEVER_ARGUMENTS, engine_data_type=0, search_mode="chunks")
    assert "both `engine_data_type` (" in str(error)
    assert "drop `engine_data_type`" in str(error)


def test_two_peer_names_for_one_setting_are_refused():
    error = refused(
        PEER_SUMMARY_ARGUMENTS,
        summary_result_count=4,
        summary_spec_kwargs={"summary_result_count": 2},
    )
    assert str(error).startswith(
        "R got both `summary_result_count` and `summary_spec_kwargs` (langchain-google-"
        "community's names), which both set `result_count`: keep one"
    )


@pytest.mark.parametrize(
    "name", ["custom_embedding", "custom_embedding_field_path", "custom_embedding_ratio"]
)
def test_custom_embeddings_have_no_equivalent(name):
    value = "embedding" if name == "custom_embedding_field_path" else 0.5
    error = refused(PEER_RETRIEVER_ARGUMENTS, **{name: value, "location_id": "eu"})
    assert str(error).startswith(
        f"R: langchain-google-community's VertexAISearchRetriever `{name}` has no equivalent "
        "here: custom embeddings need v1beta's SearchRequest.embedding_spec"
    )


def test_every_name_without_an_equivalent_is_listed():
    error = refused(PEER_RETRIEVER_ARGUMENTS, custom_embedding=1, custom_embedding_ratio=0.5)
    assert "`custom_embedding` has no equivalent" in str(error)
    assert "; langchain-google-community's VertexAISearchRetriever `custom_embedding_ratio`" in (
        str(error)
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("custom_embedding", None),
        ("custom_embedding_field_path", None),
        ("custom_embedding_ratio", None),
        ("custom_embedding_ratio", 0.0),
        ("beta", False),
    ],
)
def test_a_name_without_an_equivalent_set_to_the_peers_default_changes_nothing(name, value):
    result, message = translated(PEER_RETRIEVER_ARGUMENTS, **CHUNKS, **{name: value})
    assert result == CHUNKS
    assert f"VertexAISearchRetriever's `{name}={value!r}` is the peer's default, and changes " in (
        message
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [("custom_embedding_ratio", 0), ("custom_embedding_ratio", False), ("beta", 0)],
    ids=["ratio-int-0", "ratio-false", "beta-0"],
)
def test_the_peers_default_is_its_value_and_type(name, value):
    # 0 == 0.0 == False in Python: only the peer's own value is its default.
    with pytest.raises((TypeError, InputError)):
        translate_peer_arguments("R", PEER_RETRIEVER_ARGUMENTS, {name: value})


@pytest.mark.parametrize(
    ("table", "name"),
    [
        (PEER_RETRIEVER_ARGUMENTS, "filter"),
        (PEER_RETRIEVER_ARGUMENTS, "order_by"),
        (PEER_RETRIEVER_ARGUMENTS, "canonical_filter"),
        (PEER_CHECKER_ARGUMENTS, "citation_threshold"),
    ],
)
def test_none_where_the_peer_takes_it_for_its_default_leaves_ours(table, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert translate_peer_arguments("C", table, {name: None, "k": 2}) == {"k": 2}
        # Any other value is ours to check, as given.
        assert translate_peer_arguments("C", table, {name: "x"}) == {name: "x"}


def test_none_elsewhere_is_left_for_the_component_to_check():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert translate_peer_arguments("C", PEER_RETRIEVER_ARGUMENTS, {"k": None}) == {"k": None}
        assert translate_peer_arguments("C", PEER_RANKER_ARGUMENTS, {"filter": None}) == {
            "filter": None
        }


# -- our names the peer shares that only its documents search takes -----------------------------

DOCUMENTS_ONLY = [
    "return_snippet",
    "max_extractive_answer_count",
    "max_extractive_segment_count",
    "return_extractive_segment_score",
    "num_previous_segments",
    "num_next_segments",
]


@pytest.mark.parametrize("name", DOCUMENTS_ONLY)
def test_a_documents_option_without_search_mode_brings_the_peers_defaults(name):
    value = True if name in ("return_snippet", "return_extractive_segment_score") else 2
    result, message = translated_shared(**{name: value})
    assert result == {**PEER_DEFAULTS, **SEGMENTS, name: value}
    assert message.startswith(
        f"Component got {name} without search_mode, as langchain-google-community's "
        "VertexAISearchRetriever takes it. As VertexAISearchRetriever did, the options not "
        "given take its defaults: k=5, "
    )
    assert message.endswith(
        "(pass any of them to change it). Pass search_mode='documents' to choose every option "
        "yourself."
    )


def translated_shared(**arguments):
    """``translate_peer_arguments`` of our names alone, and its one DeprecationWarning."""
    with pytest.warns(DeprecationWarning, match="^Component got ") as record:
        result = translate_peer_arguments("Component", PEER_RETRIEVER_ARGUMENTS, arguments)
    assert len(record) == 1
    return result, str(record[0].message)


def test_two_documents_options_are_named_in_order():
    result, message = translated_shared(
        return_extractive_segment_score=True, max_extractive_segment_count=1, k=3
    )
    assert result == {**PEER_DEFAULTS, **SEGMENTS, "k": 3, "return_extractive_segment_score": True}
    assert message.startswith(
        "Component got max_extractive_segment_count, return_extractive_segment_score without "
        "search_mode, as langchain-google-community's VertexAISearchRetriever takes them."
    )
    assert "k=5" not in message


@pytest.mark.parametrize("mode", ["documents", "chunks"])
def test_documents_options_with_search_mode_are_ours_alone(mode):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        arguments = {"search_mode": mode, "max_extractive_segment_count": 1}
        assert translate_peer_arguments("C", PEER_RETRIEVER_ARGUMENTS, arguments) == arguments


@pytest.mark.parametrize(
    "table",
    [PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, PEER_SUMMARY_ARGUMENTS, PEER_CONNECTION_ARGUMENTS],
    ids=["llamaindex-retriever", "summary", "connection"],
)
def test_only_the_langchain_retriever_takes_documents_options_for_the_peers(table):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        arguments = {"max_extractive_segment_count": 1}
        assert translate_peer_arguments("C", table, arguments) == arguments


@pytest.mark.parametrize(
    "segment_option",
    ["return_extractive_segment_score", "num_previous_segments", "num_next_segments"],
)
def test_extractive_answers_with_segment_options_ask_for_one_segment(segment_option):
    value = True if segment_option == "return_extractive_segment_score" else 2
    result, message = translated(
        PEER_RETRIEVER_ARGUMENTS, get_extractive_answers=True, **{segment_option: value}
    )
    assert result == {
        **PEER_DEFAULTS,
        "search_mode": "documents",
        "return_snippet": False,
        "max_extractive_answer_count": 1,
        "max_extractive_segment_count": 1,
        "document_text": "extractive_answers",
        segment_option: value,
        **FLAT,
    }
    assert "max_extractive_segment_count=1" in message
    # Given, our count wins; without segment options, no segment is asked for.
    result, _ = translated(
        PEER_RETRIEVER_ARGUMENTS,
        get_extractive_answers=True,
        max_extractive_segment_count=3,
        **{segment_option: value},
    )
    assert result["max_extractive_segment_count"] == 3
    result, _ = translated(PEER_RETRIEVER_ARGUMENTS, get_extractive_answers=True)
    assert "max_extractive_segment_count" not in result


@pytest.mark.parametrize(
    ("table", "name", "value", "field", "limit"),
    [
        (PEER_RETRIEVER_ARGUMENTS, "location_id", 3, "location_id", None),
        (PEER_RETRIEVER_ARGUMENTS, "search_engine_id", None, "search_engine_id", None),
        (PEER_RETRIEVER_ARGUMENTS, "max_documents", 0, "max_documents", None),
        (PEER_RETRIEVER_ARGUMENTS, "max_documents", True, "max_documents", None),
        (PEER_RETRIEVER_ARGUMENTS, "max_documents", "3", "max_documents", None),
        (PEER_RETRIEVER_ARGUMENTS, "engine_data_type", 3, "engine_data_type", [0, 1, 2]),
        (PEER_RETRIEVER_ARGUMENTS, "engine_data_type", -1, "engine_data_type", [0, 1, 2]),
        (PEER_RETRIEVER_ARGUMENTS, "engine_data_type", True, "engine_data_type", [0, 1, 2]),
        (PEER_RETRIEVER_ARGUMENTS, "get_extractive_answers", 1, "get_extractive_answers", None),
        (
            PEER_RETRIEVER_ARGUMENTS,
            "query_expansion_condition",
            3,
            "query_expansion_condition",
            [0, 1, 2],
        ),
        (
            PEER_RETRIEVER_ARGUMENTS,
            "spell_correction_mode",
            "auto",
            "spell_correction_mode",
            [0, 1, 2],
        ),
        (PEER_RETRIEVER_ARGUMENTS, "beta", "yes", "beta", None),
        (PEER_RETRIEVER_ARGUMENTS, "credentials_path", 3, "credentials_path", None),
        (PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, "max_documents", 0, "max_documents", None),
        (PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, "engine_data_type", 3, "engine_data_type", [0, 1, 2]),
        (PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, "user_agent", 3, "user_agent", None),
        (PEER_RANKER_ARGUMENTS, "title_field", 3, "title_field", None),
        (PEER_RANKER_ARGUMENTS, "id_field", 3, "id_field", None),
        (
            PEER_RANKER_ARGUMENTS,
            "ignore_record_details_in_response",
            None,
            "ignore_record_details_in_response",
            None,
        ),
        (PEER_SUMMARY_ARGUMENTS, "summary_prompt", None, "summary_prompt", None),
        (PEER_SUMMARY_ARGUMENTS, "summary_result_count", 0, "summary_result_count", None),
        (
            PEER_SUMMARY_ARGUMENTS,
            "summary_include_citations",
            "no",
            "summary_include_citations",
            None,
        ),
        (PEER_SUMMARY_ARGUMENTS, "max_documents", 0, "max_documents", None),
        (PEER_SUMMARY_ARGUMENTS, "summary_spec_kwargs", ["x"], "summary_spec_kwargs", None),
        (PEER_SUMMARY_ARGUMENTS, "summary_spec_kwargs", {"x": 1}, "summary_spec_kwargs.x", None),
        (
            PEER_SUMMARY_ARGUMENTS,
            "summary_spec_kwargs",
            {"model_spec": "stable"},
            "summary_spec_kwargs.model_spec",
            None,
        ),
        (
            PEER_SUMMARY_ARGUMENTS,
            "summary_spec_kwargs",
            {"model_spec": {"version": "v", "x": 1}},
            "summary_spec_kwargs.model_spec",
            None,
        ),
        (
            PEER_SUMMARY_ARGUMENTS,
            "summary_spec_kwargs",
            {"model_prompt_spec": {"prompt": "p"}},
            "summary_spec_kwargs.model_prompt_spec",
            None,
        ),
    ],
)
def test_a_bad_peer_value_names_the_field(table, name, value, field, limit):
    with pytest.raises(InputError, match=f"^{name}|^summary_spec_kwargs") as info:
        translate_peer_arguments("R", table, {name: value})
    assert (info.value.field, info.value.limit) == (field, limit)


@pytest.mark.parametrize(
    ("table", "arguments", "words"),
    [
        (PEER_RETRIEVER_ARGUMENTS, {"beta": "yes"}, r"^beta must be True or False, got str 'yes'"),
        (
            PEER_RETRIEVER_ARGUMENTS,
            {"credentials_path": 3},
            r"^credentials_path must be .* got int",
        ),
        (
            PEER_RANKER_ARGUMENTS,
            {"title_field": 3},
            r"^title_field must be a metadata key \(a string\), got int: write "
            r"title_fields=\('title',\) instead",
        ),
        (
            PEER_SUMMARY_ARGUMENTS,
            {"summary_spec_kwargs": ["x"]},
            r"^summary_spec_kwargs must be a dict of SummarySpec fields, got list",
        ),
        (
            PEER_SUMMARY_ARGUMENTS,
            {"summary_spec_kwargs": {"x": 1}},
            r"^summary_spec_kwargs has 'x', which is not a SummarySpec field this summary sends; "
            r"the fields are summary_result_count, include_citations, ignore_adversarial_query, ",
        ),
        (
            PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS,
            {"user_agent": 3},
            r"^user_agent must be a string, got int",
        ),
        (
            PEER_RETRIEVER_ARGUMENTS,
            {"location_id": 3},
            r"^location_id must be a string, got int: write location=",
        ),
    ],
)
def test_a_bad_peer_value_says_what_was_given_by_its_type(table, arguments, words):
    with pytest.raises(InputError, match=words):
        translate_peer_arguments("R", table, arguments)


def test_a_bad_enum_value_lists_the_values_it_takes():
    with pytest.raises(
        InputError, match=r"0 \(unstructured data\), 1 \(structured data\), 2 \(web"
    ):
        translate_peer_arguments("R", PEER_RETRIEVER_ARGUMENTS, {"engine_data_type": 7})
    with pytest.raises(
        InputError, match=r"here write query_expansion= with one of \[None, 'disab"
    ) as info:
        translate_peer_arguments("R", PEER_RETRIEVER_ARGUMENTS, {"query_expansion_condition": 7})
    assert (info.value.field, info.value.limit) == ("query_expansion_condition", [0, 1, 2])


def test_a_bad_value_is_shown_by_its_type_when_it_is_an_object():
    with pytest.raises(InputError, match="got <object>") as info:
        translate_peer_arguments("R", PEER_RETRIEVER_ARGUMENTS, {"engine_data_type": object()})
    assert (info.value.field, info.value.limit) == ("engine_data_type", [0, 1, 2])


# -- the tables --------------------------------------------------------------------------------


class _WithTable:
    _peer_arguments = PEER_CHECKER_ARGUMENTS


class _WithSomethingElse:
    _peer_arguments = ("location_id", "location")


def test_peer_table_of():
    assert peer_table_of(_WithTable, ()) is PEER_CHECKER_ARGUMENTS
    assert peer_table_of(_WithTable, {"project_id", "location"}) is PEER_CHECKER_ARGUMENTS
    assert peer_table_of(object, {"project_id", "location"}) is PEER_CONNECTION_ARGUMENTS
    assert (
        peer_table_of(_WithSomethingElse, {"project_id", "location"}) is PEER_CONNECTION_ARGUMENTS
    )
    assert peer_table_of(object, {"project_id"}) is None
    assert peer_table_of(object, {"location"}) is None
    assert peer_table_of(_WithSomethingElse, ()) is None


@pytest.mark.parametrize("table", TABLES.values(), ids=TABLES)
def test_every_table_names_its_peer_names_once(table):
    assert table.names == frozenset(a.name for a in table.arguments)
    assert len(table.names) == len(table.arguments)
    for argument in table.arguments:
        assert argument.package in (LANGCHAIN_PEER, LLAMAINDEX_PEER)
        if not argument.ours:  # refused or ignored: the note says why
            assert argument.note, argument.name
        else:
            assert argument.convert is not None, argument.name


def test_every_conversion_sets_only_the_names_it_declares():
    for name, value, ours in LANGCHAIN_ALIASES:
        argument = next(a for a in PEER_RETRIEVER_ARGUMENTS.arguments if a.name == name)
        assert argument.convert(value) == ours
        assert set(ours) <= set(argument.ours)


def test_the_tables_names():
    assert PEER_CONNECTION_ARGUMENTS.names == {"location_id", "credentials_path"}
    assert PEER_CHECKER_ARGUMENTS.names == {"location_id", "credentials_path"}
    assert PEER_CHECKER_ARGUMENTS.nones == {"citation_threshold"}
    assert PEER_RANKER_ARGUMENTS.names == {
        "location_id",
        "credentials_path",
        "title_field",
        "id_field",
        "ignore_record_details_in_response",
    }
    assert PEER_SUMMARY_ARGUMENTS.names == {
        "location_id",
        "summary_prompt",
        "summary_result_count",
        "summary_include_citations",
        "summary_spec_kwargs",
        "max_documents",
        "credentials_path",
    }
    assert PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS.names == {
        "location_id",
        "max_documents",
        "engine_data_type",
        "user_agent",
        "credentials_path",
    }
    assert PEER_RETRIEVER_ARGUMENTS.names == {
        "location_id",
        "search_engine_id",
        "max_documents",
        "engine_data_type",
        "get_extractive_answers",
        "query_expansion_condition",
        "spell_correction_mode",
        "beta",
        "custom_embedding",
        "custom_embedding_field_path",
        "custom_embedding_ratio",
        "credentials_path",
    }
    assert PEER_RETRIEVER_ARGUMENTS.nones == {"filter", "order_by", "canonical_filter"}
    assert PEER_CONNECTION_ARGUMENTS.defaults is None
    assert (LANGCHAIN_PEER, LLAMAINDEX_PEER) == (
        "langchain-google-community",
        "llama-index-retrievers-vertexai-search",
    )


def test_a_table_of_ones_own():
    table = PeerTable((PeerArgument("pkg", "Peer", "old", ("new",), lambda v: {"new": v * 2}),))
    result, message = translated(table, old=2)
    assert result == {"new": 4}
    assert message.startswith("Component got pkg's name: Peer's `old=2` is `new=4` here.")


# -- the peer's environment variables ---------------------------------------------------------

KNOWN = {"project_id", "location", "data_store_id", "engine_id"}


@pytest.mark.parametrize(
    ("environment", "known", "given", "read"),
    [
        ({"PROJECT_ID": "peer"}, KNOWN, {}, {"project_id": "peer"}),
        ({"PROJECT_ID": "peer"}, KNOWN, {"project_id": ""}, {"project_id": "peer"}),
        ({"PROJECT_ID": "peer"}, KNOWN, {"project_id": None}, {"project_id": "peer"}),
        ({"PROJECT_ID": "peer"}, KNOWN, {"project_id": "mine"}, {}),
        ({"PROJECT_ID": "peer", "GOOGLE_CLOUD_PROJECT": "ours"}, KNOWN, {}, {}),
        ({"PROJECT_ID": "peer", "GCLOUD_PROJECT": "ours"}, KNOWN, {}, {}),
        ({"PROJECT_ID": "peer", "GOOGLE_CLOUD_PROJECT": ""}, KNOWN, {}, {"project_id": "peer"}),
        ({"PROJECT_ID": ""}, KNOWN, {}, {}),
        ({"PROJECT_ID": "peer"}, {"location", "data_store_id"}, {}, {}),
        ({"DATA_STORE_ID": "store"}, KNOWN, {}, {"data_store_id": "store"}),
        ({"DATA_STORE_ID": "store"}, KNOWN, {"data_store_id": None}, {"data_store_id": "store"}),
        ({"DATA_STORE_ID": "store"}, KNOWN, {"data_store_id": ""}, {}),
        ({"DATA_STORE_ID": "store"}, KNOWN, {"data_store_id": "mine"}, {}),
        ({"DATA_STORE_ID": "store"}, KNOWN, {"engine_id": "app"}, {}),
        ({"DATA_STORE_ID": "store"}, KNOWN, {"engine_id": ""}, {}),
        ({"DATA_STORE_ID": "store", "GROUNDING_DATA_STORE": "ours"}, KNOWN, {}, {}),
        (
            {"DATA_STORE_ID": "store", "GROUNDING_DATA_STORE": ""},
            KNOWN,
            {},
            {"data_store_id": "store"},
        ),
        ({"DATA_STORE_ID": ""}, KNOWN, {}, {}),
        ({"DATA_STORE_ID": "store"}, {"project_id", "location"}, {}, {}),
        (
            {"PROJECT_ID": "peer", "DATA_STORE_ID": "store"},
            KNOWN,
            {},
            {"project_id": "peer", "data_store_id": "store"},
        ),
    ],
)
def test_the_peers_variables_are_read_only_where_ours_are_unset(
    monkeypatch, environment, known, given, read
):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = translate_peer_arguments("C", PEER_CONNECTION_ARGUMENTS, given, known)
    assert result == {**given, **read}
    assert [w.category for w in caught] == [DeprecationWarning] * len(read)
    for warning, (name, value) in zip(caught, read.items(), strict=True):
        variable = PEER_PROJECT_ENV_VAR if name == "project_id" else PEER_DATA_STORE_ENV_VAR
        ours = "GOOGLE_CLOUD_PROJECT" if name == "project_id" else "GROUNDING_DATA_STORE"
        message = str(warning.message)
        assert message.startswith(
            f"C read ${variable}, langchain-google-community's variable, as {name}={value!r}: "
        )
        assert f"set {ours} (or pass {name}=...) instead" in message
        if "MUTANT_UNDER_TEST" not in os.environ:
            assert warning.filename == __file__


def test_the_peers_variables_are_not_read_without_a_table(monkeypatch):
    monkeypatch.setenv(PEER_PROJECT_ENV_VAR, "peer")
    monkeypatch.setenv(PEER_DATA_STORE_ENV_VAR, "store")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert translate_peer_arguments("C", None, {}, KNOWN) == {}
        assert translate_peer_arguments("C", PEER_CONNECTION_ARGUMENTS, {}) == {}


def test_the_variables_come_with_the_peers_names(monkeypatch):
    monkeypatch.setenv(PEER_PROJECT_ENV_VAR, "peer")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = translate_peer_arguments(
            "R", PEER_RETRIEVER_ARGUMENTS, {"location_id": "eu", **CHUNKS}, KNOWN
        )
    assert result == {"project_id": "peer", "location": "eu", **CHUNKS}
    assert [str(w.message).split(",")[0] for w in caught] == [
        "R read $PROJECT_ID",
        "R got langchain-google-community's name: VertexAISearchRetriever's `location_id='eu'` is "
        "`location='eu'` here. Write our names: the peers' names are deprecated.",
    ]
    assert PEER_PROJECT_ENV_VAR == "PROJECT_ID"
    assert PEER_DATA_STORE_ENV_VAR == "DATA_STORE_ID"


# -- unknown names -----------------------------------------------------------------------------


class _Options(TypedDict, total=False):
    timeout: float
    location: str


class _FreshOptions(TypedDict, total=False):
    timeout: float


class _Required(TypedDict):
    region: str


class _Connected(TypedDict, total=False):
    project_id: str | None
    location: str


class _Component:
    @refuse_unknown_arguments
    def __init__(self, query: str, *, k: int = 4, **options: Unpack[_Options]) -> None:
        self.query, self.k, self.options = query, k, options


def test_known_names_pass_through():
    built = _Component("q", k=2, timeout=1.5, location="eu")
    assert (built.query, built.k, built.options) == ("q", 2, {"timeout": 1.5, "location": "eu"})
    assert _Component(query="q").query == "q"  # a named parameter given by keyword
    assert _Component.__init__.__name__ == "__init__"  # wrapped


def test_an_unknown_name_is_a_type_error_naming_it_and_the_closest():
    with pytest.raises(
        TypeError,
        match=r"^_Component got unknown arguments 'locaton' \(did you mean 'location'\?\), 'zzz'",
    ):
        _Component("q", locaton="eu", zzz=1)


def test_a_subclass_is_named_by_its_own_name():
    class Mine(_Component):
        pass

    with pytest.raises(
        TypeError, match=r"^Mine got an unknown argument 'kk' \(did you mean 'k'\?\)"
    ):
        Mine("q", kk=1)


def test_the_known_names_are_read_fresh_from_a_new_signature():
    # Decorated inside the test: the names are resolved at this class's first call, not
    # remembered from an earlier run (mutation testing forks after the first runs).
    class Fresh:
        @refuse_unknown_arguments
        def __init__(self, query: str, *args: int, k: int = 4, **options: Unpack[_FreshOptions]):
            self.seen = (query, args, k, options)

    class FreshRequired:
        @refuse_unknown_arguments
        def __init__(self, **options: Unpack[_Required]):
            self.seen = options

    built = Fresh("q", 1, 2, k=3, timeout=1.0)
    assert built.seen == ("q", (1, 2), 3, {"timeout": 1.0})
    assert Fresh("r").seen == ("r", (), 4, {})  # the names are remembered after the first call
    assert FreshRequired(region="eu").seen == {"region": "eu"}
    with pytest.raises(TypeError, match=r"^Fresh got unknown arguments 'args', 'options': "):
        Fresh("q", args=1, options=3, timeout=1.0)
    with pytest.raises(TypeError, match=r"^FreshRequired got an unknown argument 'regio' "):
        FreshRequired(regio="eu")


def test_a_decorated_component_translates_its_peers_names_first():
    class Connected:
        @refuse_unknown_arguments
        def __init__(self, **options: Unpack[_Connected]):
            self.options = options

    class Retrieving(Connected):
        _peer_arguments = PEER_RETRIEVER_ARGUMENTS

    with pytest.warns(DeprecationWarning, match=r"^Connected got langchain-google-community's "):
        assert Connected(location_id="eu").options == {"location": "eu"}
    with pytest.raises(TypeError, match="`custom_embedding` has no equivalent here"):
        Retrieving(custom_embedding=object())


def test_a_decorated_component_reads_the_peers_variable_for_its_names(monkeypatch):
    class Connected:
        @refuse_unknown_arguments
        def __init__(self, **options: Unpack[_Connected]):
            self.options = options

    class Unconnected:
        @refuse_unknown_arguments
        def __init__(self, **options: Unpack[_Options]):
            self.options = options

    monkeypatch.setenv(PEER_PROJECT_ENV_VAR, "peer")
    with pytest.warns(DeprecationWarning, match=r"^Connected read \$PROJECT_ID") as record:
        assert Connected().options == {"project_id": "peer"}
    if "MUTANT_UNDER_TEST" not in os.environ:
        assert record[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Connected(project_id="mine").options == {"project_id": "mine"}
        assert Unconnected(location="eu").options == {"location": "eu"}


@pytest.mark.parametrize(
    ("given", "known", "start"),
    [
        (["k"], ["k"], None),
        ([], ["k"], None),
        ([3], ["k"], "C got an unknown argument '3': "),
        (["kk", "k"], ["k", "filter"], "C got an unknown argument 'kk' (did you mean 'k'?): "),
        (
            ["limt"],
            ["limit", "limits", "lime"],
            "C got an unknown argument 'limt' (did you mean 'limit'?): ",
        ),
        (["x" * 60], ["k"], f"C got an unknown argument {'x' * 60!r}: "),
        (["y" * 61], ["k"], f"C got an unknown argument {'y' * 60 + '...'!r}: "),
        (["a", "b"], ["k"], "C got unknown arguments 'a', 'b': "),
    ],
    ids=["known", "none", "not-a-string", "closest", "closest-only", "60", "61", "two"],
)
def test_the_unknown_arguments_message(given, known, start):
    message = unknown_arguments_message("C", given, known)
    if start is None:
        assert message is None
    else:
        assert message == start + "check the spelling; help(C) lists the arguments"


class _Model(BaseModel):
    k: int


def test_init_without_inputs_drops_every_input():
    model = _Model.model_construct()
    with pytest.raises(ValidationError) as info:
        init_without_inputs(model.__init__, {"k": "secret-ish"})
    error = info.value
    assert error.__context__ is None
    assert error.__cause__ is None
    assert type(error) is ValidationError
    assert error.title == "_Model"
    assert [(e["loc"], e["type"], e["input"]) for e in error.errors()] == [
        (("k",), "int_parsing", None)
    ]
    assert "secret-ish" not in str(error) + repr(error) + error.json()
    text = str(error)
    assert "input_value" not in text
    assert "input_type" not in text
    assert text.splitlines()[:2] == ["1 validation error for _Model", "k"]


def test_init_without_inputs_builds_and_lets_other_errors_through():
    model = _Model.model_construct()
    init_without_inputs(model.__init__, {"k": 3})
    assert model.k == 3

    def broken(**data):
        raise ValueError("not a validation error")

    with pytest.raises(ValueError, match="not a validation error") as info:
        init_without_inputs(broken, {})
    assert type(info.value) is ValueError


# -- the module's example and a translated search ----------------------------------------------


def test_the_module_docstring_example_runs():
    result = doctest.testmod(peers, optionflags=doctest.ELLIPSIS)
    assert (result.failed, result.attempted) == (0, 4)


def test_a_translated_search_on_the_emulator(emulator):
    arguments, _ = translated(
        PEER_RETRIEVER_ARGUMENTS,
        project_id="test-project",
        location_id="eu",
        data_store_id="test-docs",
        max_documents=10,
        spell_correction_mode=1,
        emulator_host=emulator.address,
        retry=None,
    )
    assert arguments.pop("metadata_layout") == "flat"  # the adapters' option
    connection_keys = DiscoveryEngineConnectionArgs.__optional_keys__
    connection = DiscoveryEngineConnection(
        **{k: v for k, v in arguments.items() if k in connection_keys}
    )
    try:
        search = DiscoveryEngineChunkSearch(
            connection, **{k: v for k, v in arguments.items() if k not in connection_keys}
        )
        request = search_request(search.target, "lighthuose", search.spec)
        assert request.serving_config.startswith("projects/test-project/locations/eu/")
        assert request.page_size == 10
        assert request.content_search_spec.search_result_mode == MODE.DOCUMENTS
        extractive = request.content_search_spec.extractive_content_spec
        assert (extractive.max_extractive_segment_count, extractive.num_previous_segments) == (1, 1)
        assert extractive.num_next_segments == 1
        assert not request.content_search_spec.snippet_spec.return_snippet
        assert request.spell_correction_spec.mode == SPELL.SUGGESTION_ONLY
        assert request.query_expansion_spec.condition == EXPANSION.DISABLED
        # Served: suggestion only, so the misspelt query finds nothing and is corrected.
        misspelt = search.search_results("lighthuose")
        assert (misspelt.corrected_query, misspelt.chunks) == ("lighthouse", ())
        results = search.search_results("lighthouse keeper")
        assert len(results.chunks) == 10
        for chunk in results.chunks:
            assert chunk.name.startswith("projects/test-project/locations/eu/")
            segments = chunk.derived_struct_data["extractive_segments"]
            assert len(segments) == 1
            assert "lighthouse" in segments[0]["content"]
            assert "snippets" not in chunk.derived_struct_data
    finally:
        connection.close()


# -- the conversions' factories ----------------------------------------------------------------
# The tables are built once, at import, by these private factories: called here (the units under
# test) so that mutation testing, which cannot rebuild the tables, reaches them.


@pytest.mark.parametrize("package", [LANGCHAIN_PEER, LLAMAINDEX_PEER])
def test_the_location_id_factory_builds_the_tables_entry(package):
    argument = peers._location_id(package, "Peer")
    assert (argument.package, argument.component, argument.name) == (package, "Peer", "location_id")
    assert (argument.ours, argument.note) == (("location",), "")
    assert argument.convert("eu") == {"location": "eu"}
    with pytest.raises(
        InputError, match=r"^location_id must be a string, got int: write location="
    ) as info:
        argument.convert(3)
    assert (info.value.field, info.value.limit) == ("location_id", None)


@pytest.mark.parametrize("package", [LANGCHAIN_PEER, LLAMAINDEX_PEER])
def test_the_engine_data_type_factory_builds_the_tables_entry(package):
    argument = peers._engine_data_type_argument(package)
    table = (
        PEER_RETRIEVER_ARGUMENTS
        if package == LANGCHAIN_PEER
        else PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS
    )
    assert argument == next(a for a in table.arguments if a.name == "engine_data_type")
    assert (argument.package, argument.component, argument.ours) == (
        package,
        "VertexAISearchRetriever",
        ("search_mode",),
    )
    assert argument.note == "the content the peer asked for with it is in the defaults below"
    assert argument.convert(2) == {"search_mode": "documents"}


def test_the_text_and_count_factories():
    text = peers._text("old", "new")
    assert text("v") == {"new": "v"}
    with pytest.raises(
        InputError, match=r"^old must be a string, got NoneType: write new='\.\.\.' instead"
    ) as info:
        text(None)
    assert info.value.field == "old"
    count = peers._count("old", "new")
    assert count(1) == {"new": 1}
    for bad, words in (
        (0, r"^old must be >= 1, got 0"),
        ("1", r"^old must be an integer, got str"),
    ):
        with pytest.raises(InputError, match=words) as info:
            count(bad)
        assert info.value.field == "old"


def test_the_flag_factories():
    flag, ignored = peers._flag("old", "new"), peers._ignored_flag("old")
    assert (flag(True), flag(False), ignored(True), ignored(False)) == (
        {"new": True},
        {"new": False},
        {},
        {},
    )
    for convert in (flag, ignored):
        with pytest.raises(InputError, match=r"^old must be True or False, got int 1") as info:
            convert(1)
        assert info.value.field == "old"


def test_the_ignored_count_and_text_factories():
    count, text = peers._ignored_count("old"), peers._ignored_text("old")
    assert (count(1), text(None), text(""), text("x")) == ({}, {}, {}, {})
    with pytest.raises(InputError, match=r"^old must be >= 1, got 0") as info:
        count(0)
    assert info.value.field == "old"
    with pytest.raises(InputError, match=r"^old must be a string, got int") as info:
        text(3)
    assert info.value.field == "old"


def test_the_enum_factory():
    choices = {0: (None, "unspecified"), 2: ("auto", "automatic")}
    convert = peers._enum("old", "new", choices)
    assert (convert(0), convert(2)) == ({"new": None}, {"new": "auto"})
    for bad, shown in ((1, "1"), (True, "True"), ("auto", "'auto'")):
        with pytest.raises(InputError) as info:
            convert(bad)
        assert f"old must be one of 0 (unspecified), 2 (automatic), got {shown}; " in str(
            info.value
        )
        assert "; here write new= with one of [None, 'auto']" in str(info.value)
        assert (info.value.field, info.value.limit) == ("old", [0, 2])
    hinted = peers._enum("old", "new", choices, "write new='auto'")
    with pytest.raises(InputError, match=r"got 5; write new='auto'"):
        hinted(5)
