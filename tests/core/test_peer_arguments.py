"""The peers' argument names (grounding_core/peer_arguments.py): each translated to ours with a
DeprecationWarning, the peer's defaults applied only with peer names, clashes and names with
no equivalent refused; the peer's environment variables; a translated search on the emulator
(the request sent, and what the emulator served)."""

from __future__ import annotations

import doctest
import json
import os
import warnings
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.cloud import discoveryengine_v1 as de
from google.oauth2 import service_account

from grounding_core import (
    GROUNDING_DATA_STORE,
    PEER_CHECKER_ARGUMENTS,
    PEER_CONNECTION_ARGUMENTS,
    PEER_DATA_STORE_ENV_VAR,
    PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS,
    PEER_PROJECT_ENV_VAR,
    PEER_RETRIEVER_ARGUMENTS,
    PEER_SUMMARY_ARGUMENTS,
    ConfigurationError,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    InputError,
    PeerTable,
    peer_arguments,
    peer_table_of,
    resolve_project,
    translate_peer_arguments,
)
from grounding_core.search import search_request

MODE = de.SearchRequest.ContentSearchSpec.SearchResultMode
SPELL = de.SearchRequest.SpellCorrectionSpec.Mode
EXPANSION = de.SearchRequest.QueryExpansionSpec.Condition
EMAIL = "peer-test@test-project.iam.gserviceaccount.com"


