"""Connections: Google's clients for one API, built once, with the per-call timeout and retry.

Calls go (as Google's Firestore client picks) to an emulator given as ``emulator_host=`` or read
once from ``$DISCOVERYENGINE_EMULATOR_HOST`` / ``$DEVELOPERKNOWLEDGE_EMULATOR_HOST`` (insecure
gRPC, no credentials), else to ``client_options.api_endpoint``, else to Google's (regional
in ``us`` and ``eu``). Pickles and copies hold the settings (credentials and client options as
given; the repr never shows them) and build their own clients.

>>> connection = DiscoveryEngineConnection(project_id="p", emulator_host="localhost:8123")
>>> connection.target(data_store_id="docs").serving_config_path  # doctest: +ELLIPSIS
'projects/p/locations/global/collections/default_collection/dataStores/docs/servingConfigs/...'
>>> DiscoveryEngineConnection(project_id="p", location="eu").endpoint
'eu-discoveryengine.googleapis.com'
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import logging
import os
import pickle
import socket
import threading
import time
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, TypedDict, TypeVar, cast

import grpc
from google.api_core import exceptions as core_exceptions
from google.api_core.client_options import ClientOptions
from google.auth.credentials import Credentials
from google.auth.exceptions import DefaultCredentialsError
from google.protobuf.message import Message

from ._errors import ConfigurationError, ServiceUnavailableError
from ._settings import (
    DEFAULT_COLLECTION,
    DEFAULT_GROUNDING_CONFIG,
    DEFAULT_LOCATION,
    DEFAULT_RANKING_CONFIG,
    DEFAULT_RETRY,
    DEFAULT_SERVING_CONFIG,
    DEFAULT_TIMEOUT,
    DEVELOPERKNOWLEDGE_EMULATOR_HOST,
    DISCOVERYENGINE_EMULATOR_HOST,
    EMULATOR_CONNECT_TIMEOUT,
    CallOptions,
    DiscoveryEngineTarget,
    RetryPolicy,
    check_location,
    config_path,
    default_data_store,
    emulator_address,
    resolve_project,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

logger = logging.getLogger(__name__)

ClientT = TypeVar("ClientT")
ClientOptionsArg = ClientOptions | Mapping[str, Any] | None

# A channel built by hand lacks the defaults Google's transports set: lift the size limits.
# Reconnecting to a loopback server is cheap: retry at least every second, so that a restarted
# emulator is found within EMULATOR_CONNECT_TIMEOUT (gRPC's backoff grows to two minutes).
_OPTIONS = (
    ("grpc.max_send_message_length", -1),
    ("grpc.max_receive_message_length", -1),
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 1000),
)

# What to do when a setting cannot be pickled (``check_picklable``).
_UNPICKLABLE = {
    "credentials": "give credentials that pickle (google-auth's service account, user and "
    "Compute Engine credentials do), or leave credentials out so that each process finds "
    "Application Default Credentials",
    "client_options": "give client_options that pickle (a client_cert_source must be a "
    "module-level function, not a lambda or a closure)",
}


class _Guard:
    def __init__(self, host: str) -> None:
        self.host = host

    def refuse(self, method: str | bytes, error: grpc.RpcError | None) -> NoReturn:
        # grpc gives the method as "/package.Service/Method" (bytes on grpc.aio channels).
        name = method.decode() if isinstance(method, bytes) else method
        developer = name.startswith("/google.developers.knowledge.")
        env_var = DEVELOPERKNOWLEDGE_EMULATOR_HOST if developer else DISCOVERYENGINE_EMULATOR_HOST
        if error is None:  # a stream refused before it started
            cause = core_exceptions.ServiceUnavailable(f"no connection to {self.host}")  # type: ignore[no-untyped-call]
        else:
            cause = core_exceptions.from_grpc_error(error)  # type: ignore[no-untyped-call]
        raise ServiceUnavailableError(
            f"no emulator answers on {self.host} ({name.rpartition('/')[2]}: nothing accepted a "
            f"connection within {EMULATOR_CONNECT_TIMEOUT:g} s): start one with `grounding "
            "serve` (or `grounding_emulator.EmulatorServer` in Python) and give its address, or "
            f"drop emulator_host / --emulator-host and unset ${env_var} to use Google Cloud",
            cause=cause,
        ) from cause


class _RefusedConnection(
    _Guard,
    grpc.UnaryUnaryClientInterceptor,  # type: ignore[misc]
    grpc.UnaryStreamClientInterceptor,  # type: ignore[misc]
    grpc.StreamStreamClientInterceptor,  # type: ignore[misc]
):
    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        outcome = continuation(details, request)
        if outcome.code() is grpc.StatusCode.UNAVAILABLE and not _accepts_connections(self.host):
            self.refuse(details.method, outcome)
        return outcome

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return _GuardedStream(self, details.method, continuation(details, request))

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return _GuardedStream(self, details.method, continuation(details, requests))


class _GuardedStream:
    """A call's stream of responses (and the call: its other attributes are the call's) on
    which an UNAVAILABLE whose channel cannot connect fails at once, as a unary call's does.
    Google's client reads the first response within its retry, so this is the error it gets."""

    def __init__(self, guard: _Guard, method: str, call: Any) -> None:
        self._guard, self._method, self._call = guard, method, call

    def __iter__(self) -> _GuardedStream:
        return self

    def __next__(self) -> Any:
        try:
            return next(self._call)
        except grpc.RpcError as error:
            unavailable = error.code() is grpc.StatusCode.UNAVAILABLE
            if unavailable and not _accepts_connections(self._guard.host):
                self._guard.refuse(self._method, error)
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._call, name)


