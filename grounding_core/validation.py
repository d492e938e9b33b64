"""What the client checks before anything is sent: text that UTF-8 can carry, the declared
types of option records' fields, and metadata values that JSON can carry.

- ``check_wire_text``: a string with a lone surrogate (``"\\ud800"``: half of a UTF-16 pair,
  e.g. from JSON decoded without its other half) cannot be encoded as UTF-8, so protobuf cannot
  send it; it is refused with the field and the character position (one linear scan).
- ``check_field_types``: every ``bool``, ``int``, ``float`` or ``str`` field of a record (and
  their ``... | None`` forms) holds exactly that type: a bool is not an int, an int not a bool,
  a float is a finite number (an int is accepted), a str has no lone surrogate.
- ``check_request_size``: a request over ``MAX_REQUEST_BYTES`` (10 MiB, the size Google's API
  front end is reported to refuse) is refused before it is sent.
- ``jsonable_metadata``: a metadata value as JSON types. Converted: tuples, sets and arrays
  (anything with ``dtype`` and ``tolist()``: numpy, pandas, torch) to lists (a set in a stable
  order: numbers by value, then the rest by their JSON text), numpy scalars to numbers,
  datetimes, dates and times to ISO 8601 strings, UTF-8 bytes to text, NaN and infinities to
  ``None`` (as JavaScript's ``JSON.stringify`` writes null), int keys to their digits, other
  objects to their ``str()``. Refused (``InputError``): circular values, nesting deeper than
  ``MAX_METADATA_DEPTH``, bytes that are not UTF-8, keys that are not strings or ints, lone
  surrogates.

>>> check_wire_text("query", "caf\\u00e9")
'café'
>>> jsonable_metadata({"when": _dt.date(2024, 5, 1), "tags": ("a", "b")}, "metadata")
{'when': '2024-05-01', 'tags': ['a', 'b']}
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
import re
import types
import typing
from collections.abc import Mapping
from typing import Any

from google.protobuf.message import Message

from .errors import InputError

__all__ = [
    "MAX_METADATA_DEPTH",
    "MAX_REQUEST_BYTES",
    "check_field_types",
    "check_request_size",
    "check_wire_text",
    "jsonable_metadata",
]

# Python strings hold code points: any code point in U+D800..U+DFFF is a lone surrogate (a
# well-formed pair decodes to one code point above U+FFFF), and UTF-8 cannot encode it.
_SURROGATE = re.compile("[\ud800-\udfff]")
# Google documents no request size for these APIs; its API front end refuses a larger payload
# with INVALID_ARGUMENT "Request payload size exceeds the limit: 10485760 bytes." (as reported,
# e.g. github.com/googleworkspace/dotnet-samples/issues/23), and so does the emulator by default.
MAX_REQUEST_BYTES = 10 * 1024 * 1024
# Types whose values are JSON as they are (str, dict and list need a look inside).
_PLAIN = frozenset({int, bool, type(None)})
# Deep enough for any real metadata, shallow enough for protobuf parsers (their limit is 100).
MAX_METADATA_DEPTH = 64


def _first_surrogate(text: str) -> re.Match[str] | None:
    return None if text.isascii() else _SURROGATE.search(text)


def check_wire_text(field: str, text: object) -> str:
    """``text`` if it is a string UTF-8 can encode, else an ``InputError`` naming ``field`` and
    the position of the first lone surrogate (linear in ``len(text)``)."""
    if not isinstance(text, str):
        raise InputError(f"{field} must be a string, got {type(text).__name__}", field=field)
    found = _first_surrogate(text)
    if found is not None:
        raise InputError(
            f"{field} holds a lone surrogate (U+{ord(found.group()):04X}) at character "
            f"{found.start()}, which is not valid UTF-8 and cannot be sent: decode the text "
            "properly (both halves of a surrogate pair) or remove it",
            field=field,
        )
    return text


def check_request_size(operation: str, message: Message) -> None:
    """An ``InputError`` if the serialized ``message`` (a raw protobuf request) is over
    ``MAX_REQUEST_BYTES``: refused before it is sent, instead of by the server after the
    upload."""
    size = message.ByteSize()
    if size > MAX_REQUEST_BYTES:
        raise InputError(
            f"the {operation} request is {size:,} bytes; Google's API front end refuses requests "
            f"over {MAX_REQUEST_BYTES:,} bytes (10 MiB): send fewer or smaller sources and "
            "metadata, or shorter texts",
            field="request",
            limit=MAX_REQUEST_BYTES,
        )


_BASIC = (bool, int, float, str)
_EXPECTED = {
    bool: "True or False",
    int: "an integer",
    float: "a finite number",
    str: "a string",
}
_DECLARED: dict[type, tuple[tuple[str, type, bool], ...]] = {}


def _basic_kind(hint: Any) -> tuple[type, bool] | None:
    """``(kind, optional)`` when ``hint`` is a basic type or its ``| None`` form."""
    if hint in _BASIC:
        return hint, False
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        rest = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if len(rest) == 1 and rest[0] in _BASIC:
            return rest[0], True
    return None


def _declared(cls: type) -> tuple[tuple[str, type, bool], ...]:
    """The basic-typed fields of dataclass ``cls`` as ``(name, kind, optional)`` (cached: the
    annotations are read once per class)."""
    found = _DECLARED.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls)
        found = tuple(
            (f.name, *kind)
            for f in dataclasses.fields(cls)
            if (kind := _basic_kind(hints[f.name])) is not None
        )
        _DECLARED[cls] = found
    return found


def _has_kind(value: object, kind: type) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind is float:
        return isinstance(value, int | float) and math.isfinite(value)
    return isinstance(value, kind)


def check_field_types(record: object) -> None:
    """An ``InputError`` naming ``Record.field``, the type expected and the type given (never
    the value: it may be a secret) for the first basic-typed field of dataclass ``record`` that
    holds another type (or a non-finite float, or a string with a lone surrogate)."""
    cls = type(record)
    for name, kind, optional in _declared(cls):
        value = getattr(record, name)
        if value is None and optional:
            continue
        if not _has_kind(value, kind):
            expected = _EXPECTED[kind] + (" or None" if optional else "")
            # A type name, never the value (it may be a secret); nan and inf say themselves.
            nonfinite = isinstance(value, float) and not math.isfinite(value)
            given = repr(value) if nonfinite else type(value).__name__
            raise InputError(f"{cls.__name__}.{name} must be {expected}, got {given}", field=name)
        if kind is str:
            check_wire_text(f"{cls.__name__}.{name}", value)


def jsonable_metadata(value: Any, path: str) -> Any:
    """``value`` as JSON types (see the module docstring for what is converted and what is
    refused); ``path`` names the value in errors, e.g. ``sources[3].metadata``."""
    return _Walk(path).convert(value, 0)


class _Walk:
    """One conversion: the containers being converted (to find cycles) and the keys that lead
    to the value at hand (an error names it; the path is only built then)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.active: set[int] = set()
        self.trail: list[object] = []

    def path(self) -> str:
        keys = [f"[{_short(key)}]" for key in self.trail]
        if len(keys) > 6:  # a deep path: its start and its end say where
            keys[3:-2] = ["..."]
        return self.root + "".join(keys)

    def refuse(self, problem: str, remedy: str) -> InputError:
        path = self.path()
        return InputError(f"{path} {problem}: {remedy}", field=path)

    def text(self, value: str) -> str:
        return value if _first_surrogate(value) is None else check_wire_text(self.path(), value)

    def convert(self, value: Any, depth: int) -> Any:
        kind = type(value)
        # The common types first, by identity: this runs for every value of every source.
        if kind is str:
            return value if value.isascii() else self.text(value)
        if kind in _PLAIN:
            return value
        if kind is float:
            return value if math.isfinite(value) else None
        if kind is dict or kind is list:
            return self.container(value, depth)
        return self.odd(value, depth)

    def odd(self, value: Any, depth: int) -> Any:
        if value is None or isinstance(value, bool | int):
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, float):
            return value if math.isfinite(value) else None
        if isinstance(value, _dt.datetime | _dt.date | _dt.time):
            return value.isoformat()
        if isinstance(value, bytes | bytearray):
            try:
                return self.text(bytes(value).decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise self.refuse("is bytes that are not UTF-8 text", "decode it") from exc
        if hasattr(value, "dtype") and callable(getattr(value, "tolist", None)):
            return self.convert(value.tolist(), depth)
        if isinstance(value, Mapping | list | tuple | set | frozenset):
            return self.container(value, depth)
        return self.text(str(value))

    def container(self, value: Any, depth: int) -> Any:
        if id(value) in self.active:
            raise self.refuse("is circular (it contains itself)", "break the cycle")
        if depth >= MAX_METADATA_DEPTH:
            raise self.refuse(f"is nested more than {MAX_METADATA_DEPTH} levels deep", "flatten it")
        self.active.add(id(value))
        trail, convert, inner = self.trail, self.convert, depth + 1
        try:
            if isinstance(value, Mapping):
                converted: dict[str, Any] = {}
                for key, item in value.items():
                    name = self.key(key)
                    trail.append(key)
                    converted[name] = convert(item, inner)
                    trail.pop()
                return converted
            items = []
            for number, item in enumerate(value):
                trail.append(number)
                items.append(convert(item, inner))
                trail.pop()
        finally:
            self.active.discard(id(value))
        if isinstance(value, set | frozenset):
            items.sort(key=_set_order)  # a set has no order: give it a stable one
        return items

    def key(self, key: object) -> str:
        if isinstance(key, str):
            if _first_surrogate(key) is None:
                return key
            return check_wire_text(f"a key of {self.path()}", key)
        if isinstance(key, int) and not isinstance(key, bool):
            return str(key)
        raise self.refuse(
            f"has a key of type {type(key).__name__}",
            "use string keys (JSON objects have only string keys)",
        )


def _short(key: object) -> str:
    """A key as a path shows it: its repr, cut short (a key may be long)."""
    text = repr(key)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _set_order(item: Any) -> tuple[int, Any]:
    """Numbers by value, then everything else by its JSON text."""
    if isinstance(item, int | float) and not isinstance(item, bool):
        return (0, item)
    return (1, json.dumps(item, sort_keys=True))
