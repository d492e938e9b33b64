"""Checks the resource servicers share: resource ids, display names, update masks, the
solution type filter of ListDataStores and ListEngines."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.errors import InvalidArgument, excerpt

__all__ = [
    "ENGINE_ID",
    "RESOURCE_ID",
    "check_display_name",
    "check_resource_id",
    "mask_paths",
    "solution_type_filter",
]

# RFC-1034 ids as Google takes them (letters, digits, '-', '_'; a letter or digit first; a
# content import's ids are hex digests, so a digit may come first); an engine's are lower case
# (Engine.name: "valid characters are /[a-z0-9][a-z0-9-_]*/").
RESOURCE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
ENGINE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_SolutionType = de.SolutionType


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


def mask_paths(
    paths: Sequence[str], updatable: Iterable[str], given: Any, kind: str
) -> tuple[str, ...]:
    """The fields an update sets: those of ``update_mask`` ("If an unsupported or unknown field
    is provided, an INVALID_ARGUMENT error is returned"), or without one those of ``updatable``
    that the request's ``given`` message sets (AIP-134)."""
    allowed = tuple(updatable)
    for path in paths:
        if path not in allowed:
            raise InvalidArgument(
                f"update_mask names {excerpt(path)}, which cannot be updated on a {kind}: "
                f"use {', '.join(allowed)}",
                field="update_mask",
            )
    if paths:
        return tuple(dict.fromkeys(paths))
    return tuple(p for p in allowed if _is_set(given, p))


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
