"""Enum values a request sets that its proto does not define: ``INVALID_ARGUMENT`` naming the
field, before any servicer reads the request.

Proto3 enums are open ("Protobuf Enum Behavior", https://protobuf.dev/programming-guides/enum/):
a message parsed from the wire keeps a number its enum does not define, and so does one read
from JSON, which takes an enum's number as well as its name. Such a value means nothing to the
API, so the request is refused as Google's front end refuses an enum value it cannot read
("Invalid value at 'relevance_threshold'"), naming the field as the emulator's other errors do:
``relevance_threshold``, ``query_understanding_spec.query_classification_spec.types[0]``,
``session.state``. One walk over the fields the request sets, for every method, instead of a
check per field: only the messages that can hold an enum are visited. Google's well-known types
(``google.protobuf``: ``Struct``'s ``NullValue`` has one value and nothing reads it) are not.

The three Discovery Engine versions are read with the v1 messages (``servicers/registry.py``):
a number another version defines (v1beta's ``SolutionType`` has one v1 has not) is accepted, and
left to the servicer, as before; the other versions' protos are loaded only when a number is
not v1's.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor

from grounding_emulator.errors import InvalidArgument
from grounding_emulator.wire.servicers.registry import DISCOVERY_ENGINE_VERSIONS

__all__ = ["check_enum_values"]

_V1 = "google.cloud.discoveryengine.v1."
_WELL_KNOWN = "google.protobuf."


@cache
def _holds_enums(descriptor: Descriptor) -> bool:
    """Whether a message of this type can hold an enum field, at any depth (well-known types
    left out)."""
    seen: set[str] = set()
    pending = [descriptor]
    while pending:
        message = pending.pop()
        if message.full_name in seen or message.full_name.startswith(_WELL_KNOWN):
            continue
        seen.add(message.full_name)
        for field in message.fields:
            if field.enum_type is not None:
                return True
            if field.message_type is not None:
                pending.append(field.message_type)
    return False


@cache
def _numbers(enum: EnumDescriptor) -> frozenset[int]:
    """The numbers ``enum`` defines."""
    return frozenset(value.number for value in enum.values)


@cache
def _other_versions(enum: EnumDescriptor) -> frozenset[int]:
    """The numbers the same enum defines in the other Discovery Engine versions."""
    if not enum.full_name.startswith(_V1):
        return frozenset()
    found: set[int] = set()
    pool = enum.file.pool
    for version in DISCOVERY_ENGINE_VERSIONS[1:]:
        importlib.import_module(f"google.cloud.discoveryengine_{version}.types")
        try:
            other = pool.FindEnumTypeByName(enum.full_name.replace(".v1.", f".{version}.", 1))
        except KeyError:
            continue
        found.update(_numbers(other))
    return frozenset(found)


def _check(number: int, enum: EnumDescriptor, field: str) -> None:
    if number in _numbers(enum) or number in _other_versions(enum):
        return
    names = ", ".join(value.name for value in enum.values)
    raise InvalidArgument(
        f"{field} {number} is not a value of {enum.full_name}: use one of {names}", field=field
    )


def check_enum_values(message: Any, prefix: str = "") -> None:
    """Refuse (``InvalidArgument`` naming the field) an enum number ``message`` sets that its
    enum does not define; ``prefix``: the path of ``message`` in the request."""
    for field, value in message.ListFields():
        name = prefix + field.name
        if field.enum_type is not None:
            if isinstance(value, int):
                _check(value, field.enum_type, name)
            else:
                for index, number in enumerate(value):
                    _check(number, field.enum_type, f"{name}[{index}]")
            continue
        entry = field.message_type
        if entry is None:
            continue
        if entry.GetOptions().map_entry:
            target = entry.fields_by_name["value"]
            for key, item in value.items():
                where = f"{name}[{key!r}]"
                if target.enum_type is not None:
                    _check(item, target.enum_type, where)
                elif target.message_type is not None and _holds_enums(target.message_type):
                    check_enum_values(item, f"{where}.")
        elif not _holds_enums(entry):
            continue
        elif hasattr(value, "ListFields"):
            check_enum_values(value, f"{name}.")
        else:
            for index, item in enumerate(value):
                check_enum_values(item, f"{name}[{index}].")
