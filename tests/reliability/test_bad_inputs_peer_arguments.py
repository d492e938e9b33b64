"""Bad values of the peers' argument names, clashes with ours and names with no equivalent:
each refused with an error that names the argument and says what to do (the table style of
test_bad_inputs.py). A key file that cannot be used never shows its content."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from pydantic import ValidationError

import langchain_grounding as lc
import llamaindex_grounding as li
from grounding_core import InputError
from tests.reliability.bad_input_table import clear_error_test, table_size_test

PROJECT = "test-project"
SECRET = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n"
NOT_A_SERVICE_ACCOUNT = json.dumps({"type": "service_account", "private_key": SECRET})


@pytest.fixture(autouse=True)
def _quiet_deprecations():
    # A case may warn for its valid peer names before it fails on the bad one.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


def lc_retriever(**arguments):
    return lc.DiscoveryEngineRetriever(project_id=PROJECT, data_store_id="d", **arguments)


def li_retriever(**arguments):
    return li.DiscoveryEngineRetriever(project_id=PROJECT, data_store_id="d", **arguments)


def key_file(name: str, text: str) -> str:
    """A file of ``text`` in a fresh folder (the table runs before any tmp_path exists)."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="peer-keys-")) / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# (id, callable taking the emulator, expected exception, message fragments)
