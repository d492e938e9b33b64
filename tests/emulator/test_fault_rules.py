"""The fault injector takes only rules that can work (the refusals: the bad-input table,
tests/reliability/test_bad_inputs_errors.py) and every RPC the emulator serves."""

from __future__ import annotations

import grpc
import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de

from grounding_emulator import FaultInjector
from grounding_emulator.wire.servicers import method_table
from grounding_emulator.wire.servicers.registry import rpc_paths
from tests.emulator.conftest import ONCE, serving_config

SEARCH = "/google.cloud.discoveryengine.v1.SearchService/Search"


def test_every_served_method_can_be_named(emulator):
    paths = [method.path for method in method_table(emulator.backend)]
    assert list(rpc_paths()) == paths
    assert SEARCH in paths
    assert "/google.developers.knowledge.v1.DeveloperKnowledge/AnswerQuery" in paths
    faults = FaultInjector()
    for path in paths:
        faults.fail(path, code="UNAVAILABLE")
        faults.fail(path.rpartition("/")[2], code=grpc.StatusCode.INTERNAL)
    assert faults.pending == 2 * len(paths)


def test_a_failure_for_every_call_lasts_until_cleared(emulator, search_client):
    emulator.faults.fail("Search", code=grpc.StatusCode.UNAVAILABLE, times=None)
    request = de.SearchRequest(serving_config=serving_config(), query="lighthouse")
    for _ in range(3):
        with pytest.raises(core_exceptions.ServiceUnavailable, match="injected fault"):
            search_client.search(request=request, **ONCE)
    assert emulator.faults.pending == 1
    emulator.faults.clear()
    assert search_client.search(request=request, **ONCE).total_size > 0


def test_an_int_delay_is_seconds():
    faults = FaultInjector()
    faults.delay("Search", seconds=2, times=1)
    fault = faults.next_fault(SEARCH)
    assert (fault.method, fault.code, fault.delay) == ("Search", None, 2.0)
    assert isinstance(fault.delay, float)
