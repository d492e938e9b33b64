"""The settings every component shares, each default defined here: what to talk to (resource
names), how long to wait (retry and timeout), and where from (the project, the emulator)."""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from typing import Any

import google.auth
import google.auth.exceptions
from google.api_core import exceptions as core_exceptions
from google.api_core import retry as retries
from google.api_core import retry_async

from ._checks import check_fields
from ._errors import ConfigurationError, InputError, message_too_large, unresolved_host

DISCOVERYENGINE_EMULATOR_HOST = "DISCOVERYENGINE_EMULATOR_HOST"
"""The environment variable naming the Discovery Engine emulator's ``HOST:PORT``."""
DEVELOPERKNOWLEDGE_EMULATOR_HOST = "DEVELOPERKNOWLEDGE_EMULATOR_HOST"
"""The environment variable naming the Developer Knowledge emulator's ``HOST:PORT``."""
GROUNDING_DATA_STORE = "GROUNDING_DATA_STORE"
"""The environment variable naming the data store of a target that names none (ours, not
Google's; ``grounding serve`` prints the line that sets it)."""

DEFAULT_LOCATION = "global"
# The three locations Google's "Vertex AI Search locations" page documents.
LOCATIONS = (DEFAULT_LOCATION, "us", "eu")
DEFAULT_COLLECTION = "default_collection"
DEFAULT_SERVING_CONFIG = "default_search"
DEFAULT_GROUNDING_CONFIG = "default_grounding_config"
DEFAULT_RANKING_CONFIG = "default_ranking_config"
# Seconds per attempt of every call (Google's clients set none for these methods).
DEFAULT_TIMEOUT = 30.0
# Seconds an emulator channel may take to connect after a call found it UNAVAILABLE before
# the call fails for good (a stopped emulator is a setup error, not a transient one).
EMULATOR_CONNECT_TIMEOUT = 3.0
PROJECT_ENV_VARS = ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT")
EMULATOR_PROJECT = "emulator-project"

# Resource ids: letters, digits, '-', '_' (Discovery Engine allows up to 63 characters).
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,126}$")
# Project ids may be domain-scoped ("example.com:my-project") or numbers.
_PROJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.:_-]{0,126}$")
_SERVING_CONFIG_NAME = re.compile(
    r"^projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)"
    r"(?:/collections/(?P<collection>[^/]+))?"
    r"/(?:dataStores/(?P<data_store>[^/]+)|engines/(?P<engine>[^/]+))"
    r"/servingConfigs/(?P<serving_config>[^/]+)$"
)
_SESSION = re.compile(r"^projects/[^/]+/locations/(?P<parent>[^/]+(?:/[^/]+)*)/sessions/[^/]+$")
# A collection-less data store after its location: the one in the default collection.
_BARE_DATA_STORE = re.compile(r"^(?P<location>[^/]+)/dataStores/(?P<data_store>[^/]+)$")
_HOST_PORT = re.compile(r"^(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s/:\[\]]+):(?P<port>[0-9]{1,5})$")


def _check_id(field_name: str, value: object, example: str, pattern: re.Pattern[str] = _ID) -> None:
    if not isinstance(value, str):
        problem = f"must be a string, got {type(value).__name__}"
    elif not value.strip():
        problem = f"is empty: give the {field_name}"
    elif not pattern.match(value):
        problem = (
            f"{value!r} is not a valid resource id: use letters, digits, '-' and '_' only, up "
            "to 127 characters"
        )
    else:
        return
    raise ConfigurationError(f"{field_name} {problem} (for example {example!r})", field=field_name)


