"""Connection settings shared by every LangChain component: where to send calls and how.

Each component builds its Google clients once (lazily) and reuses them; credentials and client
options never appear in reprs or serialized forms.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from grounding_core import (
    CallOptions,
    DeveloperKnowledgeClients,
    DiscoveryEngineClients,
    RetryPolicy,
)
from grounding_core.connection import (
    DeveloperKnowledgeConnection as CoreDeveloperKnowledgeConnection,
)
from grounding_core.connection import DiscoveryEngineConnection as CoreDiscoveryEngineConnection
from grounding_core.settings import DEFAULT_LOCATION


class _Connection(BaseModel):
    """Where calls go (Google Cloud or an emulator) and their timeout and retry."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    emulator_host: str | None = Field(
        default=None,
        description="host:port of a local emulator; default: $DISCOVERYENGINE_EMULATOR_HOST "
        "(or $DEVELOPERKNOWLEDGE_EMULATOR_HOST), else Google Cloud",
    )
    credentials: Any = Field(
        default=None, exclude=True, repr=False, description="google.auth credentials"
    )
    client_options: Any = Field(
        default=None,
        exclude=True,
        repr=False,
        description="google.api_core ClientOptions or dict (e.g. api_endpoint)",
    )
    timeout: float = Field(default=30.0, gt=0, description="seconds per attempt")
    retry: RetryPolicy | None = Field(
        default_factory=RetryPolicy,
        description="backoff on UNAVAILABLE/RESOURCE_EXHAUSTED/INTERNAL/DEADLINE_EXCEEDED; "
        "None disables retries",
    )

    @property
    def call_options(self) -> CallOptions:
        """The per-call timeout and retry."""
        return CallOptions(timeout=self.timeout, retry=self.retry)


class DiscoveryEngineConnection(_Connection):
    """Connection to Discovery Engine (Vertex AI Search) for one project and location."""

    project_id: str | None = Field(
        default=None,
        description="Google Cloud project; default: $GOOGLE_CLOUD_PROJECT or the default "
        "credentials' project (any project on the emulator)",
    )
    location: str = Field(
        default=DEFAULT_LOCATION, description="global, us, eu, ... (picks the endpoint)"
    )

    _connection: CoreDiscoveryEngineConnection | None = PrivateAttr(default=None)

    @property
    def connection(self) -> CoreDiscoveryEngineConnection:
        """The core connection (clients, resolved project), built once."""
        if self._connection is None:
            self._connection = CoreDiscoveryEngineConnection.create(
                project_id=self.project_id,
                location=self.location,
                emulator_host=self.emulator_host,
                credentials=self.credentials,
                client_options=self.client_options,
                timeout=self.timeout,
                retry=self.retry,
            )
        return self._connection

    @property
    def clients(self) -> DiscoveryEngineClients:
        """Google's clients for this connection, built once."""
        return self.connection.clients


class DeveloperKnowledgeConnection(_Connection):
    """Connection to the Developer Knowledge API."""

    _connection: CoreDeveloperKnowledgeConnection | None = PrivateAttr(default=None)

    @property
    def clients(self) -> DeveloperKnowledgeClients:
        """Google's clients for this connection, built once."""
        if self._connection is None:
            self._connection = CoreDeveloperKnowledgeConnection.create(
                emulator_host=self.emulator_host,
                credentials=self.credentials,
                client_options=self.client_options,
                timeout=self.timeout,
                retry=self.retry,
            )
        return self._connection.clients
