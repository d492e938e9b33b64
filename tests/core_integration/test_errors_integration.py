"""The core's error translation, on real errors from the emulator (injected or validated)."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as core_exceptions

from grounding_core import (
    CallOptions,
    ChunkSearchSpec,
    DeadlineExceededError,
    DiscoveryEngineTarget,
    GroundingSource,
    InputError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RetryPolicy,
    ServiceUnavailableError,
    acheck_grounding,
    answer_developer_query,
    check_grounding,
    grounding_config_path,
    search_chunks,
)
from tests.conftest import PROJECT

FAST = CallOptions(timeout=5.0, retry=RetryPolicy(initial=0.01, maximum=0.05, deadline=5.0))
ONCE = CallOptions(timeout=5.0, retry=None)
CONFIG = grounding_config_path(PROJECT)


def test_not_found_names_the_resource(de_clients):
    target = DiscoveryEngineTarget(project=PROJECT, data_store="missing-store")
    with pytest.raises(NotFoundError) as excinfo:
        search_chunks(de_clients, target, "x", options=ONCE)
    message = str(excinfo.value)
    assert target.serving_config_path in message
    assert "data store 'missing-store' not found" in message
    assert isinstance(excinfo.value.__cause__, core_exceptions.NotFound)
    assert excinfo.value.cause is excinfo.value.__cause__


def test_invalid_filter_is_an_invalid_request(de_clients, test_target):
    with pytest.raises(InvalidRequestError, match="filter is malformed") as excinfo:
        search_chunks(de_clients, test_target, "x", ChunkSearchSpec(filter="rank <"), ONCE)
    assert isinstance(excinfo.value.__cause__, core_exceptions.InvalidArgument)


def test_transient_failures_are_retried(emulator, de_clients, test_target):
    emulator.faults.fail("Search", code="UNAVAILABLE", times=2)
    emulator.faults.fail("Search", code="CANCELLED", times=1)  # a server stopping gracefully
    emulator.faults.fail("Search", code="RESOURCE_EXHAUSTED", times=1, message="quota exceeded")
    injected = emulator.faults.injected
    chunks = search_chunks(de_clients, test_target, "lighthouse", ChunkSearchSpec(k=3), FAST)
    assert len(chunks) == 3
    assert emulator.faults.pending == 0
    assert emulator.faults.injected - injected == 4  # four failed attempts, then the fifth


@pytest.mark.parametrize(
    ("code", "message", "error", "fragment"),
    [
        # Google's generated clients retry no INTERNAL for these methods, nor does AIP-194.
        ("INTERNAL", "boom", ServiceUnavailableError, "INTERNAL: boom (the service failed"),
        ("INVALID_ARGUMENT", "bad", InvalidRequestError, "INVALID_ARGUMENT: bad"),
        (
            "RESOURCE_EXHAUSTED",
            "Received message larger than max (20971530 vs. 16777216)",
            InvalidRequestError,
            "a message of 20,971,530 bytes is larger than the 16,777,216 bytes allowed",
        ),
        (
            "INVALID_ARGUMENT",
            "Request payload size exceeds the limit: 10485760 bytes.",
            InvalidRequestError,
            "a message is larger than the 10,485,760 bytes allowed",
        ),
    ],
    ids=["internal", "invalid-argument", "grpc-size", "payload-size"],
)
def test_what_cannot_succeed_on_retry_is_tried_once(
    emulator, de_clients, test_target, code, message, error, fragment
):
    emulator.faults.fail("Search", code=code, times=2, message=message)
    with pytest.raises(error, match=r"^Search on .* failed: ") as excinfo:
        search_chunks(de_clients, test_target, "lighthouse", options=FAST)
    assert fragment in str(excinfo.value)
    assert emulator.faults.pending == 1  # one attempt only


def test_cancelled_by_the_server_without_retries_is_unavailable(emulator, de_clients):
    emulator.faults.fail("CheckGrounding", code="CANCELLED", message="server stopping")
    with pytest.raises(ServiceUnavailableError) as excinfo:
        check_grounding(de_clients, CONFIG, "Paris is in France.", ["Paris."], options=ONCE)
    assert "CANCELLED: server stopping (the server cancelled the call" in str(excinfo.value)
    assert isinstance(excinfo.value.__cause__, core_exceptions.Cancelled)


async def test_cancelled_by_the_server_is_retried_async(emulator, de_async_clients):
    emulator.faults.fail("CheckGrounding", code="CANCELLED", times=2)
    result = await acheck_grounding(
        de_async_clients, CONFIG, "Paris is in France.", ["Paris is in France."], options=FAST
    )
    assert result.support_score == 1.0
    assert emulator.faults.pending == 0


def test_an_oversized_request_is_refused_before_it_is_sent(emulator, de_clients):
    injected = emulator.faults.injected
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE")  # would be consumed by a call
    source = GroundingSource("Paris is in France.", {"blob": "x" * (11 * 1024 * 1024)})
    with pytest.raises(InputError, match="Google's API front end refuses requests over") as info:
        check_grounding(de_clients, CONFIG, "Paris is in France.", [source], options=FAST)
    assert (info.value.field, info.value.limit) == ("request", 10 * 1024 * 1024)
    # Not sent: the armed fault is still there.
    assert emulator.faults.pending == 1
    assert emulator.faults.injected == injected


def test_retries_give_up_at_the_deadline(emulator, de_clients):
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=10_000)
    options = CallOptions(timeout=1.0, retry=RetryPolicy(initial=0.01, maximum=0.02, deadline=0.3))
    with pytest.raises(DeadlineExceededError) as excinfo:
        check_grounding(
            de_clients, CONFIG, "Paris is in France.", ["Paris is in France."], options=options
        )
    assert "UNAVAILABLE" in str(excinfo.value)
    assert isinstance(excinfo.value.__cause__, core_exceptions.RetryError)


def test_unavailable_without_retry(emulator, dk_clients):
    emulator.faults.fail("AnswerQuery", code="UNAVAILABLE")
    with pytest.raises(ServiceUnavailableError, match="injected fault: UNAVAILABLE"):
        answer_developer_query(dk_clients, "yield", options=ONCE)


def test_permission_denied_is_not_retried(emulator, de_clients, test_target):
    emulator.faults.fail("Search", code="PERMISSION_DENIED", times=2)
    with pytest.raises(PermissionDeniedError):
        search_chunks(de_clients, test_target, "lighthouse", options=FAST)
    assert emulator.faults.pending == 1  # one attempt only


def test_deadline_exceeded(emulator, de_clients, test_target):
    emulator.faults.delay("Search", seconds=2.0, times=1)
    with pytest.raises(DeadlineExceededError) as excinfo:
        search_chunks(
            de_clients, test_target, "lighthouse", options=CallOptions(timeout=0.1, retry=None)
        )
    assert isinstance(excinfo.value.__cause__, core_exceptions.DeadlineExceeded)


async def test_async_retry_and_error(emulator, de_async_clients):
    emulator.faults.fail("CheckGrounding", code="RESOURCE_EXHAUSTED", times=2)
    result = await acheck_grounding(
        de_async_clients, CONFIG, "Paris is in France.", ["Paris is in France."], options=FAST
    )
    assert result.support_score == 1.0
    with pytest.raises(NotFoundError, match="grounding config 'nope' not found"):
        await acheck_grounding(
            de_async_clients,
            grounding_config_path(PROJECT, grounding_config="nope"),
            "Paris is in France.",
            ["Paris."],
            options=ONCE,
        )
