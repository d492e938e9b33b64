"""The HTTP routes of the emulator's methods, from Google's own ``google.api.http`` rules.

Every RPC of Google's APIs carries a ``google.api.http`` option in its proto
(``google/api/http.proto``): an HTTP verb with a path template, the request field the body
maps to (``body``), and ``additional_bindings``. The installed Python packages do not register
their services' descriptors (proto-plus registers the messages only), so the rules are read
where the packages keep them: each GAPIC package's REST transport, generated from those
options (``transports/rest_base.py``, ``_Base{Method}._get_http_options()``: the rule, then
its additional bindings), found through the package's ``gapic_metadata.json`` (proto package,
services, REST client). A method of a service that no GAPIC package defines (a mixin such as
``google.longrunning.Operations``) takes the rules the served APIs' transports give it (their
service configurations bind it to the APIs' own paths); failing that, the ``google.api.http``
option of its descriptor, when one is registered (``google.api.annotations_pb2.http``).

The table is generic over the method table: a method the emulator serves gets its routes with
no code of its own, and a method of the same APIs that it does not serve gets its routes too,
answered ``UNIMPLEMENTED`` as over gRPC. A GAPIC package already imported (the servicers import
``discoveryengine_v1``) is read at once; another (``discoveryengine_v1beta``, which takes seconds
to import) when a path first matches none of the routes read so far.

Path templates (``http.proto``): ``*`` matches one path segment (up to a ``:verb``), ``**``
the rest of the path, ``{field=pattern}`` binds what ``pattern`` matched to the request field
``field`` (a dotted path), ``{field}`` is ``{field=*}``, ``:verb`` is literal. Google does not
document which of two templates that match one path wins (``/v1/documents:batchGet`` and
``/v1/{name=documents/**}``); here the one with more literal characters does.
"""

from __future__ import annotations

import importlib
import json
import logging
import pkgutil
import re
import sys
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from google.api import annotations_pb2, http_pb2
from google.protobuf import descriptor_pool

from grounding_emulator.wire.servicers.registry import Method

__all__ = ["PathTemplate", "Route", "RouteTable"]

logger = logging.getLogger(__name__)

_TOKEN = re.compile(r"\{([\w.]+)(?:=([^}]*))?\}|\*\*|\*|[^{*]+")
_WILDCARD = re.compile(r"\*\*|\*|[^*]+")
_VERBS = ("get", "put", "post", "delete", "patch")


def _wildcards(pattern: str) -> tuple[str, int]:
    """The regular expression of a template's segments, and how many literal characters they
    hold."""
    parts, literal = [], 0
    for token in _WILDCARD.findall(pattern):
        if token == "**":
            parts.append(".+")
        elif token == "*":
            parts.append("[^/:]+")  # a segment; a path's ":verb" is not part of it
        else:
            parts.append(re.escape(token))
            literal += len(token)
    return "".join(parts), literal


@dataclass(frozen=True, slots=True)
class PathTemplate:
    """A ``google.api.http`` path template, matched against a request's raw (percent-encoded)
    path.

    >>> template = PathTemplate.parse("/v1/{name=projects/*/sessions/*}:get")
    >>> template.match("/v1/projects/p/sessions/a%20b:get")
    {'name': 'projects/p/sessions/a b'}
    >>> template.match("/v1/projects/p/sessions/a/b:get") is None
    True
    """

    text: str
    pattern: re.Pattern[str]
    fields: tuple[str, ...]
    literal: int

    @classmethod
    def parse(cls, text: str) -> PathTemplate:
        """The template ``text`` (``/v1/{serving_config=projects/*/...}:search``)."""
        parts, fields, literal = [], [], 0
        for match in _TOKEN.finditer(text):
            field, pattern, token = match.group(1), match.group(2), match.group(0)
            if field is not None:
                expression, count = _wildcards(pattern or "*")
                parts.append(f"({expression})")
                fields.append(field)
                literal += count
            else:
                expression, count = _wildcards(token)
                parts.append(expression)
                literal += count
        return cls(text, re.compile("".join(parts) + r"\Z"), tuple(fields), literal)

    def match(self, path: str) -> dict[str, str] | None:
        """The field values ``path`` binds (percent-decoded), or ``None`` if it does not
        match."""
        found = self.pattern.match(path)
        if found is None:
            return None
        values = zip(self.fields, found.groups(), strict=True)
        return {field: unquote(value) for field, value in values}


