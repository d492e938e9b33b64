"""One HTTP call of the REST transport, served as gRPC serves it.

The path picks the route (``routes.py``): none is ``NOT_FOUND``; a method of the APIs that the
emulator does not serve is ``UNIMPLEMENTED``, as over gRPC. Then the call goes through the gRPC
path's own steps (``handlers.py``): the drain gate (``UNAVAILABLE`` while stopping), the request
size limit (here the HTTP body's bytes, over ``max_request_bytes``: "Request payload size
exceeds the limit: N bytes."), the injected faults of the method, the request read
(``transcoding.py``), the servicer and the mapping of its errors, each answered as Google's
error JSON with the HTTP status of its gRPC code.

Deadlines: Google's REST clients enforce their timeout themselves, sending none; a caller can
give the server one, in seconds, with the ``X-Server-Timeout`` header ("System parameters").
The call then ends at its deadline with ``DEADLINE_EXCEEDED`` (504, "Deadline expired before
operation could complete."), its work stopped at the next check, as a gRPC call's is; a client
that disconnects cancels its call alike (``server.py``).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import grpc

from grounding_emulator.wire.drain import CallGate
from grounding_emulator.wire.faults import FaultInjector
from grounding_emulator.wire.handlers import Refused, admitted, serve_call
from grounding_emulator.wire.rest.routes import RouteTable
from grounding_emulator.wire.rest.transcoding import (
    SystemParameters,
    error_json,
    read_request,
    response_json,
)
from grounding_emulator.wire.servicers.registry import Method

__all__ = [
    "DEADLINE_MESSAGE",
    "HttpCall",
    "HttpReply",
    "HttpRequest",
    "RestGateway",
    "refusal",
    "server_timeout",
]

logger = logging.getLogger(__name__)

DEADLINE_MESSAGE = "Deadline expired before operation could complete."


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """What the gateway reads of an HTTP request: ``verb``, the raw (percent-encoded) ``path``
    and ``query``, the ``body`` and its ``size`` in bytes (larger than the body when the
    server stopped reading an oversized one)."""

    verb: str
    path: str
    query: str = ""
    body: bytes = b""
    size: int = 0


@dataclass(frozen=True, slots=True)
class HttpReply:
    """An HTTP status and its JSON body."""

    status: int
    body: bytes


def server_timeout(value: str | None) -> float | None:
    """The ``X-Server-Timeout`` header's seconds (``None`` without one); ``Refused`` unless a
    positive, finite number."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds < math.inf:
        raise Refused(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"X-Server-Timeout must be a positive number of seconds, got {value[:40]!r}",
        )
    return seconds


class HttpCall:
    """The state of one HTTP call (``call_state.CallContext``): active until its deadline
    passes or its client goes away (:meth:`cancel`)."""

    def __init__(self, timeout: float | None = None) -> None:
        self._deadline = None if timeout is None else time.monotonic() + timeout
        self._gone = threading.Event()

    def cancel(self) -> None:
        """The client went away: the call's work stops at its next check."""
        self._gone.set()

    def is_active(self) -> bool:
        """Whether the call is still wanted."""
        remaining = self.time_remaining()
        return not self._gone.is_set() and (remaining is None or remaining > 0)

    def time_remaining(self) -> float | None:
        """Seconds to the deadline, ``None`` without one."""
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def wait(self, seconds: float) -> None:
        """Sleep ``seconds``, waking early when the call is cancelled or its deadline passes."""
        remaining = self.time_remaining()
        self._gone.wait(seconds if remaining is None else min(seconds, remaining))


class RestGateway:
    """The REST transport of ``methods``: :meth:`handle` serves one HTTP call (in a worker
    thread), sharing ``faults``, ``max_request_bytes`` and the drain ``gate`` with gRPC."""

    def __init__(
        self,
        methods: Sequence[Method],
        faults: FaultInjector,
        max_request_bytes: int,
        gate: CallGate,
    ) -> None:
        self.routes = RouteTable(methods)
        self.max_request_bytes = max_request_bytes
        self._faults = faults
        self._gate = gate

    def handle(self, request: HttpRequest, call: HttpCall) -> HttpReply:
        """The reply to ``request``; every error is Google's error JSON."""
        parameters = SystemParameters()
        try:
            parameters, query = SystemParameters.split(
                parse_qsl(request.query, keep_blank_values=True)
            )
            found = self.routes.match(request.verb, request.path)
            if found is None:
                verbs = self.routes.verbs(request.path)
                takes = f"; that path takes {' or '.join(verbs)}" if verbs else ""
                raise Refused(
                    grpc.StatusCode.NOT_FOUND,
                    f"no method of the emulator's APIs answers {request.verb} "
                    f"{request.path[:200]}{takes}",
                )
            route, values = found
            method = route.method
            if method is None:
                raise Refused(
                    grpc.StatusCode.UNIMPLEMENTED,
                    f"Method not found: {route.rpc} (the emulator does not serve it)",
                )
            with admitted(self._gate):
                response: Any = serve_call(
                    method,
                    request.size,
                    lambda: read_request(route, values, query, request.body),
                    faults=self._faults,
                    max_request_bytes=self.max_request_bytes,
                    context=call,
                    wait=call.wait,
                )
                return HttpReply(200, response_json(response, route, parameters))
        except Refused as exc:
            return refusal(exc, parameters.pretty)
        except Exception as exc:  # the gateway's own bug: INTERNAL, as gRPC's handler says it
            logger.exception("REST %s %s failed", request.verb, request.path[:200])
            error = Refused(grpc.StatusCode.INTERNAL, f"emulator error in REST: {exc!r}")
            return refusal(error, parameters.pretty)


def refusal(error: Refused, pretty: bool = True) -> HttpReply:
    """Google's error JSON for ``error``."""
    return HttpReply(*error_json(error.code, error.message, pretty))
