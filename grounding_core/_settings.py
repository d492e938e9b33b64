"""What to talk to (resource names), how long to wait (retry and timeout), and where from
(the project, the emulator): the settings every component shares, each default defined here.

``DiscoveryEngineTarget`` names a data store or an engine and builds every resource name the
calls need; its location is one of ``LOCATIONS``, the three that Google's "Vertex AI Search
locations" page documents: ``global`` and the multi-regions ``us`` and ``eu``.
``CallOptions`` holds the per-call timeout and retry policy: Google's clients set neither for
Search, CheckGrounding and AnswerQuery, so this project does.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from typing import TypedDict

import google.auth
import google.auth.exceptions
from google.api_core import exceptions as core_exceptions
from google.api_core import retry as retries
from google.api_core import retry_async

from ._checks import check_fields
from ._errors import ConfigurationError, InputError, message_too_large

DISCOVERYENGINE_EMULATOR_HOST = "DISCOVERYENGINE_EMULATOR_HOST"
"""The environment variable naming the Discovery Engine emulator's ``HOST:PORT``."""
DEVELOPERKNOWLEDGE_EMULATOR_HOST = "DEVELOPERKNOWLEDGE_EMULATOR_HOST"
"""The environment variable naming the Developer Knowledge emulator's ``HOST:PORT``."""
GROUNDING_DATA_STORE = "GROUNDING_DATA_STORE"
"""The environment variable naming the data store of a target that names none (ours, not
Google's; ``grounding serve`` prints the line that sets it)."""

DEFAULT_LOCATION = "global"
# The locations of the Discovery Engine APIs (Google's "Vertex AI Search locations" page).
LOCATIONS = (DEFAULT_LOCATION, "us", "eu")
DEFAULT_COLLECTION = "default_collection"
DEFAULT_SERVING_CONFIG = "default_search"
DEFAULT_GROUNDING_CONFIG = "default_grounding_config"
DEFAULT_RANKING_CONFIG = "default_ranking_config"
DEFAULT_BRANCH = "default_branch"
# Seconds per attempt of every call (Google's clients set none for these methods).
DEFAULT_TIMEOUT = 30.0
# Seconds an emulator channel may take to connect after a call found it UNAVAILABLE before
# the call fails for good (a stopped emulator is a setup error, not a transient one).
EMULATOR_CONNECT_TIMEOUT = 3.0

# Resource ids: letters, digits, '-', '_' (Discovery Engine allows up to 63 characters).
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,126}$")
# Project ids may be domain-scoped ("example.com:my-project") or numbers.
_PROJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.:_-]{0,126}$")
_SERVING_CONFIG_NAME = re.compile(
    r"^projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)"
    r"(?:/collections/(?P<collection>[^/]+))?"
    r"/(?P<kind>dataStores|engines)/(?P<parent>[^/]+)"
    r"/servingConfigs/(?P<serving_config>[^/]+)$"
)
_SESSION_NAME = re.compile(
    r"^projects/[^/]+/locations/(?P<parent>[^/]+(?:/[^/]+)*)/sessions/[^/]+$"
)


def _check_id(field_name: str, value: str, example: str, pattern: re.Pattern[str] = _ID) -> None:
    if not isinstance(value, str):
        raise ConfigurationError(
            f"{field_name} must be a string, got {type(value).__name__} (for example {example!r})"
        )
    if not value.strip():
        raise ConfigurationError(
            f"{field_name} is empty: give the {field_name} (for example {example!r})"
        )
    if not pattern.match(value):
        raise ConfigurationError(
            f"{field_name} {value!r} is not a valid resource id: use letters, digits, '-' and '_' "
            f"only, up to 127 characters (for example {example!r})"
        )


# An emulator is plaintext gRPC: these schemes name it too (an https:// one would need TLS).
_PLAINTEXT_SCHEMES = ("http://", "grpc://")
_HOST_PORT = re.compile(r"^(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s/:\[\]]+):(?P<port>[0-9]{1,5})$")


