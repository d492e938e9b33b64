"""Connections: Google's clients for one API, built once and reused, against Google Cloud or a
local emulator, with the project and the per-call timeout and retry.

``DiscoveryEngineConnection`` serves Discovery Engine's clients (Search, GroundedGeneration,
ConversationalSearch, Session, Rank, sync and async); ``DeveloperKnowledgeConnection`` the
Developer Knowledge client. The target is picked in this order (as Google's Firestore client
does):

1. an emulator address, given as ``emulator_host=`` or read once from
   ``$DISCOVERYENGINE_EMULATOR_HOST`` / ``$DEVELOPERKNOWLEDGE_EMULATOR_HOST``: an insecure gRPC
   channel with the message-size limits lifted, anonymous credentials;
2. ``client_options.api_endpoint`` if the caller set it;
3. Google's endpoint: for Discovery Engine the regional one
   (``{location}-discoveryengine.googleapis.com``) for ``us`` and ``eu``.

A call that finds the emulator UNAVAILABLE while its channel cannot connect within
``EMULATOR_CONNECT_TIMEOUT`` seconds fails at once with ``ServiceUnavailableError`` naming the
address, instead of being retried until the retry deadline; an UNAVAILABLE the emulator itself
sends is retried like Google's. Async clients are built per event loop (a ``grpc.aio`` channel
belongs to the loop that made it).

Pickles and copies of a connection hold its settings, never what was built from them: the copy
builds its own channel and clients at its first call. A pickle holds the credentials and client
options as given, an API key or a service account's key too (the repr never shows them).

>>> connection = DiscoveryEngineConnection(project_id="p", emulator_host="localhost:8123")
>>> connection.target(data_store_id="docs").serving_config_path  # doctest: +ELLIPSIS
'projects/p/locations/global/collections/default_collection/dataStores/docs/servingConfigs/...'
>>> DiscoveryEngineConnection(project_id="p", location="eu").endpoint
'eu-discoveryengine.googleapis.com'
"""

from __future__ import annotations

import asyncio
import copy
import logging
import os
import pickle
import threading
import weakref
from collections.abc import Mapping
from typing import Any, ClassVar, TypedDict, TypeVar, cast

import grpc
from google.api_core import exceptions as core_exceptions
from google.api_core.client_options import ClientOptions
from google.auth.credentials import AnonymousCredentials, Credentials
from google.auth.exceptions import DefaultCredentialsError

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

logger = logging.getLogger(__name__)

ClientT = TypeVar("ClientT")
ClientOptionsArg = ClientOptions | Mapping[str, Any] | None

# A channel built by hand lacks the defaults Google's transports set: lift the size limits.
# Reconnecting to a loopback server is cheap: retry at least every second, so that a restarted
# emulator is found within EMULATOR_CONNECT_TIMEOUT (gRPC's backoff grows to two minutes).
_CHANNEL_OPTIONS = (
    ("grpc.max_send_message_length", -1),
    ("grpc.max_receive_message_length", -1),
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 1000),
)

# What to do when a setting cannot be pickled (``_Clients.check_picklable``).
_UNPICKLABLE = {
    "credentials": "give credentials that pickle (google-auth's service account, user and "
    "Compute Engine credentials do), or leave credentials out so that each process finds "
    "Application Default Credentials",
    "client_options": "give client_options that pickle (a client_cert_source must be a "
    "module-level function, not a lambda or a closure)",
}


def _no_emulator(host: str, method: str | bytes, error: grpc.RpcError) -> ServiceUnavailableError:
    """The error of a call no emulator answered; its cause is Google's ``ServiceUnavailable``
    for the gRPC error, as for every ``ServiceError`` (see ``errors``)."""
    # grpc gives the method as "/package.Service/Method" (bytes on grpc.aio channels).
    name = method.decode() if isinstance(method, bytes) else method
    env_var = (
        DEVELOPERKNOWLEDGE_EMULATOR_HOST
        if name.startswith("/google.developers.knowledge.")
        else DISCOVERYENGINE_EMULATOR_HOST
    )
    return ServiceUnavailableError(
        f"no emulator answers on {host} ({name.rpartition('/')[2]}: nothing accepted a "
        f"connection within {EMULATOR_CONNECT_TIMEOUT:g} s): start one with `grounding serve` "
        "(or `grounding_emulator.EmulatorServer` in Python) and give its address, or drop "
        f"emulator_host / --emulator-host and unset ${env_var} to use Google Cloud",
        cause=core_exceptions.from_grpc_error(error),  # type: ignore[no-untyped-call]
    )


