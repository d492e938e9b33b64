"""Connection settings shared by every LangChain component: where to send calls and how.

The pydantic fields of ``grounding_core.DiscoveryEngineConnection`` (and of its Developer
Knowledge twin), with the same defaults; ``connection`` is the core connection, built once
(lazily) and reused. Credentials and client options never appear in reprs or LangChain's
serialized forms (``dumpd``); a pickle holds them as given (a key too), and builds its own
clients at its first call (the core connection's pickling).
Assigning a field validates the component again (``validate_assignment``) and rebuilds what
it holds from its fields (the connection too, when a connection field changed).
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import ConfigDict, Field, PrivateAttr, ValidationError

from grounding_core import (
    DEFAULT_LOCATION,
    DEFAULT_RETRY,
    DEFAULT_TIMEOUT,
    ConfigurationError,
    DeveloperKnowledgeConnection,
    DeveloperKnowledgeConnectionArgs,
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
    RetryPolicy,
)

from ._arguments import StrictArguments
from ._serialization import Serialized

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["DeveloperKnowledgeSettings", "DiscoveryEngineSettings"]


class _Settings(Serialized, StrictArguments):
    """Where calls go (Google Cloud or an emulator) and their timeout and retry."""

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=True)

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
    timeout: float = Field(default=DEFAULT_TIMEOUT, description="seconds per attempt")
    retry: RetryPolicy | None = Field(
        default=DEFAULT_RETRY,
        description="backoff on UNAVAILABLE/RESOURCE_EXHAUSTED/DEADLINE_EXCEEDED (never INTERNAL); "
        "None disables retries",
    )

    # The core connection and the fields it is built from: assigning one drops it.
    _connection_class: ClassVar[type[Any]] = DeveloperKnowledgeConnection
    _connection_fields: ClassVar[frozenset[str]] = (
        DeveloperKnowledgeConnectionArgs.__optional_keys__
    )
    _connection: Any = PrivateAttr(default=None)

    def __setattr__(self, name: str, value: Any) -> None:
        # The core checks the value when the validator builds the core component again, after
        # pydantic has set the field: a refused value leaves the component as it was.
        fields, connection = dict(self.__dict__), self._connection
        if name in self._connection_fields:
            self._connection = None
        try:
            super().__setattr__(name, value)
        except ValidationError:
            object.__setattr__(self, "__dict__", fields)
            self._connection = connection
            raise

    # The connection says which setting cannot be pickled or copied (pydantic would copy the
    # raw field first, with an error that names no setting); the pickle holds the credentials
    # as given, and builds its own clients at its first call. A Google client given as
    # ``client`` (the checker's, the reranker's) is shared by a copy, as the connection is.
    def __getstate__(self) -> dict[Any, Any]:
        self.connection.check_picklable()
        client = getattr(self, "client", None)
        if client is not None:
            try:
                pickle.dumps(client)
            except Exception as exc:  # TypeError, PicklingError, AttributeError, ...
                raise ConfigurationError(
                    f"client ({type(client).__name__}) cannot be pickled ({exc}): leave client "
                    "out (the component builds Google's clients from credentials=, "
                    "client_options=, emulator_host=), or build the component in the process "
                    "that uses it"
                ) from exc
        return super().__getstate__()

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        self.connection.check_picklable()
        memo = {} if memo is None else memo
        client = getattr(self, "client", None)
        if client is not None:
            memo[id(client)] = client
        return super().__deepcopy__(memo)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with ``update`` assigned field by field, so that it is validated and what
        the component holds (its connection too) follows the new fields; pydantic's own copy
        skips both."""
        copied = super().model_copy(deep=deep)
        for name, value in (update or {}).items():
            setattr(copied, name, value)
        return copied

    @property
    def connection(self) -> Any:
        """The core connection (Google's clients, the call options), built once."""
        if self._connection is None:
            settings = {name: getattr(self, name) for name in self._connection_fields}
            self._connection = self._connection_class(**settings)
        return self._connection

    @property
    def clients(self) -> Any:
        """The core connection, which serves Google's clients (its old name)."""
        return self.connection

    @property
    def call_options(self) -> Any:
        """The per-call timeout and retry (the connection's)."""
        return self.connection.call_options


class DiscoveryEngineSettings(_Settings):
    """Connection settings of Discovery Engine (Vertex AI Search): one project and location."""

    project_id: str | None = Field(
        default=None,
        description="Google Cloud project; default: $GOOGLE_CLOUD_PROJECT or the default "
        "credentials' project (any project on the emulator)",
    )
    location: str = Field(
        default=DEFAULT_LOCATION, description="global, us or eu (picks the endpoint)"
    )

    _connection_class = DiscoveryEngineConnection
    _connection_fields = DiscoveryEngineConnectionArgs.__optional_keys__

    @property
    def location_id(self) -> str:
        """``location``, under langchain-google-community's name (assignable too)."""
        return self.location

    @location_id.setter
    def location_id(self, value: str) -> None:
        self.location = value


class DeveloperKnowledgeSettings(_Settings):
    """Connection settings of the Developer Knowledge API."""
