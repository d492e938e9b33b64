"""Clients: the emulator channel's limits, the transports and credentials each client is built
with, caching, logging and closing (what ``make mutation`` found unasserted in
``grounding_core.clients``). Nothing here calls a Discovery Engine server: a closed channel
refuses a call before sending it, and the size limits are tried on a bare gRPC echo server."""

import asyncio
import logging
import threading
import time
from concurrent import futures

import grpc
import pytest
from google.api_core.client_options import ClientOptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    DEVELOPERKNOWLEDGE_EMULATOR_HOST,
    DISCOVERYENGINE_EMULATOR_HOST,
    ConfigurationError,
    DeveloperKnowledgeClients,
    DiscoveryEngineClients,
)
from grounding_core.clients import emulator_channel

LARGE = 5 * 1024 * 1024  # above gRPC's default 4 MiB receive limit
REQUEST = de.SearchRequest(serving_config="x")


@pytest.fixture(autouse=True)
def no_emulator_env(monkeypatch):
    monkeypatch.delenv(DISCOVERYENGINE_EMULATOR_HOST, raising=False)
    monkeypatch.delenv(DEVELOPERKNOWLEDGE_EMULATOR_HOST, raising=False)


@pytest.fixture
def no_credentials(monkeypatch, tmp_path):
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))  # no gcloud ADC file
    monkeypatch.setenv("NO_GCE_CHECK", "True")


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


def test_the_emulator_channel_lifts_the_size_limits(echo_server):
    with emulator_channel(echo_server, asynchronous=False) as channel:
        assert isinstance(channel, grpc.Channel)
        assert len(channel.unary_unary("/t.T/Big")(b"", timeout=10)) == LARGE

    async def call():
        channel = emulator_channel(echo_server, asynchronous=True)
        assert isinstance(channel, grpc.aio.Channel)
        try:
            return len(await channel.unary_unary("/t.T/Big")(b"", timeout=10))
        finally:
            await channel.close()

    assert asyncio.run(call()) == LARGE


def test_client_options_forms():
    options = ClientOptions(quota_project_id="q")
    assert DiscoveryEngineClients(client_options=options)._client_options is options
    from_dict = DiscoveryEngineClients(client_options={"quota_project_id": "q"})._client_options
    assert isinstance(from_dict, ClientOptions)
    assert from_dict.quota_project_id == "q"
    assert DiscoveryEngineClients()._client_options.api_endpoint is None
    with pytest.raises(ConfigurationError) as info:
        DiscoveryEngineClients(client_options={"nope": 1})
    assert str(info.value).startswith("client_options has an unknown key (")
    assert str(info.value).endswith(
        "); see google.api_core.client_options.ClientOptions for the accepted keys"
    )
    assert "nope" in str(info.value)
    assert isinstance(info.value.__cause__, TypeError)
    with pytest.raises(ConfigurationError) as info:
        DiscoveryEngineClients(client_options=("x",))  # type: ignore[arg-type]
    assert str(info.value) == "client_options must be a ClientOptions or a dict, got tuple"


def test_settings_and_the_refused_combination(monkeypatch):
    clients = DiscoveryEngineClients(location="eu", emulator_host="")
    assert (clients.location, clients.emulator_host, clients.uses_emulator) == ("eu", None, False)
    monkeypatch.setenv(DISCOVERYENGINE_EMULATOR_HOST, "")
    assert DiscoveryEngineClients().emulator_host is None
    with pytest.raises(ConfigurationError) as info:
        DiscoveryEngineClients(emulator_host="h:1", client_options={"api_endpoint": "e"})
    assert str(info.value) == (
        "both an emulator (h:1) and client_options.api_endpoint (e) were given: pick one"
    )


def test_endpoints_and_repr():
    assert DeveloperKnowledgeClients(location="eu").endpoint == "developerknowledge.googleapis.com"
    assert DiscoveryEngineClients(location="global").endpoint == "discoveryengine.googleapis.com"
    emulated = DeveloperKnowledgeClients(emulator_host="h:1")
    assert emulated.uses_emulator
    assert repr(emulated) == "DeveloperKnowledgeClients(endpoint='h:1', emulator=True)"


def test_google_clients_get_the_transport_the_endpoint_and_the_credentials():
    credentials = AnonymousCredentials()
    options = ClientOptions(quota_project_id="q")
    clients = DiscoveryEngineClients(location="us", credentials=credentials, client_options=options)
    search = clients.search()
    assert type(search.transport).__name__ == "SearchServiceGrpcTransport"
    assert search.transport._host == "us-discoveryengine.googleapis.com:443"
    assert search.transport._credentials is credentials
    assert options.api_endpoint is None  # the caller's options are copied, not changed

    async def build():
        client = clients.conversational_search_async()
        assert type(client.transport).__name__ == "ConversationalSearchServiceGrpcAsyncIOTransport"
        assert client.transport._host == "us-discoveryengine.googleapis.com:443"
        assert client.transport._credentials is credentials
        await clients.aclose()

    asyncio.run(build())