class _RefusedConnection(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """On a sync emulator channel: an UNAVAILABLE call whose channel cannot connect fails for
    good (``ServiceUnavailableError``, which no retry policy retries)."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.channel: grpc.Channel | None = None

    def _connects(self) -> bool:
        ready = grpc.channel_ready_future(self.channel)
        try:
            ready.result(timeout=EMULATOR_CONNECT_TIMEOUT)
        except grpc.FutureTimeoutError:
            return False
        finally:
            ready.cancel()
        return True

    def intercept_unary_unary(
        self, continuation: Any, client_call_details: Any, request: Any
    ) -> Any:
        outcome = continuation(client_call_details, request)
        if outcome.code() is grpc.StatusCode.UNAVAILABLE and not self._connects():
            error = _no_emulator(self.host, client_call_details.method, outcome)
            raise error from error.cause
        return outcome


class _AsyncRefusedConnection(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """``_RefusedConnection`` on a ``grpc.aio`` channel (waits with ``channel_ready``)."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.channel: grpc.aio.Channel | None = None

    async def _connects(self) -> bool:
        assert self.channel is not None  # set right after the channel is built
        try:
            await asyncio.wait_for(self.channel.channel_ready(), EMULATOR_CONNECT_TIMEOUT)
        except asyncio.TimeoutError:
            return False
        return True

    async def intercept_unary_unary(
        self, continuation: Any, client_call_details: Any, request: Any
    ) -> Any:
        call = await continuation(client_call_details, request)
        if await call.code() is grpc.StatusCode.UNAVAILABLE and not await self._connects():
            try:
                await call  # raises the call's AioRpcError, to chain it
            except grpc.RpcError as exc:
                error = _no_emulator(self.host, client_call_details.method, exc)
                raise error from error.cause
        return call


def emulator_channel(host: str, *, asynchronous: bool) -> Any:
    """An insecure ``grpc`` (or ``grpc.aio``) channel to ``host`` with no message-size limits,
    on which a refused connection fails at once (see the module docstring)."""
    if asynchronous:
        aio_guard = _AsyncRefusedConnection(host)
        aio_channel = grpc.aio.insecure_channel(
            host, options=_CHANNEL_OPTIONS, interceptors=[aio_guard]
        )
        aio_guard.channel = aio_channel
        return aio_channel
    guard = _RefusedConnection(host)
    guard.channel = grpc.insecure_channel(host, options=_CHANNEL_OPTIONS)
    return grpc.intercept_channel(guard.channel, guard)


def _client_options(value: ClientOptionsArg) -> ClientOptions:
    if value is None or isinstance(value, ClientOptions):
        return value or ClientOptions()
    if isinstance(value, Mapping):
        try:
            return ClientOptions(**value)
        except TypeError as exc:
            raise ConfigurationError(
                f"client_options has an unknown key ({exc}); see "
                "google.api_core.client_options.ClientOptions for the accepted keys"
            ) from exc
    raise ConfigurationError(
        f"client_options must be a ClientOptions or a dict, got {type(value).__name__}"
    )


class DeveloperKnowledgeConnectionArgs(TypedDict, total=False):
    """The keyword arguments of ``DeveloperKnowledgeConnection`` (any may be left out)."""

    emulator_host: str | None
    credentials: Credentials | None
    client_options: ClientOptionsArg
    timeout: float
    retry: RetryPolicy | None


class DiscoveryEngineConnectionArgs(DeveloperKnowledgeConnectionArgs, total=False):
    """The keyword arguments of ``DiscoveryEngineConnection``: the Developer Knowledge ones, a
    project and a location."""

    project_id: str | None
    location: str


class _LoopClients:
    """The async clients of one event loop, and their shared emulator channel."""

    __slots__ = ("channel", "clients")

    def __init__(self, channel: Any) -> None:
        self.channel = channel
        self.clients: dict[type, Any] = {}


class _Connection:
    """Builds and caches the sync and async clients of one API; holds the call options."""

    emulator_env_var: ClassVar[str]
    default_endpoint: ClassVar[str]
    _settings: ClassVar[tuple[str, ...]] = (
        "location",
        "emulator_host",
        "call_options",
        "_credentials",
        "_client_options",
    )

    def __init__(
        self,
        location: str,
        emulator_host: str | None,
        credentials: Credentials | None,
        client_options: ClientOptionsArg,
        timeout: float,
        retry: RetryPolicy | None,
    ) -> None:
        self.location = location
        self.call_options = CallOptions(timeout=timeout, retry=retry)
        self.emulator_host = self._emulator_host(emulator_host)
        self._credentials = credentials
        self._client_options = _client_options(client_options)
        self._unbuilt()
        if self.emulator_host is not None and self._client_options.api_endpoint:
            raise ConfigurationError(
                f"both an emulator ({self.emulator_host}) and client_options.api_endpoint "
                f"({self._client_options.api_endpoint}) were given: pick one"
            )

    def _unbuilt(self) -> None:
        """No client built yet (each is built at its first use)."""
        self._lock = threading.Lock()
        self._sync: dict[type, Any] = {}
        self._sync_channel: Any = None
        self._async: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClients] = (
            weakref.WeakKeyDictionary()
        )

    def check_picklable(self) -> None:
        """Raise ``ConfigurationError`` naming ``credentials`` (or ``client_options``) when
        what this connection was given cannot be pickled, and what to do."""
        for name, value in (
            ("credentials", self._credentials),
            ("client_options", self._client_options),
        ):
            try:
                pickle.dumps(value)
            except Exception as exc:  # TypeError, PicklingError, AttributeError, ...
                raise ConfigurationError(
                    f"{name} ({type(value).__name__}) cannot be pickled ({exc}): "
                    f"{_UNPICKLABLE[name]}, or build the component in the process that uses it"
                ) from exc

    def __getstate__(self) -> dict[str, Any]:
        """The settings, never what was built from them (see the module docstring)."""
        self.check_picklable()
        return {name: getattr(self, name) for name in self._settings}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._unbuilt()

    @classmethod
    def _emulator_host(cls, given: str | None) -> str | None:
        """``HOST:PORT`` of the emulator given, else of ``$<API>_EMULATOR_HOST``, else None."""
        if given:
            return emulator_address(given, "emulator_host")
        from_env = os.environ.get(cls.emulator_env_var)
        if from_env:
            return emulator_address(from_env, f"${cls.emulator_env_var}")
        return None

    @property
    def endpoint(self) -> str:
        """Where calls go: the emulator address or the Google API endpoint."""
        if self.emulator_host is not None:
            return self.emulator_host
        if self._client_options.api_endpoint:
            return str(self._client_options.api_endpoint)
        if self.location == DEFAULT_LOCATION:
            return self.default_endpoint
        return f"{self.location}-{self.default_endpoint}"

    @property
    def uses_emulator(self) -> bool:
        """True when calls go to a local emulator over an insecure channel."""
        return self.emulator_host is not None

    def __repr__(self) -> str:
        # Never show credentials or client options (they may hold an API key).
        return f"{type(self).__name__}(endpoint={self.endpoint!r}, emulator={self.uses_emulator})"

    def _build(self, client_cls: type[ClientT], *, asynchronous: bool, channel: Any) -> ClientT:
        if channel is not None:
            label = "grpc_asyncio" if asynchronous else "grpc"
            transport = client_cls.get_transport_class(label)(  # type: ignore[attr-defined]
                channel=channel,
                credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
            )
            return client_cls(transport=transport)  # type: ignore[call-arg]
        options = copy.copy(self._client_options)
        options.api_endpoint = self.endpoint
        kwargs: dict[str, Any] = {
            "client_options": options,
            "transport": "grpc_asyncio" if asynchronous else "grpc",
        }
        if self._credentials is not None:
            kwargs["credentials"] = self._credentials
        try:
            return client_cls(**kwargs)
        except DefaultCredentialsError as exc:
            raise ConfigurationError(
                f"no Google Cloud credentials for {self.endpoint}: run `gcloud auth "
                "application-default login`, pass credentials=..., or use the emulator "
                f"(emulator_host=... or ${self.emulator_env_var})"
            ) from exc

    def client(self, client_cls: type[ClientT]) -> ClientT:
        """The (cached) sync client of class ``client_cls``."""
        client = self._sync.get(client_cls)
        if client is not None:
            return cast(ClientT, client)
        with self._lock:
            client = self._sync.get(client_cls)
            if client is None:
                if self.emulator_host is not None and self._sync_channel is None:
                    self._sync_channel = emulator_channel(self.emulator_host, asynchronous=False)
                client = self._build(client_cls, asynchronous=False, channel=self._sync_channel)
                self._sync[client_cls] = client
                logger.debug("built %s for %s", client_cls.__name__, self.endpoint)
        return client

    def async_client(self, client_cls: type[ClientT]) -> ClientT:
        """The async client of class ``client_cls`` for the running event loop."""
        loop = asyncio.get_running_loop()
        state = self._async.get(loop)
        if state is None:
            channel = None
            if self.emulator_host is not None:
                channel = emulator_channel(self.emulator_host, asynchronous=True)
            state = self._async[loop] = _LoopClients(channel)
        client = state.clients.get(client_cls)
        if client is None:
            client = self._build(client_cls, asynchronous=True, channel=state.channel)
            state.clients[client_cls] = client
            logger.debug("built async %s for %s", client_cls.__name__, self.endpoint)
        return cast(ClientT, client)

    def close(self) -> None:
        """Close the sync clients' channels."""
        with self._lock:
            clients, self._sync = self._sync, {}
            channel, self._sync_channel = self._sync_channel, None
        if channel is not None:
            channel.close()
            return
        for client in clients.values():
            client.transport.close()

    async def aclose(self) -> None:
        """Close the async clients' channels of the running event loop."""
        state = self._async.pop(asyncio.get_running_loop(), None)
        if state is None:
            return
        if state.channel is not None:
            await state.channel.close()
            return
        for client in state.clients.values():
            await client.transport.close()


