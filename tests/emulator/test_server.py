"""EmulatorServer: binding, lifecycle, client helpers."""

from __future__ import annotations

import errno
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from grpc_health.v1 import health_pb2, health_pb2_grpc

from grounding_core import (
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    ServiceUnavailableError,
)
from grounding_emulator import CorpusStore, EmulatorServer, ScriptedJudge, Verdict
from grounding_emulator.errors import ListenError
from grounding_emulator.wire.address import is_loopback
from tests.emulator.conftest import GROUNDING_CONFIG, ONCE, versioned_client

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("192.168.1.5", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host, expected):
    assert is_loopback(host) is expected


def test_remote_hosts_need_an_explicit_flag():
    with pytest.raises(ValueError, match="allow_remote=True"):
        EmulatorServer(CorpusStore(), host="0.0.0.0")


def test_free_port_address_and_stop():
    server = EmulatorServer(CorpusStore())
    assert not server.running
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.address
    with server:
        assert server.running
        assert server.port
        assert server.port > 0
        assert server.address == f"127.0.0.1:{server.port}"
        assert repr(server).startswith("EmulatorServer(listening on 127.0.0.1:")
    assert not server.running


def test_busy_port_is_reported():
    with EmulatorServer(CorpusStore()) as first:
        second = EmulatorServer(CorpusStore(), port=first.port)
        with pytest.raises(ListenError) as excinfo:
            second.start()
        assert str(excinfo.value) == (
            f"cannot listen on 127.0.0.1:{first.port}: the address is already in use"
        )
        assert excinfo.value.__cause__.errno == errno.EADDRINUSE
        assert not second.running


def test_default_store_serves_the_builtin_corpus():
    with EmulatorServer() as server:
        assert server.store.data_store_ids == ("python-docs",)
        assert server.store.engines == {"python-docs-app": "python-docs"}
        connection = DiscoveryEngineConnection(project_id="p", emulator_host=server.address)
        search = DiscoveryEngineChunkSearch(connection, engine_id="python-docs-app")
        chunks = search.search("assert statement")
        assert chunks[0].uri.endswith("simple_stmts.html#assert")
        connection.close()
        address = server.address
    # Stopped: the same call now fails as unavailable.
    connection = DiscoveryEngineConnection(
        project_id="p", emulator_host=address, timeout=2.0, retry=None
    )
    search = DiscoveryEngineChunkSearch(connection, engine_id="python-docs-app")
    with pytest.raises(ServiceUnavailableError) as excinfo:
        search.search("assert")
    assert isinstance(excinfo.value.cause, core_exceptions.ServiceUnavailable)
    connection.close()


def test_ipv6_loopback():
    try:
        server = EmulatorServer(CorpusStore(), host="::1").start()
    except ListenError:
        pytest.skip("no IPv6 loopback on this machine")
    try:
        assert server.address == f"[::1]:{server.port}"
    finally:
        server.stop()


def test_wait_for_termination_waits_until_stopped_or_the_timeout():
    server = EmulatorServer(CorpusStore()).start()
    started = time.monotonic()
    assert server.wait_for_termination(0.3) is False
    assert 0.3 <= time.monotonic() - started < 2
    threading.Timer(0.3, server.stop).start()
    assert server.wait_for_termination() is True  # wakes in slices, so signal handlers run
    assert server.wait_for_termination(0) is True
    assert not server.running


def health_of(channel, service):
    """The status ``grpc.health.v1.Health/Check`` gives ``service``."""
    stub = health_pb2_grpc.HealthStub(channel)
    return stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=10).status


def test_the_health_service_says_serving_for_the_server_and_each_service():
    with EmulatorServer(CorpusStore()) as server, grpc.insecure_channel(server.address) as channel:
        services = [
            "",
            "google.cloud.discoveryengine.v1.SearchService",
            "google.cloud.discoveryengine.v1beta.GroundedGenerationService",
            "google.developers.knowledge.v1.DeveloperKnowledge",
        ]
        assert [health_of(channel, s) for s in services] == [SERVING] * 4
        with pytest.raises(grpc.RpcError) as unknown:
            health_of(channel, "google.cloud.discoveryengine.v1.NoSuchService")
        assert unknown.value.code() is grpc.StatusCode.NOT_FOUND


