"""The one place errors become statuses (``wire/handlers.py``): every status message bounded
in UTF-8 bytes, never cut inside a character; a ``RecursionError`` is ``INVALID_ARGUMENT``;
any other exception ``INTERNAL``; the excerpt every input quote goes through."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de

from grounding_emulator.errors import MAX_QUOTED, InvalidArgument, excerpt
from grounding_emulator.wire.faults import FaultInjector
from grounding_emulator.wire.handlers import (
    MAX_STATUS_MESSAGE_BYTES,
    generic_handlers,
    status_message,
)
from grounding_emulator.wire.servicers.registry import Method

ROCKET = "\U0001f680"  # 4 UTF-8 bytes


def test_a_short_message_is_kept():
    assert status_message("page_size must be >= 0, got -1") == "page_size must be >= 0, got -1"
    assert status_message("é" * 1024) == "é" * 1024  # 2048 bytes: at the bound


@pytest.mark.parametrize("shift", [0, 1, 2, 3])
def test_a_long_message_is_cut_at_a_character_boundary(shift):
    # A 4-byte character lands on the cut at each of its byte offsets in turn.
    message = "a" * (MAX_STATUS_MESSAGE_BYTES - 60 + shift) + ROCKET * 1000
    cut = status_message(message)
    data = cut.encode("utf-8")
    assert len(data) <= MAX_STATUS_MESSAGE_BYTES
    note = f"… (message cut at {MAX_STATUS_MESSAGE_BYTES} of {len(message.encode())} bytes)"
    assert cut.endswith(note)
    kept = cut.removesuffix(note)
    assert message.startswith(kept)
    room = MAX_STATUS_MESSAGE_BYTES - len(note.encode())
    # Whole characters only: up to 3 bytes short of the room when a rocket straddles the cut.
    assert room - 3 <= len(kept.encode()) <= room
    assert len(kept.encode()) == room - (room - (MAX_STATUS_MESSAGE_BYTES - 60 + shift)) % 4


def test_a_lone_surrogate_is_escaped():
    assert status_message("bad \ud800 text") == "bad \\ud800 text"


def test_excerpt():
    assert excerpt("a = 1") == "'a = 1'"
    assert excerpt("x" * MAX_QUOTED) == repr("x" * MAX_QUOTED)
    long = "".join(str(i % 10) for i in range(1000))
    assert excerpt(long) == f"{long[:MAX_QUOTED]!r}… (1000 characters)"
    assert excerpt(long, around=500) == f"…{long[400:600]!r}… (1000 characters)"
    assert excerpt(long, around=990) == f"…{long[800:]!r} (1000 characters)"
    assert excerpt(long, quote=False) == f"{long[:MAX_QUOTED]}… (1000 characters)"
    assert excerpt(2.5) == "2.5"
    assert excerpt([0] * 1000).endswith("… (3000 characters)")


SERVICE = "google.cloud.discoveryengine.v1.SearchService"


@pytest.fixture
def raising_server():
    """A gRPC server whose Search raises what the test sets in ``raising["error"]``."""
    raising: dict[str, BaseException] = {}

    def call(request):
        raise raising["error"]

    methods = [Method(SERVICE, "Search", de.SearchRequest.pb(), call)]
    server = grpc.server(
        ThreadPoolExecutor(max_workers=2),
        handlers=generic_handlers(methods, FaultInjector(), max_request_bytes=1 << 20),
    )
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    client = de.SearchServiceClient(
        transport=de.SearchServiceClient.get_transport_class("grpc")(channel=channel)
    )
    yield raising, client
    channel.close()
    server.stop(0)


def _search(client):
    return client.search(request={"serving_config": "x", "query": "q"}, retry=None, timeout=10)


def test_a_recursion_error_is_invalid_argument(raising_server):
    raising, client = raising_server
    raising["error"] = RecursionError("maximum recursion depth exceeded")
    with pytest.raises(core_exceptions.InvalidArgument) as info:
        _search(client)
    assert info.value.message == (
        "the google.cloud.discoveryengine.v1.SearchRequest nests too deeply to be read: "
        "write it flatter"
    )


def test_a_bug_is_internal(raising_server):
    raising, client = raising_server
    raising["error"] = KeyError("oops")
    with pytest.raises(core_exceptions.InternalServerError) as info:
        _search(client)
    assert info.value.message == f"emulator error in /{SERVICE}/Search: KeyError('oops')"


@pytest.mark.parametrize("shift", [0, 1, 2, 3])
def test_an_overlong_error_text_arrives_bounded(raising_server, shift):
    # 100 KB of text would overflow gRPC's header limit (RESOURCE_EXHAUSTED) unbounded.
    raising, client = raising_server
    text = "filter " + "a" * (MAX_STATUS_MESSAGE_BYTES - 80 + shift) + ROCKET * 25_000
    raising["error"] = InvalidArgument(text, field="filter")
    with pytest.raises(core_exceptions.InvalidArgument) as info:
        _search(client)
    message = info.value.message
    assert message == status_message(text)
    assert len(message.encode()) <= MAX_STATUS_MESSAGE_BYTES
    assert message.endswith(f"of {len(text.encode())} bytes)")
