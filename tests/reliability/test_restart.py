"""An emulator restart mid-session: the same clients reconnect; a call made while the server
is down is retried until it is back."""

import socket
import threading
import time

import pytest

from grounding_core import (
    CallOptions,
    ChunkSearchSpec,
    DiscoveryEngineClients,
    DiscoveryEngineTarget,
    RetryPolicy,
    ServiceUnavailableError,
    asearch_chunks,
    search_chunks,
)
from grounding_emulator import CorpusStore, EmulatorServer

TARGET = DiscoveryEngineTarget(project="p", data_store="python-docs")
QUERY = "the for statement"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def store():
    store = CorpusStore()
    store.add_builtin()
    return store


def test_clients_reconnect_after_a_restart(store):
    port = free_port()
    clients = DiscoveryEngineClients(emulator_host=f"127.0.0.1:{port}")
    try:
        with EmulatorServer(store, port=port):
            before = search_chunks(clients, TARGET, QUERY, ChunkSearchSpec(k=3))
        no_retry = CallOptions(timeout=2, retry=None)
        with pytest.raises(ServiceUnavailableError, match=f"127.0.0.1:{port}|UNAVAILABLE"):
            search_chunks(clients, TARGET, QUERY, ChunkSearchSpec(k=3), no_retry)
        with EmulatorServer(store, port=port):
            after = search_chunks(clients, TARGET, QUERY, ChunkSearchSpec(k=3))
        assert [c.name for c in after] == [c.name for c in before]
    finally:
        clients.close()


def test_a_call_during_downtime_is_retried_until_the_server_is_back(store):
    port = free_port()
    clients = DiscoveryEngineClients(emulator_host=f"127.0.0.1:{port}")
    server = EmulatorServer(store, port=port)

    def start_later():
        time.sleep(0.5)
        server.start()

    starter = threading.Thread(target=start_later)
    starter.start()
    try:
        options = CallOptions(timeout=5, retry=RetryPolicy(initial=0.05, maximum=0.2, deadline=20))
        chunks = search_chunks(clients, TARGET, QUERY, ChunkSearchSpec(k=2), options)
        assert len(chunks) == 2
    finally:
        starter.join()
        server.stop()
        clients.close()


async def test_async_clients_reconnect_after_a_restart(store):
    port = free_port()
    clients = DiscoveryEngineClients(emulator_host=f"127.0.0.1:{port}")
    try:
        with EmulatorServer(store, port=port):
            before = await asearch_chunks(clients, TARGET, QUERY, ChunkSearchSpec(k=2))
        with EmulatorServer(store, port=port):
            after = await asearch_chunks(clients, TARGET, QUERY, ChunkSearchSpec(k=2))
        assert [c.name for c in after] == [c.name for c in before]
    finally:
        await clients.aclose()
