"""A call that cannot succeed fails at once, unretried (issue 39, point 4 and what a new user
met): a stream to an address nothing listens on, as a unary call does; a host name that does not
resolve. What is retried ends as docs/google-cloud.md says: quota errors retried until the
deadline end in ``DeadlineExceededError``. Retries are counted by the retry logger of Google's
clients (one record per retry), never by the clock."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from google.api_core import exceptions as core_exceptions
from google.auth.credentials import AnonymousCredentials

from grounding_core import (
    DeadlineExceededError,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    RetryPolicy,
    ServiceUnavailableError,
)
from grounding_core.grounding.generation import DiscoveryEngineGroundedGeneration
from tests.conftest import PROJECT, TEST_DATA_STORE

QUESTION = "Where do rockets launch from?"
UNRESOLVED = "nonexistent.invalid"  # RFC 6761: never resolves
WHAT_TO_CHECK = (
    "(the host name does not resolve, so the call was not retried: check the network "
    "connection, DNS and proxy settings, and the endpoint: the location, or "
    "client_options.api_endpoint)"
)


class _Retries(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def retries() -> Iterator[Callable[[], list[str]]]:
    """The retries Google's clients have made so far, one message each from their retry
    logger (read on the logger itself: their first client stops "google" propagating)."""
    logger, handler = logging.getLogger("google.api_core.retry"), _Retries()
    level = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    yield lambda: list(handler.messages)
    logger.removeHandler(handler)
    logger.setLevel(level)


@pytest.fixture
def nothing_listens() -> str:
    """A loopback address nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


def sync_call(connection: DiscoveryEngineConnection, kind: str) -> Callable[[], Any]:
    """One call of ``kind`` through the core's sync methods."""
    answering = DiscoveryEngineAnswerQuery(connection, data_store_id=TEST_DATA_STORE)
    generating = DiscoveryEngineGroundedGeneration(connection, data_store_id=TEST_DATA_STORE)
    return {
        "AnswerQuery": lambda: answering.answer(QUESTION),
        "StreamAnswerQuery": lambda: list(answering.stream(QUESTION)),
        "StreamGenerateGroundedContent": lambda: list(generating.stream(QUESTION)),
        "Search": lambda: DiscoveryEngineChunkSearch(connection, data_store_id="kb").search("x"),
    }[kind]


async def async_call(connection: DiscoveryEngineConnection, kind: str) -> Any:
    """One call of ``kind`` through the core's async methods."""
    answering = DiscoveryEngineAnswerQuery(connection, data_store_id=TEST_DATA_STORE)
    generating = DiscoveryEngineGroundedGeneration(connection, data_store_id=TEST_DATA_STORE)
    if kind == "StreamAnswerQuery":
        return [item async for item in answering.astream(QUESTION)]
    if kind == "StreamGenerateGroundedContent":
        return [item async for item in generating.astream(QUESTION)]
    return await DiscoveryEngineChunkSearch(connection, data_store_id="kb").asearch("x")


def assert_no_emulator(error: ServiceUnavailableError, address: str, method: str) -> None:
    assert str(error).startswith(
        f"no emulator answers on {address} ({method}: nothing accepted a connection within 3 s)"
        ": start one with `grounding serve`"
    )
    assert isinstance(error.cause, core_exceptions.ServiceUnavailable)


# -- streams fail as unary calls do (point 4) -----------------------------------------------


@pytest.mark.parametrize(
    "method", ["AnswerQuery", "StreamAnswerQuery", "StreamGenerateGroundedContent"]
)
def test_a_call_or_stream_to_an_address_nothing_listens_on_fails_unretried(
    nothing_listens, retries, method
):
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=nothing_listens)
    with pytest.raises(ServiceUnavailableError) as failed:
        sync_call(connection, method)()
    assert_no_emulator(failed.value, nothing_listens, method)
    assert retries() == []
    connection.close()


@pytest.mark.parametrize("method", ["StreamAnswerQuery", "StreamGenerateGroundedContent"])
async def test_an_async_stream_to_an_address_nothing_listens_on_fails_unretried(
    nothing_listens, retries, method
):
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=nothing_listens)
    with pytest.raises(ServiceUnavailableError) as failed:
        await async_call(connection, method)
    assert_no_emulator(failed.value, nothing_listens, method)
    assert retries() == []
    await connection.aclose()


@pytest.mark.parametrize("method", ["StreamAnswerQuery", "StreamGenerateGroundedContent"])
def test_an_unavailable_the_emulator_sends_on_a_stream_is_retried(
    emulator, de_connection, retries, method
):
    emulator.faults.fail(method, code="UNAVAILABLE", times=1)
    final = sync_call(de_connection, method)()[-1]  # the answer (or generation) record
    text = final.answer_text if method == "StreamAnswerQuery" else final.answer
    assert "Cape Canaveral" in text
    assert [r.split(",")[0] for r in retries()] == [
        "Retrying due to 503 injected fault: UNAVAILABLE"
    ]


