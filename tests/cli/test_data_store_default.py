"""The data store a command or client that names none uses: ``$GROUNDING_DATA_STORE`` (which
``grounding serve`` prints); the output says which. With neither a flag nor the variable, a
command is one error, on the emulator as on Google Cloud."""

from __future__ import annotations

import json
import re

import google.auth
import pytest
from google.auth.exceptions import DefaultCredentialsError

from grounding_core import (
    GROUNDING_DATA_STORE,
    ConfigurationError,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    DiscoveryEngineTarget,
)
from grounding_core.cli import build_parser
from grounding_core.cli.connection import discovery_engine_connection, target, target_label
from tests.cli.invoke import run

QUERY = "lighthouse keeper 7"
NO_DATA_STORE = (
    "error: no data store or engine named: give --data-store ID or --engine ID (the data store "
    "or app to use), or set $GROUNDING_DATA_STORE (`grounding serve` prints the line that sets "
    "it)\n"
)


def test_the_variable_names_the_data_store_of_a_search(capsys, host, monkeypatch):
    monkeypatch.setenv(GROUNDING_DATA_STORE, "test-docs")
    code, out, err = run(capsys, "search", QUERY, "-k", "1", *host)
    assert (code, err) == (0, "")
    assert f"1 result for '{QUERY}' in data store test-docs ($GROUNDING_DATA_STORE)" in out
    assert "https://example.com/paging/" in out


@pytest.mark.parametrize("command", ["search", "answer", "check"])
def test_without_it_the_emulator_too_asks_for_one(capsys, host, command):
    facts = ["--fact", "Paris is in France."] if command == "check" else []
    argv = ["--search", "Paris"] if command == "check" else []
    code, out, err = run(capsys, command, "Paris is in France.", *argv, *facts, *host)
    assert (code, out, err) == (2, "", NO_DATA_STORE)


def test_a_flag_wins_over_the_variable(capsys, host, monkeypatch):
    monkeypatch.setenv(GROUNDING_DATA_STORE, "python-docs")
    code, out, _ = run(capsys, "search", QUERY, "-k", "1", "--data-store", "test-docs", *host)
    assert code == 0
    assert re.search(rf"1 result for '{QUERY}' in data store test-docs *\n", out)
    code, out, _ = run(capsys, "search", QUERY, "-k", "1", "--engine", "test-app", *host)
    assert code == 0
    assert re.search(rf"1 result for '{QUERY}' in engine test-app *\n", out)


def test_answer_says_where_it_answered_from(capsys, host, monkeypatch):
    monkeypatch.setenv(GROUNDING_DATA_STORE, "test-docs")
    code, out, err = run(capsys, "answer", "Where do rockets launch from?", *host)
    assert (code, err) == (0, "")
    assert out.endswith("answered from data store test-docs ($GROUNDING_DATA_STORE)\n")
    assert "Cape Canaveral" in out
    # With --json the note goes to stderr: stdout stays JSON.
    code, out, err = run(capsys, "answer", "Where do rockets launch from?", "--json", *host)
    assert code == 0
    assert json.loads(out)["references"]
    assert err == "answered from data store test-docs ($GROUNDING_DATA_STORE)\n"


def test_a_missing_data_store_lists_the_served_ones(capsys, host, monkeypatch):
    monkeypatch.setenv(GROUNDING_DATA_STORE, "kb")  # pasted from a serve that is not running
    code, out, err = run(capsys, "search", QUERY, *host)
    assert (code, out) == (2, "")
    assert err.startswith("error: ")
    assert "data store 'kb' not found (data stores: python-docs, test-docs)" in err
    assert err.count("\n") == 1


def test_python_clients_that_name_no_data_store_use_the_variable(emulator, monkeypatch):
    monkeypatch.setenv(GROUNDING_DATA_STORE, "test-docs")
    connection = DiscoveryEngineConnection(emulator_host=emulator.address)
    try:
        assert connection.target() == DiscoveryEngineTarget(
            project="emulator-project", data_store="test-docs"
        )
        assert connection.target(engine_id="test-app").data_store is None  # an engine wins
        assert connection.target(data_store_id="python-docs").data_store == "python-docs"
        chunks = DiscoveryEngineChunkSearch(connection, k=1).search(QUERY)
        assert chunks[0].uri.startswith("https://example.com/paging/")
        monkeypatch.setenv(GROUNDING_DATA_STORE, "")  # empty: unset
        with pytest.raises(ConfigurationError, match="no data store and no engine"):
            connection.target()
        with pytest.raises(ConfigurationError, match="no data store and no engine"):
            DiscoveryEngineChunkSearch(connection, k=1)
    finally:
        connection.close()


def test_on_google_cloud_the_variable_or_a_flag_is_required(monkeypatch):
    parser = build_parser()
    args = parser.parse_args(["search", "q", "--project", "p"])
    connection = discovery_engine_connection(args)
    with pytest.raises(ConfigurationError) as excinfo:
        target(args)
    assert excinfo.value.field == "--data-store"  # its message: the commands' tests above
    monkeypatch.setenv(GROUNDING_DATA_STORE, "kb")
    searched = connection.target(**target(args))
    assert searched.serving_config_path == (
        "projects/p/locations/global/collections/default_collection/dataStores/kb/"
        "servingConfigs/default_search"
    )
    assert target_label(args, searched) == "data store kb ($GROUNDING_DATA_STORE)"


def test_a_missing_project_names_the_flag(capsys, monkeypatch):
    for name in ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)

    def no_credentials(*args, **kwargs):
        raise DefaultCredentialsError("Your default credentials were not found.")

    monkeypatch.setattr(google.auth, "default", no_credentials)
    code, out, err = run(capsys, "search", "x", "--data-store", "d")
    assert (code, out) == (2, "")
    assert err == (
        "error: no Google Cloud project: give --project ID, set GOOGLE_CLOUD_PROJECT, or run "
        "`gcloud auth application-default login` with a project; or use the emulator "
        "(`grounding serve`, then --emulator-host HOST:PORT)\n"
    )
    assert "project_id" not in err