@dataclass(frozen=True, slots=True)
class Route:
    """One HTTP binding of an RPC: ``verb`` and ``template``; ``body`` the request field the
    body maps to (``*`` every field the path does not bind, ``""`` none: the query holds them);
    ``rpc`` the method's full path; ``method`` the served method, ``None`` when the emulator
    does not serve it (``UNIMPLEMENTED``); ``package`` the proto package whose messages the
    JSON is read and written as (the service's: ``v1beta`` JSON for a ``v1beta`` path)."""

    verb: str
    template: PathTemplate
    body: str
    rpc: str
    method: Method | None
    package: str


def _bindings(rule: http_pb2.HttpRule) -> Iterable[tuple[str, str, str]]:
    """``(verb, path template, body)`` of ``rule`` and of each of its additional bindings."""
    for binding in (rule, *rule.additional_bindings):
        pattern = binding.WhichOneof("pattern")
        if pattern == "custom":
            yield binding.custom.kind.upper(), binding.custom.path, binding.body
        elif pattern is not None:
            yield pattern.upper(), getattr(binding, pattern), binding.body


def _rule(option: Mapping[str, str]) -> http_pb2.HttpRule:
    """The ``HttpRule`` a REST transport's generated option (``{"method", "uri", "body"}``)
    was made from."""
    rule = http_pb2.HttpRule(body=option.get("body", ""))
    verb = option["method"].lower()
    if verb in _VERBS:
        setattr(rule, verb, option["uri"])
    else:
        rule.custom.kind, rule.custom.path = verb.upper(), option["uri"]
    return rule


def _transport_rules(transport: type, name: str) -> tuple[http_pb2.HttpRule, ...]:
    """The rules a GAPIC REST transport class generated for its RPC (or mixin) ``name``."""
    options = getattr(getattr(transport, f"_Base{name}", None), "_get_http_options", None)
    # None: no such RPC, or one with no HTTP binding (a bidirectional stream)
    return () if options is None else tuple(_rule(option) for option in options())


def _descriptor_rules(method: Method) -> tuple[http_pb2.HttpRule, ...]:
    """The ``google.api.http`` option of ``method``'s descriptor, if one is registered."""
    try:
        service = descriptor_pool.Default().FindServiceByName(method.service)
    except KeyError:
        return ()
    rpc = service.methods_by_name.get(method.name)
    if rpc is None or not rpc.GetOptions().HasExtension(annotations_pb2.http):
        return ()
    return (rpc.GetOptions().Extensions[annotations_pb2.http],)


def _package(service: str) -> str:
    return service.rpartition(".")[0]


def _library_metadata(methods: Sequence[Method]) -> dict[str, dict[str, Any]]:
    """The ``gapic_metadata.json`` of every GAPIC package beside the packages of the methods'
    request types, by proto package (``google.cloud.discoveryengine.v1beta`` ->
    ``{"libraryPackage": "google.cloud.discoveryengine_v1beta", "services": ...}``)."""
    namespaces = {
        name.partition("/types/")[0].rpartition("/")[0].replace("/", ".")
        for name in (m.request_type.DESCRIPTOR.file.name for m in methods)
        if "/types/" in name
    }
    found: dict[str, dict[str, Any]] = {}
    for namespace in sorted(namespaces):
        for info in pkgutil.iter_modules(importlib.import_module(namespace).__path__):
            path = Path(getattr(info.module_finder, "path", ""), info.name, "gapic_metadata.json")
            if info.ispkg and path.is_file():
                metadata = json.loads(path.read_text(encoding="utf-8"))
                found.setdefault(metadata["protoPackage"], metadata)
    return found


