"""Google's clients, built once and reused: against Google Cloud or a local emulator.

``DiscoveryEngineClients`` serves ``SearchServiceClient``, ``GroundedGenerationServiceClient``,
``ConversationalSearchServiceClient`` and ``SessionServiceClient`` (and their async twins);
``DeveloperKnowledgeClients`` serves ``DeveloperKnowledgeClient`` (and its async twin).

The target is picked in this order (as Google's Firestore client does):

1. an emulator address, given as ``emulator_host=`` or read once from
   ``$DISCOVERYENGINE_EMULATOR_HOST`` / ``$DEVELOPERKNOWLEDGE_EMULATOR_HOST``: an insecure gRPC
   channel with the message-size limits lifted, anonymous credentials;
2. ``client_options.api_endpoint`` if the caller set it;
3. Google's endpoint: for Discovery Engine the regional one
   (``{location}-discoveryengine.googleapis.com``) for ``us`` and ``eu``; another location
   than ``global``, ``us`` and ``eu`` raises ``ConfigurationError``.

The emulator address is ``HOST:PORT`` (an ``http://`` or ``grpc://`` prefix is dropped, see
``settings.emulator_address``). A call that finds the emulator UNAVAILABLE while its channel
cannot connect within ``EMULATOR_CONNECT_TIMEOUT`` seconds fails at once with
``ServiceUnavailableError`` naming the address (nothing listens there: start the emulator),
instead of being retried until the retry deadline; an UNAVAILABLE the emulator itself sends
(its channel is connected) is retried like Google's.

Async clients are built per event loop: a ``grpc.aio`` channel belongs to the loop that made it,
so code that calls ``asyncio.run`` twice gets a working client both times.

Pickles and copies of the clients (``pickle``, ``copy.copy``, ``copy.deepcopy``: what
multiprocessing, Ray, joblib and deep copies of a component do) hold the settings and nothing
that was built: the copy builds its own channel and clients at its first call, so the original
and the copy share no channel and closing one leaves the other alone (a shallow copy of a
component shares its clients, as it shares its other parts). A pickle holds the credentials and
client options as they were given: a pickle of clients built with an API key
(``client_options={"api_key": ...}``) or a service account's credentials holds that secret, so
keep it where you would keep the key (the repr never shows it). Credentials that cannot be
pickled raise ``ConfigurationError`` naming ``credentials``.
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
from typing import Any, ClassVar, TypeVar, cast

import grpc
from google.api_core import exceptions as core_exceptions
from google.api_core.client_options import ClientOptions
from google.auth.credentials import AnonymousCredentials, Credentials
from google.auth.exceptions import DefaultCredentialsError
from google.cloud import discoveryengine_v1
from google.developer_knowledge_v1 import DeveloperKnowledgeAsyncClient, DeveloperKnowledgeClient

from .errors import ConfigurationError, ServiceUnavailableError
from .settings import (
    DEFAULT_LOCATION,
    EMULATOR_CONNECT_TIMEOUT,
    check_location,
    emulator_address,
)

__all__ = [
    "DEVELOPERKNOWLEDGE_EMULATOR_HOST",
    "DISCOVERYENGINE_EMULATOR_HOST",
    "DeveloperKnowledgeClients",
    "DiscoveryEngineClients",
    "emulator_channel",
]

logger = logging.getLogger(__name__)

DISCOVERYENGINE_EMULATOR_HOST = "DISCOVERYENGINE_EMULATOR_HOST"
DEVELOPERKNOWLEDGE_EMULATOR_HOST = "DEVELOPERKNOWLEDGE_EMULATOR_HOST"

# A channel built by hand lacks the defaults Google's transports set: lift the size limits.
# Reconnecting to a loopback server is cheap: retry at least every second, so that a restarted
# emulator is found within EMULATOR_CONNECT_TIMEOUT (gRPC's backoff grows to two minutes).
_CHANNEL_OPTIONS = (
    ("grpc.max_send_message_length", -1),
    ("grpc.max_receive_message_length", -1),
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 1000),
)

ClientT = TypeVar("ClientT")

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


def _client_options(value: ClientOptions | Mapping[str, Any] | None) -> ClientOptions:
    if value is None:
        return ClientOptions()
    if isinstance(value, ClientOptions):
        return value
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


class _Clients:
    """Builds and caches the sync and async clients of one API."""

    emulator_env_var: ClassVar[str]
    default_endpoint: ClassVar[str]

    def __init__(
        self,
        *,
        location: str = DEFAULT_LOCATION,
        emulator_host: str | None = None,
        credentials: Credentials | None = None,
        client_options: ClientOptions | Mapping[str, Any] | None = None,
    ) -> None:
        self.location = self._checked_location(location)
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
        what these clients were given cannot be pickled, and what to do."""
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
        """The settings, never what was built from them (``pickle``, ``copy``): channels,
        clients and their lock belong to one process, async clients to one event loop; the
        copy builds its own at its first call. The credentials and client options go in as
        given (``check_picklable``)."""
        self.check_picklable()
        return {
            "location": self.location,
            "emulator_host": self.emulator_host,
            "_credentials": self._credentials,
            "_client_options": self._client_options,
        }

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
        return self._client_options.api_endpoint or self._endpoint_for(self.location)

    @classmethod
    def _checked_location(cls, location: str) -> str:
        """``location`` if this API serves it (``ConfigurationError`` if not)."""
        return location

    @classmethod
    def _endpoint_for(cls, location: str) -> str:
        return cls.default_endpoint

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

    def get(self, client_cls: type[ClientT]) -> ClientT:
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

    def get_async(self, client_cls: type[ClientT]) -> ClientT:
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
        return client

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