def emulator_address(value: str, source: str = "emulator_host") -> str:
    """The ``HOST:PORT`` of an emulator address as a user may write it (``source`` names the
    setting in errors: ``emulator_host``, ``--emulator-host``, an environment variable).

    ``http://`` and ``grpc://`` prefixes (and a trailing ``/``) are dropped; ``https://`` and
    anything but ``HOST:PORT`` raise ``ConfigurationError`` saying what to write.

    >>> emulator_address("http://127.0.0.1:8123/")
    '127.0.0.1:8123'
    >>> emulator_address("[::1]:8123")
    '[::1]:8123'
    """
    if not isinstance(value, str):
        raise ConfigurationError(
            f"{source} must be a string HOST:PORT (for example 127.0.0.1:8123), "
            f"got {type(value).__name__}"
        )
    address = value.strip()
    if "@" in address:
        # user:password@host: never echoed (the password is a secret); the emulator takes none.
        raise ConfigurationError(
            f"{source} has a user name or password (user:...@): the emulator takes none; write "
            "HOST:PORT, for example 127.0.0.1:8123"
        )
    lowered = address.lower()
    if lowered.startswith("https://"):
        raise ConfigurationError(
            f"{source} {value!r} uses https://, but the emulator speaks plaintext gRPC: write "
            f"{address[len('https://') :].rstrip('/')!r} (or http://...)"
        )
    for scheme in _PLAINTEXT_SCHEMES:
        if lowered.startswith(scheme):
            address = address[len(scheme) :]
            break
    address = address.removesuffix("/")
    match = _HOST_PORT.match(address)
    if match is None or not 0 < int(match["port"]) < 65536:
        raise ConfigurationError(
            f"{source} {value!r} is not HOST:PORT: write the address `grounding serve` prints, "
            "for example 127.0.0.1:8123 (an http:// or grpc:// prefix is accepted)"
        )
    return address


def check_location(location: str) -> str:
    """``location`` if it is one of ``LOCATIONS``, else ``ConfigurationError`` naming them.

    >>> check_location("eu")
    'eu'
    """
    _check_id("location", location, DEFAULT_LOCATION)
    if location not in LOCATIONS:
        raise ConfigurationError(
            f"location {location!r} is not a Vertex AI Search location: use 'global', 'us' or "
            "'eu' (Google serves Search, AnswerQuery and CheckGrounding there only; a data store "
            "created in 'US (multiple regions)' is in 'us', one in 'EU (multiple regions)' in "
            "'eu', any other in 'global')"
        )
    return location