def test_health_says_not_serving_while_the_calls_in_flight_complete():
    entered, release = threading.Event(), threading.Event()

    def judge(claims, facts, citation_threshold):
        entered.set()
        release.wait(30)
        return [Verdict.not_checked() for _ in claims]

    server = EmulatorServer(CorpusStore(), judge=judge).start()
    client = versioned_client(de, "GroundedGenerationServiceClient", server.address)
    request = de.CheckGroundingRequest(
        grounding_config=GROUNDING_CONFIG,
        answer_candidate="Paris is in France.",
        facts=[{"fact_text": "Paris is the capital of France."}],
    )
    with ThreadPoolExecutor(2) as pool, grpc.insecure_channel(server.address) as channel:
        in_flight = pool.submit(client.check_grounding, request=request, **ONCE)
        assert entered.wait(30)
        stopping = pool.submit(server.stop, 30)
        deadline = time.monotonic() + 30
        while health_of(channel, "") == SERVING and time.monotonic() < deadline:
            time.sleep(0.01)
        statuses = [
            health_of(channel, s) for s in ("", "google.cloud.discoveryengine.v1.RankService")
        ]
        release.set()
        response = in_flight.result(30)
        stopping.result(30)
    client.transport.close()
    assert statuses == [NOT_SERVING, NOT_SERVING]
    assert [c.grounding_check_required for c in response.claims] == [False]


def test_a_health_watch_ends_when_the_server_stops():
    server = EmulatorServer(CorpusStore()).start()
    with grpc.insecure_channel(server.address) as channel:
        watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest())
        first = next(watch).status
        server.stop(30)  # returns at once: the watch is no call in flight to wait for
        rest = [response.status for response in watch]
    assert (first, rest) == (SERVING, [NOT_SERVING])


def test_reset_forgets_faults_scripted_verdicts_sessions_conversations_and_resources():
    store = CorpusStore()
    store.add_builtin()
    collection = "projects/p/locations/global/collections/default_collection"
    parent = f"{collection}/dataStores/python-docs"
    with EmulatorServer(store, judge=ScriptedJudge()) as server:
        sessions = versioned_client(de, "SessionServiceClient", server.address)
        conversations = versioned_client(de, "ConversationalSearchServiceClient", server.address)
        data_stores = versioned_client(de, "DataStoreServiceClient", server.address)
        sessions.create_session(parent=parent, session=de.Session(user_pseudo_id="u"), **ONCE)
        conversations.create_conversation(parent=parent, conversation=de.Conversation(), **ONCE)
        made = data_stores.create_data_store(
            parent=collection,
            data_store=de.DataStore(display_name="made", content_config="NO_CONTENT"),
            data_store_id="made",
            **ONCE,
        ).operation.name
        before = [
            d.name.rpartition("/")[2] for d in data_stores.list_data_stores(parent=collection)
        ]
        assert "made" in before
        assert data_stores.get_operation(request={"name": made}).done
        server.faults.fail("Search", code="UNAVAILABLE")
        server.judge.unsupported_if_contains("Paris")
        server.judge.next_check(Verdict.supported())

        server.reset()

        listed = (
            list(sessions.list_sessions(parent=parent, **ONCE)),
            list(conversations.list_conversations(parent=parent, **ONCE)),
        )
        listing = data_stores.list_data_stores(parent=collection)
        ids = [d.name.rpartition("/")[2] for d in listing]
        with pytest.raises(core_exceptions.NotFound):
            data_stores.get_operation(request={"name": made})
        data_stores.transport.close()
        assert "made" not in ids
        scripted = (server.faults.pending, server.judge.queued_checks, repr(server.judge))
        assert server.store.data_store_ids == ("python-docs",)
        sessions.transport.close()
        conversations.transport.close()
    assert listed == ([], [])
    assert scripted[:2] == (0, 0)
    assert scripted[2].startswith("ScriptedJudge(0 rules, 0 queued checks")