def service_account_file(path: Path) -> Path:
    """A service account key file (a fresh RSA key), as ``gcloud iam service-accounts keys
    create`` writes one."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    info = {
        "type": "service_account",
        "project_id": "test-project",
        "private_key_id": "0123456789abcdef",
        "private_key": pem,
        "client_email": EMAIL,
        "client_id": "1234567890",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    path.write_text(json.dumps(info), encoding="utf-8")
    return path


def translated(table: PeerTable, component: str = "Component", **arguments):
    """``translate_peer_arguments`` and the one DeprecationWarning it gives."""
    with pytest.warns(DeprecationWarning, match=f"^{component} got ") as record:
        result = translate_peer_arguments(component, table, arguments)
    assert len(record) == 1
    return result, str(record[0].message)


def test_no_peer_name_is_a_copy_without_warning():
    arguments = {"k": 3, "location": "eu"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = translate_peer_arguments("C", PEER_RETRIEVER_ARGUMENTS, arguments)
        assert translate_peer_arguments("C", None, {"location_id": "eu"}) == {"location_id": "eu"}
    assert result == arguments
    assert result is not arguments


PEER_DEFAULTS = {"k": 5, "spell_correction": "auto", "query_expansion": "disabled"}
SEGMENTS = {
    "search_mode": "documents",
    "return_snippet": False,
    "max_extractive_segment_count": 1,
    "num_previous_segments": 1,
    "num_next_segments": 1,
    "document_text": "extractive_segments",
}
# Our names for every option the LangChain peer's defaults set: none is left to apply.
CHUNKS = {"k": 4, "spell_correction": None, "query_expansion": None, "search_mode": "chunks"}
# The content the LangChain peer asks for per engine_data_type (without extractive answers).
CONTENT = {
    0: {key: v for key, v in SEGMENTS.items() if key != "search_mode"},
    1: {"return_snippet": False, "document_text": "struct_data"},
    2: {"return_snippet": True, "max_extractive_answer_count": 1, "document_text": "snippets"},
}

# (peer name, value, our arguments it becomes) for the LangChain retriever's table
LANGCHAIN_ALIASES = [
    ("location_id", "eu", {"location": "eu"}),
    ("search_engine_id", "docs", {"data_store_id": "docs"}),
    ("max_documents", 10, {"k": 10}),
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
]


@pytest.mark.parametrize(("name", "value", "ours"), LANGCHAIN_ALIASES)
def test_each_langchain_retriever_name_maps_to_ours(name, value, ours):
    # Every option the defaults would set is given: the result is the alias alone.
    given = {"k": 4, "spell_correction": None, "query_expansion": None, "search_mode": "chunks"}
    given = {key: v for key, v in given.items() if key not in ours}
    result, message = translated(PEER_RETRIEVER_ARGUMENTS, **given, **{name: value})
    if name == "engine_data_type":  # documents mode: the type's content comes with it
        assert result == {**given, **ours, **CONTENT[value]}
    else:
        assert result == {**given, **ours}
    assert f"langchain-google-community's name: VertexAISearchRetriever's `{name}=" in message
    assert message.endswith("Write our names: the peers' names are deprecated.")


def test_the_warning_names_the_new_name_and_value():
    _, message = translated(
        PEER_RETRIEVER_ARGUMENTS, "DiscoveryEngineRetriever", location_id="eu", k=4,
        search_mode="chunks", spell_correction="auto", query_expansion="auto",
    )  # fmt: skip
    assert message == (
        "DiscoveryEngineRetriever got langchain-google-community's name: "
        "VertexAISearchRetriever's `location_id='eu'` is `location='eu'` here. "
        "Write our names: the peers' names are deprecated."
    )


def test_ignored_names_say_why():
    _, message = translated(PEER_RETRIEVER_ARGUMENTS, beta=True, search_mode="chunks")
    assert "VertexAISearchRetriever's `beta=True` is ignored here: v1 serves everything" in message
    _, message = translated(PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, user_agent="my-app/1.0")
    assert "`user_agent='my-app/1.0'` is ignored here: Google's client library sends" in message
    assert "llama-index-retrievers-vertexai-search's name" in message
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
            },
        ),
        (
            {"engine_data_type": 1},
            {
                **PEER_DEFAULTS,
                "search_mode": "documents",
                "return_snippet": False,
                "document_text": "struct_data",
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
            },
        ),
    ],
)
def test_the_langchain_peers_defaults_follow_its_content_spec(given, expected):
    result, message = translated(PEER_RETRIEVER_ARGUMENTS, **given)
    assert result == expected
    assert "As VertexAISearchRetriever did, the options not given take its defaults: " in message
    assert "k=5" in message
    assert f"document_text={expected['document_text']!r}" in message


def test_the_llamaindex_peers_defaults():
    result, message = translated(PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, max_documents=10)
    assert result == {
        "similarity_top_k": 10,
        "spell_correction": "suggestion_only",
        "query_expansion": "disabled",
        "search_mode": "documents",
        "return_snippet": False,
        "max_extractive_segment_count": 1,
        "return_extractive_segment_score": True,
        "document_text": "extractive_segments",
    }
    assert "`max_documents=10` is `similarity_top_k=10` here" in message
    result, _ = translated(PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, engine_data_type=2)
    assert result["max_extractive_answer_count"] == 1
    assert result["return_snippet"] is True
    assert result["similarity_top_k"] == 5


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


def test_connection_names_bring_no_search_defaults(tmp_path):
    path = service_account_file(tmp_path / "key.json")
    result, message = translated(PEER_RETRIEVER_ARGUMENTS, credentials_path=str(path))
    assert set(result) == {"credentials"}
    assert "defaults" not in message
    result, _ = translated(PEER_CONNECTION_ARGUMENTS, location_id="us")
    assert result == {"location": "us"}


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


def test_the_summary_names(tmp_path):
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
    assert "the options not given take its defaults: result_count=3" in message


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


def test_a_peer_name_with_our_name_is_refused_naming_both():
    with pytest.raises(TypeError) as info:
        translate_peer_arguments(
            "R", PEER_RETRIEVER_ARGUMENTS, {"location_id": "eu", "location": "us"}
        )
    assert str(info.value) == (
        "R got both `location_id` (langchain-google-community's name for `location`) and "
        "`location`: keep `location` and drop `location_id`"
    )
    with pytest.raises(TypeError, match=r"both `max_documents` .* and `similarity_top_k`"):
        translate_peer_arguments(
            "R", PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS, {"max_documents": 3, "similarity_top_k": 4}
        )
    with pytest.raises(TypeError, match=r"both `engine_data_type` .* and `search_mode`"):
        translate_peer_arguments(
            "R", PEER_RETRIEVER_ARGUMENTS, {"engine_data_type": 0, "search_mode": "chunks"}
        )


def test_two_peer_names_for_one_setting_are_refused():
    with pytest.raises(TypeError) as info:
        translate_peer_arguments(
            "S",
            PEER_SUMMARY_ARGUMENTS,
            {"summary_result_count": 4, "summary_spec_kwargs": {"summary_result_count": 2}},
        )
    assert str(info.value) == (
        "S got both `summary_result_count` and `summary_spec_kwargs` (langchain-google-"
        "community's names), which both set `result_count`: keep one (better: `result_count`)"
    )


@pytest.mark.parametrize(
    "name", ["custom_embedding", "custom_embedding_field_path", "custom_embedding_ratio"]
)
def test_custom_embeddings_have_no_equivalent(name):
    with pytest.raises(TypeError) as info:
        translate_peer_arguments("R", PEER_RETRIEVER_ARGUMENTS, {name: 0.5, "location_id": "eu"})
    assert str(info.value) == (
        f"R: langchain-google-community's VertexAISearchRetriever `{name}` has no equivalent "
        "here: custom embeddings need v1beta's SearchRequest.embedding_spec, which v1 (the API "
        "this package calls) does not have; drop it (the search ranks by relevance), or rank "
        "with your own embeddings after retrieving"
    )


def test_the_checkers_client_has_no_equivalent():
    with pytest.raises(TypeError, match="`client` has no equivalent here: the checker builds"):
        translate_peer_arguments("G", PEER_CHECKER_ARGUMENTS, {"client": object()})


class _WithTable:
    _peer_arguments = PEER_CHECKER_ARGUMENTS


def test_peer_table_of():
    assert peer_table_of(_WithTable, ()) is PEER_CHECKER_ARGUMENTS
    assert peer_table_of(object, {"project_id", "location"}) is PEER_CONNECTION_ARGUMENTS
    assert peer_table_of(object, {"project_id"}) is None
    assert peer_table_of(object, {"location"}) is None


def test_every_conversion_sets_only_the_names_it_declares():
    for table in (
        PEER_RETRIEVER_ARGUMENTS,
        PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS,
        PEER_CHECKER_ARGUMENTS,
        PEER_SUMMARY_ARGUMENTS,
        PEER_CONNECTION_ARGUMENTS,
    ):
        assert len(table.names) == len(table.arguments)
        for argument in table.arguments:
            if not argument.ours:  # refused or ignored: the note says why
                assert argument.note, argument.name
            else:
                assert argument.convert is not None, argument.name
    for name, _, ours in LANGCHAIN_ALIASES:
        argument = next(a for a in PEER_RETRIEVER_ARGUMENTS.arguments if a.name == name)
        assert set(ours) <= set(argument.ours)


# -- the peer's environment variables -------------------------------------------------------


def test_project_id_is_read_after_google_cloud_project(monkeypatch):
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    monkeypatch.delenv("GCLOUD_PROJECT", raising=False)
    monkeypatch.setenv(PEER_PROJECT_ENV_VAR, "peer-project")
    with pytest.warns(DeprecationWarning, match=r"^\$PROJECT_ID") as record:
        assert resolve_project(None, emulator=True) == "peer-project"
    assert str(record[0].message) == (
        "$PROJECT_ID is langchain-google-community's variable, read here as the project when "
        "project_id and $GOOGLE_CLOUD_PROJECT are not set: set GOOGLE_CLOUD_PROJECT (or pass "
        "project_id=...) instead"
    )
    if "MUTANT_UNDER_TEST" not in os.environ:  # mutmut's trampoline adds a frame of its own
        assert record[0].filename == __file__
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "ours")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert resolve_project(None, emulator=True) == "ours"
        assert resolve_project("given", emulator=True) == "given"
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT")
    monkeypatch.setenv(PEER_PROJECT_ENV_VAR, "")
    assert resolve_project(None, emulator=True) == "emulator-project"


def test_data_store_id_is_read_when_no_target_is_named(monkeypatch):
    connection = DiscoveryEngineConnection.create(project_id="p", emulator_host="localhost:1")
    monkeypatch.delenv(GROUNDING_DATA_STORE, raising=False)
    monkeypatch.setenv(PEER_DATA_STORE_ENV_VAR, "peer-store")
    with pytest.warns(DeprecationWarning, match=r"^\$DATA_STORE_ID is langchain-google-commu") as w:
        assert connection.target().data_store == "peer-store"
    assert [str(warning.message) for warning in w] == [
        "$DATA_STORE_ID is langchain-google-community's variable, read here as the data store "
        "when neither data_store_id nor engine_id is given: set GROUNDING_DATA_STORE (or pass "
        "data_store_id=...) instead"
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert connection.target(data_store_id="mine").data_store == "mine"
        assert connection.target(engine_id="app").engine == "app"
        monkeypatch.setenv(GROUNDING_DATA_STORE, "ours")
        assert connection.target().data_store == "ours"
    monkeypatch.delenv(GROUNDING_DATA_STORE)
    monkeypatch.setenv(PEER_DATA_STORE_ENV_VAR, "not a valid id")
    with (
        pytest.warns(DeprecationWarning, match=r"^\$DATA_STORE_ID"),
        pytest.raises(ConfigurationError, match=r"\$DATA_STORE_ID"),
    ):
        connection.target()


# -- on the emulator ------------------------------------------------------------------------


def test_a_translated_search_on_the_emulator(emulator):
    arguments, _ = translated(
        PEER_RETRIEVER_ARGUMENTS,
        project_id="test-project",
        location_id="eu",
        data_store_id="test-docs",
        max_documents=10,
        spell_correction_mode=1,
        emulator_host=emulator.address,
    )
    search = DiscoveryEngineChunkSearch.connect(**arguments)
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


def test_a_bad_peer_value_names_the_field():
    with pytest.raises(InputError) as info:
        translate_peer_arguments("R", PEER_RETRIEVER_ARGUMENTS, {"engine_data_type": 7})
    assert info.value.field == "engine_data_type"
    assert str(info.value) == (
        "engine_data_type must be one of 0 (unstructured data), 1 (structured data), 2 (website "
        "data), got 7; here each is search_mode='documents', with document_text="
        "'extractive_segments', 'struct_data' or 'snippets'"
    )


def test_the_module_docstring_example_runs():
    result = doctest.testmod(peer_arguments, optionflags=doctest.ELLIPSIS)
    assert (result.failed, result.attempted) == (0, 3)