class DiscoveryEngineConnection(_Connection):
    """Discovery Engine (Vertex AI Search) clients for one project and location.

    ``project_id`` defaults to ``$GOOGLE_CLOUD_PROJECT``, else the default credentials'
    project (any project on the emulator); ``location`` is ``global``, ``us`` or ``eu``;
    ``timeout`` (seconds per attempt) and ``retry`` (``None``: no retries) apply to every call.
    A bad setting raises ``ConfigurationError`` here.
    """

    emulator_env_var = DISCOVERYENGINE_EMULATOR_HOST
    default_endpoint = "discoveryengine.googleapis.com"
    _settings = (*_Connection._settings, "project")

    def __init__(
        self,
        *,
        project_id: str | None = None,
        location: str = DEFAULT_LOCATION,
        emulator_host: str | None = None,
        credentials: Credentials | None = None,
        client_options: ClientOptionsArg = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = DEFAULT_RETRY,
    ) -> None:
        check_location(location)
        super().__init__(location, emulator_host, credentials, client_options, timeout, retry)
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
    """Developer Knowledge API clients (the API has no locations and no projects in its
    resource names); ``timeout`` and ``retry`` as ``DiscoveryEngineConnection``'s."""

    emulator_env_var = DEVELOPERKNOWLEDGE_EMULATOR_HOST
    default_endpoint = "developerknowledge.googleapis.com"

    def __init__(
        self,
        *,
        emulator_host: str | None = None,
        credentials: Credentials | None = None,
        client_options: ClientOptionsArg = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = DEFAULT_RETRY,
    ) -> None:
        super().__init__(
            DEFAULT_LOCATION, emulator_host, credentials, client_options, timeout, retry
        )