def emulator_address(value: object, source: str = "emulator_host") -> str:
    """The ``HOST:PORT`` of an emulator address as users write it (``source`` names it in
    errors): ``http://``, ``grpc://`` and a trailing ``/`` dropped; ``https://`` refused."""
    example = "for example 127.0.0.1:8123"
    if not isinstance(value, str):
        problem = f"must be a string HOST:PORT ({example}), got {type(value).__name__}"
    elif "@" in value:  # user:password@host: never echoed; the emulator takes none
        problem = "has a user name or password (user:...@): the emulator takes none; write "
        problem += f"HOST:PORT, {example}"
    elif (address := value.strip()).lower().startswith("https://"):
        problem = (
            f"{value!r} uses https://, but the emulator speaks plaintext gRPC: write "
            f"{address[len('https://') :].rstrip('/')!r} (or http://...)"
        )
    else:
        address = re.sub("(?i)^(http|grpc)://", "", address).removesuffix("/")
        match = _HOST_PORT.match(address)
        if match is not None and 0 < int(match["port"]) < 65536:
            return address
        problem = (
            f"{value!r} is not HOST:PORT: write the address `grounding serve` prints, {example} "
            "(an http:// or grpc:// prefix is accepted)"
        )
    raise ConfigurationError(f"{source} {problem}", field=source)


def check_location(location: str) -> str:
    """``location`` if it is one of ``LOCATIONS``, else ``ConfigurationError`` naming them."""
    _check_id("location", location, DEFAULT_LOCATION)
    if location not in LOCATIONS:
        raise ConfigurationError(
            f"location {location!r} is not a Vertex AI Search location: use 'global', 'us' or "
            "'eu' (Google serves Search, AnswerQuery and CheckGrounding there only; a data store "
            "created in 'US (multiple regions)' is in 'us', one in 'EU (multiple regions)' in "
            "'eu', any other in 'global')",
            field="location",
        )
    return location