class RouteTable:
    """The routes of ``methods`` and of the other RPCs of their APIs; thread-safe.

    >>> from grounding_emulator.wire.servicers import Backend, method_table
    >>> from grounding_emulator.corpus.store import CorpusStore
    >>> table = RouteTable(method_table(Backend(CorpusStore(), None, "python-docs")))
    >>> route, values = table.match(
    ...     "POST", "/v1/projects/p/locations/global/dataStores/d/servingConfigs/s:search"
    ... )
    >>> route.rpc, values
    ('/google.cloud.discoveryengine.v1.SearchService/Search', \
{'serving_config': 'projects/p/locations/global/dataStores/d/servingConfigs/s'})
    """

    def __init__(self, methods: Sequence[Method]) -> None:
        self._methods = {method.path: method for method in methods}
        self._lock = threading.Lock()
        self._routes: tuple[Route, ...] = ()
        self._seen: set[tuple[str, str]] = set()
        self._complete = False  # every package read, every mixin given its routes
        libraries = _library_metadata(methods)
        served = {_package(m.service) for m in methods}
        self._mixins = [m for m in methods if _package(m.service) not in libraries]
        self._pending = sorted(
            (libraries[p] for p in served if p in libraries),
            key=lambda metadata: metadata["libraryPackage"] not in sys.modules,
        )
        with self._lock:
            while self._pending and self._pending[0]["libraryPackage"] in sys.modules:
                self._load(self._pending.pop(0))

    @property
    def routes(self) -> tuple[Route, ...]:
        """The routes read so far, in the order they are tried."""
        return self._routes

    def match(self, verb: str, path: str) -> tuple[Route, dict[str, str]] | None:
        """The route of ``verb`` and the raw ``path``, with the field values the path binds;
        ``None`` if no route of any of the APIs matches."""
        while True:
            complete = self._complete
            for route in self._routes:
                if route.verb == verb:
                    values = route.template.match(path)
                    if values is not None:
                        return route, values
            if complete:
                return None
            self.load_all()

    def verbs(self, path: str) -> list[str]:
        """The verbs of the routes whose template matches ``path``."""
        self.load_all()
        return sorted({r.verb for r in self._routes if r.template.match(path) is not None})

    def load_all(self) -> None:
        """Read the routes of the GAPIC packages not read yet (importing them)."""
        with self._lock:
            if self._complete:
                return
            while self._pending:
                self._load(self._pending.pop(0))
            for method in self._mixins:  # a mixin no transport gave a rule: its descriptor's
                if not any(route.method is method for route in self._routes):
                    self._add(_descriptor_rules(method), method.path, method)
            self._complete = True

    def _load(self, metadata: Mapping[str, Any]) -> None:
        library = metadata["libraryPackage"]
        logger.debug("reading the HTTP rules of %s", library)
        module = importlib.import_module(library)
        proto_package = metadata["protoPackage"]
        for service, entry in metadata["services"].items():
            rest = entry["clients"].get("rest")
            if rest is None:
                continue
            transport = getattr(module, rest["libraryClient"]).get_transport_class("rest")
            for name in rest["rpcs"]:
                rpc = f"/{proto_package}.{service}/{name}"
                self._add(_transport_rules(transport, name), rpc, self._methods.get(rpc))
            for method in self._mixins:
                if method.name not in rest["rpcs"]:
                    self._add(_transport_rules(transport, method.name), method.path, method)

    def _add(self, rules: Iterable[http_pb2.HttpRule], rpc: str, method: Method | None) -> None:
        package = _package(rpc.strip("/").partition("/")[0])
        added = []
        for rule in rules:
            for verb, template, body in _bindings(rule):
                if (verb, template) not in self._seen:
                    self._seen.add((verb, template))
                    parsed = PathTemplate.parse(template)
                    added.append(Route(verb, parsed, body, rpc, method, package))
        if added:
            # The more literal characters, the more specific: tried first (a stable sort).
            self._routes = tuple(
                sorted((*self._routes, *added), key=lambda route: -route.template.literal)
            )
