"""``EmulatorServer``: the emulator's gRPC server, and its REST transport beside it, in
background threads.

>>> import grpc
>>> from google.cloud import discoveryengine_v1 as de
>>> from google.cloud.discoveryengine_v1.services.search_service.transports import (
...     SearchServiceGrpcTransport,
... )
>>> with EmulatorServer() as server:  # doctest: +SKIP
...     channel = grpc.insecure_channel(server.address)
...     client = de.SearchServiceClient(transport=SearchServiceGrpcTransport(channel=channel))

Binds to loopback (``127.0.0.1``) unless ``allow_remote=True``; ``port=0`` picks a free port
(``server.port``, ``server.address``); a port in use (or a host not of this machine) is a
``ListenError`` naming the address, raised by ``start()`` before gRPC tries it (``address.py``).
Requests above ``max_request_bytes`` get ``INVALID_ARGUMENT`` "Request payload size exceeds the
limit: N bytes." (``handlers.py``), up to four times that size; gRPC itself refuses a larger one
with ``RESOURCE_EXHAUSTED`` before the emulator sees it. ``stop()`` drains: calls in flight have
``stop_grace`` seconds (``drain.DEFAULT_STOP_GRACE``) to complete, while new calls are refused (the
listener is closed: clients see ``UNAVAILABLE``, which they retry). ``server.faults`` injects
failures and delays; ``server.store`` holds the data stores and engines it serves;
``server.judge`` gives CheckGrounding's (and AnswerQuery's) grounding verdicts; ``reset()``
forgets what tests did (faults, scripted verdicts, sessions, conversations, the resources made
through Google's APIs and their operations);
``server.resources`` the data stores, engines and documents made through Google's resource APIs
(kept beside ``server.store``, in its state dir when it has one); ``gcs_root`` the folder that
stands for Cloud Storage (``gs://BUCKET/PATH`` is ``gcs_root/BUCKET/PATH``).

The same methods answer REST (``rest/``) on ``rest_port`` (0, the default: a free one;
``None``: no REST), at ``server.rest_url`` (``http://host:port``, the ``api_endpoint`` of a
client built with ``transport="rest"``); it starts, drains and stops with the gRPC server, and
shares its faults, size limit and drain.

Ready when it listens: the store is filled before ``start()`` (``CorpusStore.ingest``), so the
port opens only once every data store given is served, and a client that connects as soon as it
can never finds one missing. The standard health service (``grpc.health.v1.Health``,
``health.py``) answers ``SERVING`` from then on, and ``NOT_SERVING`` once ``stop()`` begins.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType

import grpc

from grounding_emulator.corpus.builtin import BUILTIN_DATA_STORE
from grounding_emulator.corpus.resources import ResourceStore
from grounding_emulator.corpus.store import CorpusStore
from grounding_emulator.errors import ListenError
from grounding_emulator.grounding.judge import Judge
from grounding_emulator.grounding.lexical.judge import LexicalJudge
from grounding_emulator.grounding.scripted import ScriptedJudge
from grounding_emulator.search.reranking import check_rerank_top
from grounding_emulator.wire.address import DEFAULT_HOST, check_free, check_port, is_loopback
from grounding_emulator.wire.drain import DEFAULT_STOP_GRACE, CallGate
from grounding_emulator.wire.faults import FaultInjector
from grounding_emulator.wire.handlers import generic_handlers
from grounding_emulator.wire.health import HealthService
from grounding_emulator.wire.rest.gateway import RestGateway
from grounding_emulator.wire.rest.server import RestServer
from grounding_emulator.wire.servicers import Backend, method_table

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "EmulatorServer"]

logger = logging.getLogger(__name__)

# Google documents no request size for these APIs; its API front end refuses a larger payload
# with INVALID_ARGUMENT "Request payload size exceeds the limit: 10485760 bytes." (as reported,
# e.g. github.com/googleworkspace/dotnet-samples/issues/23), and so does the emulator.
DEFAULT_MAX_REQUEST_BYTES = 10 * 1024 * 1024
# gRPC receives requests up to this many times max_request_bytes, so that the handler can refuse
# an oversized one with Google's status; beyond, gRPC refuses it (RESOURCE_EXHAUSTED).
_RECEIVE_CEILING = 4
# Seconds without a new call that stop() waits for, within the grace, before it shuts gRPC down.
_QUIET = 0.1
# Request headers gRPC receives (its default is 8 KiB, 16 KiB at most).
_MAX_REQUEST_METADATA_BYTES = 64 * 1024
DEFAULT_MAX_WORKERS = 64
_START_TIMEOUT = 30.0
# A signal that the kernel delivers to one of gRPC's threads runs its Python handler (SIGTERM:
# stop) only when the main thread runs Python code again; an Event.wait() without a timeout
# would never return to it. The main thread wakes this often while it waits.
_WAIT_SLICE = 0.25


def _check_grace(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
        raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")
    return float(value)


def _check_gcs_root(value: Path | str | None) -> Path | None:
    if value is None:
        return None
    path = Path(value).expanduser()
    if not path.is_dir():
        raise ValueError(
            f"gcs_root {str(value)!r} is not a folder: give the folder whose BUCKET/PATH files "
            "stand for gs://BUCKET/PATH"
        )
    return path.resolve()


class EmulatorServer:
    """The emulator's gRPC server; a context manager (enter starts, exit stops).

    Key init args:
        store: the data stores and engines to serve; by default a new ``CorpusStore`` with the
            built-in ``python-docs`` store and ``python-docs-app`` engine.
        judge: the grounding judge (any callable of the ``Judge`` Protocol); by default
            ``LexicalJudge()``. A ``ScriptedJudge`` lets a test set the verdicts.
        host, port: where to listen (loopback only unless ``allow_remote``; a port from 0, any
            free port, to 65535: another is a ``ValueError``).
        rest_port: where the REST transport listens, on the same host (0, the default: a free
            port; ``None``: no REST).
        developer_knowledge_data_store: the data store behind the Developer Knowledge service.
        max_workers: threads serving calls (delayed calls hold one each).
        max_request_bytes: the largest request served (serialized bytes).
        stop_grace: seconds ``stop()`` gives calls in flight to complete.
        rerank_search: Search, AnswerQuery and ConverseConversation on Discovery Engine rerank
            their first ``rerank_search`` results with the Rank scorer, as an engine with a
            ranking step would (0, the default: off; at most 200).
        gcs_root: the folder that stands for Cloud Storage: ImportDocuments' ``gcs_source`` and
            a document's ``content.uri`` read ``gs://BUCKET/PATH`` from ``gcs_root/BUCKET/PATH``
            (``None``, the default: such URIs are ``FAILED_PRECONDITION``).
    """

    def __init__(
        self,
        store: CorpusStore | None = None,
        *,
        judge: Judge | None = None,
        host: str = DEFAULT_HOST,
        port: int = 0,
        rest_port: int | None = 0,
        allow_remote: bool = False,
        developer_knowledge_data_store: str = BUILTIN_DATA_STORE,
        max_workers: int = DEFAULT_MAX_WORKERS,
        max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
        stop_grace: float = DEFAULT_STOP_GRACE,
        rerank_search: int = 0,
        gcs_root: Path | str | None = None,
    ) -> None:
        if not allow_remote and not is_loopback(host):
            raise ValueError(
                f"host {host!r} is not a loopback address: the emulator has no authentication, "
                "so it listens on this machine only unless allow_remote=True (--allow-remote)"
            )
        check_port(port, "port")
        if rest_port is not None:
            check_port(rest_port, "rest_port")
        if judge is not None and not callable(judge):
            raise TypeError(
                f"judge must be a callable (claims, facts, citation_threshold) -> verdicts, "
                f"such as LexicalJudge() or ScriptedJudge(); got {type(judge).__name__}"
            )
        if (
            isinstance(max_request_bytes, bool)
            or not isinstance(max_request_bytes, int)
            or max_request_bytes < 1
        ):
            raise ValueError(
                f"max_request_bytes must be a positive int (bytes), got {max_request_bytes!r}"
            )
        self.stop_grace = _check_grace(stop_grace, "stop_grace")
        if store is None:
            store = CorpusStore()
            store.add_builtin()
        self.backend = Backend(
            store,
            LexicalJudge() if judge is None else judge,
            developer_knowledge_data_store,
            rerank_search=check_rerank_top(rerank_search),
            resources=ResourceStore.beside(store),
            gcs_root=_check_gcs_root(gcs_root),
        )
        self.host = host
        self.faults = FaultInjector()
        self._gate = CallGate()
        self._requested_port = port
        self._requested_rest_port = rest_port
        self._rest: RestServer | None = None
        self._max_workers = max_workers
        self._max_request_bytes = max_request_bytes
        self._server: grpc.Server | None = None
        self._health: HealthService | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self.port: int | None = None
        self.rest_port: int | None = None

    def __repr__(self) -> str:
        state = f"listening on {self.address}" if self.running else "stopped"
        if self.running and self.rest_port is not None:
            state += f" and {self.rest_url}"
        return (
            f"EmulatorServer({state}, data_stores={list(self.store.data_store_ids)}, "
            f"judge={self.judge!r})"
        )

    @property
    def store(self) -> CorpusStore:
        """The data stores and engines it serves."""
        return self.backend.store

    @property
    def resources(self) -> ResourceStore:
        """The data stores, engines and documents made through Google's resource APIs."""
        return self.backend.resources

    @property
    def judge(self) -> Judge:
        """The grounding judge: script a ``ScriptedJudge`` here while the server runs."""
        return self.backend.judge

    @property
    def developer_knowledge_data_store(self) -> str:
        """The data store behind the Developer Knowledge service."""
        return self.backend.developer_knowledge_data_store

    @property
    def address(self) -> str:
        """``host:port`` to give a client (``[::1]:port`` for IPv6)."""
        if self.port is None:
            raise RuntimeError("the emulator is not running: call start() first")
        return self._join(self.port)

    def _join(self, port: int) -> str:
        host = f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host
        return f"{host}:{port}"

    @property
    def rest_address(self) -> str:
        """``host:port`` of the REST transport."""
        if self._requested_rest_port is None:
            raise RuntimeError("the emulator serves no REST (rest_port=None)")
        if self.rest_port is None:
            raise RuntimeError("the emulator is not running: call start() first")
        return self._join(self.rest_port)

    @property
    def rest_url(self) -> str:
        """``http://host:port``: the ``api_endpoint`` of a client with ``transport="rest"``,
        and the root of the REST paths (``{rest_url}/v1/...``)."""
        return f"http://{self.rest_address}"

    @property
    def running(self) -> bool:
        """True between a successful ``start()`` and ``stop()``."""
        return self._ready.is_set() and not self._stop.is_set()

    def reset(self) -> None:
        """Forget what tests did, keeping the data stores and engines it was given: injected
        faults, the rules and queued checks of a ``ScriptedJudge``, sessions, their answers and
        conversations, the resources made through Google's APIs and their operations (as moto
        resets its backends between tests)."""
        self.faults.clear()
        if isinstance(self.judge, ScriptedJudge):
            self.judge.reset()
        self.backend.sessions.clear()
        self.backend.conversations.clear()
        self.resources.reset()
        self.backend.operations.clear()

    def _build(self) -> grpc.Server:
        methods = method_table(self.backend)
        if self._requested_rest_port is not None:
            gateway = RestGateway(methods, self.faults, self._max_request_bytes, self._gate)
            self._rest = RestServer(
                gateway, self.host, self._requested_rest_port, max_workers=self._max_workers
            )
        server = grpc.server(
            ThreadPoolExecutor(max_workers=self._max_workers, thread_name_prefix="emulator"),
            handlers=generic_handlers(methods, self.faults, self._max_request_bytes, self._gate),
            options=[
                ("grpc.max_receive_message_length", _RECEIVE_CEILING * self._max_request_bytes),
                ("grpc.max_send_message_length", -1),
                # Google's clients send the resource name in a header (x-goog-request-params):
                # room for a long one to reach the handler, which names the bad field.
                ("grpc.max_metadata_size", _MAX_REQUEST_METADATA_BYTES),
                ("grpc.so_reuseport", 0),
            ],
        )
        self._health = HealthService(method.service for method in methods)
        self._health.add_to(server)
        host = self.host if self.host.startswith("[") or ":" not in self.host else f"[{self.host}]"
        self.port = server.add_insecure_port(f"{host}:{self._requested_port}")
        return server

    def _run(self) -> None:
        try:
            server = self._build()
            server.start()
            self._server = server
        except BaseException as exc:  # reported to start() and re-raised there
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        self._stop.wait()

    def start(self) -> EmulatorServer:
        """Start serving in a background thread; returns when the port is bound and every data
        store of ``store`` is served (ingest before: the port opens ready).

        ``ListenError`` if the host and port cannot be bound (in use, say).
        """
        if self._thread is not None:
            raise RuntimeError("the emulator was already started")
        check_free(self.host, self._requested_port)
        if self._requested_rest_port is not None:
            check_free(self.host, self._requested_rest_port, transport="REST")
        self._thread = threading.Thread(target=self._run, name="emulator-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(_START_TIMEOUT):
            raise RuntimeError(f"the emulator did not start within {_START_TIMEOUT} s")
        if self._error is not None:
            error, self._error = self._error, None
            self._stop.set()
            if not isinstance(error, RuntimeError):  # a bug, not the address: as it is
                raise error
            # gRPC's failed bind (the address was free a moment ago): its only error type.
            raise ListenError(
                f"cannot listen on {self.host}:{self._requested_port}: {error}"
            ) from error
        if self._rest is not None:
            try:
                self._rest.start()
            except ListenError:
                self._rest = None
                self.stop(0)
                raise
            self.rest_port = self._rest.port
            logger.info("emulator listening on %s (gRPC), %s (REST)", self.address, self.rest_url)
        else:
            logger.info("emulator listening on %s", self.address)
        return self

    def stop(self, grace: float | None = None) -> None:
        """Stop serving: new calls are refused at once (clients see ``UNAVAILABLE``); calls in
        flight have ``grace`` seconds (by default ``stop_grace``) to complete, then are
        cancelled (``0``: at once)."""
        grace = self.stop_grace if grace is None else _check_grace(grace, "grace")
        if self._server is not None:
            # The emulator refuses new calls itself first (UNAVAILABLE): a call that reaches
            # gRPC as its server shuts down is cancelled by gRPC, and CANCELLED is not retried.
            deadline = time.monotonic() + grace
            if self._health is not None:
                self._health.stopping()
            self._gate.close()
            self._gate.wait_idle(grace)
            self._gate.wait_quiet(_QUIET, max(0.0, deadline - time.monotonic()))
            self._server.stop(max(0.0, deadline - time.monotonic())).wait()
            self._server = None
            if self._rest is not None:
                self._rest.stop(max(0.0, deadline - time.monotonic()))
                self._rest = None
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        """Block until ``stop()`` (or ``timeout``); True if stopped."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._stop.is_set():
            left = (
                _WAIT_SLICE if deadline is None else min(_WAIT_SLICE, deadline - time.monotonic())
            )
            if left <= 0:
                return False
            self._stop.wait(left)
        return True

    def __enter__(self) -> EmulatorServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
