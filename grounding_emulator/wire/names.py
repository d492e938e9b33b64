"""Resource names the emulator accepts, parsed into their parts or refused with the field named.

Any project is accepted (as in a fresh project); the locations are the three that Google's
"Vertex AI Search locations" page (cloud.google.com/generative-ai-app-builder/docs/locations)
documents for these APIs, ``global`` and the multi-regions ``us`` and ``eu``. Google does not
document the status of another location: the emulator answers INVALID_ARGUMENT naming it.

Serving configs exist under data stores and engines, in the ``default_collection`` (or the
collection-less data store form), with the ids Google creates (``default_search``,
``default_config``, ``default_serving_config``).
The only grounding config is ``default_grounding_config``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grounding_emulator.errors import InvalidArgument, NotFound

__all__ = [
    "SERVING_CONFIGS",
    "AnswerName",
    "ParentName",
    "ServingConfigName",
    "SessionName",
    "check_document_name",
    "data_store_path",
    "parse_answer_name",
    "parse_grounding_config",
    "parse_serving_config",
    "parse_session_name",
    "parse_session_parent",
]

SERVING_CONFIGS = frozenset({"default_search", "default_config", "default_serving_config"})
GROUNDING_CONFIGS = frozenset({"default_grounding_config"})
COLLECTIONS = frozenset({"default_collection"})
LOCATIONS = ("global", "us", "eu")
MAX_DOCUMENT_NAME = 500

_SEGMENT = r"[A-Za-z0-9][A-Za-z0-9._:-]*"
DEFAULT_COLLECTION = "default_collection"
# The three forms of Google's reference pages: ``servingConfigs`` under a data store in a
# collection, under an engine (always in a collection), or under a collection-less data store.
_SERVING_CONFIG = re.compile(
    rf"^projects/(?P<project>{_SEGMENT})/locations/(?P<location>{_SEGMENT})"
    rf"(?:/collections/(?P<collection>{_SEGMENT}))?"
    rf"/(?P<kind>dataStores|engines)/(?P<parent>{_SEGMENT})"
    rf"/servingConfigs/(?P<serving_config>{_SEGMENT})$"
)
_GROUNDING_CONFIG = re.compile(
    rf"^projects/(?P<project>{_SEGMENT})/locations/(?P<location>{_SEGMENT})"
    rf"/groundingConfigs/(?P<grounding_config>{_SEGMENT})$"
)


@dataclass(frozen=True, slots=True)
class ServingConfigName:
    """The parts of a serving config resource name (a data store's or an engine's)."""

    project: str
    location: str
    collection: str | None
    data_store: str | None
    engine: str | None
    serving_config: str

    @property
    def parent_path(self) -> str:
        """The data store or engine resource name."""
        base = f"projects/{self.project}/locations/{self.location}"
        if self.collection is not None:
            base = f"{base}/collections/{self.collection}"
        if self.engine is not None:
            return f"{base}/engines/{self.engine}"
        return f"{base}/dataStores/{self.data_store}"


def _check_location(location: str, name: str, field: str) -> None:
    if location not in LOCATIONS:
        raise InvalidArgument(
            f"{field} {name!r}: location {location!r} is not a Vertex AI Search location: use "
            f"{', '.join(LOCATIONS[:-1])} or {LOCATIONS[-1]} (the multi-regions us and eu are "
            "served by us-discoveryengine.googleapis.com and eu-discoveryengine.googleapis.com)",
            field=field,
        )


def parse_serving_config(name: str, field: str = "serving_config") -> ServingConfigName:
    """Parse a serving config name in any of its three forms; malformed (or an engine outside a
    collection) -> ``InvalidArgument``, unknown collection or serving config id -> ``NotFound``
    (the data store or engine is looked up by the caller)."""
    if not name:
        raise InvalidArgument(f"{field} is required", field=field)
    match = _SERVING_CONFIG.match(name)
    if match is not None and match["kind"] == "engines" and match["collection"] is None:
        raise InvalidArgument(
            f"{field} {name!r} is not a serving config name: engines live in a collection "
            "(projects/{p}/locations/{l}/collections/{c}/engines/{e}/servingConfigs/{s})",
            field=field,
        )
    if match is None:
        raise InvalidArgument(
            f"{field} {name!r} is not a serving config name: expected "
            "projects/{p}/locations/{l}/collections/{c}/dataStores/{d}/servingConfigs/{s}, "
            "projects/{p}/locations/{l}/collections/{c}/engines/{e}/servingConfigs/{s} or "
            "projects/{p}/locations/{l}/dataStores/{d}/servingConfigs/{s}",
            field=field,
        )
    _check_location(match["location"], name, field)
    engine = match["kind"] == "engines"
    target = ServingConfigName(
        project=match["project"],
        location=match["location"],
        collection=match["collection"],
        data_store=None if engine else match["parent"],
        engine=match["parent"] if engine else None,
        serving_config=match["serving_config"],
    )
    if target.collection is not None and target.collection not in COLLECTIONS:
        raise NotFound(f"collection {target.collection!r} not found (only default_collection)")
    if target.serving_config not in SERVING_CONFIGS:
        raise NotFound(
            f"serving config {target.serving_config!r} not found (serving configs: "
            f"{', '.join(sorted(SERVING_CONFIGS))})"
        )
    return target


def data_store_path(target: ServingConfigName, data_store_id: str) -> str:
    """The resource name of data store ``data_store_id`` in ``target``'s project and location
    (an engine's data stores live in its collection)."""
    collection = target.collection or DEFAULT_COLLECTION
    return (
        f"projects/{target.project}/locations/{target.location}"
        f"/collections/{collection}/dataStores/{data_store_id}"
    )


def parse_grounding_config(name: str, field: str = "grounding_config") -> str:
    """Check a grounding config name; returns its location path."""
    if not name:
        raise InvalidArgument(f"{field} is required", field=field)
    match = _GROUNDING_CONFIG.match(name)
    if match is None:
        raise InvalidArgument(
            f"{field} {name!r} is not a grounding config name: expected "
            "projects/{p}/locations/{l}/groundingConfigs/default_grounding_config",
            field=field,
        )
    _check_location(match.group("location"), name, field)
    if match.group("grounding_config") not in GROUNDING_CONFIGS:
        raise NotFound(
            f"grounding config {match.group('grounding_config')!r} not found "
            "(only default_grounding_config)"
        )
    return f"projects/{match.group('project')}/locations/{match.group('location')}"


def check_document_name(name: str, field: str = "name") -> str:
    """Check a Developer Knowledge document name (``documents/{uri without scheme}``)."""
    if not name:
        raise InvalidArgument(f"{field} is required", field=field)
    if len(name) > MAX_DOCUMENT_NAME:
        raise InvalidArgument(
            f"{field} has {len(name)} characters; at most {MAX_DOCUMENT_NAME} are allowed",
            field=field,
        )
    if not name.startswith("documents/") or len(name) == len("documents/") or "://" in name:
        raise InvalidArgument(
            f"{field} {name!r} is not a document name: expected documents/{{uri without scheme}}, "
            "e.g. documents/docs.python.org/3/reference/simple_stmts.html#assert",
            field=field,
        )
    return name


# -- sessions and answers (SessionService; ConversationalSearchService) ---------------------------
# The parents of the v1 HTTP bindings: projects/*/locations/*/dataStores/*,
# projects/*/locations/*/collections/*/dataStores/* and
# projects/*/locations/*/collections/*/engines/*.
_PARENT = (
    rf"projects/(?P<project>{_SEGMENT})/locations/(?P<location>{_SEGMENT})"
    rf"(?:/collections/(?P<collection>{_SEGMENT}))?"
    rf"/(?P<kind>dataStores|engines)/(?P<parent>{_SEGMENT})"
)
_SESSION_PARENT = re.compile(rf"^{_PARENT}$")
_SESSION = re.compile(rf"^{_PARENT}/sessions/(?P<session>-|{_SEGMENT})$")
_ANSWER = re.compile(
    rf"^{_PARENT}/sessions/(?P<session>{_SEGMENT})/answers/(?P<answer>{_SEGMENT})$"
)
_PARENT_FORMS = (
    "projects/{p}/locations/{l}/collections/{c}/engines/{e}, "
    "projects/{p}/locations/{l}/collections/{c}/dataStores/{d} or "
    "projects/{p}/locations/{l}/dataStores/{d}"
)


@dataclass(frozen=True, slots=True)
class ParentName:
    """A data store or engine that sessions live under, as named (``path``) and in its canonical
    form (``key``: a collection-less data store is the one in ``default_collection``)."""

    path: str
    project: str
    location: str
    collection: str | None
    data_store: str | None
    engine: str | None

    @property
    def key(self) -> str:
        """The canonical resource name (one per data store or engine)."""
        kind, parent = ("engines", self.engine) if self.engine else ("dataStores", self.data_store)
        collection = self.collection or DEFAULT_COLLECTION
        return (
            f"projects/{self.project}/locations/{self.location}"
            f"/collections/{collection}/{kind}/{parent}"
        )


@dataclass(frozen=True, slots=True)
class SessionName:
    """A session name: its parent and id (``-`` asks AnswerQuery to create one)."""

    parent: ParentName
    session: str

    @property
    def path(self) -> str:
        """The name as given."""
        return f"{self.parent.path}/sessions/{self.session}"

    @property
    def key(self) -> str:
        """The canonical name (see ``ParentName.key``)."""
        return f"{self.parent.key}/sessions/{self.session}"


@dataclass(frozen=True, slots=True)
class AnswerName:
    """An answer name: its session and id."""

    session: SessionName
    answer: str

    @property
    def key(self) -> str:
        """The canonical name (see ``ParentName.key``)."""
        return f"{self.session.key}/answers/{self.answer}"


def _parent(match: re.Match[str], name: str, field: str, expected: str) -> ParentName:
    _check_location(match["location"], name, field)
    if match["kind"] == "engines" and match["collection"] is None:
        raise InvalidArgument(
            f"{field} {name!r} is not {expected}: engines live in a collection "
            "(projects/{p}/locations/{l}/collections/{c}/engines/{e})",
            field=field,
        )
    _check_location(match["location"], name, field)
    if match["collection"] is not None and match["collection"] not in COLLECTIONS:
        raise NotFound(f"collection {match['collection']!r} not found (only default_collection)")
    engine = match["kind"] == "engines"
    path = name[: match.end("parent")]
    return ParentName(
        path=path,
        project=match["project"],
        location=match["location"],
        collection=match["collection"],
        data_store=None if engine else match["parent"],
        engine=match["parent"] if engine else None,
    )


def parse_session_parent(name: str, field: str = "parent") -> ParentName:
    """The data store or engine a session lives under (any of the three forms)."""
    if not name:
        raise InvalidArgument(f"{field} is required", field=field)
    match = _SESSION_PARENT.match(name)
    if match is None:
        raise InvalidArgument(
            f"{field} {name!r} is not a data store or engine name: expected {_PARENT_FORMS}",
            field=field,
        )
    return _parent(match, name, field, "a data store or engine name")


def parse_session_name(name: str, field: str = "name", *, allow_new: bool = False) -> SessionName:
    """A session name ``{parent}/sessions/{id}``; ``-`` (a new session) only with
    ``allow_new`` (AnswerQueryRequest.session)."""
    if not name:
        raise InvalidArgument(f"{field} is required", field=field)
    match = _SESSION.match(name)
    if match is None or (match["session"] == "-" and not allow_new):
        new = " (or sessions/- for a new session)" if allow_new else ""
        raise InvalidArgument(
            f"{field} {name!r} is not a session name: expected {{parent}}/sessions/{{session}}"
            f"{new}, the parent being {_PARENT_FORMS}",
            field=field,
        )
    return SessionName(_parent(match, name, field, "a session name"), match["session"])


def parse_answer_name(name: str, field: str = "name") -> AnswerName:
    """An answer name ``{parent}/sessions/{session}/answers/{answer}``."""
    if not name:
        raise InvalidArgument(f"{field} is required", field=field)
    match = _ANSWER.match(name)
    if match is None:
        raise InvalidArgument(
            f"{field} {name!r} is not an answer name: expected "
            f"{{parent}}/sessions/{{session}}/answers/{{answer}}, the parent being {_PARENT_FORMS}",
            field=field,
        )
    parent = _parent(match, name, field, "an answer name")
    return AnswerName(SessionName(parent, match["session"]), match["answer"])