CASES = [
    # -- values the peer would have refused, or that mean nothing -------------------------------
    (
        "engine_data_type 7",
        lambda e: lc_retriever(engine_data_type=7),
        ValidationError,
        ["engine_data_type must be one of 0 (unstructured data), 1 (structured data), 2 (website"],
    ),
    (
        "engine_data_type a string",
        lambda e: lc_retriever(engine_data_type="0"),
        ValidationError,
        ["engine_data_type must be one of 0", "got '0'", "search_mode='documents'"],
    ),
    (
        "engine_data_type True",
        lambda e: lc_retriever(engine_data_type=True),
        ValidationError,
        ["engine_data_type must be one of 0", "got True"],
    ),
    (
        "llamaindex engine_data_type 3",
        lambda e: li_retriever(engine_data_type=3),
        InputError,
        ["engine_data_type must be one of 0", "got 3"],
    ),
    (
        "query_expansion_condition 5",
        lambda e: lc_retriever(query_expansion_condition=5),
        ValidationError,
        [
            "query_expansion_condition must be one of 0 (unspecified), 1 (disabled), 2 (auto)",
            "query_expansion= with one of [None, 'disabled', 'auto']",
        ],
    ),
    (
        "spell_correction_mode a name",
        lambda e: lc_retriever(spell_correction_mode="AUTO"),
        ValidationError,
        [
            "spell_correction_mode must be one of 0 (unspecified), 1 (suggestion only), 2 (auto)",
            "got 'AUTO'",
            "spell_correction= with one of [None, 'suggestion_only', 'auto']",
        ],
    ),
    (
        "max_documents 0",
        lambda e: lc_retriever(max_documents=0),
        ValidationError,
        ["max_documents must be >= 1, got 0"],
    ),
    (
        "max_documents a string",
        lambda e: lc_retriever(max_documents="10"),
        ValidationError,
        ["max_documents must be an integer, got str"],
    ),
    (
        "llamaindex max_documents -1",
        lambda e: li_retriever(max_documents=-1),
        InputError,
        ["max_documents must be >= 1, got -1"],
    ),
    (
        "get_extractive_answers a string",
        lambda e: lc_retriever(get_extractive_answers="yes"),
        ValidationError,
        ["get_extractive_answers must be True or False, got str 'yes'"],
    ),
    (
        "beta a string",
        lambda e: lc_retriever(beta="true"),
        ValidationError,
        ["beta must be True or False, got str 'true'"],
    ),
    (
        "location_id a number",
        lambda e: lc_retriever(location_id=1),
        ValidationError,
        ["location_id must be a string, got int: write location='...' instead"],
    ),
    (
        "location_id not a location",
        lambda e: lc_retriever(location_id="mars"),
        ValidationError,
        ["location", "'mars'"],
    ),
    (
        "llamaindex user_agent a number",
        lambda e: li_retriever(user_agent=7),
        InputError,
        ["user_agent must be a string, got int"],
    ),
    # -- a peer name with ours for the same setting --------------------------------------------
    (
        "location_id with location",
        lambda e: lc_retriever(location_id="eu", location="eu"),
        ValidationError,
        [
            "got both `location_id` (langchain-google-community's name for `location`) and",
            "keep `location` and drop `location_id`",
        ],
    ),
    (
        "max_documents with k",
        lambda e: lc_retriever(max_documents=5, k=5),
        ValidationError,
        ["got both `max_documents`", "keep `k` and drop `max_documents`"],
    ),
    (
        "search_engine_id with data_store_id",
        lambda e: lc_retriever(search_engine_id="d"),
        ValidationError,
        ["got both `search_engine_id`", "keep `data_store_id` and drop `search_engine_id`"],
    ),
    (
        "get_extractive_answers with document_text",
        lambda e: lc_retriever(get_extractive_answers=True, document_text="snippets"),
        ValidationError,
        ["got both `get_extractive_answers`", "and `document_text`"],
    ),
    (
        "llamaindex max_documents with similarity_top_k",
        lambda e: li_retriever(max_documents=5, similarity_top_k=5),
        TypeError,
        ["got both `max_documents`", "keep `similarity_top_k` and drop `max_documents`"],
    ),
    (
        "checker location_id with location",
        lambda e: lc.GroundingChecker(project_id=PROJECT, location_id="eu", location="us"),
        ValidationError,
        ["GroundingChecker got both `location_id`"],
    ),
    (
        "summary_prompt with preamble",
        lambda e: lc.DiscoveryEngineSummary(
            project_id=PROJECT, data_store_id="d", summary_prompt="a", preamble="b"
        ),
        ValidationError,
        ["got both `summary_prompt`", "keep `preamble` and drop `summary_prompt`"],
    ),
    (
        "summary_result_count twice",
        lambda e: lc.DiscoveryEngineSummary(
            project_id=PROJECT,
            data_store_id="d",
            summary_result_count=2,
            summary_spec_kwargs={"summary_result_count": 3},
        ),
        ValidationError,
        ["got both `summary_result_count` and `summary_spec_kwargs`", "set `result_count`"],
    ),
    # -- names with no equivalent ----------------------------------------------------------
    (
        "custom_embedding",
        lambda e: lc_retriever(custom_embedding=object()),
        ValidationError,
        ["`custom_embedding` has no equivalent here", "v1beta's SearchRequest.embedding_spec"],
    ),
    (
        "custom_embedding_field_path",
        lambda e: lc_retriever(custom_embedding_field_path="embedding"),
        ValidationError,
        ["`custom_embedding_field_path` has no equivalent here", "drop it"],
    ),
    (
        "custom_embedding_ratio",
        lambda e: lc_retriever(custom_embedding_ratio=0.5),
        ValidationError,
        ["`custom_embedding_ratio` has no equivalent here"],
    ),
    (
        "checker client",
        lambda e: lc.GroundingChecker(project_id=PROJECT, client=object()),
        ValidationError,
        [
            "client must be a Google client with a check_grounding() method",
            "got object; or leave it out, and the connection builds Google's clients "
            "(credentials=, client_options=, emulator_host=)",
        ],
    ),
    # -- the summary's spec kwargs ---------------------------------------------------------
    (
        "summary_spec_kwargs not a dict",
        lambda e: lc.DiscoveryEngineSummary(
            project_id=PROJECT, data_store_id="d", summary_spec_kwargs=["include_citations"]
        ),
        ValidationError,
        ["summary_spec_kwargs must be a dict of SummarySpec fields, got list"],
    ),
    (
        "summary_spec_kwargs an unknown key",
        lambda e: lc.DiscoveryEngineSummary(
            project_id=PROJECT, data_store_id="d", summary_spec_kwargs={"max_tokens": 3}
        ),
        ValidationError,
        [
            "summary_spec_kwargs has 'max_tokens', which is not a SummarySpec field",
            "summary_result_count, include_citations",
        ],
    ),
    (
        "summary_spec_kwargs a bad model_prompt_spec",
        lambda e: lc.DiscoveryEngineSummary(
            project_id=PROJECT, data_store_id="d", summary_spec_kwargs={"model_prompt_spec": "x"}
        ),
        ValidationError,
        ["summary_spec_kwargs['model_prompt_spec'] must be a dict with the one key 'preamble'"],
    ),
    (
        "summary_result_count 0",
        lambda e: lc.DiscoveryEngineSummary(
            project_id=PROJECT, data_store_id="d", summary_result_count=0
        ),
        ValidationError,
        ["summary_result_count must be >= 1, got 0"],
    ),
    # -- credentials_path: what cannot be used is named, its content never shown -----------------
    (
        "credentials_path missing",
        lambda e: lc.GroundingChecker(project_id=PROJECT, credentials_path="/no/such/key.json"),
        ValidationError,
        [
            "credentials_path '/no/such/key.json' cannot be read (No such file or directory)",
            "pass credentials=",
        ],
    ),
    (
        "credentials_path a folder",
        lambda e: li_retriever(credentials_path="/"),
        InputError,
        ["credentials_path '/' cannot be read (Is a directory)"],
    ),
    (
        "credentials_path not JSON",
        lambda e: lc.GroundingChecker(
            project_id=PROJECT, credentials_path=key_file("key.pem", SECRET)
        ),
        ValidationError,
        ["is not a JSON key file: give the path of a service account key file (JSON)"],
    ),
    (
        "credentials_path not a service account",
        lambda e: lc_retriever(credentials_path=key_file("key.json", NOT_A_SERVICE_ACCOUNT)),
        ValidationError,
        ["is not a service account key (MalformedError", "client_email"],
    ),
    (
        "credentials_path a number",
        lambda e: lc_retriever(credentials_path=3),
        ValidationError,
        ["credentials_path must be the path of a service account key file (a string), got int"],
    ),
]


test_the_table_is_big_enough = table_size_test(CASES, minimum=35)


test_bad_input_gets_a_clear_error = clear_error_test(CASES)


@pytest.mark.parametrize(
    "name", ["credentials_path not JSON", "credentials_path not a service account"]
)
def test_a_bad_key_files_content_is_never_shown(emulator, name):
    call = next(case[1] for case in CASES if case[0] == name)
    with pytest.raises(ValueError, match="credentials_path") as info:
        call(emulator)
    error: BaseException | None = info.value
    while error is not None:  # nor in any error it was chained to
        assert "PRIVATE KEY" not in str(error)
        assert "MIIEvQ" not in str(error)
        error = error.__cause__ or error.__context__