@dataclass(frozen=True, slots=True)
class DiscoveryEngineTarget:
    """A Discovery Engine (Vertex AI Search) data store or engine, and its serving config.

    Exactly one of ``data_store`` and ``engine`` is required. ``collection=None`` selects the
    collection-less data store form (``projects/p/locations/l/dataStores/d/...``) that the API
    also accepts; engines always live in a collection.

    >>> t = DiscoveryEngineTarget(project="my-project", data_store="docs")
    >>> t.serving_config_path
    'projects/my-project/locations/global/collections/default_collection/dataStores/docs/servingConfigs/default_search'
    >>> DiscoveryEngineTarget.from_serving_config(t.serving_config_path) == t
    True
    """

    project: str
    data_store: str | None = None
    engine: str | None = None
    location: str = DEFAULT_LOCATION
    collection: str | None = DEFAULT_COLLECTION
    serving_config: str = DEFAULT_SERVING_CONFIG
    grounding_config: str = DEFAULT_GROUNDING_CONFIG
    branch: str = DEFAULT_BRANCH

    def __post_init__(self) -> None:
        _check_id("project", self.project, "my-project", _PROJECT)
        check_location(self.location)
        if self.data_store is None and self.engine is None:
            raise ConfigurationError(
                "no data store and no engine: give a data store id or an engine (app) id, "
                "exactly one of them"
            )
        if self.data_store is not None and self.engine is not None:
            raise ConfigurationError(
                f"both a data store ({self.data_store!r}) and an engine ({self.engine!r}) were "
                "given: a search goes to one serving config, give exactly one of them"
            )
        if self.data_store is not None:
            _check_id("data_store", self.data_store, "my-docs-store")
        if self.engine is not None:
            _check_id("engine", self.engine, "my-search-app")
            if self.collection is None:
                raise ConfigurationError(
                    "collection=None is only valid for data stores: engines live in a "
                    f"collection (use the default {DEFAULT_COLLECTION!r})"
                )
        if self.collection is not None:
            _check_id("collection", self.collection, DEFAULT_COLLECTION)
        _check_id("serving_config", self.serving_config, DEFAULT_SERVING_CONFIG)
        _check_id("grounding_config", self.grounding_config, DEFAULT_GROUNDING_CONFIG)
        _check_id("branch", self.branch, DEFAULT_BRANCH)

    @classmethod
    def from_serving_config(cls, name: str) -> DiscoveryEngineTarget:
        """Parse any of the three serving-config resource name forms."""
        match = _SERVING_CONFIG_NAME.match(name)
        if match is None:
            raise ConfigurationError(
                f"serving config name {name!r} is not one of the three forms "
                "projects/{p}/locations/{l}/collections/{c}/dataStores/{d}/servingConfigs/{s}, "
                "projects/{p}/locations/{l}/collections/{c}/engines/{e}/servingConfigs/{s} or "
                "projects/{p}/locations/{l}/dataStores/{d}/servingConfigs/{s}"
            )
        parts = match.groupdict()
        kind = "data_store" if parts["kind"] == "dataStores" else "engine"
        return cls(
            project=parts["project"],
            location=parts["location"],
            collection=parts["collection"],
            serving_config=parts["serving_config"],
            **{kind: parts["parent"]},
        )

    def replace(self, **changes: object) -> DiscoveryEngineTarget:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    @property
    def location_path(self) -> str:
        """``projects/{project}/locations/{location}``."""
        return f"projects/{self.project}/locations/{self.location}"

    @property
    def parent_path(self) -> str:
        """The data store or engine resource name."""
        base = self.location_path
        if self.collection is not None:
            base = f"{base}/collections/{self.collection}"
        if self.engine is not None:
            return f"{base}/engines/{self.engine}"
        return f"{base}/dataStores/{self.data_store}"

    def data_store_path(self, data_store: str) -> str:
        """``data_store`` as a full resource name: as given when it is one, else the data store
        of that id in this target's project, location and collection."""
        if data_store.startswith("projects/"):
            return data_store
        collection = f"/collections/{self.collection}" if self.collection is not None else ""
        return f"{self.location_path}{collection}/dataStores/{data_store}"

    @property
    def serving_config_path(self) -> str:
        """The serving config resource name that Search and AnswerQuery take."""
        return f"{self.parent_path}/servingConfigs/{self.serving_config}"

    @property
    def branch_path(self) -> str:
        """The data store branch (documents live there); engines have none."""
        if self.engine is not None:
            raise ConfigurationError("an engine has no branch: branches belong to data stores")
        return f"{self.parent_path}/branches/{self.branch}"

    @property
    def grounding_config_path(self) -> str:
        """``projects/{p}/locations/{l}/groundingConfigs/{g}``, as CheckGrounding takes it."""
        return config_path(self.project, self.location, "grounding", self.grounding_config)

    def session_path(self, session: str = "-") -> str:
        """A session of the engine or data store (Google names sessions under both): an id
        (``-`` asks AnswerQuery to start a new one) or a session's resource name, as
        ``AnswerQueryResponse.session.name`` gives it (whose project may be the number)."""
        parent = self.parent_path.partition("/locations/")[2]
        match = _SESSION_NAME.match(session)
        if match is not None:
            if match["parent"] != parent:
                raise ConfigurationError(
                    f"session {session!r} is not a session of {self.parent_path}: continue it "
                    "with the engine or data store that created it"
                )
            return session
        if session != "-":
            _check_id("session", session, "-")
        return f"{self.parent_path}/sessions/{session}"