def test_emulator_clients_get_a_grpc_transport_on_the_shared_channel():
    clients = DeveloperKnowledgeClients(emulator_host="127.0.0.1:9")
    client = clients.developer_knowledge()
    assert type(client.transport).__name__ == "DeveloperKnowledgeGrpcTransport"
    assert client.transport.grpc_channel is clients._sync_channel

    async def build():
        client = clients.developer_knowledge_async()
        assert type(client.transport).__name__ == "DeveloperKnowledgeGrpcAsyncIOTransport"
        assert client.transport.grpc_channel is clients._async[asyncio.get_running_loop()].channel
        await clients.aclose()

    asyncio.run(build())
    clients.close()


def test_missing_credentials_name_the_endpoint_and_the_variable(no_credentials):
    with pytest.raises(ConfigurationError) as info:
        DeveloperKnowledgeClients().developer_knowledge()
    assert str(info.value) == (
        "no Google Cloud credentials for developerknowledge.googleapis.com: run `gcloud auth "
        "application-default login`, pass credentials=..., or use the emulator "
        "(emulator_host=... or $DEVELOPERKNOWLEDGE_EMULATOR_HOST)"
    )
    assert info.value.__cause__ is not None


def test_threads_that_ask_at_once_share_one_client():
    clients = DiscoveryEngineClients(emulator_host="127.0.0.1:9")
    built = []
    with clients._lock:  # both threads find no client and wait for the lock
        threads = [threading.Thread(target=lambda: built.append(clients.search())) for _ in "ab"]
        for thread in threads:
            thread.start()
        time.sleep(0.2)
    for thread in threads:
        thread.join()
    assert len(built) == 2
    assert built[0] is built[1]
    clients.close()


def test_building_is_logged_once(caplog):
    clients = DiscoveryEngineClients(emulator_host="127.0.0.1:9")
    with caplog.at_level(logging.DEBUG, logger="grounding_core.clients"):
        first = clients.grounded_generation()
        assert clients.grounded_generation() is first

        async def build():
            client = clients.search_async()
            assert clients.search_async() is client
            await clients.aclose()

        asyncio.run(build())
    messages = [r.getMessage() for r in caplog.records if r.name == "grounding_core.clients"]
    assert messages == [
        "built GroundedGenerationServiceClient for 127.0.0.1:9",
        "built async SearchServiceAsyncClient for 127.0.0.1:9",
    ]
    clients.close()


def test_close_closes_the_emulator_channel_and_forgets_the_clients():
    clients = DiscoveryEngineClients(emulator_host="127.0.0.1:9")
    search = clients.search()
    clients.close()
    assert clients._sync == {}
    assert clients._sync_channel is None
    with pytest.raises(ValueError, match="closed channel"):
        search.search(request=REQUEST, timeout=1)
    clients.close()  # closing twice is harmless


def test_close_closes_every_google_client():
    clients = DiscoveryEngineClients(credentials=AnonymousCredentials())
    search, answers = clients.search(), clients.conversational_search()
    clients.close()
    for call in (search.search, answers.answer_query):
        with pytest.raises(ValueError, match="closed channel"):
            call(request={}, timeout=1)


@pytest.mark.parametrize(
    "clients",
    [
        lambda: DiscoveryEngineClients(emulator_host="127.0.0.1:9"),
        lambda: DiscoveryEngineClients(credentials=AnonymousCredentials()),
    ],
)
def test_aclose_closes_the_loops_clients(clients):
    clients = clients()

    async def run():
        await clients.aclose()  # nothing built yet: nothing to close
        search, answers = clients.search_async(), clients.conversational_search_async()
        await clients.aclose()
        assert asyncio.get_running_loop() not in clients._async
        for call in (search.search, answers.answer_query):
            with pytest.raises(grpc.aio.UsageError, match="Channel is closed"):
                await call(request={}, timeout=1)

    asyncio.run(run())


def test_the_session_clients():
    clients = DiscoveryEngineClients(emulator_host="127.0.0.1:9")
    sessions = clients.sessions()
    assert type(sessions) is de.SessionServiceClient
    assert sessions is clients.sessions()
    assert sessions.transport.grpc_channel is clients.search().transport.grpc_channel
    regional = DiscoveryEngineClients(location="eu", credentials=AnonymousCredentials())
    assert regional.sessions().transport._host == "eu-discoveryengine.googleapis.com:443"

    async def run():
        client = clients.sessions_async()
        assert type(client) is de.SessionServiceAsyncClient
        assert client is clients.sessions_async()
        assert client.transport.grpc_channel is clients.search_async().transport.grpc_channel
        await clients.aclose()

    asyncio.run(run())
    clients.close()
    regional.close()
