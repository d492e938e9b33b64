"""Google's own clients, connected to the session emulator, for the emulator's service tests."""

from __future__ import annotations

import grpc
import pytest
from google import developer_knowledge_v1
from google.api_core import exceptions as core_exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1

# One attempt, a bounded wait: a test sees the emulator's answer itself.
ONCE = {"retry": None, "timeout": 10.0}


def serving_config(
    parent: str = "test-docs",
    *,
    kind: str = "dataStores",
    project: str = "test-project",
    location: str = "global",
    serving_config_id: str = "default_search",
    collection: str | None = "default_collection",
) -> str:
    """A serving config resource name."""
    base = f"projects/{project}/locations/{location}"
    if collection is not None:
        base += f"/collections/{collection}"
    return f"{base}/{kind}/{parent}/servingConfigs/{serving_config_id}"


GROUNDING_CONFIG = (
    "projects/test-project/locations/global/groundingConfigs/default_grounding_config"
)


def versioned_client(module, client_name: str, address: str, *, asynchronous: bool = False):
    """A client of any API version (``discoveryengine_v1beta`` ...) on the emulator."""
    client_cls = getattr(module, client_name)
    if asynchronous:
        channel = grpc.aio.insecure_channel(address)
        transport = client_cls.get_transport_class("grpc_asyncio")(
            channel=channel, credentials=AnonymousCredentials()
        )
    else:
        channel = grpc.insecure_channel(address)
        transport = client_cls.get_transport_class("grpc")(
            channel=channel, credentials=AnonymousCredentials()
        )
    return client_cls(transport=transport)


def assert_error(excinfo: pytest.ExceptionInfo, error_type: type, *fragments: str) -> None:
    """The raised Google error is ``error_type`` and its message holds every fragment."""
    assert isinstance(excinfo.value, error_type), repr(excinfo.value)
    assert isinstance(excinfo.value, core_exceptions.GoogleAPICallError)
    for fragment in fragments:
        assert fragment in excinfo.value.message, (fragment, excinfo.value.message)


@pytest.fixture(scope="session")
def search_client(de_connection):
    """``SearchServiceClient`` on the emulator."""
    return de_connection.client(discoveryengine_v1.SearchServiceClient)


@pytest.fixture(scope="session")
def grounding_client(de_connection):
    """``GroundedGenerationServiceClient`` on the emulator."""
    return de_connection.client(discoveryengine_v1.GroundedGenerationServiceClient)


@pytest.fixture(scope="session")
def answer_client(de_connection):
    """``ConversationalSearchServiceClient`` on the emulator."""
    return de_connection.client(discoveryengine_v1.ConversationalSearchServiceClient)


@pytest.fixture(scope="session")
def dk_client(dk_connection):
    """``DeveloperKnowledgeClient`` on the emulator."""
    return dk_connection.client(developer_knowledge_v1.DeveloperKnowledgeClient)


@pytest.fixture(scope="module")
def emulator_and_clients(tmp_path_factory):
    """The resource tests' emulator of the module's own, and Google's clients on it
    (``google_resources.started``)."""
    # Imported here: google_resources imports this module.
    from tests.emulator.google_resources import started

    yield from started(tmp_path_factory.mktemp("resources"))


@pytest.fixture(scope="module")
def clients(emulator_and_clients):
    """The clients of the module's resource emulator."""
    return emulator_and_clients[1]