def config_path(project: str, location: str, kind: str, config: str) -> str:
    """``projects/{project}/locations/{location}/{kind}Configs/{config}``, each part checked:
    the grounding config CheckGrounding takes, the ranking config Rank takes.

    >>> config_path("my-project", "global", "grounding", DEFAULT_GROUNDING_CONFIG)
    'projects/my-project/locations/global/groundingConfigs/default_grounding_config'
    """
    _check_id("project", project, "my-project", _PROJECT)
    check_location(location)
    _check_id(f"{kind}_config", config, f"default_{kind}_config")
    return f"projects/{project}/locations/{location}/{kind}Configs/{config}"


def is_transient(exc: BaseException) -> bool:
    """Whether a failed attempt may succeed when tried again: what ``RetryPolicy`` retries.

    Retried: ``UNAVAILABLE`` (the one code AIP-194, google.aip.dev/194, calls retryable, and the
    only one Google's generated Discovery Engine clients retry where they retry at all),
    ``CANCELLED`` from the server (a server that stops gracefully cancels the calls in flight;
    the caller's own cancellation is ``asyncio.CancelledError``, never seen here),
    ``DEADLINE_EXCEEDED`` of one attempt (``CallOptions.timeout``; ``RetryPolicy.deadline``
    bounds the whole call) and ``RESOURCE_EXHAUSTED`` for quota (it refills; the backoff
    spaces the attempts).

    Not retried: ``INVALID_ARGUMENT`` and every other code; ``RESOURCE_EXHAUSTED`` for a message
    over gRPC's size limit (the same request is as large next time); ``INTERNAL``: Google's
    generated clients of Search, CheckGrounding and AnswerQuery retry nothing
    (``_prep_wrapped_messages`` gives them no default retry) and AIP-194 lists ``INTERNAL``
    among the generally non-retryable codes (a server bug fails the same way every time).
    """
    if isinstance(exc, core_exceptions.ResourceExhausted):
        return message_too_large(exc) is None
    return isinstance(
        exc,
        core_exceptions.ServiceUnavailable
        | core_exceptions.Cancelled
        | core_exceptions.DeadlineExceeded,
    )


