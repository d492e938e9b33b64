"""The standard gRPC health service, ``grpc.health.v1.Health`` ("GRPC Health Checking Protocol",
grpc/grpc doc/health-checking.md), as the ``grpcio-health-checking`` package implements it.

``Check`` and ``Watch`` answer for the whole server (service ``""``) and for each service the
emulator serves by its full name (``google.cloud.discoveryengine.v1.SearchService``...); any other
name is ``NOT_FOUND`` (``Check``) or ``SERVICE_UNKNOWN`` (``Watch``), as the protocol says. The
server listens only once its data stores are served (``server.py``), so every status starts as
``SERVING``; ``stopping`` turns them all to ``NOT_SERVING`` for good when ``stop()`` begins,
before the calls in flight complete, and ends the ``Watch`` streams after telling them: a watch
never completes by itself, and ``stop()`` would wait out its whole grace for it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

__all__ = ["HealthService"]


class _Servicer(health.HealthServicer):  # type: ignore[misc]
    """The package's servicer, whose ``Watch`` streams can be ended."""

    def __init__(self) -> None:
        # Blocking watches: each is an iterator that ``end_watches`` can close (the non-blocking
        # kind offers no way to end one).
        super().__init__(experimental_non_blocking=False)
        self._watch_lock = threading.Lock()
        self._watches: set[Any] = set()
        self._ended = False

    def Watch(  # the protocol's name
        self, request: Any, context: grpc.ServicerContext, send_response_callback: Any = None
    ) -> Any:
        watch = super().Watch(request, context, send_response_callback)
        with self._watch_lock:
            if self._ended:
                watch.close()  # its first response, NOT_SERVING, is still sent
            else:
                self._watches.add(watch)
                context.add_callback(lambda: self._forget(watch))
        return watch

    def _forget(self, watch: Any) -> None:
        with self._watch_lock:
            self._watches.discard(watch)

    def end_watches(self) -> None:
        with self._watch_lock:
            self._ended = True
            watches, self._watches = self._watches, set()
        for watch in watches:
            watch.close()


class HealthService:
    """The health statuses of one server: ``SERVING`` for ``""`` and ``services`` until
    ``stopping()``."""

    def __init__(self, services: Iterable[str]) -> None:
        self._servicer = _Servicer()
        for service in (health.OVERALL_HEALTH, *sorted(set(services))):
            self._servicer.set(service, health_pb2.HealthCheckResponse.SERVING)

    def add_to(self, server: grpc.Server) -> None:
        """Serve ``grpc.health.v1.Health`` on ``server`` (before it starts)."""
        health_pb2_grpc.add_HealthServicer_to_server(self._servicer, server)

    def stopping(self) -> None:
        """Every status ``NOT_SERVING`` from now on; ``Watch`` streams get it, then end."""
        self._servicer.enter_graceful_shutdown()
        self._servicer.end_watches()
