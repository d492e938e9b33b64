"""Connection settings shared by every LlamaIndex component: where calls go and how long they
may take.

LlamaIndex retrievers and query engines are plain classes, so the settings are checked when
the component is built: a bad project, location, timeout or retry policy raises
``ConfigurationError`` (a ``ValueError``) from the constructor, not at the first query.
Credentials and client options are handed to ``grounding_core``'s client factory and kept only
there (its repr never shows them); no component stores them in an attribute of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.api_core.client_options import ClientOptions
from google.auth.credentials import Credentials

from grounding_core import (
    CallOptions,
    DeveloperKnowledgeClients,
    DiscoveryEngineClients,
    DiscoveryEngineTarget,
    RetryPolicy,
    resolve_project,
)

__all__ = [
    "DEFAULT_RETRY",
    "DEFAULT_TIMEOUT",
    "ClientOptionsArg",
    "DeveloperKnowledgeConnection",
    "DiscoveryEngineConnection",
]

DEFAULT_TIMEOUT = 30.0
DEFAULT_RETRY = RetryPolicy()

ClientOptionsArg = ClientOptions | Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class DiscoveryEngineConnection:
    """Discovery Engine clients for one project and location, and the per-call options."""

    clients: DiscoveryEngineClients
    project: str
    location: str
    call_options: CallOptions

    @classmethod
    def create(
        cls,
        *,
        project_id: str | None,
        location: str,
        emulator_host: str | None,
        credentials: Credentials | None,
        client_options: ClientOptionsArg,
        timeout: float,
        retry: RetryPolicy | None,
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
        data_store_id: str | None,
        engine_id: str | None,
        collection: str | None,
        serving_config_id: str,
    ) -> DiscoveryEngineTarget:
        """The data store or engine to call, in this connection's project and location."""
        return DiscoveryEngineTarget(
            project=self.project,
            location=self.location,
            data_store=data_store_id,
            engine=engine_id,
            collection=collection,
            serving_config=serving_config_id,
        )


@dataclass(frozen=True, slots=True)
class DeveloperKnowledgeConnection:
    """Developer Knowledge clients and the per-call options."""

    clients: DeveloperKnowledgeClients
    call_options: CallOptions

    @classmethod
    def create(
        cls,
        *,
        emulator_host: str | None,
        credentials: Credentials | None,
        client_options: ClientOptionsArg,
        timeout: float,
        retry: RetryPolicy | None,
    ) -> DeveloperKnowledgeConnection:
        """Validate the settings and build the (lazy) clients."""
        call_options = CallOptions(timeout=timeout, retry=retry)
        clients = DeveloperKnowledgeClients(
            emulator_host=emulator_host, credentials=credentials, client_options=client_options
        )
        return cls(clients, call_options)
