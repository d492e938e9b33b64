"""Connections: every argument of ``create`` reaches the clients or the call options, every
argument of ``target``, closing (what ``make mutation`` found unasserted in
``grounding_core.connection``). Nothing is called: the clients are built lazily."""

import asyncio

import grpc
import pytest
from google.auth.credentials import AnonymousCredentials

from grounding_core import (
    DEVELOPERKNOWLEDGE_EMULATOR_HOST,
    DISCOVERYENGINE_EMULATOR_HOST,
    GROUNDING_DATA_STORE,
    CallOptions,
    ConfigurationError,
    DeveloperKnowledgeConnection,
    DiscoveryEngineConnection,
    DiscoveryEngineTarget,
    RetryPolicy,
)

POLICY = RetryPolicy(initial=0.5, maximum=1.0, multiplier=1.5, deadline=3.0)


@pytest.fixture(autouse=True)
def no_environment(monkeypatch):
    for name in (
        DISCOVERYENGINE_EMULATOR_HOST,
        DEVELOPERKNOWLEDGE_EMULATOR_HOST,
        "GOOGLE_CLOUD_PROJECT",
        "GCLOUD_PROJECT",
    ):
        monkeypatch.delenv(name, raising=False)


def test_create_hands_every_setting_on():
    credentials = AnonymousCredentials()
    connection = DiscoveryEngineConnection.create(
        project_id="p",
        location="eu",
        credentials=credentials,
        client_options={"quota_project_id": "q"},
        timeout=4.0,
        retry=POLICY,
    )
    assert (connection.project, connection.location) == ("p", "eu")
    assert connection.call_options == CallOptions(timeout=4.0, retry=POLICY)
    clients = connection.clients
    assert (clients.location, clients.endpoint, clients.uses_emulator) == (
        "eu",
        "eu-discoveryengine.googleapis.com",
        False,
    )
    assert clients._credentials is credentials
    assert clients._client_options.quota_project_id == "q"


def test_create_defaults_and_the_emulator_project():
    connection = DiscoveryEngineConnection.create(emulator_host="h:1")
    assert (connection.project, connection.location) == ("emulator-project", "global")
    assert connection.clients.endpoint == "h:1"
    assert connection.call_options == CallOptions()
    with pytest.raises(ConfigurationError, match="timeout must be > 0"):
        DiscoveryEngineConnection.create(emulator_host="h:1", timeout=0)


def test_target_and_grounding_config_in_the_connections_project_and_location():
    connection = DiscoveryEngineConnection.create(
        project_id="p", location="eu", emulator_host="h:1"
    )
    assert connection.target(
        engine_id="e", collection="c", serving_config_id="s"
    ) == DiscoveryEngineTarget(
        project="p", location="eu", engine="e", collection="c", serving_config="s"
    )
    assert connection.target(data_store_id="d") == DiscoveryEngineTarget(
        project="p", location="eu", data_store="d"
    )
    assert connection.target(data_store_id="d", collection=None).collection is None
    assert connection.grounding_config_path() == (
        "projects/p/locations/eu/groundingConfigs/default_grounding_config"
    )
    assert connection.grounding_config_path("g") == "projects/p/locations/eu/groundingConfigs/g"


def test_a_target_naming_nothing_is_the_data_store_of_the_variable(monkeypatch):
    connection = DiscoveryEngineConnection.create(project_id="p", emulator_host="h:1")
    monkeypatch.setenv(GROUNDING_DATA_STORE, "kb")
    assert connection.target() == DiscoveryEngineTarget(project="p", data_store="kb")
    assert connection.target(data_store_id="d").data_store == "d"
    only_engine = connection.target(engine_id="e")
    assert (only_engine.engine, only_engine.data_store) == ("e", None)
    for unset in ("", None):
        if unset is None:
            monkeypatch.delenv(GROUNDING_DATA_STORE)
        else:
            monkeypatch.setenv(GROUNDING_DATA_STORE, unset)
        with pytest.raises(ConfigurationError, match="no data store and no engine"):
            connection.target()


def test_a_bad_data_store_in_the_variable_is_named_as_the_variable(monkeypatch):
    connection = DiscoveryEngineConnection.create(project_id="p", emulator_host="h:1")
    monkeypatch.setenv(GROUNDING_DATA_STORE, "a/b")
    with pytest.raises(ConfigurationError) as info:
        connection.target()
    assert str(info.value) == (
        "$GROUNDING_DATA_STORE 'a/b' is not a valid resource id: use letters, digits, '-' and "
        "'_' only, up to 127 characters (for example 'my-docs-store')"
    )
    # A bad id the caller gave, or a bad setting beside the variable's id, is not blamed on it.
    with pytest.raises(ConfigurationError) as info:
        connection.target(data_store_id="c/d")
    assert str(info.value).startswith("data_store 'c/d' is not a valid resource id")
    monkeypatch.setenv(GROUNDING_DATA_STORE, "kb")
    with pytest.raises(ConfigurationError) as info:
        connection.target(serving_config_id="x/y")
    assert str(info.value).startswith("serving_config 'x/y' is not a valid resource id")


def test_developer_knowledge_create_hands_every_setting_on():
    credentials = AnonymousCredentials()
    connection = DeveloperKnowledgeConnection.create(
        credentials=credentials,
        client_options={"api_endpoint": "private.example.com"},
        timeout=2.0,
        retry=None,
    )
    assert connection.call_options == CallOptions(timeout=2.0, retry=None)
    assert connection.clients.endpoint == "private.example.com"
    assert connection.clients._credentials is credentials
    emulated = DeveloperKnowledgeConnection.create(emulator_host="h:2")
    assert (emulated.clients.endpoint, emulated.call_options) == ("h:2", CallOptions())


def test_close_and_aclose_close_the_clients_channels():
    connection = DiscoveryEngineConnection.create(project_id="p", emulator_host="127.0.0.1:9")
    search = connection.clients.search()
    connection.close()
    with pytest.raises(ValueError, match="closed channel"):
        search.search(request={}, timeout=1)
    knowledge = DeveloperKnowledgeConnection.create(emulator_host="127.0.0.1:9")

    async def run():
        client = knowledge.clients.developer_knowledge_async()
        await knowledge.aclose()
        with pytest.raises(grpc.aio.UsageError, match="Channel is closed"):
            await client.search_document_chunks(request={}, timeout=1)

    asyncio.run(run())
