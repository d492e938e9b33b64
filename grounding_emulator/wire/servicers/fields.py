"""What the resource servicers share: the checks of resource ids and display names, the fields
an update mask names, the solution type filter of ListDataStores and ListEngines; the look-up of
a data store or engine, made through the API or served from a folder."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from google.cloud import discoveryengine_v1 as de
from google.protobuf import field_mask_pb2

from grounding_emulator.errors import EmulatorError, InvalidArgument, NotFound, excerpt

__all__ = [
    "ENGINE_ID",
    "RESOURCE_ID",
    "check_display_name",
    "check_resource_id",
    "made_resource",
    "resource_message",
    "resource_messages",
    "solution_type_filter",
    "update_fields",
]

# RFC-1034 ids as Google takes them (letters, digits, '-', '_'; a letter or digit first; a
# content import's ids are hex digests, so a digit may come first); an engine's are lower case
# (Engine.name: "valid characters are /[a-z0-9][a-z0-9-_]*/").
RESOURCE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
ENGINE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_SolutionType = de.SolutionType
_Made = TypeVar("_Made")
# A servicer's look-up of the resource a folder serves under a canonical name (None: none).
_Folder = Callable[[str], Any | None]


def check_resource_id(value: str, field: str, pattern: re.Pattern[str], limit: int) -> str:
    """``value`` when it is a valid id of at most ``limit`` characters, else
    ``INVALID_ARGUMENT`` naming ``field``, the rule and the limit."""
    if not value:
        raise InvalidArgument(f"{field} is required", field=field)
    if len(value) > limit or not pattern.match(value):
        lower = " lower-case" if pattern is ENGINE_ID else ""
        raise InvalidArgument(
            f"{field} {excerpt(value)} must conform to RFC-1034 with a length limit of {limit} "
            f"characters: use{lower} letters, digits, '-' and '_', starting with a letter or "
            "digit",
            field=field,
        )
    return value


def check_display_name(value: str, field: str, limit: int) -> None:
    """``INVALID_ARGUMENT`` unless ``value`` is set and at most ``limit`` characters."""
    if not value:
        raise InvalidArgument(f"{field} is required", field=field)
    if len(value) > limit:
        raise InvalidArgument(
            f"{field} has {len(value)} characters; the limit is {limit}", field=field
        )


def _is_set(message: Any, path: str) -> bool:
    value = getattr(message, path)
    if isinstance(value, str | bool | int | float | bytes):
        return bool(value)
    if hasattr(value, "ListFields"):
        return bool(message.HasField(path))
    return len(value) > 0


def update_fields(
    message: Any, request: Any, field: str, updatable: Iterable[str], display_limit: int
) -> None:
    """Update ``message`` with the fields of the update ``request``'s ``field`` (its data store
    or engine) that the update sets: those of ``update_mask`` ("If an unsupported or unknown
    field is provided, an INVALID_ARGUMENT error is returned"), or without one those of
    ``updatable`` that it sets (AIP-134). Each is replaced whole: a message or list field it
    does not set is cleared. A display name set is checked against ``display_limit``."""
    given = getattr(request, field)
    mask = request.update_mask.paths
    allowed = tuple(updatable)
    for path in mask:
        if path not in allowed:
            raise InvalidArgument(
                f"update_mask names {excerpt(path)}, which cannot be updated on a "
                f"{field.replace('_', ' ')}: use {', '.join(allowed)}",
                field="update_mask",
            )
    paths = list(mask) or [p for p in allowed if _is_set(given, p)]
    if "display_name" in paths:
        check_display_name(given.display_name, f"{field}.display_name", display_limit)
    field_mask_pb2.FieldMask(paths=paths).MergeMessage(
        given, message, replace_message_field=True, replace_repeated_field=True
    )


def solution_type_filter(text: str, separator: str) -> int | None:
    """The solution type a List filter keeps (``None`` for no filter): the one form the field
    docs give, ``solution_type{separator}SOLUTION_TYPE_...`` (``:`` for ListDataStores, ``=``
    for ListEngines)."""
    if not text.strip():
        return None
    key, sep, value = text.partition(separator)
    value = value.strip().strip("'\"")
    if key.strip() != "solution_type" or not sep or value not in _SolutionType.__members__:
        names = ", ".join(n for n in _SolutionType.__members__ if n != "SOLUTION_TYPE_UNSPECIFIED")
        raise InvalidArgument(
            f"filter {excerpt(text)} is not a solution type filter: write "
            f"solution_type{separator}SOLUTION_TYPE_SEARCH (or another of {names})",
            field="filter",
        )
    return int(_SolutionType.__members__[value])


def resource_message(
    name: str, kind: str, made: Any | None, message_type: Any, folder: _Folder
) -> Any:
    """The message of the data store or engine (``kind``) ``name``: the API-made resource
    ``made``'s (its ``payload``), else the one ``folder`` serves, else ``NOT_FOUND``."""
    if made is not None:
        return message_type.FromString(made.payload)
    message = folder(name)
    if message is None:
        raise NotFound(f"{kind} {name} not found")
    return message


def made_resource(
    name: str, kind: str, made: _Made | None, folder: _Folder, served: EmulatorError
) -> _Made:
    """``made``, the API-made data store or engine (``kind``) ``name`` that an update or delete
    changes; ``served`` (a ``FAILED_PRECONDITION``) when a folder serves it instead, as it
    changes with its folder only; else ``NOT_FOUND``."""
    if made is None:
        if folder(name) is not None:
            raise served
        raise NotFound(f"{kind} {name} not found")
    return made


def resource_messages(
    made: Iterable[Any], message_type: Any, served: Iterable[str], folder: _Folder, prefix: str
) -> list[Any]:
    """A collection's data stores or engines, by id: the messages of the API-made ``made``, and
    of the ids a folder ``served`` that none of them takes, at ``{prefix}/{id}``."""
    messages = {r.id: message_type.FromString(r.payload) for r in made}
    for served_id in served:
        if served_id not in messages:
            message = folder(f"{prefix}/{served_id}")
            if message is not None:
                messages[served_id] = message
    return [messages[i] for i in sorted(messages)]
