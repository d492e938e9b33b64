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

from grounding_emulator.errors import InvalidArgument, NotFound, excerpt

__all__ = [
    "BRANCHES",
    "DEFAULT_COLLECTION",
    "SERVING_CONFIGS",
    "AnswerName",
    "CollectionName",
    "ConversationName",
    "ParentName",
    "ServingConfigName",
    "SessionName",
    "canonical_name",
    "check_document_name",
    "data_store_path",
    "parse_answer_name",
    "parse_branch",
    "parse_collection",
    "parse_conversation_name",
    "parse_data_store_name",
    "parse_document_name",
    "parse_engine_name",
    "parse_grounding_config",
    "parse_location",
    "parse_ranking_config",
    "parse_serving_config",
    "parse_session_name",
    "parse_session_parent",
]

SERVING_CONFIGS = frozenset({"default_search", "default_config", "default_serving_config"})
GROUNDING_CONFIGS = frozenset({"default_grounding_config"})
RANKING_CONFIGS = frozenset({"default_ranking_config"})
COLLECTIONS = frozenset({"default_collection"})
LOCATIONS = ("global", "us", "eu")
MAX_DOCUMENT_NAME = 500

_SEGMENT = r"[A-Za-z0-9][A-Za-z0-9._:-]*"
DEFAULT_COLLECTION = "default_collection"
# A data store or an engine, in the three forms of Google's reference pages (and of the v1 HTTP
# bindings): a data store in a collection, an engine (always in a collection, checked by
# ``_parent``), a collection-less data store. Serving configs and sessions live under them.
_PARENT = (
    rf"projects/(?P<project>{_SEGMENT})/locations/(?P<location>{_SEGMENT})"
    rf"(?:/collections/(?P<collection>{_SEGMENT}))?"
    rf"/(?P<kind>dataStores|engines)/(?P<parent>{_SEGMENT})"
)
_SERVING_CONFIG = re.compile(rf"^{_PARENT}/servingConfigs/(?P<serving_config>{_SEGMENT})$")
_GROUNDING_CONFIG = re.compile(
    rf"^projects/(?P<project>{_SEGMENT})/locations/(?P<location>{_SEGMENT})"
    rf"/groundingConfigs/(?P<grounding_config>{_SEGMENT})$"
)
_LOCATION = re.compile(rf"^projects/(?P<project>{_SEGMENT})/locations/(?P<location>{_SEGMENT})$")
_RANKING_CONFIG = re.compile(
    rf"^projects/(?P<project>{_SEGMENT})/locations/(?P<location>{_SEGMENT})"
    rf"/rankingConfigs/(?P<ranking_config>{_SEGMENT})$"
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

    @property
    def parent_key(self) -> str:
        """The data store or engine's canonical name (``ParentName.key``: in its collection)."""
        return ParentName(
            self.parent_path,
            self.project,
            self.location,
            self.collection,
            self.data_store,
            self.engine,
        ).key


def _match(
    pattern: re.Pattern[str], name: str, field: str, what: str, expected: str
) -> re.Match[str]:
    """``name`` matched by ``pattern``; empty or unmatched is ``InvalidArgument`` saying it is
    not ``what`` and the form ``expected``."""
    if not name:
        raise InvalidArgument(f"{field} is required", field=field)
    match = pattern.match(name)
    if match is None:
        raise InvalidArgument(
            f"{field} {excerpt(name)} is not {what}: expected {expected}", field=field
        )
    return match


def _check_location(location: str, name: str, field: str) -> None:
    if location not in LOCATIONS:
        raise InvalidArgument(
            f"{field} {excerpt(name)}: location {excerpt(location)} is not a Vertex AI Search "
            "location: use "
            f"{', '.join(LOCATIONS[:-1])} or {LOCATIONS[-1]} (the multi-regions us and eu are "
            "served by us-discoveryengine.googleapis.com and eu-discoveryengine.googleapis.com)",
            field=field,
        )


def parse_serving_config(name: str, field: str = "serving_config") -> ServingConfigName:
    """Parse a serving config name in any of its three forms; malformed (or an engine outside a
    collection) -> ``InvalidArgument``, unknown collection or serving config id -> ``NotFound``
    (the data store or engine is looked up by the caller)."""
    what = "a serving config name"
    match = _match(
        _SERVING_CONFIG,
        name,
        field,
        what,
        "projects/{p}/locations/{l}/collections/{c}/dataStores/{d}/servingConfigs/{s}, "
        "projects/{p}/locations/{l}/collections/{c}/engines/{e}/servingConfigs/{s} or "
        "projects/{p}/locations/{l}/dataStores/{d}/servingConfigs/{s}",
    )
    parent = _parent(match, name, field, what, "/servingConfigs/{s}")
    target = ServingConfigName(
        project=parent.project,
        location=parent.location,
        collection=parent.collection,
        data_store=parent.data_store,
        engine=parent.engine,
        serving_config=match["serving_config"],
    )
    if target.serving_config not in SERVING_CONFIGS:
        raise NotFound(
            f"serving config {excerpt(target.serving_config)} not found (serving configs: "
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
    match = _match(
        _GROUNDING_CONFIG,
        name,
        field,
        "a grounding config name",
        "projects/{p}/locations/{l}/groundingConfigs/default_grounding_config",
    )
    _check_location(match.group("location"), name, field)
    if match.group("grounding_config") not in GROUNDING_CONFIGS:
        raise NotFound(
            f"grounding config {excerpt(match.group('grounding_config'))} not found "
            "(only default_grounding_config)"
        )
    return f"projects/{match.group('project')}/locations/{match.group('location')}"


def parse_location(name: str, field: str = "location") -> str:
    """Check a location name (``projects/{p}/locations/{l}``, one of ``LOCATIONS``)."""
    match = _match(_LOCATION, name, field, "a location name", "projects/{p}/locations/{l}")
    _check_location(match.group("location"), name, field)
    return name


def parse_ranking_config(name: str, field: str = "ranking_config") -> str:
    """Check a ranking config name (``RankRequest.ranking_config``: "such as
    projects/{project_num}/locations/{location}/rankingConfigs/default_ranking_config"); returns
    its location path."""
    match = _match(
        _RANKING_CONFIG,
        name,
        field,
        "a ranking config name",
        "projects/{p}/locations/{l}/rankingConfigs/default_ranking_config",
    )
    _check_location(match.group("location"), name, field)
    if match.group("ranking_config") not in RANKING_CONFIGS:
        raise NotFound(
            f"ranking config {excerpt(match.group('ranking_config'))} not found "
            "(only default_ranking_config)"
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
            f"{field} {excerpt(name)} is not a document name: expected "
            "documents/{uri without scheme}, "
            "e.g. documents/docs.python.org/3/reference/simple_stmts.html#assert",
            field=field,
        )
    return name


# -- sessions and answers (SessionService; ConversationalSearchService) ---------------------------
# Under the parents of the v1 HTTP bindings (``_PARENT``).
_SESSION_PARENT = re.compile(rf"^{_PARENT}$")
_SESSION = re.compile(rf"^{_PARENT}/sessions/(?P<session>{_SEGMENT})$")
_SESSION_OR_NEW = re.compile(rf"^{_PARENT}/sessions/(?P<session>-|{_SEGMENT})$")
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
    def key(self) -> str:
        """The canonical name (see ``ParentName.key``), which is also the session's ``name``."""
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


def _parent(
    match: re.Match[str], name: str, field: str, expected: str, tail: str = ""
) -> ParentName:
    """The data store or engine of a name matched by a pattern made with ``_PARENT`` (``tail``:
    what follows it in the form, for the message): an engine outside a collection or another
    location is ``InvalidArgument``, another collection ``NotFound``."""
    if match["kind"] == "engines" and match["collection"] is None:
        raise InvalidArgument(
            f"{field} {excerpt(name)} is not {expected}: engines live in a collection "
            f"(projects/{{p}}/locations/{{l}}/collections/{{c}}/engines/{{e}}{tail})",
            field=field,
        )
    _check_location(match["location"], name, field)
    if match["collection"] is not None and match["collection"] not in COLLECTIONS:
        raise NotFound(
            f"collection {excerpt(match['collection'])} not found (only default_collection)"
        )
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
    what = "a data store or engine name"
    match = _match(_SESSION_PARENT, name, field, what, _PARENT_FORMS)
    return _parent(match, name, field, what)


def parse_session_name(name: str, field: str = "name", *, allow_new: bool = False) -> SessionName:
    """A session name ``{parent}/sessions/{id}``; ``-`` (a new session) only with
    ``allow_new`` (AnswerQueryRequest.session)."""
    new = " (or sessions/- for a new session)" if allow_new else ""
    match = _match(
        _SESSION_OR_NEW if allow_new else _SESSION,
        name,
        field,
        "a session name",
        f"{{parent}}/sessions/{{session}}{new}, the parent being {_PARENT_FORMS}",
    )
    return SessionName(_parent(match, name, field, "a session name"), match["session"])


def parse_answer_name(name: str, field: str = "name") -> AnswerName:
    """An answer name ``{parent}/sessions/{session}/answers/{answer}``."""
    what = "an answer name"
    match = _match(
        _ANSWER,
        name,
        field,
        what,
        f"{{parent}}/sessions/{{session}}/answers/{{answer}}, the parent being {_PARENT_FORMS}",
    )
    parent = _parent(match, name, field, what)
    return AnswerName(SessionName(parent, match["session"]), match["answer"])


# -- conversations (ConversationalSearchService) ---------------------------------------------------
# Conversations live under the same parents as sessions (the v1 HTTP bindings of
# CreateConversation and ListConversations); parse_session_parent reads them.
_CONVERSATION = re.compile(rf"^{_PARENT}/conversations/(?P<conversation>-|{_SEGMENT})$")


@dataclass(frozen=True, slots=True)
class ConversationName:
    """A conversation name: its parent and id (``-`` asks ConverseConversation to create one)."""

    parent: ParentName
    conversation: str

    @property
    def key(self) -> str:
        """The canonical name (see ``ParentName.key``)."""
        return f"{self.parent.key}/conversations/{self.conversation}"


def parse_conversation_name(
    name: str, field: str = "name", *, allow_new: bool = False
) -> ConversationName:
    """A conversation name ``{parent}/conversations/{id}``; ``-`` (auto session: "automatically
    creates a new conversation", ``ConverseConversationRequest.name``) only with ``allow_new``."""
    if not name:
        raise InvalidArgument(f"{field} is required", field=field)
    match = _CONVERSATION.match(name)
    if match is None or (match["conversation"] == "-" and not allow_new):
        new = " (or conversations/- for a new conversation)" if allow_new else ""
        raise InvalidArgument(
            f"{field} {excerpt(name)} is not a conversation name: expected "
            f"{{parent}}/conversations/{{conversation}}{new}, the parent being {_PARENT_FORMS}",
            field=field,
        )
    parent = _parent(match, name, field, "a conversation name")
    return ConversationName(parent, match["conversation"])


# -- resources (DataStoreService, EngineService, DocumentService, Operations) ---------------------
# The forms of the v1 HTTP bindings: collections (``projects/*/locations/*/collections/*``, and
# ``projects/*/locations/*`` for CreateDataStore and ListDataStores), data stores in a collection
# or not, engines in a collection, branches and documents under a data store.
BRANCHES = ("default_branch", "0")
_COLLECTION = re.compile(
    rf"^projects/(?P<project>{_SEGMENT})/locations/(?P<location>{_SEGMENT})"
    rf"(?:/collections/(?P<collection>{_SEGMENT}))?$"
)
_RESOURCE = re.compile(rf"^{_PARENT}$")
_BRANCH = re.compile(rf"^{_PARENT}/branches/(?P<branch>{_SEGMENT})$")
_DOCUMENT = re.compile(
    rf"^{_PARENT}/branches/(?P<branch>{_SEGMENT})/documents/(?P<document>{_SEGMENT})$"
)
_DATA_STORE_FORMS = (
    "projects/{p}/locations/{l}/collections/{c}/dataStores/{d} or "
    "projects/{p}/locations/{l}/dataStores/{d}"
)


@dataclass(frozen=True, slots=True)
class CollectionName:
    """A collection (``default_collection`` for the collection-less forms)."""

    project: str
    location: str
    collection: str

    @property
    def path(self) -> str:
        """The canonical name ``projects/{p}/locations/{l}/collections/{c}``."""
        return f"projects/{self.project}/locations/{self.location}/collections/{self.collection}"


def parse_collection(name: str, field: str = "parent", *, bare: bool = False) -> CollectionName:
    """A collection name; with ``bare``, ``projects/{p}/locations/{l}`` too (the collection-less
    bindings of CreateDataStore and ListDataStores). Another location is ``INVALID_ARGUMENT``,
    another collection than ``default_collection`` ``NOT_FOUND``."""
    forms = "projects/{p}/locations/{l}/collections/{c}"
    match = _match(
        _COLLECTION,
        name,
        field,
        "a collection name",
        forms + (" or projects/{p}/locations/{l}" if bare else ""),
    )
    if match["collection"] is None and not bare:
        raise InvalidArgument(
            f"{field} {excerpt(name)} is not a collection name: expected {forms}", field=field
        )
    _check_location(match["location"], name, field)
    collection = match["collection"] or DEFAULT_COLLECTION
    if collection not in COLLECTIONS:
        raise NotFound(f"collection {excerpt(collection)} not found (only default_collection)")
    return CollectionName(match["project"], match["location"], collection)


def _resource(match: re.Match[str], name: str, field: str, kind: str, forms: str) -> ParentName:
    if match["kind"] != kind:
        what = "a data store name" if kind == "dataStores" else "an engine name"
        raise InvalidArgument(
            f"{field} {excerpt(name)} is not {what}: expected {forms}", field=field
        )
    return _parent(
        match, name, field, "a data store name" if kind == "dataStores" else "an engine name"
    )


def parse_data_store_name(name: str, field: str = "name") -> ParentName:
    """A data store name, in a collection or not."""
    match = _match(_RESOURCE, name, field, "a data store name", _DATA_STORE_FORMS)
    return _resource(match, name, field, "dataStores", _DATA_STORE_FORMS)


def parse_engine_name(name: str, field: str = "name") -> ParentName:
    """An engine name (engines live in a collection)."""
    forms = "projects/{p}/locations/{l}/collections/{c}/engines/{e}"
    match = _match(_RESOURCE, name, field, "an engine name", forms)
    return _resource(match, name, field, "engines", forms)


def _branch(match: re.Match[str], name: str, field: str, tail: str) -> ParentName:
    what = "a branch name" if not tail else "a document name"
    if match["kind"] != "dataStores":
        raise InvalidArgument(
            f"{field} {excerpt(name)} is not {what}: branches live under data stores "
            f"({_DATA_STORE_FORMS}, then /branches/default_branch{tail})",
            field=field,
        )
    parent = _parent(match, name, field, what)
    if match["branch"] not in BRANCHES:
        raise NotFound(f"branch {excerpt(match['branch'])} not found (only default_branch)")
    return parent


def parse_branch(name: str, field: str = "parent") -> ParentName:
    """The data store of a branch name ``{data store}/branches/default_branch``."""
    expected = f"{{data store}}/branches/default_branch, the data store being {_DATA_STORE_FORMS}"
    match = _match(_BRANCH, name, field, "a branch name", expected)
    return _branch(match, name, field, "")


def parse_document_name(name: str, field: str = "name") -> tuple[ParentName, str]:
    """The data store and id of a document name ``{data store}/branches/{b}/documents/{id}``."""
    expected = (
        f"{{data store}}/branches/default_branch/documents/{{id}}, the data store being "
        f"{_DATA_STORE_FORMS}"
    )
    match = _match(_DOCUMENT, name, field, "a document name", expected)
    return _branch(match, name, field, "/documents/{id}"), match["document"]


def canonical_name(name: str) -> str:
    """``name`` in the form operations are kept under: a collection-less data store in
    ``default_collection``, the default branch as ``0`` (as Google names its operations:
    ``.../dataStores/{d}/branches/0/operations/import-documents-...``)."""
    parts = name.split("/")
    if len(parts) > 4 and (parts[0], parts[2], parts[4]) == ("projects", "locations", "dataStores"):
        parts[4:4] = ["collections", DEFAULT_COLLECTION]
    for index in range(len(parts) - 1):
        if parts[index] == "branches" and parts[index + 1] == "default_branch":
            parts[index + 1] = "0"
    return "/".join(parts)