def _accepts_connections(host: str) -> bool:
    """Whether something at ``HOST:PORT`` accepts a TCP connection within
    ``EMULATOR_CONNECT_TIMEOUT``."""
    # A socket, not grpc.channel_ready_future: after two UNAVAILABLEs in a row that future leaves
    # gRPC's connectivity poller armed, and a close() soon after makes its thread raise.
    name, _, port = host.rpartition(":")
    deadline = time.monotonic() + EMULATOR_CONNECT_TIMEOUT
    while True:
        try:
            with socket.create_connection((name.strip("[]"), int(port)), EMULATOR_CONNECT_TIMEOUT):
                return True
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


class _AsyncGuard(_Guard):
    channel: Any = None  # set right after the channel is built

    async def connected(self, method: str | bytes) -> None:
        """Refuse unless the channel connects within ``EMULATOR_CONNECT_TIMEOUT``."""
        try:
            await asyncio.wait_for(self.channel.channel_ready(), EMULATOR_CONNECT_TIMEOUT)
        except asyncio.TimeoutError:
            self.refuse(method, None)


# A grpc.aio channel takes each interceptor for one kind of call: one class per kind.
class _AsyncRefusedConnection(_AsyncGuard, grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        call = await continuation(details, request)
        if await call.code() is grpc.StatusCode.UNAVAILABLE:
            try:
                await asyncio.wait_for(self.channel.channel_ready(), EMULATOR_CONNECT_TIMEOUT)
            except asyncio.TimeoutError:
                try:
                    await call  # raises the call's AioRpcError, to chain it
                except grpc.RpcError as exc:
                    self.refuse(details.method, exc)
        return call


# Streams are checked before they start: a grpc.aio stream's status is known only once it
# ends, while Google's client retries its start (wait_for_connection) after the interceptor.
class _AsyncRefusedStream(_AsyncGuard, grpc.aio.UnaryStreamClientInterceptor):  # type: ignore[misc]
    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        await self.connected(details.method)
        return await continuation(details, request)


class _AsyncRefusedBidiStream(_AsyncGuard, grpc.aio.StreamStreamClientInterceptor):  # type: ignore[misc]
    async def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        await self.connected(details.method)
        return await continuation(details, requests)


def emulator_channel(host: str, *, asynchronous: bool) -> Any:
    """An insecure ``grpc`` (or ``grpc.aio``) channel to ``host`` with no message-size limits,
    on which an UNAVAILABLE call, or a stream, whose channel cannot connect within
    ``EMULATOR_CONNECT_TIMEOUT`` fails for good (``ServiceUnavailableError``, never retried)
    instead of being retried until the deadline; an UNAVAILABLE the emulator sends is retried."""
    if asynchronous:
        guards = [
            _AsyncRefusedConnection(host),
            _AsyncRefusedStream(host),
            _AsyncRefusedBidiStream(host),
        ]
        channel = grpc.aio.insecure_channel(host, options=_OPTIONS, interceptors=guards)
        for guard in guards:
            guard.channel = channel
        return channel
    return grpc.intercept_channel(
        grpc.insecure_channel(host, options=_OPTIONS), _RefusedConnection(host)
    )


class DeveloperKnowledgeConnectionArgs(TypedDict, total=False):
    """The keyword arguments of ``DeveloperKnowledgeConnection`` (any may be left out)."""

    emulator_host: str | None
    credentials: Credentials | None
    client_options: ClientOptionsArg
    timeout: float
    retry: RetryPolicy | None


class DiscoveryEngineConnectionArgs(DeveloperKnowledgeConnectionArgs, total=False):
    """The keyword arguments of ``DiscoveryEngineConnection`` (any may be left out)."""

    project_id: str | None
    location: str


# What a connection builds from its settings (``_Connection._unbuilt``): never pickled or copied.
_BUILT = frozenset({"_lock", "_sync", "_sync_channel", "_async"})


class _Connection:
    """Builds and caches the sync and async clients of one API; holds the call options."""

    emulator_env_var: ClassVar[str]
    default_endpoint: ClassVar[str]
    location = DEFAULT_LOCATION

    def __init__(
        self,
        *,
        emulator_host: str | None = None,
        credentials: Credentials | None = None,
        client_options: ClientOptionsArg = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = DEFAULT_RETRY,
    ) -> None:
        self.call_options = CallOptions(timeout=timeout, retry=retry)
        source = "emulator_host" if emulator_host else f"${self.emulator_env_var}"
        given = emulator_host or os.environ.get(self.emulator_env_var)
        self.emulator_host = emulator_address(given, source) if given else None
        self._credentials = credentials
        if isinstance(client_options, Mapping):
            try:
                client_options = ClientOptions(**client_options)
            except TypeError as exc:
                raise ConfigurationError(
                    f"client_options has an unknown key ({exc}); see "
                    "google.api_core.client_options.ClientOptions for the accepted keys"
                ) from exc
        elif not isinstance(client_options, ClientOptions | None):
            raise ConfigurationError(
                "client_options must be a ClientOptions or a dict, got "
                + type(client_options).__name__
            )
        self._client_options = client_options or ClientOptions()
        self._unbuilt()
        if self.emulator_host is not None and self._client_options.api_endpoint:
            raise ConfigurationError(
                f"both an emulator ({self.emulator_host}) and client_options.api_endpoint "
                f"({self._client_options.api_endpoint}) were given: pick one"
            )

    def _unbuilt(self) -> None:
        self._lock = threading.Lock()
        self._sync: dict[type, Any] = {}
        self._sync_channel: Any = None
        # Per event loop (a grpc.aio channel belongs to its loop): its emulator channel, clients.
        self._async: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()

    def check_picklable(self) -> None:
        """Raise ``ConfigurationError`` naming ``credentials`` (or ``client_options``) when
        what this connection was given cannot be pickled, and what to do."""
        for name in _UNPICKLABLE:
            value = getattr(self, f"_{name}")
            try:
                pickle.dumps(value)
            except Exception as exc:  # TypeError, PicklingError, AttributeError, ...
                raise ConfigurationError(
                    f"{name} ({type(value).__name__}) cannot be pickled ({exc}): "
                    f"{_UNPICKLABLE[name]}, or build the component in the process that uses it"
                ) from exc

    def __getstate__(self) -> dict[str, Any]:
        self.check_picklable()
        return {name: value for name, value in vars(self).items() if name not in _BUILT}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._unbuilt()

    @property
    def endpoint(self) -> str:
        """Where calls go: the emulator address or the Google API endpoint."""
        regional = "" if self.location == DEFAULT_LOCATION else f"{self.location}-"
        given = self.emulator_host or self._client_options.api_endpoint
        return str(given or regional + self.default_endpoint)

    @property
    def uses_emulator(self) -> bool:
        """True when calls go to a local emulator over an insecure channel."""
        return self.emulator_host is not None

    def __repr__(self) -> str:
        # Never show credentials or client options (they may hold an API key).
        return f"{type(self).__name__}(endpoint={self.endpoint!r}, emulator={self.uses_emulator})"

    def _build(self, cls: Any, clients: dict[type, Any], channel: Any, asynchronous: bool) -> Any:
        label = "grpc_asyncio" if asynchronous else "grpc"
        if channel is not None:  # Google's transports ignore credentials given a channel
            client = cls(transport=cls.get_transport_class(label)(channel=channel))
        else:
            options = copy.copy(self._client_options)
            options.api_endpoint = self.endpoint
            try:
                client = cls(client_options=options, transport=label, credentials=self._credentials)
            except DefaultCredentialsError as exc:
                raise ConfigurationError(
                    f"no Google Cloud credentials for {self.endpoint}: run `gcloud auth "
                    "application-default login`, pass credentials=..., or use the emulator "
                    f"(emulator_host=... or ${self.emulator_env_var})"
                ) from exc
        clients[cls] = client
        kind = "async " if asynchronous else ""
        logger.debug("built %s%s for %s", kind, cls.__name__, self.endpoint)
        return client

    def client(self, client_cls: type[ClientT]) -> ClientT:
        """The (cached) sync client of class ``client_cls``."""
        client = self._sync.get(client_cls)
        if client is None:
            with self._lock:
                if self.emulator_host is not None and self._sync_channel is None:
                    self._sync_channel = emulator_channel(self.emulator_host, asynchronous=False)
                client = self._sync.get(client_cls)
                if client is None:
                    client = self._build(client_cls, self._sync, self._sync_channel, False)
        return cast(ClientT, client)

    def async_client(self, client_cls: type[ClientT]) -> ClientT:
        """The async client of class ``client_cls`` for the running event loop."""
        loop = asyncio.get_running_loop()
        if loop not in self._async:
            host = self.emulator_host
            self._async[loop] = (emulator_channel(host, asynchronous=True) if host else None, {})
        channel, clients = self._async[loop]
        client = clients.get(client_cls)
        if client is None:
            client = self._build(client_cls, clients, channel, True)
        return cast(ClientT, client)

    def close(self) -> None:
        """Close the sync clients' channels."""
        with self._lock:
            clients, self._sync = self._sync, {}
            channel, self._sync_channel = self._sync_channel, None
        closing = [channel] if channel is not None else [c.transport for c in clients.values()]
        for closable in closing:
            closable.close()

    async def aclose(self) -> None:
        """Close the async clients' channels of the running event loop."""
        channel, clients = self._async.pop(asyncio.get_running_loop(), (None, {}))
        closing = [channel] if channel is not None else [c.transport for c in clients.values()]
        for closable in closing:
            await closable.close()


class DiscoveryEngineConnection(_Connection):
    """Discovery Engine (Vertex AI Search) clients for one location (``global``, ``us`` or
    ``eu``) and project (default: ``$GOOGLE_CLOUD_PROJECT``, else the default credentials', any
    on the emulator); the other arguments are ``DeveloperKnowledgeConnection``'s."""

    emulator_env_var = DISCOVERYENGINE_EMULATOR_HOST
    default_endpoint = "discoveryengine.googleapis.com"

    def __init__(
        self,
        *,
        project_id: str | None = None,
        location: str = DEFAULT_LOCATION,
        **connection: Unpack[DeveloperKnowledgeConnectionArgs],
    ) -> None:
        self.location = check_location(location)
        super().__init__(**connection)
        self.project = resolve_project(project_id, emulator=self.uses_emulator)

    def target(
        self,
        *,
        data_store_id: str | None = None,
        engine_id: str | None = None,
        collection: str | None = DEFAULT_COLLECTION,
        serving_config_id: str = DEFAULT_SERVING_CONFIG,
    ) -> DiscoveryEngineTarget:
        """The data store or engine to call, in this connection's project and location;
        neither named: the data store ``$GROUNDING_DATA_STORE`` names."""
        if data_store_id is None and engine_id is None:
            data_store_id = default_data_store()
        return DiscoveryEngineTarget(
            project=self.project,
            location=self.location,
            data_store=data_store_id,
            engine=engine_id,
            collection=collection,
            serving_config=serving_config_id,
        )

    def grounding_config_path(self, grounding_config: str = DEFAULT_GROUNDING_CONFIG) -> str:
        """The grounding config CheckGrounding takes, in this project and location."""
        return config_path(self.project, self.location, "grounding", grounding_config)

    def ranking_config_path(self, ranking_config: str = DEFAULT_RANKING_CONFIG) -> str:
        """The ranking config Rank takes, in this project and location."""
        return config_path(self.project, self.location, "ranking", ranking_config)


class DeveloperKnowledgeConnection(_Connection):
    """Developer Knowledge API clients. ``timeout`` (seconds per attempt) and ``retry``
    (``None``: none) apply to every call; a bad setting raises ``ConfigurationError`` here."""

    emulator_env_var = DEVELOPERKNOWLEDGE_EMULATOR_HOST
    default_endpoint = "developerknowledge.googleapis.com"


class GivenClient:
    """A Google client the caller built, used for ``method`` in place of the connection's (as
    langchain-google-community's ``client=``): any API version of Discovery Engine's client
    (``discoveryengine_v1alpha.RankServiceClient()``), or a stand-in with that method. Our
    ``v1`` requests go as the message of the same name of its version, its responses are read
    as ``v1`` (the versions share the field numbers); async calls run its sync method in a
    worker thread. A client with no such method: ``ConfigurationError`` naming ``field``."""

    def __init__(self, client: Any, method: str, field: str = "client") -> None:
        if not callable(getattr(client, method, None)):
            raise ConfigurationError(
                f"{field} must be a Google client with a {method}() method (e.g. "
                f"google.cloud.discoveryengine_v1's), got {type(client).__name__}; or leave "
                "it out, and the connection builds Google's clients (credentials=, "
                "client_options=, emulator_host=)"
            )
        self.client = client
        self.method = method

    def __repr__(self) -> str:
        return f"{type(self).__name__}({type(self.client).__name__}.{self.method})"

    def _request(self, request: Any) -> Any:
        """``request`` (proto-plus, ``discoveryengine_v1``) as the client's version takes it."""
        # __class__, not type(): a Mock(spec=SomeClient) has its spec's.
        package, found, _ = self.client.__class__.__module__.partition(".services.")
        if not found or package == type(request).__module__.partition(".types.")[0]:
            return request
        try:
            message_cls = getattr(importlib.import_module(package), type(request).__name__)
        except (ImportError, AttributeError):  # not a Google client: it gets ours
            return request
        return message_cls.deserialize(type(request).serialize(request))

    def call(self, request: Any, response_type: Any, **kwargs: Any) -> Any:
        """The client's response to ``request``, as a raw ``response_type`` message."""
        response = getattr(self.client, self.method)(request=self._request(request), **kwargs)
        if isinstance(response, response_type):
            return response_type.pb(response)
        data = (
            response.SerializeToString()
            if isinstance(response, Message)
            else type(response).serialize(response)
        )
        return response_type.pb().FromString(data)

    async def acall(self, request: Any, response_type: Any, **kwargs: Any) -> Any:
        """``call`` in a worker thread (the client is a sync one)."""
        return await asyncio.to_thread(self.call, request, response_type, **kwargs)
