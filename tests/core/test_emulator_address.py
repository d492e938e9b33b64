"""An emulator address as users write it, and a stopped emulator: one clear error within
seconds (not a minute of retries), on the sync and the async clients, over a real closed port."""

from __future__ import annotations

import socket
import time

import grpc
import pytest
from google.api_core import exceptions as core_exceptions

from grounding_core import (
    DEVELOPERKNOWLEDGE_EMULATOR_HOST,
    DISCOVERYENGINE_EMULATOR_HOST,
    ConfigurationError,
    DeveloperKnowledgeClients,
    DeveloperKnowledgeConnection,
    DiscoveryEngineClients,
    DiscoveryEngineConnection,
    ServiceUnavailableError,
    acheck_grounding,
    check_grounding,
    search_developer_knowledge,
)
from grounding_core.settings import DEFAULT_RETRY, EMULATOR_CONNECT_TIMEOUT, emulator_address

# Far below the default retry deadline (60 s): a call retried until then cannot pass.
WELL_BEFORE_THE_RETRY_DEADLINE = DEFAULT_RETRY.deadline / 3


@pytest.fixture(autouse=True)
def no_emulator_env(monkeypatch):
    monkeypatch.delenv(DISCOVERYENGINE_EMULATOR_HOST, raising=False)
    monkeypatch.delenv(DEVELOPERKNOWLEDGE_EMULATOR_HOST, raising=False)


@pytest.fixture
def closed_port() -> str:
    """``127.0.0.1:PORT`` where nothing listens (a port just bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"127.0.0.1:{port}"


@pytest.mark.parametrize(
    ("written", "address"),
    [
        ("127.0.0.1:8123", "127.0.0.1:8123"),
        ("http://127.0.0.1:8123", "127.0.0.1:8123"),
        ("grpc://localhost:8123/", "localhost:8123"),
        ("HTTP://localhost:1", "localhost:1"),
        (" [::1]:8123 ", "[::1]:8123"),
    ],
)
def test_plaintext_prefixes_are_accepted(written, address):
    assert emulator_address(written) == address
    assert DiscoveryEngineClients(emulator_host=written).endpoint == address
    assert DeveloperKnowledgeClients(emulator_host=written).endpoint == address


def test_https_is_refused_saying_what_to_write():
    with pytest.raises(ConfigurationError) as excinfo:
        DiscoveryEngineClients(emulator_host="https://127.0.0.1:8123")
    assert str(excinfo.value) == (
        "emulator_host 'https://127.0.0.1:8123' uses https://, but the emulator speaks "
        "plaintext gRPC: write '127.0.0.1:8123' (or http://...)"
    )


@pytest.mark.parametrize(
    "written", ["127.0.0.1", "localhost:", "http://127.0.0.1:8123/v1", "a:0", "a:65536", "::1:80"]
)
def test_anything_but_host_port_is_refused(written):
    with pytest.raises(ConfigurationError) as excinfo:
        emulator_address(written, "--emulator-host")
    assert str(excinfo.value) == (
        f"--emulator-host {written!r} is not HOST:PORT: write the address `grounding serve` "
        "prints, for example 127.0.0.1:8123 (an http:// or grpc:// prefix is accepted)"
    )


def test_a_non_string_is_refused():
    with pytest.raises(ConfigurationError, match="emulator_host must be a string HOST:PORT"):
        emulator_address(8123)  # type: ignore[arg-type]


def test_the_environment_variable_is_parsed_and_named_in_errors(monkeypatch):
    monkeypatch.setenv(DISCOVERYENGINE_EMULATOR_HOST, "grpc://127.0.0.1:8123")
    assert DiscoveryEngineClients().endpoint == "127.0.0.1:8123"
    monkeypatch.setenv(DEVELOPERKNOWLEDGE_EMULATOR_HOST, "https://127.0.0.1:8124")
    with pytest.raises(ConfigurationError, match=r"^\$DEVELOPERKNOWLEDGE_EMULATOR_HOST 'https"):
        DeveloperKnowledgeClients()


def check_arguments(connection: DiscoveryEngineConnection) -> tuple:
    """Clients, grounding config, answer and facts of a small CheckGrounding call."""
    fact = "Paris is the capital of France."
    return connection.clients, connection.grounding_config_path(), fact, [fact]


def _assert_no_emulator(excinfo, address: str, rpc: str, env_var: str, started: float) -> None:
    error = excinfo.value
    assert str(error) == (
        f"no emulator answers on {address} ({rpc}: nothing accepted a connection within "
        f"{EMULATOR_CONNECT_TIMEOUT:g} s): start one with `grounding serve` (or "
        "`grounding_emulator.EmulatorServer` in Python) and give its address, or drop "
        f"emulator_host / --emulator-host and unset ${env_var} to use Google Cloud"
    )
    # Not retried: exhausted retries would be a DeadlineExceededError (RetryError).
    assert type(error) is ServiceUnavailableError
    # Chained as every ServiceError is: Google's error class, wrapping the gRPC error.
    assert isinstance(error.__cause__, core_exceptions.ServiceUnavailable)
    assert error.__cause__.grpc_status_code is grpc.StatusCode.UNAVAILABLE
    assert "Connection refused" in error.__cause__.message
    assert error.cause is error.__cause__
    assert time.monotonic() - started < WELL_BEFORE_THE_RETRY_DEADLINE


def test_a_stopped_emulator_fails_at_once_with_the_default_retry(closed_port):
    connection = DiscoveryEngineConnection.create(emulator_host=f"http://{closed_port}")
    assert connection.call_options.retry == DEFAULT_RETRY
    started = time.monotonic()
    with pytest.raises(ServiceUnavailableError) as excinfo:
        check_grounding(*check_arguments(connection), options=connection.call_options)
    _assert_no_emulator(
        excinfo, closed_port, "CheckGrounding", DISCOVERYENGINE_EMULATOR_HOST, started
    )
    connection.close()


def test_developer_knowledge_names_its_own_variable(closed_port):
    connection = DeveloperKnowledgeConnection.create(emulator_host=closed_port)
    started = time.monotonic()
    with pytest.raises(ServiceUnavailableError) as excinfo:
        search_developer_knowledge(connection.clients, "x", options=connection.call_options)
    _assert_no_emulator(
        excinfo, closed_port, "SearchDocumentChunks", DEVELOPERKNOWLEDGE_EMULATOR_HOST, started
    )
    connection.close()


async def test_a_stopped_emulator_fails_at_once_on_the_async_client(closed_port):
    connection = DiscoveryEngineConnection.create(emulator_host=closed_port)
    started = time.monotonic()
    with pytest.raises(ServiceUnavailableError) as excinfo:
        await acheck_grounding(*check_arguments(connection), options=connection.call_options)
    _assert_no_emulator(
        excinfo, closed_port, "CheckGrounding", DISCOVERYENGINE_EMULATOR_HOST, started
    )
    await connection.aclose()


def test_a_running_emulator_answers_through_an_http_address(emulator):
    connection = DiscoveryEngineConnection.create(emulator_host=f"http://{emulator.address}")
    result = check_grounding(*check_arguments(connection), options=connection.call_options)
    assert result.support_score == 1.0
    connection.close()
