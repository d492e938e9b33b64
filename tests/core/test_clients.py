import asyncio

import grpc
import pytest
from google.api_core.client_options import ClientOptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import DeveloperKnowledgeAsyncClient, DeveloperKnowledgeClient

from grounding_core import (
    DEVELOPERKNOWLEDGE_EMULATOR_HOST,
    DISCOVERYENGINE_EMULATOR_HOST,
    ConfigurationError,
    DeveloperKnowledgeClients,
    DiscoveryEngineClients,
)


class MarkedCredentials(AnonymousCredentials):
    """A credential whose repr carries a marker that must never leak."""

    token = "SECRET-MARKER-123"

    def __repr__(self):
        return f"<creds {self.token}>"


@pytest.fixture(autouse=True)
def no_emulator_env(monkeypatch):
    monkeypatch.delenv(DISCOVERYENGINE_EMULATOR_HOST, raising=False)
    monkeypatch.delenv(DEVELOPERKNOWLEDGE_EMULATOR_HOST, raising=False)


@pytest.mark.parametrize(
    ("location", "endpoint"),
    [
        ("global", "discoveryengine.googleapis.com"),
        ("us", "us-discoveryengine.googleapis.com"),
        ("eu", "eu-discoveryengine.googleapis.com"),
    ],
)
def test_regional_endpoints(location, endpoint):
    clients = DiscoveryEngineClients(location=location, credentials=AnonymousCredentials())
    assert clients.endpoint == endpoint
    assert not clients.uses_emulator
    assert clients.search().transport._host == f"{endpoint}:443"


def test_client_options_endpoint_wins_and_dicts_are_accepted():
    clients = DiscoveryEngineClients(
        location="eu",
        credentials=AnonymousCredentials(),
        client_options={"api_endpoint": "private.example.com", "quota_project_id": "q"},
    )
    assert clients.endpoint == "private.example.com"
    assert clients.conversational_search().transport._host == "private.example.com:443"


def test_bad_client_options():
    with pytest.raises(ConfigurationError, match="client_options has an unknown key"):
        DiscoveryEngineClients(client_options={"no_such_option": 1})
    with pytest.raises(ConfigurationError, match="must be a ClientOptions or a dict"):
        DiscoveryEngineClients(client_options=["x"])  # type: ignore[arg-type]


def test_emulator_and_api_endpoint_together_are_refused():
    with pytest.raises(ConfigurationError, match="pick one"):
        DiscoveryEngineClients(
            emulator_host="localhost:1", client_options=ClientOptions(api_endpoint="x")
        )


def test_emulator_from_argument_uses_one_insecure_channel():
    clients = DiscoveryEngineClients(emulator_host="localhost:8123")
    assert clients.endpoint == "localhost:8123"
    search, check = clients.search(), clients.grounded_generation()
    assert isinstance(search, de.SearchServiceClient)
    assert isinstance(check, de.GroundedGenerationServiceClient)
    assert search.transport.grpc_channel is check.transport.grpc_channel
    assert isinstance(search.transport.grpc_channel, grpc.Channel)
    assert clients.search() is search  # built once, reused
    clients.close()
    assert clients.search() is not search  # a closed factory builds afresh


def test_emulator_host_is_read_from_the_environment_once(monkeypatch):
    monkeypatch.setenv(DISCOVERYENGINE_EMULATOR_HOST, "127.0.0.1:9999")
    monkeypatch.setenv(DEVELOPERKNOWLEDGE_EMULATOR_HOST, "127.0.0.1:7777")
    clients = DiscoveryEngineClients()
    knowledge = DeveloperKnowledgeClients()
    monkeypatch.setenv(DISCOVERYENGINE_EMULATOR_HOST, "elsewhere:1")
    assert clients.endpoint == "127.0.0.1:9999"
    assert knowledge.endpoint == "127.0.0.1:7777"
    assert isinstance(knowledge.developer_knowledge(), DeveloperKnowledgeClient)
    # An explicit argument beats the environment.
    assert DiscoveryEngineClients(emulator_host="given:1").endpoint == "given:1"


def test_developer_knowledge_endpoint():
    clients = DeveloperKnowledgeClients(credentials=AnonymousCredentials())
    assert clients.endpoint == "developerknowledge.googleapis.com"
    assert clients.developer_knowledge().transport._host == "developerknowledge.googleapis.com:443"


def test_repr_never_shows_credentials_or_options():
    clients = DiscoveryEngineClients(
        credentials=MarkedCredentials(), client_options={"api_key": "SECRET-MARKER-123"}
    )
    assert "SECRET-MARKER" not in repr(clients)
    assert "SECRET-MARKER" not in str(vars(clients).keys())
    assert repr(clients) == (
        "DiscoveryEngineClients(endpoint='discoveryengine.googleapis.com', emulator=False)"
    )


def test_async_clients_are_per_event_loop():
    clients = DiscoveryEngineClients(emulator_host="localhost:8123")
    knowledge = DeveloperKnowledgeClients(emulator_host="localhost:8124")

    async def build():
        first, again = clients.search_async(), clients.search_async()
        assert first is again
        other = clients.grounded_generation_async()
        assert first.transport.grpc_channel is other.transport.grpc_channel
        assert isinstance(first.transport.grpc_channel, grpc.aio.Channel)
        assert isinstance(knowledge.developer_knowledge_async(), DeveloperKnowledgeAsyncClient)
        assert isinstance(
            clients.conversational_search_async(), de.ConversationalSearchServiceAsyncClient
        )
        await clients.aclose()
        await knowledge.aclose()
        return first

    first = asyncio.run(build())
    second = asyncio.run(build())
    assert first is not second  # each asyncio.run gets a client on its own loop


def test_async_client_needs_a_running_loop():
    with pytest.raises(RuntimeError, match="no running event loop"):
        DiscoveryEngineClients(emulator_host="localhost:1").search_async()


def test_missing_credentials_say_what_to_do(monkeypatch):
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    def no_credentials(*args, **kwargs):
        raise DefaultCredentialsError("Your default credentials were not found.")

    monkeypatch.setattr(google.auth, "default", no_credentials)
    with pytest.raises(ConfigurationError, match="run `gcloud auth application-default login`"):
        DiscoveryEngineClients(location="eu").search()