@dataclass(frozen=True, slots=True)
class DiscoveryEngineTarget:
    """A Discovery Engine (Vertex AI Search) data store or engine, and its serving config.

    Exactly one of ``data_store`` and ``engine`` is required; ``collection=None`` selects the
    collection-less data store form the API also accepts (engines are always in a collection).

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
        return cls(**match.groupdict())

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
        if self.engine is not None:
            return f"{self.location_path}/collections/{self.collection}/engines/{self.engine}"
        return self.data_store_path(str(self.data_store))

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
    def grounding_config_path(self) -> str:
        """``projects/{p}/locations/{l}/groundingConfigs/{g}``, as CheckGrounding takes it."""
        return config_path(self.project, self.location, "grounding", self.grounding_config)

    def session_path(self, session: str = "-") -> str:
        """A session of the engine or data store: an id (``-``: a new one) or a session's name
        as ``AnswerQueryResponse.session.name`` gives it (whose project may be the number, and
        whose data store is in its collection even when this target's is collection-less:
        ``Session.name``, "Fully qualified name
        ``projects/{project}/locations/global/collections/{collection}/...``")."""
        match = _SESSION.match(session)
        if match is not None:
            if _in_collection(match["parent"]) != _in_collection(
                self.parent_path.partition("/locations/")[2]
            ):
                raise ConfigurationError(
                    f"session {session!r} is not a session of {self.parent_path}: continue it "
                    "with the engine or data store that created it"
                )
            return session
        if session != "-":
            _check_id("session", session, "-")
        return f"{self.parent_path}/sessions/{session}"


def _in_collection(parent: str) -> str:
    """A data store or engine name after ``locations/``, a collection-less data store as the
    one in the default collection (the two forms name the same data store)."""
    match = _BARE_DATA_STORE.match(parent)
    if match is None:
        return parent
    return f"{match['location']}/collections/{DEFAULT_COLLECTION}/dataStores/{match['data_store']}"


def config_path(project: str, location: str, kind: str, config: str) -> str:
    """``projects/{project}/locations/{location}/{kind}Configs/{config}``, each part checked:
    the grounding config CheckGrounding takes, the ranking config Rank takes."""
    _check_id("project", project, "my-project", _PROJECT)
    check_location(location)
    _check_id(f"{kind}_config", config, f"default_{kind}_config")
    return f"projects/{project}/locations/{location}/{kind}Configs/{config}"


def is_transient(exc: BaseException) -> bool:
    """Whether a failed attempt may succeed when tried again: what ``RetryPolicy`` retries.

    Retried: ``UNAVAILABLE`` (AIP-194's one retryable code, the only one Google's generated
    clients retry where they retry at all), ``CANCELLED`` by a server that stops,
    ``DEADLINE_EXCEEDED`` of one attempt, ``RESOURCE_EXHAUSTED`` for quota. Not: the other codes,
    a message over gRPC's size limit, ``INTERNAL`` (Google's clients and AIP-194 do not retry it),
    an ``UNAVAILABLE`` saying the host name does not resolve (no network, DNS, a wrong endpoint:
    retrying for a minute would only hide it).
    """
    errors = core_exceptions
    if unresolved_host(exc):
        return False
    if isinstance(exc, errors.ResourceExhausted):
        return message_too_large(exc) is None
    return isinstance(exc, errors.ServiceUnavailable | errors.Cancelled | errors.DeadlineExceeded)


def _check_numbers(record: RetryPolicy | CallOptions) -> None:
    try:
        check_fields(record)
    except InputError as exc:
        raise ConfigurationError.of(exc) from exc


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential backoff for transient failures (``is_transient``). Each field is a finite
    number of seconds but ``multiplier`` (a factor >= 1); ``deadline`` bounds the whole call.

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
                raise ConfigurationError(f"RetryPolicy.{name} must be > 0 seconds", field=name)
        if self.multiplier < 1:
            raise ConfigurationError("RetryPolicy.multiplier must be >= 1", field="multiplier")

    def _kwargs(self) -> dict[str, Any]:
        backoff = {"initial": self.initial, "maximum": self.maximum, "multiplier": self.multiplier}
        return {"predicate": is_transient, "timeout": self.deadline, **backoff}

    def to_retry(self) -> retries.Retry:
        """The equivalent ``google.api_core.retry.Retry`` (sync clients)."""
        return retries.Retry(**self._kwargs())

    def to_async_retry(self) -> retry_async.AsyncRetry:
        """The equivalent ``AsyncRetry`` (async clients)."""
        return retry_async.AsyncRetry(**self._kwargs())


# The retry policy of every call unless the caller gives another (or ``None``).
DEFAULT_RETRY = RetryPolicy()


@dataclass(frozen=True, slots=True)
class CallOptions:
    """Timeout (a finite number of seconds > 0, per attempt) and retry policy of every call;
    ``retry=None`` disables retries."""

    timeout: float = DEFAULT_TIMEOUT
    retry: RetryPolicy | None = DEFAULT_RETRY

    def __post_init__(self) -> None:
        _check_numbers(self)
        if not self.timeout > 0:
            raise ConfigurationError(
                f"timeout must be > 0 seconds, got {self.timeout}", field="timeout"
            )
        if self.retry is not None and not isinstance(self.retry, RetryPolicy):
            raise ConfigurationError(
                f"retry must be a RetryPolicy or None, got {type(self.retry).__name__}"
            )

    def call_kwargs(self) -> dict[str, Any]:
        """``retry`` and ``timeout`` keyword arguments for a sync client method."""
        return {"retry": self.retry.to_retry() if self.retry else None, "timeout": self.timeout}

    def async_call_kwargs(self) -> dict[str, Any]:
        """``retry`` and ``timeout`` keyword arguments for an async client method."""
        retry = self.retry.to_async_retry() if self.retry else None
        return {"retry": retry, "timeout": self.timeout}


def resolve_project(project: str | None, *, emulator: bool) -> str:
    """``project``, else ``$GOOGLE_CLOUD_PROJECT`` (or ``$GCLOUD_PROJECT``), else on an emulator
    ``"emulator-project"`` (as Google's Firestore client), else the default credentials' one."""
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
