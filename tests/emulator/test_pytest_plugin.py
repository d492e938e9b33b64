"""The pytest plugin (``grounding_emulator.pytest_plugin``, the ``pytest11`` entry point): a user's
test suite, run by pytest's own ``pytester``, gets the emulator serving its corpus, reached
through Google's unmodified client and through ``grounding_core``."""

from __future__ import annotations

import re
from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

KB = {
    "plans.md": "# Plans\n\nThe free plan includes 5 GB of storage. Upgrades cost 3 euros.\n",
    "support.md": "# Support\n\nThe help desk answers tickets within two working days.\n",
}
# A user's tests: Google's own client on the address the plugin exports, grounding_core on the
# environment alone, scripted verdicts and faults that do not outlive their test.
USER_TESTS = """
import os

import grpc
import pytest
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    GroundingCheck,
    GroundingSource,
)

SERVING_CONFIG = (
    "projects/p/locations/global/collections/default_collection/dataStores/{}/servingConfigs/"
    "default_search"
)
ONCE = {"retry": None, "timeout": 10.0}


@pytest.fixture
def search_client(grounding_emulator):
    channel = grpc.insecure_channel(os.environ["DISCOVERYENGINE_EMULATOR_HOST"])
    transport = de.SearchServiceClient.get_transport_class("grpc")(
        channel=channel, credentials=AnonymousCredentials()
    )
    yield de.SearchServiceClient(transport=transport)
    channel.close()


def test_googles_client_searches_the_ini_corpus(search_client):
    request = de.SearchRequest(
        serving_config=SERVING_CONFIG.format(os.environ["GROUNDING_DATA_STORE"]),
        query="free plan storage",
    )
    response = search_client.search(request=request, **ONCE)
    assert os.environ["GROUNDING_DATA_STORE"] == "kb"
    assert response.results[0].id == "plans-md"


def test_the_core_finds_the_emulator_and_the_data_store_in_the_environment(grounding_emulator):
    connection = DiscoveryEngineConnection(project_id="p")
    chunks = DiscoveryEngineChunkSearch(connection).search("help desk tickets")
    connection.close()
    assert os.environ["DISCOVERYENGINE_EMULATOR_HOST"] == grounding_emulator.address
    assert os.environ["DEVELOPERKNOWLEDGE_EMULATOR_HOST"] == grounding_emulator.address
    assert chunks[0].uri.endswith("/kb/support.md")


def check(answer):
    connection = DiscoveryEngineConnection(project_id="p")
    source = GroundingSource("The free plan includes 5 GB of storage.", {})
    report = GroundingCheck(connection).check(answer, [source], [source])
    connection.close()
    return report.result.support_score


def test_scripted_verdicts(grounding_judge):
    grounding_judge.unsupported_if_contains("5 GB")
    assert check("The free plan includes 5 GB of storage.") == 0.0


def test_scripted_verdicts_are_gone_in_the_next_test(grounding_judge):
    assert check("The free plan includes 5 GB of storage.") == 1.0


def test_a_fault(grounding_faults, search_client):
    grounding_faults.fail("Search", code="UNAVAILABLE", times=1)
    request = de.SearchRequest(serving_config=SERVING_CONFIG.format("kb"), query="plan")
    with pytest.raises(exceptions.ServiceUnavailable):
        search_client.search(request=request, **ONCE)


def test_faults_are_gone_in_the_next_test(search_client):
    request = de.SearchRequest(serving_config=SERVING_CONFIG.format("kb"), query="plan")
    assert search_client.search(request=request, **ONCE).results


def test_the_environment_is_restored_after_a_test():
    assert "DISCOVERYENGINE_EMULATOR_HOST" not in os.environ
    assert os.environ.get("GROUNDING_DATA_STORE") == "before"
"""


def ini(pytester, *lines):
    """The user's ``pytest.ini`` (with pytest-asyncio's loop scope, which it warns about)."""
    pytester.makeini(
        "\n".join(["[pytest]", "asyncio_default_fixture_loop_scope = function", *lines])
    )


@pytest.fixture
def user_project(pytester, monkeypatch):
    """A user's project: a ``kb`` folder."""
    monkeypatch.delenv("DISCOVERYENGINE_EMULATOR_HOST", raising=False)
    monkeypatch.delenv("DEVELOPERKNOWLEDGE_EMULATOR_HOST", raising=False)
    monkeypatch.setenv("GROUNDING_DATA_STORE", "before")
    monkeypatch.setenv("GROUNDING_EMULATOR_SEMANTIC", "off")
    kb = pytester.mkdir("kb")
    for name, text in KB.items():
        (kb / name).write_text(text, encoding="utf-8")
    return pytester


