"""EmulatorServer: binding, lifecycle, client helpers."""

from __future__ import annotations

import errno
import threading
import time

import pytest
from google.api_core import exceptions as core_exceptions

from grounding_core import (
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    ServiceUnavailableError,
)
from grounding_emulator import CorpusStore, EmulatorServer
from grounding_emulator.errors import ListenError
from grounding_emulator.wire.address import is_loopback


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