class _LoopClients:
    """The async clients of one event loop, and their shared emulator channel."""

    __slots__ = ("channel", "clients")

    def __init__(self, channel: Any) -> None:
        self.channel = channel
        self.clients: dict[type, Any] = {}


class DiscoveryEngineClients(_Clients):
    """Discovery Engine (Vertex AI Search) clients for one location.

    >>> clients = DiscoveryEngineClients(location="eu")
    >>> clients.endpoint
    'eu-discoveryengine.googleapis.com'
    >>> DiscoveryEngineClients(emulator_host="localhost:8123").endpoint
    'localhost:8123'
    """

    emulator_env_var = DISCOVERYENGINE_EMULATOR_HOST
    default_endpoint = "discoveryengine.googleapis.com"

    @classmethod
    def _checked_location(cls, location: str) -> str:
        return check_location(location)

    @classmethod
    def _endpoint_for(cls, location: str) -> str:
        if location == DEFAULT_LOCATION:
            return cls.default_endpoint
        return f"{location}-{cls.default_endpoint}"

    def search(self) -> discoveryengine_v1.SearchServiceClient:
        """The sync ``SearchServiceClient``."""
        return self.get(discoveryengine_v1.SearchServiceClient)

    def grounded_generation(self) -> discoveryengine_v1.GroundedGenerationServiceClient:
        """The sync ``GroundedGenerationServiceClient`` (CheckGrounding)."""
        return self.get(discoveryengine_v1.GroundedGenerationServiceClient)

    def conversational_search(self) -> discoveryengine_v1.ConversationalSearchServiceClient:
        """The sync ``ConversationalSearchServiceClient`` (AnswerQuery)."""
        return self.get(discoveryengine_v1.ConversationalSearchServiceClient)

    def sessions(self) -> discoveryengine_v1.SessionServiceClient:
        """The sync ``SessionServiceClient`` (conversation sessions of AnswerQuery)."""
        return self.get(discoveryengine_v1.SessionServiceClient)

    def rank(self) -> discoveryengine_v1.RankServiceClient:
        """The sync ``RankServiceClient`` (the Ranking API)."""
        return self.get(discoveryengine_v1.RankServiceClient)

    def search_async(self) -> discoveryengine_v1.SearchServiceAsyncClient:
        """The ``SearchServiceAsyncClient`` of the running loop."""
        return self.get_async(discoveryengine_v1.SearchServiceAsyncClient)

    def grounded_generation_async(
        self,
    ) -> discoveryengine_v1.GroundedGenerationServiceAsyncClient:
        """The ``GroundedGenerationServiceAsyncClient`` of the running loop."""
        return self.get_async(discoveryengine_v1.GroundedGenerationServiceAsyncClient)

    def conversational_search_async(
        self,
    ) -> discoveryengine_v1.ConversationalSearchServiceAsyncClient:
        """The ``ConversationalSearchServiceAsyncClient`` of the running loop."""
        return self.get_async(discoveryengine_v1.ConversationalSearchServiceAsyncClient)

    def sessions_async(self) -> discoveryengine_v1.SessionServiceAsyncClient:
        """The ``SessionServiceAsyncClient`` of the running loop."""
        return self.get_async(discoveryengine_v1.SessionServiceAsyncClient)

    def rank_async(self) -> discoveryengine_v1.RankServiceAsyncClient:
        """The ``RankServiceAsyncClient`` of the running loop."""
        return self.get_async(discoveryengine_v1.RankServiceAsyncClient)


class DeveloperKnowledgeClients(_Clients):
    """Developer Knowledge API clients (the API has no locations).

    >>> DeveloperKnowledgeClients().endpoint
    'developerknowledge.googleapis.com'
    """

    emulator_env_var = DEVELOPERKNOWLEDGE_EMULATOR_HOST
    default_endpoint = "developerknowledge.googleapis.com"

    def developer_knowledge(self) -> DeveloperKnowledgeClient:
        """The sync ``DeveloperKnowledgeClient``."""
        return self.get(DeveloperKnowledgeClient)

    def developer_knowledge_async(self) -> DeveloperKnowledgeAsyncClient:
        """The ``DeveloperKnowledgeAsyncClient`` of the running loop."""
        return self.get_async(DeveloperKnowledgeAsyncClient)
