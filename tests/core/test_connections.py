"""``grounding_core._clients``: ``DiscoveryEngineConnection`` and ``DeveloperKnowledgeConnection``.

Covers what a connection is given and keeps (project, location, call options, ``target``, the
config paths), where its calls go (``endpoint``: the regional hosts, ``client_options``, an
emulator named by argument or read once from ``$DISCOVERYENGINE_EMULATOR_HOST`` /
``$DEVELOPERKNOWLEDGE_EMULATOR_HOST``), Google's clients it builds (cached, one emulator channel
with no message-size limit, per event loop for the async ones, rebuilt after ``close``/``aclose``),
the errors of missing credentials and of bad settings, a repr that never shows a secret,
``check_picklable``, the timeout and retry policy every call uses (observed through the
emulator's injected faults and delays), and a stopped emulator: one clear
``ServiceUnavailableError`` at once instead of a minute of retries, on every client.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from concurrent import futures

import grpc
import pytest
from google.api_core import exceptions as core_exceptions
from google.api_core.client_options import ClientOptions
from google.auth.credentials import AnonymousCredentials
from google.auth.exceptions import DefaultCredentialsError
from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import DeveloperKnowledgeAsyncClient, DeveloperKnowledgeClient

from grounding_core import (
    DEFAULT_RETRY,
    DEVELOPERKNOWLEDGE_EMULATOR_HOST,
    DISCOVERYENGINE_EMULATOR_HOST,
    GROUNDING_DATA_STORE,
    ConfigurationError,
    DeadlineExceededError,
    DeveloperKnowledgeChunkSearch,
    DeveloperKnowledgeConnection,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    DiscoveryEngineTarget,
    GroundingCheck,
    GroundingSource,
    RetryPolicy,
    ServiceUnavailableError,
)
from grounding_core._settings import CallOptions
from grounding_emulator import EmulatorServer

from .copies import LockedCredentials
from .emulated import PROJECT, result_of

POLICY = RetryPolicy(initial=0.5, maximum=1.0, multiplier=1.5, deadline=3.0)
LARGE = 5 * 1024 * 1024  # above gRPC's default 4 MiB receive limit
QUERY = "lighthouse keeper number 131"


@pytest.fixture(autouse=True)
def no_environment(monkeypatch):
    for name in (
        DISCOVERYENGINE_EMULATOR_HOST,
        DEVELOPERKNOWLEDGE_EMULATOR_HOST,
        GROUNDING_DATA_STORE,
        "GOOGLE_CLOUD_PROJECT",
        "GCLOUD_PROJECT",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def no_credentials(monkeypatch, tmp_path):
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))  # no gcloud ADC file
    monkeypatch.setenv("NO_GCE_CHECK", "True")


def refusal(call, *args, **kwargs) -> ConfigurationError:
    with pytest.raises(ConfigurationError) as info:
        call(*args, **kwargs)
    return info.value


def search(connection, **options):
    return DiscoveryEngineChunkSearch(connection, data_store_id="test-docs", k=3, **options)


def names(chunks):
    return [chunk.name for chunk in chunks]


# -- settings --------------------------------------------------------------------------------------


def test_a_connection_keeps_every_setting_it_is_given():
    connection = DiscoveryEngineConnection(
        project_id="p",
        location="eu",
        credentials=AnonymousCredentials(),
        client_options={"quota_project_id": "q"},
        timeout=4.0,
        retry=POLICY,
    )
    assert (connection.project, connection.location) == ("p", "eu")
    assert connection.call_options == CallOptions(timeout=4.0, retry=POLICY)
    assert (connection.endpoint, connection.uses_emulator) == (
        "eu-discoveryengine.googleapis.com",
        False,
    )


def test_the_defaults_and_the_emulators_project():
    connection = DiscoveryEngineConnection(emulator_host="h:1")
    assert (connection.project, connection.location) == ("emulator-project", "global")
    assert (connection.endpoint, connection.uses_emulator) == ("h:1", True)
    assert connection.call_options == CallOptions()
    assert connection.call_options.retry == DEFAULT_RETRY


def test_a_developer_knowledge_connection_keeps_its_settings():
    connection = DeveloperKnowledgeConnection(
        credentials=AnonymousCredentials(),
        client_options={"api_endpoint": "private.example.com"},
        timeout=2.0,
        retry=None,
    )
    assert connection.call_options == CallOptions(timeout=2.0, retry=None)
    assert (connection.endpoint, connection.location) == ("private.example.com", "global")
    emulated = DeveloperKnowledgeConnection(emulator_host="h:2")
    assert (emulated.endpoint, emulated.uses_emulator, emulated.call_options) == (
        "h:2",
        True,
        CallOptions(),
    )


@pytest.mark.parametrize(
    ("build", "kwargs", "words"),
    [
        (DiscoveryEngineConnection, {"timeout": 0}, "timeout must be > 0"),
        (DeveloperKnowledgeConnection, {"retry": 3}, "retry must be a RetryPolicy"),
        (DiscoveryEngineConnection, {"location": "asia"}, "location 'asia'"),
        (DiscoveryEngineConnection, {"emulator_host": "https://h:1"}, "'https://h:1' uses https"),
        (DeveloperKnowledgeConnection, {"emulator_host": "h"}, "'h' is not HOST:PORT"),
    ],
    ids=["timeout", "retry", "location", "https", "host-port"],
)
def test_a_bad_setting_is_refused_when_the_connection_is_made(build, kwargs, words):
    assert words in str(refusal(build, **{"emulator_host": "h:1", **kwargs}))


def test_target_and_config_paths_are_in_the_connections_project_and_location():
    connection = DiscoveryEngineConnection(project_id="p", location="eu", emulator_host="h:1")
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
    assert connection.ranking_config_path() == (
        "projects/p/locations/eu/rankingConfigs/default_ranking_config"
    )
    assert connection.ranking_config_path("r") == "projects/p/locations/eu/rankingConfigs/r"
    assert "ranking_config 'r.x'" in str(refusal(connection.ranking_config_path, "r.x"))


def test_a_target_naming_nothing_is_the_data_store_of_the_variable(monkeypatch):
    connection = DiscoveryEngineConnection(project_id="p", emulator_host="h:1")
    assert "no data store and no engine" in str(refusal(connection.target))
    monkeypatch.setenv(GROUNDING_DATA_STORE, "")
    assert "no data store and no engine" in str(refusal(connection.target))
    monkeypatch.setenv(GROUNDING_DATA_STORE, "kb")
    assert connection.target() == DiscoveryEngineTarget(project="p", data_store="kb")
    assert connection.target(data_store_id="d").data_store == "d"
    only_engine = connection.target(engine_id="e")
    assert (only_engine.engine, only_engine.data_store) == ("e", None)


def test_a_bad_data_store_in_the_variable_is_named_as_the_variable(monkeypatch):
    connection = DiscoveryEngineConnection(project_id="p", emulator_host="h:1")
    monkeypatch.setenv(GROUNDING_DATA_STORE, "a/b")
    assert "$GROUNDING_DATA_STORE 'a/b'" in str(refusal(connection.target))
    # A bad id the caller gave, or a bad setting beside the variable's id, is not blamed on it.
    assert str(refusal(connection.target, data_store_id="c/d")).startswith("data_store 'c/d'")
    monkeypatch.setenv(GROUNDING_DATA_STORE, "kb")
    error = refusal(connection.target, serving_config_id="x/y")
    assert str(error).startswith("serving_config 'x/y'")


# -- endpoints and client options ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("location", "endpoint"),
    [
        ("global", "discoveryengine.googleapis.com"),
        ("us", "us-discoveryengine.googleapis.com"),
        ("eu", "eu-discoveryengine.googleapis.com"),
    ],
)
def test_each_location_has_its_endpoint(location, endpoint):
    connection = DiscoveryEngineConnection(
        project_id="p", location=location, credentials=AnonymousCredentials()
    )
    assert (connection.endpoint, connection.uses_emulator) == (endpoint, False)
    client = connection.client(de.SearchServiceClient)
    assert type(client.transport).__name__ == "SearchServiceGrpcTransport"
    assert client.api_endpoint == endpoint
    assert client.transport.host == f"{endpoint}:443"
    connection.close()


def test_the_developer_knowledge_endpoint():
    connection = DeveloperKnowledgeConnection(credentials=AnonymousCredentials())
    assert (connection.endpoint, connection.uses_emulator) == (
        "developerknowledge.googleapis.com",
        False,
    )
    assert connection.client(DeveloperKnowledgeClient).transport.host == (
        "developerknowledge.googleapis.com:443"
    )
    connection.close()


@pytest.mark.parametrize(
    "options",
    [
        {"api_endpoint": "private.example.com", "quota_project_id": "q"},
        ClientOptions(api_endpoint="private.example.com"),
    ],
    ids=["dict", "client-options"],
)
async def test_a_client_options_endpoint_wins_over_the_location(options):
    connection = DiscoveryEngineConnection(
        project_id="p", location="eu", credentials=AnonymousCredentials(), client_options=options
    )
    assert connection.endpoint == "private.example.com"
    sync = connection.client(de.ConversationalSearchServiceClient)
    asynchronous = connection.async_client(de.ConversationalSearchServiceAsyncClient)
    assert type(asynchronous.transport).__name__ == (
        "ConversationalSearchServiceGrpcAsyncIOTransport"
    )
    for client in (sync, asynchronous):
        assert client.transport.host == "private.example.com:443"
    connection.close()
    await connection.aclose()


def test_the_callers_client_options_are_not_changed():
    options = ClientOptions(quota_project_id="q")
    connection = DiscoveryEngineConnection(
        project_id="p", location="us", credentials=AnonymousCredentials(), client_options=options
    )
    assert connection.client(de.SearchServiceClient).api_endpoint == (
        "us-discoveryengine.googleapis.com"
    )
    assert options.api_endpoint is None
    connection.close()


def test_client_options_with_an_unknown_key_are_refused():
    error = refusal(DiscoveryEngineConnection, project_id="p", client_options={"nope": 1})
    assert str(error).startswith("client_options has an unknown key (")
    assert "nope" in str(error)
    assert str(error).endswith(
        "; see google.api_core.client_options.ClientOptions for the accepted keys"
    )
    assert isinstance(error.__cause__, TypeError)


@pytest.mark.parametrize("options", [("x",), ["x"], "api_endpoint=x"])
def test_client_options_of_another_type_are_refused(options):
    error = refusal(DeveloperKnowledgeConnection, client_options=options)
    assert f"client_options must be a ClientOptions or a dict, got {type(options).__name__}" in (
        str(error)
    )


def test_an_emulator_and_an_api_endpoint_together_are_refused():
    error = refusal(
        DiscoveryEngineConnection, emulator_host="h:1", client_options={"api_endpoint": "e"}
    )
    assert "both an emulator (h:1) and client_options.api_endpoint (e)" in str(error)
    assert "pick one" in str(error)


# -- the emulator address --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "address"),
    [("127.0.0.1:8123", "127.0.0.1:8123"), ("http://h:1/", "h:1"), (" [::1]:8123 ", "[::1]:8123")],
)
def test_an_emulator_address_as_users_write_it(written, address):
    assert DiscoveryEngineConnection(emulator_host=written).endpoint == address
    assert DeveloperKnowledgeConnection(emulator_host=written).endpoint == address


def test_the_emulator_host_is_read_from_the_environment_once(monkeypatch):
    monkeypatch.setenv(DISCOVERYENGINE_EMULATOR_HOST, "grpc://127.0.0.1:9999")
    monkeypatch.setenv(DEVELOPERKNOWLEDGE_EMULATOR_HOST, "127.0.0.1:7777")
    connection = DiscoveryEngineConnection()
    knowledge = DeveloperKnowledgeConnection()
    monkeypatch.setenv(DISCOVERYENGINE_EMULATOR_HOST, "elsewhere:1")
    assert (connection.endpoint, connection.uses_emulator) == ("127.0.0.1:9999", True)
    assert (knowledge.endpoint, knowledge.uses_emulator) == ("127.0.0.1:7777", True)
    # An explicit argument beats the environment; an empty one does not count.
    assert DiscoveryEngineConnection(emulator_host="given:1").endpoint == "given:1"
    assert DiscoveryEngineConnection(emulator_host="").endpoint == "elsewhere:1"


def test_no_emulator_in_an_empty_variable_or_an_empty_argument(monkeypatch):
    monkeypatch.setenv(DISCOVERYENGINE_EMULATOR_HOST, "")
    connection = DiscoveryEngineConnection(project_id="p", location="eu", emulator_host="")
    assert (connection.endpoint, connection.uses_emulator) == (
        "eu-discoveryengine.googleapis.com",
        False,
    )


@pytest.mark.parametrize(
    ("variable", "build"),
    [
        (DISCOVERYENGINE_EMULATOR_HOST, DiscoveryEngineConnection),
        (DEVELOPERKNOWLEDGE_EMULATOR_HOST, DeveloperKnowledgeConnection),
    ],
)
def test_a_bad_address_in_the_variable_is_named_as_the_variable(monkeypatch, variable, build):
    monkeypatch.setenv(variable, "https://127.0.0.1:8124")
    error = refusal(build)
    assert str(error).startswith(f"${variable} 'https://127.0.0.1:8124' uses https://")
    assert error.field == f"${variable}"


@pytest.mark.parametrize(
    ("variable", "build"),
    [
        (DISCOVERYENGINE_EMULATOR_HOST, DiscoveryEngineConnection),
        (DEVELOPERKNOWLEDGE_EMULATOR_HOST, DeveloperKnowledgeConnection),
    ],
)
def test_a_bad_address_given_as_an_argument_is_named_as_the_argument(monkeypatch, variable, build):
    monkeypatch.setenv(variable, "127.0.0.1:8124")  # a good one: the argument is what is refused
    error = refusal(build, emulator_host="https://127.0.0.1:8125")
    assert str(error).startswith("emulator_host 'https://127.0.0.1:8125' uses https://")
    assert error.field == "emulator_host"


# -- Google's clients: built once, shared channel, per event loop, closed --------------------------


def test_emulator_clients_are_built_once_on_one_channel_without_credentials(no_credentials):
    connection = DiscoveryEngineConnection(emulator_host="127.0.0.1:9")
    search_client = connection.client(de.SearchServiceClient)
    check_client = connection.client(de.GroundedGenerationServiceClient)
    sessions = connection.client(de.SessionServiceClient)
    assert type(search_client.transport).__name__ == "SearchServiceGrpcTransport"
    assert connection.client(de.SearchServiceClient) is search_client
    assert connection.client(de.SessionServiceClient) is sessions
    channel = search_client.transport.grpc_channel
    assert isinstance(channel, grpc.Channel)
    assert check_client.transport.grpc_channel is channel
    assert sessions.transport.grpc_channel is channel
    connection.close()
    assert connection.client(de.SearchServiceClient) is not search_client  # built afresh
    connection.close()


class SlowSearchClient(de.SearchServiceClient):
    """A Google client that takes a while to build: long enough for other threads to ask for
    it meanwhile. Counts how many are built."""

    built = 0

    def __init__(self, **kwargs):
        type(self).built += 1
        time.sleep(0.05)
        super().__init__(**kwargs)


def test_google_clients_built_in_threads_at_once_are_one():
    connection = DiscoveryEngineConnection(emulator_host="127.0.0.1:9")
    barrier = threading.Barrier(8)

    def build(_):
        barrier.wait()
        return connection.client(SlowSearchClient)

    SlowSearchClient.built = 0
    with futures.ThreadPoolExecutor(8) as pool:
        built = list(pool.map(build, range(8)))
    assert len({id(client) for client in built}) == 1
    assert SlowSearchClient.built == 1
    connection.close()


async def test_async_clients_are_per_event_loop():
    connection = DiscoveryEngineConnection(emulator_host="127.0.0.1:9")
    knowledge = DeveloperKnowledgeConnection(emulator_host="127.0.0.1:8")

    async def build():
        first = connection.async_client(de.SearchServiceAsyncClient)
        assert connection.async_client(de.SearchServiceAsyncClient) is first
        other = connection.async_client(de.SessionServiceAsyncClient)
        assert type(other) is de.SessionServiceAsyncClient
        assert type(first.transport).__name__ == "SearchServiceGrpcAsyncIOTransport"
        assert isinstance(first.transport.grpc_channel, grpc.aio.Channel)
        assert other.transport.grpc_channel is first.transport.grpc_channel
        developer = knowledge.async_client(DeveloperKnowledgeAsyncClient)
        assert type(developer.transport).__name__ == "DeveloperKnowledgeGrpcAsyncIOTransport"
        assert developer.transport.grpc_channel is not first.transport.grpc_channel
        await connection.aclose()
        await knowledge.aclose()
        return first

    def in_another_loop():
        return asyncio.run(build())

    first = await asyncio.to_thread(in_another_loop)
    second = await asyncio.to_thread(in_another_loop)
    assert first is not second  # each loop gets a client of its own


def test_an_async_client_needs_a_running_event_loop():
    connection = DiscoveryEngineConnection(emulator_host="127.0.0.1:1")
    with pytest.raises(RuntimeError, match="no running event loop"):
        connection.async_client(de.SearchServiceAsyncClient)


def test_a_second_event_loop_still_calls_the_emulator(emulator):
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address)
    component = search(connection)

    async def call():
        try:
            return names(await component.asearch(QUERY))
        finally:
            await connection.aclose()

    first, second = asyncio.run(call()), asyncio.run(call())
    assert first == second == names(component.search(QUERY))
    assert len(first) == 3
    connection.close()


async def test_after_close_and_aclose_the_next_call_builds_again(emulator):
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address)
    component = search(connection)
    expected = names(component.search(QUERY))
    assert names(await component.asearch(QUERY)) == expected
    old, aold = (
        connection.client(de.SearchServiceClient),
        connection.async_client(de.SearchServiceAsyncClient),
    )
    connection.close()
    await connection.aclose()
    await connection.aclose()  # closing twice is harmless
    with pytest.raises(ValueError, match="closed channel"):
        old.search(request={"serving_config": "x"}, timeout=1)
    with pytest.raises(grpc.aio.UsageError, match="Channel is closed"):
        await aold.search(request={"serving_config": "x"}, timeout=1)
    assert names(component.search(QUERY)) == expected
    assert names(await component.asearch(QUERY)) == expected
    connection.close()
    await connection.aclose()


@pytest.mark.parametrize("emulated", [True, False], ids=["emulator", "google"])
async def test_close_and_aclose_close_every_google_client(emulated):
    if emulated:
        connection = DiscoveryEngineConnection(emulator_host="127.0.0.1:9")
    else:
        connection = DiscoveryEngineConnection(project_id="p", credentials=AnonymousCredentials())
    await connection.aclose()  # nothing built yet: nothing to close
    connection.close()
    clients = [connection.client(de.SearchServiceClient)]
    clients.append(connection.client(de.ConversationalSearchServiceClient))
    aclients = [connection.async_client(de.SearchServiceAsyncClient)]
    aclients.append(connection.async_client(de.ConversationalSearchServiceAsyncClient))
    connection.close()
    await connection.aclose()
    for client, method in zip(clients, ("search", "answer_query"), strict=True):
        with pytest.raises(ValueError, match="closed channel"):
            getattr(client, method)(request={}, timeout=1)
    for client, method in zip(aclients, ("search", "answer_query"), strict=True):
        with pytest.raises(grpc.aio.UsageError, match="Channel is closed"):
            await getattr(client, method)(request={}, timeout=1)


class UnbuildableSearchClient(de.SearchServiceClient):
    def __init__(self, **kwargs):
        raise RuntimeError("this client cannot be built")


class UnbuildableSearchAsyncClient(de.SearchServiceAsyncClient):
    def __init__(self, **kwargs):
        raise RuntimeError("this client cannot be built")


async def test_close_and_aclose_close_the_emulator_channel_even_if_no_client_was_built(
    monkeypatch,
):
    opened = []

    def recorded(build):
        def channel(*args, **kwargs):
            opened.append(build(*args, **kwargs))
            return opened[-1]

        return channel

    monkeypatch.setattr(grpc, "insecure_channel", recorded(grpc.insecure_channel))
    monkeypatch.setattr(grpc.aio, "insecure_channel", recorded(grpc.aio.insecure_channel))
    connection = DiscoveryEngineConnection(emulator_host="127.0.0.1:9")
    with pytest.raises(RuntimeError, match="cannot be built"):
        connection.client(UnbuildableSearchClient)
    with pytest.raises(RuntimeError, match="cannot be built"):
        connection.async_client(UnbuildableSearchAsyncClient)
    connection.close()
    await connection.aclose()
    channel, achannel = opened
    with pytest.raises(ValueError, match="closed channel"):
        channel.unary_unary("/t.T/Big")(b"", timeout=1)
    with pytest.raises(grpc.aio.UsageError, match="Channel is closed"):
        await achannel.unary_unary("/t.T/Big")(b"", timeout=1)


def test_building_a_client_is_logged_once(caplog):
    connection = DiscoveryEngineConnection(emulator_host="127.0.0.1:9")
    with caplog.at_level(logging.DEBUG, logger="grounding_core._clients"):
        first = connection.client(de.GroundedGenerationServiceClient)
        assert connection.client(de.GroundedGenerationServiceClient) is first

        async def build():
            client = connection.async_client(de.SearchServiceAsyncClient)
            assert connection.async_client(de.SearchServiceAsyncClient) is client
            await connection.aclose()

        asyncio.run(build())
    messages = [r.getMessage() for r in caplog.records if r.name == "grounding_core._clients"]
    assert messages == [
        "built GroundedGenerationServiceClient for 127.0.0.1:9",
        "built async SearchServiceAsyncClient for 127.0.0.1:9",
    ]
    connection.close()


@pytest.fixture(scope="module")
def echo_server():
    """A bare gRPC server whose ``/t.T/Big`` answers with ``LARGE`` bytes."""
    handler = grpc.method_handlers_generic_handler(
        "t.T", {"Big": grpc.unary_unary_rpc_method_handler(lambda request, context: b"x" * LARGE)}
    )
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=2),
        options=[("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)],
    )
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(None)


async def test_the_emulator_channel_has_no_message_size_limit(echo_server):
    connection = DiscoveryEngineConnection(emulator_host=echo_server)
    channel = connection.client(de.SearchServiceClient).transport.grpc_channel
    assert len(channel.unary_unary("/t.T/Big")(b"", timeout=10)) == LARGE
    achannel = connection.async_client(de.SearchServiceAsyncClient).transport.grpc_channel
    assert len(await achannel.unary_unary("/t.T/Big")(b"", timeout=10)) == LARGE
    connection.close()
    await connection.aclose()


# -- credentials, repr and pickling checks ---------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "client", "endpoint", "variable"),
    [
        (lambda: DiscoveryEngineConnection(project_id="p", location="eu"), de.SearchServiceClient,
         "eu-discoveryengine.googleapis.com", DISCOVERYENGINE_EMULATOR_HOST),
        (DeveloperKnowledgeConnection, DeveloperKnowledgeClient,
         "developerknowledge.googleapis.com", DEVELOPERKNOWLEDGE_EMULATOR_HOST),
    ],
    ids=["discovery-engine", "developer-knowledge"],
)  # fmt: skip
def test_missing_credentials_say_what_to_do(no_credentials, build, client, endpoint, variable):
    error = refusal(build().client, client)
    assert f"no Google Cloud credentials for {endpoint}" in str(error)
    assert "gcloud auth application-default login" in str(error)
    assert f"${variable}" in str(error)
    assert isinstance(error.__cause__, DefaultCredentialsError)


def test_given_credentials_are_used_instead_of_the_default_ones(no_credentials):
    connection = DeveloperKnowledgeConnection(credentials=AnonymousCredentials())
    assert isinstance(connection.client(DeveloperKnowledgeClient), DeveloperKnowledgeClient)
    connection.close()


class MarkedCredentials(AnonymousCredentials):
    """Credentials whose repr carries a marker that must never leak."""

    token = "SECRET-MARKER-123"

    def __repr__(self):
        return f"<creds {self.token}>"


def test_the_repr_never_shows_credentials_or_options():
    connection = DiscoveryEngineConnection(
        project_id="p",
        credentials=MarkedCredentials(),
        client_options={"api_key": "SECRET-MARKER-123"},
    )
    assert repr(connection) == (
        "DiscoveryEngineConnection(endpoint='discoveryengine.googleapis.com', emulator=False)"
    )
    emulated = DeveloperKnowledgeConnection(emulator_host="h:1")
    assert repr(emulated) == "DeveloperKnowledgeConnection(endpoint='h:1', emulator=True)"


def test_picklable_settings_pass_the_check():
    for connection in (
        DiscoveryEngineConnection(project_id="p"),
        DiscoveryEngineConnection(
            project_id="p",
            credentials=AnonymousCredentials(),
            client_options={"api_key": "k", "quota_project_id": "q"},
        ),
        DeveloperKnowledgeConnection(emulator_host="h:1"),
    ):
        assert connection.check_picklable() is None


@pytest.mark.parametrize(
    ("build", "name", "advice"),
    [
        (
            lambda: DeveloperKnowledgeConnection(credentials=LockedCredentials()),
            "credentials (LockedCredentials)",
            "Application Default Credentials",
        ),
        (
            lambda: DiscoveryEngineConnection(
                project_id="p", client_options=ClientOptions(client_cert_source=lambda: (b"", b""))
            ),
            "client_options (ClientOptions)",
            "module-level function",
        ),
    ],
    ids=["credentials", "client-options"],
)
def test_settings_that_cannot_be_pickled_are_named_with_what_to_do(build, name, advice):
    error = refusal(build().check_picklable)
    assert str(error).startswith(f"{name} cannot be pickled (")
    assert advice in str(error)
    assert "build the component in the process that uses it" in str(error)
    assert error.__cause__ is not None


# -- every call's timeout and retry, observed through the emulator ---------------------------------


def test_an_unavailable_sent_by_the_emulator_is_retried_with_the_default_policy(emulator):
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address)
    emulator.faults.fail("Search", code="UNAVAILABLE", times=1)
    injected = emulator.faults.injected
    assert len(search(connection).search(QUERY)) == 3
    assert (emulator.faults.injected - injected, emulator.faults.pending) == (1, 0)
    connection.close()


def test_an_unavailable_from_an_emulator_on_ipv6_loopback_is_retried(emulator):
    with EmulatorServer(emulator.store, host="::1") as ipv6:
        connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=ipv6.address)
        ipv6.faults.fail("Search", code="UNAVAILABLE", times=1)
        assert ipv6.address.startswith("[::1]:")
        assert len(search(connection).search(QUERY)) == 3
        assert (ipv6.faults.injected, ipv6.faults.pending) == (1, 0)
        connection.close()


def test_an_emulator_that_starts_listening_within_the_connect_timeout_gets_the_call(
    emulator, closed_port
):
    # The first attempt finds nothing listening; the emulator opens its port 0.5 s later, within
    # EMULATOR_CONNECT_TIMEOUT, so the call is retried there instead of refused.
    late = EmulatorServer(emulator.store, port=int(closed_port.rpartition(":")[2]))
    opening = threading.Timer(0.5, late.start)
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=closed_port)
    opening.start()
    try:
        assert len(search(connection).search(QUERY)) == 3
    finally:
        opening.join()
        late.stop()
        connection.close()


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_without_retries_an_unavailable_fails_the_call(emulator, kind):
    connection = DeveloperKnowledgeConnection(emulator_host=emulator.address, retry=None)
    emulator.faults.fail("SearchDocumentChunks", code="UNAVAILABLE", times=2)
    component = DeveloperKnowledgeChunkSearch(connection)
    call = component.search if kind == "sync" else component.asearch
    with pytest.raises(ServiceUnavailableError, match="injected fault: UNAVAILABLE") as info:
        await result_of(call, "python generators")
    assert type(info.value.__cause__) is core_exceptions.ServiceUnavailable
    assert emulator.faults.pending == 1  # one attempt: the second fault is still armed
    connection.close()
    await connection.aclose()


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_the_timeout_bounds_each_attempt(emulator, kind):
    connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, timeout=0.2, retry=None
    )
    emulator.faults.delay("Search", seconds=1.0, times=1)
    component = search(connection)
    call = component.search if kind == "sync" else component.asearch
    with pytest.raises(DeadlineExceededError) as info:
        await result_of(call, QUERY)
    assert type(info.value.__cause__) is core_exceptions.DeadlineExceeded
    connection.close()
    await connection.aclose()


def test_closing_a_connection_right_after_retried_unavailables_raises_nothing(
    emulator, monkeypatch
):
    raised: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_value))
    before = set(threading.enumerate())
    connection = DiscoveryEngineConnection(
        project_id=PROJECT,
        emulator_host=emulator.address,
        retry=RetryPolicy(initial=0.001, maximum=0.001, deadline=0.05),
    )
    emulator.faults.fail("Search", code="UNAVAILABLE", times=None)
    with pytest.raises(DeadlineExceededError):
        search(connection).search(QUERY)
    connection.close()
    for thread in set(threading.enumerate()) - before:
        if thread.name.endswith("(_run)"):  # gRPC's connectivity poller
            thread.join(timeout=5)
    assert raised == []


# -- a stopped emulator ----------------------------------------------------------------------------


@pytest.fixture
def closed_port() -> str:
    """``127.0.0.1:PORT`` where nothing listens (a port just bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"127.0.0.1:{port}"


def _raised(call) -> BaseException | None:
    try:
        call()
    except Exception as exc:  # the error is what is asserted
        return exc
    return None


async def test_a_stopped_emulator_fails_at_once_with_the_default_retry(closed_port):
    # Each call would be retried for DEFAULT_RETRY.deadline (60 s), then end in a
    # DeadlineExceededError: each fails instead at once, with the error naming the address.
    de_connection = DiscoveryEngineConnection(emulator_host=f"http://{closed_port}")
    dk_connection = DeveloperKnowledgeConnection(emulator_host=closed_port)
    assert de_connection.call_options.retry == DEFAULT_RETRY
    check = GroundingCheck(de_connection)
    fact = "Paris is the capital of France."

    async def acheck():
        try:
            await check.acheck(fact, [fact], [GroundingSource(fact)])
        except Exception as exc:  # the error is what is asserted
            return exc
        return None

    errors = await asyncio.gather(
        asyncio.to_thread(_raised, lambda: check.check(fact, [fact], [GroundingSource(fact)])),
        asyncio.to_thread(
            _raised, lambda: DeveloperKnowledgeChunkSearch(dk_connection).search("x")
        ),
        acheck(),
    )
    expected = [
        ("CheckGrounding", DISCOVERYENGINE_EMULATOR_HOST),
        ("SearchDocumentChunks", DEVELOPERKNOWLEDGE_EMULATOR_HOST),
        ("CheckGrounding", DISCOVERYENGINE_EMULATOR_HOST),
    ]
    for error, (rpc, variable) in zip(errors, expected, strict=True):
        assert type(error) is ServiceUnavailableError
        message = str(error)
        assert message.startswith(f"no emulator answers on {closed_port} ({rpc}: ")
        assert "within 3 s" in message
        assert "grounding serve" in message
        assert "(or `grounding_emulator.EmulatorServer` in Python)" in message
        assert f"${variable}" in message
        cause = error.__cause__
        assert type(cause) is core_exceptions.ServiceUnavailable
        assert cause.grpc_status_code is grpc.StatusCode.UNAVAILABLE
        assert error.cause is cause
    de_connection.close()
    dk_connection.close()
    await de_connection.aclose()


def test_a_running_emulator_answers_through_an_http_address(emulator):
    connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=f"http://{emulator.address}"
    )
    assert connection.endpoint == emulator.address
    assert len(search(connection).search(QUERY)) == 3
    connection.close()
