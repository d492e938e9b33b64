"""A connection: Google's clients for one API, the resolved project, the per-call options.

What every component holds once it is configured (the search, answer and grounding
components, the adapters built on them, the ``grounding`` command). ``create`` checks the
settings (a bad project, location, timeout or retry policy raises ``ConfigurationError``, a
``ValueError``) and builds the clients lazily. Credentials and client options are handed to
the client factory and kept only there (its repr never shows them). A connection pickles and
deep-copies with its settings and not its channels: the copy builds its own clients at its first
call (``clients``); a pickle holds the credentials as given. ``copy.copy`` shares the clients,
as a shallow copy shares its parts (and as ``dataclasses.replace`` does).

>>> connection = DiscoveryEngineConnection.create(project_id="p", emulator_host="localhost:8123")
>>> connection.target(data_store_id="docs").serving_config_path  # doctest: +ELLIPSIS
'projects/p/locations/global/collections/default_collection/dataStores/docs/servingConfigs/...'
>>> connection.grounding_config_path()
'projects/p/locations/global/groundingConfigs/default_grounding_config'

A target that names neither a data store nor an engine is the data store
``$GROUNDING_DATA_STORE`` names (``grounding serve --corpus ./kb`` prints the line that sets it):

>>> import os
>>> os.environ[GROUNDING_DATA_STORE] = "kb"
>>> connection.target().data_store
'kb'
>>> del os.environ[GROUNDING_DATA_STORE]

``DiscoveryEngineConnectionArgs`` and ``DeveloperKnowledgeConnectionArgs`` are the keyword
arguments of the two ``create`` methods as one type, for components that take them as
``**connection`` and hand them on (the defaults are ``create``'s):

>>> import inspect
>>> parameters = inspect.signature(DiscoveryEngineConnection.create).parameters
>>> sorted(DiscoveryEngineConnectionArgs.__optional_keys__) == sorted(parameters)
True
>>> parameters = inspect.signature(DeveloperKnowledgeConnection.create).parameters
>>> sorted(DeveloperKnowledgeConnectionArgs.__optional_keys__) == sorted(parameters)
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from google.api_core.client_options import ClientOptions
from google.auth.credentials import Credentials

from .clients import DeveloperKnowledgeClients, DiscoveryEngineClients
from .peer_arguments import PEER_DATA_STORE_ENV_VAR, peer_environment
from .settings import (
    DEFAULT_COLLECTION,
    DEFAULT_GROUNDING_CONFIG,
    DEFAULT_LOCATION,
    DEFAULT_RETRY,
    DEFAULT_SERVING_CONFIG,
    DEFAULT_TIMEOUT,
    CallOptions,
    DiscoveryEngineTarget,
    RetryPolicy,
    _check_id,
    grounding_config_path,
    resolve_project,
)

__all__ = [
    "GROUNDING_DATA_STORE",
    "ClientOptionsArg",
    "DeveloperKnowledgeConnection",
    "DeveloperKnowledgeConnectionArgs",
    "DiscoveryEngineConnection",
    "DiscoveryEngineConnectionArgs",
    "default_data_store",
]

ClientOptionsArg = ClientOptions | Mapping[str, Any] | None

GROUNDING_DATA_STORE = "GROUNDING_DATA_STORE"
"""The environment variable naming the data store of a target that names none (beside the
emulator-host variables of ``clients``; ours, not Google's)."""


def default_data_store() -> str | None:
    """The data store ``$GROUNDING_DATA_STORE`` names, if it is set and not empty, else the
    one the peer's ``$DATA_STORE_ID`` names (with a ``DeprecationWarning``); a
    ``ConfigurationError`` naming the variable when it is not a valid id."""
    variable = GROUNDING_DATA_STORE
    value = os.environ.get(variable) or None
    if value is None:
        variable = PEER_DATA_STORE_ENV_VAR
        value = peer_environment(
            variable,
            "the data store when neither data_store_id nor engine_id is given: set "
            f"{GROUNDING_DATA_STORE} (or pass data_store_id=...) instead",
        )
    if value is not None:
        _check_id(f"${variable}", value, "my-docs-store")
    return value


class DeveloperKnowledgeConnectionArgs(TypedDict, total=False):
    """The keyword arguments of ``DeveloperKnowledgeConnection.create`` (any may be left out:
    ``create``'s defaults apply)."""

    emulator_host: str | None
    credentials: Credentials | None
    client_options: ClientOptionsArg
    timeout: float
    retry: RetryPolicy | None


class DiscoveryEngineConnectionArgs(DeveloperKnowledgeConnectionArgs, total=False):
    """The keyword arguments of ``DiscoveryEngineConnection.create``: the Developer Knowledge
    ones, a project and a location."""

    project_id: str | None
    location: str


class _Closing:
    """``close``/``aclose`` of a connection: they close its clients' channels."""

    __slots__ = ()
    clients: DiscoveryEngineClients | DeveloperKnowledgeClients

    def close(self) -> None:
        """Close the sync clients' channels."""
        self.clients.close()

    async def aclose(self) -> None:
        """Close the async clients' channels of the running event loop."""
        await self.clients.aclose()


@dataclass(frozen=True, slots=True)
class DiscoveryEngineConnection(_Closing):
    """Discovery Engine clients for one project and location, and the per-call options."""

    clients: DiscoveryEngineClients
    project: str
    location: str
    call_options: CallOptions

    @classmethod
    def create(
        cls,
        *,
        project_id: str | None = None,
        location: str = DEFAULT_LOCATION,
        emulator_host: str | None = None,
        credentials: Credentials | None = None,
        client_options: ClientOptionsArg = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = DEFAULT_RETRY,
    ) -> DiscoveryEngineConnection:
        """Validate the settings and build the (lazy) clients; resolve the project."""
        call_options = CallOptions(timeout=timeout, retry=retry)
        clients = DiscoveryEngineClients(
            location=location,
            emulator_host=emulator_host,
            credentials=credentials,
            client_options=client_options,
        )
        project = resolve_project(project_id, emulator=clients.uses_emulator)
        return cls(clients, project, location, call_options)

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
        return grounding_config_path(self.project, self.location, grounding_config)


@dataclass(frozen=True, slots=True)
class DeveloperKnowledgeConnection(_Closing):
    """Developer Knowledge clients and the per-call options."""

    clients: DeveloperKnowledgeClients
    call_options: CallOptions

    @classmethod
    def create(
        cls,
        *,
        emulator_host: str | None = None,
        credentials: Credentials | None = None,
        client_options: ClientOptionsArg = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = DEFAULT_RETRY,
    ) -> DeveloperKnowledgeConnection:
        """Validate the settings and build the (lazy) clients."""
        call_options = CallOptions(timeout=timeout, retry=retry)
        clients = DeveloperKnowledgeClients(
            emulator_host=emulator_host, credentials=credentials, client_options=client_options
        )
        return cls(clients, call_options)