def test_the_entry_point_loads_the_plugin():
    (entry,) = entry_points(group="pytest11", name="grounding_emulator")
    assert entry.value == "grounding_emulator.pytest_plugin"


def test_a_user_suite_runs_on_its_ini_corpus_through_googles_client_and_the_core(user_project):
    ini(user_project, "grounding_emulator_corpus = kb")
    user_project.makepyfile(test_user=USER_TESTS)
    result = user_project.runpytest()
    result.assert_outcomes(passed=7)


def test_without_a_corpus_the_builtin_one_is_served(user_project):
    ini(user_project)
    user_project.makepyfile(
        test_builtin="""
        import os

        def test_builtin(grounding_emulator):
            assert grounding_emulator.store.data_store_ids == ("python-docs",)
            assert os.environ["GROUNDING_DATA_STORE"] == "python-docs"
        """
    )
    user_project.runpytest().assert_outcomes(passed=1)


def test_ids_engines_and_the_builtin_come_from_the_ini_file(user_project):
    ini(
        user_project,
        "grounding_emulator_corpus =\n    docs=kb\n    again=kb",
        "grounding_emulator_engine = docs-app=docs",
        "grounding_emulator_builtin = true",
    )
    user_project.makepyfile(
        test_ids="""
        import os

        from grounding_core import DiscoveryEngineChunkSearch, DiscoveryEngineConnection

        def test_ids(grounding_emulator):
            assert grounding_emulator.store.data_store_ids == ("again", "docs", "python-docs")
            assert grounding_emulator.store.engines == {
                "docs-app": "docs",
                "python-docs-app": "python-docs",
            }
            assert "GROUNDING_DATA_STORE" not in os.environ  # several corpora: no default
            connection = DiscoveryEngineConnection(project_id="p")
            search = DiscoveryEngineChunkSearch(connection, engine_id="docs-app")
            assert search.search("help desk")[0].uri.endswith("/kb/support.md")
            connection.close()
        """
    )
    user_project.runpytest().assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            "grounding_emulator_corpus = missing",
            "ERROR: grounding_emulator_corpus missing: no such file or directory (relative to "
            "{root}): give a folder of documents or a .jsonl file, one [ID=]PATH per line",
        ),
        (
            "grounding_emulator_corpus = kb\ngrounding_emulator_engine = kb-app",
            "ERROR: grounding_emulator_engine kb-app: write ENGINE=DATASTORE, one per line, "
            "DATASTORE being a data store of grounding_emulator_corpus",
        ),
    ],
)
def test_a_bad_option_stops_the_run_before_any_test_naming_it(user_project, option, message):
    ini(user_project, option)
    user_project.makepyfile(test_any="def test_any():\n    pass\n")
    result = user_project.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == message.format(root=user_project.path)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            "grounding_emulator_corpus = kb\ngrounding_emulator_engine = app=nope",
            "grounding_emulator_engine app=nope: data store 'nope' not found (data stores: kb)",
        ),
        (
            "grounding_emulator_corpus = empty",
            "grounding_emulator_corpus empty={root}/empty: corpus folder {root}/empty has no "
            "file of a supported type",
        ),
    ],
)
def test_a_corpus_the_emulator_refuses_fails_the_tests_naming_the_option(
    user_project, option, message
):
    user_project.mkdir("empty")
    ini(user_project, option)
    user_project.makepyfile(test_any="def test_any(grounding_emulator):\n    pass\n")
    result = user_project.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"{message.format(root=user_project.path)}*"])


def test_the_guides_example_suite_passes(user_project):
    guide = (Path(__file__).parents[2] / "docs" / "emulator.md").read_text(encoding="utf-8")
    section = guide[guide.index("### The pytest plugin") : guide.index("### A folder served")]
    (ini_block,) = re.findall(r"^```ini\n(.*?)^```$", section, re.DOTALL | re.MULTILINE)
    (tests,) = re.findall(r"^```python\n(.*?)^```$", section, re.DOTALL | re.MULTILINE)
    kb = user_project.mkdir("docs") / "kb"
    kb.mkdir()
    (kb / "plans.md").write_text(KB["plans.md"], encoding="utf-8")
    user_project.makefile(
        ".ini", pytest=ini_block + "asyncio_default_fixture_loop_scope = function\n"
    )
    user_project.makepyfile(test_guide=tests)
    user_project.runpytest().assert_outcomes(passed=3)
