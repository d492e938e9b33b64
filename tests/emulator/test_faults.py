"""Injected faults reach Google's clients: retries recover, deadlines surface, errors pass."""

from __future__ import annotations

import grpc
import pytest
from google.api_core import exceptions as core_exceptions
from google.api_core import retry as retries
from google.api_core import retry_async
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1beta

from grounding_emulator import FaultInjector
from tests.emulator.conftest import GROUNDING_CONFIG, ONCE, serving_config, versioned_client

FAST_RETRY = {
    "predicate": retries.if_exception_type(
        core_exceptions.ServiceUnavailable, core_exceptions.ResourceExhausted
    ),
    "initial": 0.01,
    "maximum": 0.05,
    "timeout": 10.0,
}


def search_request() -> de.SearchRequest:
    return de.SearchRequest(serving_config=serving_config(), query="lighthouse", page_size=1)


def test_failure_surfaces_once(emulator, search_client):
    emulator.faults.fail("Search", code=grpc.StatusCode.PERMISSION_DENIED, message="no access")
    with pytest.raises(core_exceptions.PermissionDenied, match="no access"):
        search_client.search(request=search_request(), **ONCE)
    assert search_client.search(request=search_request(), **ONCE).total_size > 0


def test_retry_recovers_from_transient_failures(emulator, search_client):
    emulator.faults.fail("Search", code="UNAVAILABLE", times=2)
    emulator.faults.fail("Search", code="RESOURCE_EXHAUSTED", times=1)
    before = emulator.faults.injected
    pager = search_client.search(
        request=search_request(), retry=retries.Retry(**FAST_RETRY), timeout=10
    )
    assert pager.total_size > 0
    assert emulator.faults.injected - before == 3
    assert emulator.faults.pending == 0


def test_delay_beyond_the_deadline_is_deadline_exceeded(emulator, grounding_client):
    emulator.faults.delay("CheckGrounding", seconds=2.0, times=1)
    request = de.CheckGroundingRequest(grounding_config=GROUNDING_CONFIG, answer_candidate="Hi.")
    with pytest.raises(core_exceptions.DeadlineExceeded):
        grounding_client.check_grounding(request=request, retry=None, timeout=0.1)
    assert grounding_client.check_grounding(request=request, **ONCE).claims


def test_delay_within_the_deadline_succeeds(emulator, search_client):
    emulator.faults.delay("Search", seconds=0.05, times=2)
    assert search_client.search(request=search_request(), **ONCE).total_size > 0
    assert emulator.faults.pending == 1


def test_full_method_path_targets_one_service(emulator, answer_client, dk_client):
    emulator.faults.fail(
        "/google.developers.knowledge.v1.DeveloperKnowledge/AnswerQuery", code="INTERNAL"
    )
    answer = answer_client.answer_query(
        request=de.AnswerQueryRequest(
            serving_config=serving_config(), query={"text": "lighthouse keeper"}
        ),
        **ONCE,
    )
    assert answer.answer.answer_text
    with pytest.raises(core_exceptions.InternalServerError, match="injected fault: INTERNAL"):
        dk_client.answer_query(request={"query": "yield"}, **ONCE)


def test_fault_applies_to_every_api_version(emulator, search_client):
    client = versioned_client(discoveryengine_v1beta, "SearchServiceClient", emulator.address)
    emulator.faults.fail("Search", code="UNAVAILABLE")
    with pytest.raises(core_exceptions.ServiceUnavailable):
        client.search(request={"serving_config": serving_config(), "query": "lighthouse"}, **ONCE)
    client.transport.close()


async def test_async_retry_recovers(emulator, de_async_connection):
    emulator.faults.fail("Search", code="UNAVAILABLE", times=2)
    client = de_async_connection.async_client(de.SearchServiceAsyncClient)
    pager = await client.search(
        request=search_request(), retry=retry_async.AsyncRetry(**FAST_RETRY), timeout=10
    )
    assert pager.total_size > 0
    assert emulator.faults.pending == 0


async def test_async_deadline(emulator, de_async_connection):
    emulator.faults.delay("Search", seconds=2.0, times=1)
    client = de_async_connection.async_client(de.SearchServiceAsyncClient)
    with pytest.raises(core_exceptions.DeadlineExceeded):
        await client.search(request=search_request(), retry=None, timeout=0.1)


def test_injector_rules():
    faults = FaultInjector()
    faults.fail("Search", code="UNAVAILABLE", times=2)
    faults.delay("Search", seconds=0.5, times=1)
    path = "/google.cloud.discoveryengine.v1.SearchService/Search"
    first = faults.next_fault(path)
    assert (first.code, first.delay) == ("UNAVAILABLE", 0.5)
    second = faults.next_fault(path)
    assert (second.code, second.delay) == ("UNAVAILABLE", 0.0)
    assert faults.next_fault(path) is None
    assert faults.next_fault("/other.Service/Search2") is None
    faults.delay("Search", seconds=0.1)
    assert all(faults.next_fault(path).delay == 0.1 for _ in range(5))
    faults.clear()
    assert faults.pending == 0
    with pytest.raises(ValueError, match=r"grpc\.StatusCode"):
        faults.fail("Search", code="unavailable")
    with pytest.raises(ValueError, match="OK"):
        faults.fail("Search", code=grpc.StatusCode.OK)
    with pytest.raises(ValueError, match="times must be an int >= 1"):
        faults.fail("Search", code="INTERNAL", times=0)
