"""Resource names the emulator accepts, parsed into their parts or refused with the field named.

Any project and location are accepted (as in a fresh project). Serving configs exist under data
stores and engines, in the ``default_collection`` (or the collection-less data store form), with
the ids Google creates (``default_search``, ``default_config``, ``default_serving_config``).
The only grounding config is ``default_grounding_config``.
"""

from __future__ import annotations

import re

from grounding_core.errors import ConfigurationError
from grounding_core.settings import DEFAULT_COLLECTION, DiscoveryEngineTarget

from .errors import InvalidArgument, NotFound

__all__ = [
    "SERVING_CONFIGS",
    "check_document_name",
    "data_store_path",
    "parse_grounding_config",
    "parse_serving_config",
]

SERVING_CONFIGS = frozenset({"default_search", "default_config", "default_serving_config"})
GROUNDING_CONFIGS = frozenset({"default_grounding_config"})
COLLECTIONS = frozenset({"default_collection"})
MAX_DOCUMENT_NAME = 500

_SEGMENT = r"[A-Za-z0-9][A-Za-z0-9._:-]*"
_GROUNDING_CONFIG = re.compile(
    rf"^projects/(?P<project>{_SEGMENT})/locations/(?P<location>{_SEGMENT})"
    rf"/groundingConfigs/(?P<grounding_config>{_SEGMENT})$"
)


def parse_serving_config(name: str, field: str = "serving_config") -> DiscoveryEngineTarget:
    """Parse a serving config name (as the client side does: ``DiscoveryEngineTarget``);
    malformed -> ``InvalidArgument``, unknown collection or serving config id -> ``NotFound``
    (the data store or engine is looked up by the caller)."""
    if not name:
        raise InvalidArgument(f"{field} is required", field=field)
    try:
        target = DiscoveryEngineTarget.from_serving_config(name)
    except ConfigurationError as exc:
        raise InvalidArgument(
            f"{field} {name!r} is not a serving config name ({exc})", field=field
        ) from exc
    if target.collection is not None and target.collection not in COLLECTIONS:
        raise NotFound(f"collection {target.collection!r} not found (only default_collection)")
    if target.serving_config not in SERVING_CONFIGS:
        raise NotFound(
            f"serving config {target.serving_config!r} not found (serving configs: "
            f"{', '.join(sorted(SERVING_CONFIGS))})"
        )
    return target


def data_store_path(target: DiscoveryEngineTarget, data_store_id: str) -> str:
    """The resource name of data store ``data_store_id`` in ``target``'s project and location
    (an engine's data stores live in its collection)."""
    collection = target.collection or DEFAULT_COLLECTION
    return target.replace(data_store=data_store_id, engine=None, collection=collection).parent_path


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