async def test_an_unavailable_the_emulator_sends_on_an_async_stream_is_retried(
    emulator, de_async_connection, retries
):
    emulator.faults.fail("StreamAnswerQuery", code="UNAVAILABLE", times=1)
    final = (await async_call(de_async_connection, "StreamAnswerQuery"))[-1]
    assert "Cape Canaveral" in final.answer_text
    assert len(retries()) == 1


async def test_a_retried_async_generation_stream_ends_at_the_retry_deadline(
    nothing_listens, retries
):
    # Against Google (no emulator guard), each attempt fails to connect and is retried. Its
    # request used to be consumed by the first attempt: the next ones waited forever (the test's
    # own bound turns that into a failure).
    connection = DiscoveryEngineConnection(
        project_id=PROJECT,
        client_options={"api_endpoint": nothing_listens},
        credentials=AnonymousCredentials(),
        retry=RetryPolicy(initial=0.01, maximum=0.05, deadline=0.5),
    )
    with pytest.raises(DeadlineExceededError) as failed:
        await asyncio.wait_for(async_call(connection, "StreamGenerateGroundedContent"), 60)
    assert "Timeout of 0.5s exceeded; last error: UNAVAILABLE" in str(failed.value)
    assert len(retries()) >= 1
    await connection.aclose()


# -- a host name that does not resolve --------------------------------------------------------


def unresolvable() -> DiscoveryEngineConnection:
    """Credentials, and an endpoint whose name does not resolve (as with no network)."""
    return DiscoveryEngineConnection(
        project_id=PROJECT,
        client_options={"api_endpoint": f"{UNRESOLVED}:443"},
        credentials=AnonymousCredentials(),
    )


def assert_unresolved(error: ServiceUnavailableError) -> None:
    assert UNRESOLVED in str(error)
    assert str(error).endswith(WHAT_TO_CHECK)
    assert isinstance(error.cause, core_exceptions.ServiceUnavailable)


@pytest.mark.parametrize("method", ["Search", "StreamAnswerQuery", "StreamGenerateGroundedContent"])
def test_a_host_name_that_does_not_resolve_fails_unretried_saying_what_to_check(retries, method):
    connection = unresolvable()
    with pytest.raises(ServiceUnavailableError) as failed:
        sync_call(connection, method)()
    assert_unresolved(failed.value)
    assert retries() == []
    connection.close()


@pytest.mark.parametrize("method", ["Search", "StreamAnswerQuery", "StreamGenerateGroundedContent"])
async def test_a_host_name_that_does_not_resolve_fails_unretried_in_async_calls(retries, method):
    connection = unresolvable()
    with pytest.raises(ServiceUnavailableError) as failed:
        await async_call(connection, method)
    assert_unresolved(failed.value)
    assert retries() == []
    await connection.aclose()


# -- what ends the retries (docs/google-cloud.md, "Quotas") ---------------------------------


def test_quota_errors_retried_until_the_deadline_end_in_deadline_exceeded(emulator, retries):
    emulator.faults.fail("Search", code="RESOURCE_EXHAUSTED", times=None)
    policy = RetryPolicy(initial=0.01, maximum=0.02, deadline=0.3)
    connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, retry=policy
    )
    searching = DiscoveryEngineChunkSearch(connection, data_store_id=TEST_DATA_STORE)
    with pytest.raises(DeadlineExceededError) as failed:
        searching.search("rockets")
    assert "Timeout of 0.3s exceeded; last error: RESOURCE_EXHAUSTED: injected fault" in str(
        failed.value
    )
    assert isinstance(failed.value.cause, core_exceptions.RetryError)
    assert isinstance(failed.value.cause.cause, core_exceptions.ResourceExhausted)
    assert len(retries()) >= 1
    connection.close()


def test_a_quota_error_not_retried_is_service_unavailable(emulator, retries):
    emulator.faults.fail("Search", code="RESOURCE_EXHAUSTED", times=1)
    connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, retry=None
    )
    with pytest.raises(ServiceUnavailableError) as failed:
        DiscoveryEngineChunkSearch(connection, data_store_id=TEST_DATA_STORE).search("rockets")
    assert "RESOURCE_EXHAUSTED: injected fault" in str(failed.value)
    assert isinstance(failed.value.cause, core_exceptions.ResourceExhausted)
    assert retries() == []
    connection.close()
