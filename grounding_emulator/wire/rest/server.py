"""The REST listener: an aiohttp server on an event loop of its own thread, whose calls run in
a pool of worker threads through the gateway (``gateway.py``).

aiohttp (a maintained HTTP/1.1 server with a C parser) reads requests without holding a worker:
a client that sends its body slowly costs the loop a connection, not a thread. Bodies are read
up to the request size limit and no further (the call is then refused with Google's message,
and the connection closed). A client that disconnects cancels its call (aiohttp's
``handler_cancellation``); an ``X-Server-Timeout`` header gives the call a deadline.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc
from aiohttp import web

from grounding_emulator.errors import ListenError
from grounding_emulator.wire.handlers import Refused
from grounding_emulator.wire.rest.gateway import (
    DEADLINE_MESSAGE,
    HttpCall,
    HttpReply,
    HttpRequest,
    RestGateway,
    refusal,
    server_timeout,
)

__all__ = ["RestServer"]

logger = logging.getLogger(__name__)

_START_TIMEOUT = 30.0
# Seconds for aiohttp to close connections once the calls in flight are done or given up.
_CLOSE_TIMEOUT = 5.0


class RestServer:
    """The HTTP server of ``gateway`` on ``host:port`` (0: a free port), with ``max_workers``
    threads for calls; :meth:`start` binds and serves, :meth:`stop` closes."""

    def __init__(self, gateway: RestGateway, host: str, port: int, *, max_workers: int) -> None:
        self._gateway = gateway
        self._host = host.strip("[]")
        self._requested_port = port
        self._max_workers = max_workers
        self._pool: ThreadPoolExecutor | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    def start(self) -> None:
        """Bind and serve; ``ListenError`` if the address cannot be bound."""
        self._pool = ThreadPoolExecutor(self._max_workers, thread_name_prefix="emulator-rest")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="emulator-rest-loop", daemon=True
        )
        self._thread.start()
        opened = asyncio.run_coroutine_threadsafe(self._open(), self._loop)
        try:
            self.port = opened.result(_START_TIMEOUT)
        except OSError as exc:
            self._end_loop()
            raise ListenError(
                f"cannot listen on {self._host}:{self._requested_port} (REST): "
                f"{exc.strerror or exc}"
            ) from exc

    def stop(self, grace: float) -> None:
        """Stop listening; calls in flight have ``grace`` seconds to complete, then are
        cancelled."""
        if self._loop is None:
            return
        if self._runner is not None:
            closed = asyncio.run_coroutine_threadsafe(self._close(grace), self._loop)
            closed.result(grace + 2 * _CLOSE_TIMEOUT)
        self._end_loop()

    def _end_loop(self) -> None:
        assert self._loop is not None
        assert self._thread is not None
        assert self._pool is not None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()
        self._loop = None
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def _open(self) -> int:
        # client_max_size: aiohttp refuses a body of that many bytes or more, so one byte over
        # the limit, which a body of max_request_bytes passes.
        app = web.Application(client_max_size=self._gateway.max_request_bytes + 1)
        app.router.add_route("*", "/{path:.*}", self._serve)
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=_CLOSE_TIMEOUT
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._requested_port, reuse_port=False)
        try:
            await site.start()
        except OSError:
            await self._runner.cleanup()
            self._runner = None
            raise
        port: int = self._runner.addresses[0][1]
        return port

    async def _close(self, grace: float) -> None:
        assert self._runner is not None
        for site in self._runner.sites:
            await site.stop()  # no new connection
        server = self._runner.server
        if server is not None:
            # An idle keep-alive connection (a client's pooled one) closes now, a busy one after
            # its call; else shutdown() waits the whole grace for the idle one's next request.
            for connection in server.connections:
                connection.close()
            await server.shutdown(grace)  # the calls in flight
        await self._runner.cleanup()
        self._runner = None

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        try:
            timeout = server_timeout(request.headers.get("X-Server-Timeout"))
        except Refused as exc:
            return _response(refusal(exc))
        try:
            body = await request.read()
            size = len(body)
        except web.HTTPRequestEntityTooLarge:
            body, size = b"", self._gateway.max_request_bytes + 1
        url = request.rel_url
        call = HttpCall(timeout)
        http = HttpRequest(request.method, url.raw_path, url.raw_query_string, body, size)
        work = asyncio.get_running_loop().run_in_executor(
            self._pool, self._gateway.handle, http, call
        )
        reply: HttpReply | None = None
        try:
            reply = await asyncio.wait_for(work, timeout)
        except asyncio.TimeoutError:
            pass
        except asyncio.CancelledError:
            call.cancel()  # the client went away: its work stops at the next check
            raise
        if reply is None or call.time_remaining() == 0:
            # past the deadline, as gRPC ends a call at its deadline whatever the handler does
            reply = refusal(Refused(grpc.StatusCode.DEADLINE_EXCEEDED, DEADLINE_MESSAGE))
        response = _response(reply)
        if size > len(body):
            response.force_close()  # the rest of the body is not read
        return response


def _response(reply: HttpReply) -> web.Response:
    return web.Response(
        status=reply.status, body=reply.body, content_type="application/json", charset="utf-8"
    )
