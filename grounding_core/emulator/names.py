"""Resource names the emulator accepts, parsed into their parts or refused with the field named.

Any project and location are accepted (as in a fresh project). Serving configs exist under data
stores and engines, in the ``default_collection`` (or the collection-less data store form), with
the ids Google creates (``default_search``, ``default_config``, ``default_serving_config``).
The only grounding config is ``default_grounding_config``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .errors import InvalidArgument, NotFound

__all__ = [
    "SERVING_CONFIGS",
    "ServingConfigName",
    "check_document_name",
    "parse_grounding_config",
    "parse_serving_config",
]

SERVING_CONFIGS = frozenset({"default_search", "default_config", "default_serving_config"})
GROUNDING_CONFIGS = frozenset({"default_grounding_config"})
COLLECTIONS = frozenset({"default_collection"})
MAX_DOCUMENT_NAME = 500

_SEGMENT = r"[A-Za-z0-9][A-Za-z0-9._:-]*"
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
    """The parts of a serving config resource name."""

    project: str
    location: str
    collection: str | None
    kind: Literal["data_store", "engine"]
    parent: str
    serving_config: str

    @property
    def location_path(self) -> str:
        """``projects/{p}/locations/{l}``."""
        return f"projects/{self.project}/locations/{self.location}"

    @property
    def parent_path(self) -> str:
        """The data store or engine resource name."""
        base = self.location_path
        if self.collection is not None:
            base = f"{base}/collections/{self.collection}"
        kind = "dataStores" if self.kind == "data_store" else "engines"
        return f"{base}/{kind}/{self.parent}"

    def data_store_path(self, data_store_id: str) -> str:
        """The resource name of data store ``data_store_id`` in this project and location."""
        collection = self.collection or "default_collection"
        return f"{self.location_path}/collections/{collection}/dataStores/{data_store_id}"


def parse_serving_config(name: str, field: str = "serving_config") -> ServingConfigName:
    """Parse a serving config name; malformed -> ``InvalidArgument``, unknown collection or
    serving config id -> ``NotFound`` (the data store or engine is looked up by the caller)."""
    if not name:
        raise InvalidArgument(f"{field} is required", field=field)
    match = _SERVING_CONFIG.match(name)
    if match is None:
        raise InvalidArgument(
            f"{field} {name!r} is not a serving config name: expected "
            "projects/{p}/locations/{l}/collections/{c}/dataStores/{d}/servingConfigs/{s}, "
            "projects/{p}/locations/{l}/collections/{c}/engines/{e}/servingConfigs/{s} or "
            "projects/{p}/locations/{l}/dataStores/{d}/servingConfigs/{s}",
            field=field,
        )
    parts = match.groupdict()
    kind: Literal["data_store", "engine"] = (
        "data_store" if parts["kind"] == "dataStores" else "engine"
    )
    if kind == "engine" and parts["collection"] is None:
        raise InvalidArgument(
            f"{field} {name!r}: engines live in a collection "
            "(projects/{p}/locations/{l}/collections/default_collection/engines/{e}/...)",
            field=field,
        )
    if parts["collection"] is not None and parts["collection"] not in COLLECTIONS:
        raise NotFound(f"collection {parts['collection']!r} not found (only default_collection)")
    if parts["serving_config"] not in SERVING_CONFIGS:
        raise NotFound(
            f"serving config {parts['serving_config']!r} not found (serving configs: "
            f"{', '.join(sorted(SERVING_CONFIGS))})"
        )
    return ServingConfigName(
        project=parts["project"],
        location=parts["location"],
        collection=parts["collection"],
        kind=kind,
        parent=parts["parent"],
        serving_config=parts["serving_config"],
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