def _check_numbers(record: RetryPolicy | CallOptions) -> None:
    """The fields' declared types (finite numbers), as settings: ``ConfigurationError``."""
    try:
        check_fields(record)
    except InputError as exc:
        raise ConfigurationError.of(exc) from exc


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential backoff for transient failures of idempotent reads (``is_transient``:
    ``UNAVAILABLE``, ``CANCELLED`` by the server, ``DEADLINE_EXCEEDED`` of an attempt,
    ``RESOURCE_EXHAUSTED`` for quota; never ``INVALID_ARGUMENT``, ``INTERNAL`` or a message
    over the size limit). Every field is a finite number of seconds (``multiplier``: a factor
    >= 1); ``deadline`` bounds the whole call including its retries.

    >>> RetryPolicy(initial=0.05, maximum=1.0, deadline=10.0).to_retry()  # doctest: +ELLIPSIS
    <google.api_core.retry...Retry object at ...>
    """

    initial: float = 0.1
    maximum: float = 10.0
    multiplier: float = 2.0
    deadline: float = 60.0

    def __post_init__(self) -> None:
        _check_numbers(self)
        for name in ("initial", "maximum", "deadline"):
            if getattr(self, name) <= 0:
                raise ConfigurationError(f"RetryPolicy.{name} must be > 0 seconds")
        if self.multiplier < 1:
            raise ConfigurationError("RetryPolicy.multiplier must be >= 1")

    def _kwargs(self) -> dict[str, object]:
        return {
            "predicate": is_transient,
            "initial": self.initial,
            "maximum": self.maximum,
            "multiplier": self.multiplier,
            "timeout": self.deadline,
        }

    def to_retry(self) -> retries.Retry:
        """The equivalent ``google.api_core.retry.Retry`` (sync clients)."""
        return retries.Retry(**self._kwargs())  # type: ignore[arg-type]

    def to_async_retry(self) -> retry_async.AsyncRetry:
        """The equivalent ``AsyncRetry`` (async clients)."""
        return retry_async.AsyncRetry(**self._kwargs())  # type: ignore[arg-type]


# The retry policy of every call unless the caller gives another (or ``None``).
DEFAULT_RETRY = RetryPolicy()


@dataclass(frozen=True, slots=True)
class CallOptions:
    """Timeout (a finite number of seconds > 0, per attempt) and retry policy of every call;
    ``retry=None`` disables retries.

    >>> CallOptions(timeout=5.0, retry=None)
    CallOptions(timeout=5.0, retry=None)
    """

    timeout: float = DEFAULT_TIMEOUT
    retry: RetryPolicy | None = DEFAULT_RETRY

    def __post_init__(self) -> None:
        _check_numbers(self)
        if not self.timeout > 0:
            raise ConfigurationError(f"timeout must be > 0 seconds, got {self.timeout!r}")
        if self.retry is not None and not isinstance(self.retry, RetryPolicy):
            raise ConfigurationError(
                f"retry must be a RetryPolicy or None, got {type(self.retry).__name__}"
            )

    def call_kwargs(self) -> SyncCallKwargs:
        """``retry`` and ``timeout`` keyword arguments for a sync client method."""
        return {"retry": self.retry.to_retry() if self.retry else None, "timeout": self.timeout}

    def async_call_kwargs(self) -> AsyncCallKwargs:
        """``retry`` and ``timeout`` keyword arguments for an async client method."""
        retry = self.retry.to_async_retry() if self.retry else None
        return {"retry": retry, "timeout": self.timeout}


class SyncCallKwargs(TypedDict):
    """Keyword arguments of a sync Google client method call."""

    retry: retries.Retry | None
    timeout: float


class AsyncCallKwargs(TypedDict):
    """Keyword arguments of an async Google client method call."""

    retry: retry_async.AsyncRetry | None
    timeout: float


PROJECT_ENV_VARS = ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT")
EMULATOR_PROJECT = "emulator-project"


def resolve_project(project: str | None, *, emulator: bool) -> str:
    """The project to use: ``project`` if given, else ``$GOOGLE_CLOUD_PROJECT`` (or
    ``$GCLOUD_PROJECT``), else the project of the application default credentials; against an
    emulator, which accepts any project, ``"emulator-project"`` (as Google's Firestore client
    does)."""
    if project:
        return project
    for name in PROJECT_ENV_VARS:
        if os.environ.get(name):
            return os.environ[name]
    if emulator:
        return EMULATOR_PROJECT
    try:
        _, found = google.auth.default()
    except google.auth.exceptions.DefaultCredentialsError as exc:
        raise ConfigurationError(
            "no project id: pass project_id=..., set GOOGLE_CLOUD_PROJECT, or run "
            "`gcloud auth application-default login` so that the default credentials name one"
        ) from exc
    if not found:
        raise ConfigurationError(
            "no project id: the default credentials name no project; pass project_id=... "
            "or set GOOGLE_CLOUD_PROJECT"
        )
    return str(found)


def default_data_store() -> str | None:
    """The data store ``$GROUNDING_DATA_STORE`` names, if it is set and not empty; a
    ``ConfigurationError`` naming the variable when it is not a valid id."""
    value = os.environ.get(GROUNDING_DATA_STORE) or None
    if value is not None:
        _check_id(f"${GROUNDING_DATA_STORE}", value, "my-docs-store")
    return value
