"""The checks made before anything is sent (types, ranges, text UTF-8 can carry, labels, metadata
JSON can carry, the request's size): each refuses with an ``InputError`` naming the field, the
limit and what to do, never echoing a value that may be a secret (a type name instead)."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
import re
import types
import typing
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from google.protobuf.message import Message

from ._errors import InputError

# Any code point in U+D800..U+DFFF is a lone surrogate (a pair decodes to one code point).
_SURROGATE = re.compile("[\ud800-\udfff]")
# Google documents no request size for these APIs; its API front end refuses a larger payload
# with INVALID_ARGUMENT "Request payload size exceeds the limit: 10485760 bytes.".
MAX_REQUEST_BYTES = 10 * 1024 * 1024
# Deep enough for any real metadata, shallow enough for protobuf parsers (their limit is 100).
MAX_METADATA_DEPTH = 64
# CheckGroundingRequest/RankRequest.user_labels: "up to a maximum of 64" labels; keys of 1 to
# 63 characters, values of at most 63, lowercase letters, digits, '_' and '-' ("international
# characters are allowed"); keys "must start with a lowercase letter or international
# character".
MAX_USER_LABELS = 64
MAX_LABEL_CHARS = 63
# AnswerQueryRequest/SearchRequest.user_pseudo_id: "a length limit of 128 characters".
MAX_USER_PSEUDO_ID = 128


def _first_surrogate(text: str) -> re.Match[str] | None:
    return None if text.isascii() else _SURROGATE.search(text)


def check_wire_text(field: str, text: object) -> str:
    """``text`` if it is a string UTF-8 can encode: no lone surrogate (half of a UTF-16 pair,
    which protobuf cannot send)."""
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


def check_text(name: str, value: object, *, maximum: int | None = None) -> str:
    """``value`` if it is a sendable string of at most ``maximum`` characters."""
    if isinstance(value, str) and maximum is not None and len(value) > maximum:
        problem = f"has {len(value)} characters; the API accepts at most {maximum}: shorten it"
        raise InputError(f"{name} {problem}", field=name, limit=maximum)
    return check_wire_text(name, value)


def check_query(query: object, *, maximum: int | None = None) -> str:
    """``query`` if it is a non-blank sendable string of at most ``maximum`` characters."""
    if isinstance(query, str) and not query.strip():
        raise InputError("query is empty: give the text to search for", field="query")
    return check_text("query", query, maximum=maximum)


def check_count(name: str, value: object, *, minimum: int, maximum: int | None = None) -> int:
    """``value`` if it is an int within ``[minimum, maximum]``, else an ``InputError``."""
    if isinstance(value, bool) or not isinstance(value, int):
        problem = f"an integer, got {type(value).__name__}"
    elif value < minimum or (maximum is not None and value > maximum):
        bounds = f">= {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        problem = f"{bounds}, got {value}"
    else:
        return value
    raise InputError(f"{name} must be {problem}", field=name, limit=maximum)


def check_fraction(name: str, value: object) -> float:
    """``value`` if it is a number in [0, 1] (a threshold or a score), else an ``InputError``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        shown = value if isinstance(value, int | float) else type(value).__name__
        problem = f"must be a number between 0 and 1, got {shown}"
        raise InputError(f"{name} {problem}", field=name, limit="[0, 1]")
    return float(value)


def check_choice(name: str, value: object, choices: tuple[object, ...]) -> None:
    """An ``InputError`` naming ``name`` and the choices unless ``value`` is one of them."""
    if value not in choices:
        shown = repr(value) if isinstance(value, str | int | type(None)) else type(value).__name__
        problem = f"must be one of {', '.join(map(repr, choices))}, got {shown}"
        raise InputError(f"{name} {problem}", field=name)


def check_request_size(operation: str, message: Message) -> None:
    """An ``InputError`` if the serialized ``message`` (a raw protobuf request) is over
    ``MAX_REQUEST_BYTES``: refused before it is sent, not by the server after the upload."""
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
_EXPECTED = {bool: "True or False", int: "an integer", float: "a finite number", str: "a string"}
_DECLARED: dict[type, tuple[tuple[str, type, bool], ...]] = {}


def _declared(cls: type) -> tuple[tuple[str, type, bool], ...]:
    """(name, kind, optional) of each field of ``cls`` declared ``kind`` or ``kind | None``."""
    if cls not in _DECLARED:
        hints, fields = typing.get_type_hints(cls), []
        for field in dataclasses.fields(cls):
            hint = hints[field.name]
            if typing.get_origin(hint) in (typing.Union, types.UnionType):
                rest = [arg for arg in typing.get_args(hint) if arg is not type(None)]
                if len(rest) == 1 and rest[0] in _BASIC:
                    fields.append((field.name, rest[0], True))
            elif hint in _BASIC:
                fields.append((field.name, hint, False))
        _DECLARED[cls] = tuple(fields)
    return _DECLARED[cls]


def _has_kind(value: object, kind: type) -> bool:
    if kind is bool or isinstance(value, bool):  # a bool is not an int
        return kind is bool and isinstance(value, bool)
    if kind is float:
        return isinstance(value, int | float) and math.isfinite(value)
    return isinstance(value, kind)


def check_fields(record: object) -> None:
    """Each ``bool``, ``int``, ``float`` or ``str`` field of dataclass ``record`` (or its
    ``| None`` form) holds that type: no bool for an int, a finite float, a sendable string."""
    cls = type(record)
    for name, kind, optional in _declared(cls):
        value = getattr(record, name)
        if value is None and optional:
            continue
        if not _has_kind(value, kind):
            expected = _EXPECTED[kind] + (" or None" if optional else "")
            nonfinite = isinstance(value, float) and not math.isfinite(value)
            given = repr(value) if nonfinite else type(value).__name__
            raise InputError(f"{cls.__name__}.{name} must be {expected}, got {given}", field=name)
        if kind is str:
            check_wire_text(f"{cls.__name__}.{name}", value)


def _label_char(char: str) -> bool:
    return char in "_-" or char.isdigit() or (char.isalpha() and not char.isupper())


def check_user_labels(labels: object) -> Mapping[str, str]:
    """A read-only copy of ``labels`` if they meet Google's label rules (international
    characters allowed), else an ``InputError`` naming ``user_labels``, the label and the rule
    it breaks."""
    field = "user_labels"
    if not isinstance(labels, Mapping):
        shown = type(labels).__name__
        raise InputError(f"user_labels must be a mapping of str to str, got {shown}", field=field)
    if len(labels) > MAX_USER_LABELS:
        problem = f"has {len(labels)} labels; at most {MAX_USER_LABELS} are allowed"
        raise InputError(f"user_labels {problem}", field=field, limit=MAX_USER_LABELS)
    for key, value in labels.items():
        if not isinstance(key, str) or not isinstance(value, str):
            shown = f"{type(key).__name__} -> {type(value).__name__}"
            raise InputError(
                f"user_labels: keys and values must be strings, got {shown}", field=field
            )
        if not 1 <= len(key) <= MAX_LABEL_CHARS or len(value) > MAX_LABEL_CHARS:
            problem = f"a key has 1 to {MAX_LABEL_CHARS} characters, a value at most as many"
        elif not (key[0].isalpha() and not key[0].isupper()):
            problem = "a key starts with a lowercase letter or an international character"
        elif not all(map(_label_char, key + value)):
            problem = "use lowercase letters, digits, '_' and '-' (international ones too)"
        else:
            continue
        label = key[: MAX_LABEL_CHARS + 1]
        raise InputError(
            f"user_labels: the label {label!r} breaks Google's label rules: {problem}",
            field=field,
            limit=MAX_LABEL_CHARS,
        )
    return MappingProxyType(dict(labels))


def jsonable_metadata(value: Any, path: str) -> Any:
    """``value`` as JSON types (``path`` names it in errors): tuples, sets (sorted) and arrays
    (``dtype`` and ``tolist()``) as lists, datetimes in ISO 8601, UTF-8 bytes as text, NaN and
    infinities as ``None``, int keys as digits, other objects as their ``str()``. Refused: cycles,
    nesting over ``MAX_METADATA_DEPTH``, other bytes and keys, lone surrogates."""
    return _Walk(path).convert(value, 0)


class _Walk:
    """One conversion: the containers open (cycles) and the keys to the value at hand."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.active: set[int] = set()
        self.trail: list[object] = []

    def refuse(self, problem: str, remedy: str) -> InputError:
        keys = [f"[{_short(key)}]" for key in self.trail]
        if len(keys) > 6:  # a deep path: its start and its end say where
            keys[3:-2] = ["..."]
        path = self.root + "".join(keys)
        return InputError(f"{path} {problem}: {remedy}", field=path)

    def text(self, value: str) -> str:
        found = _first_surrogate(value)
        if found is None:
            return value
        raise self.refuse(
            f"holds a lone surrogate (U+{ord(found.group()):04X}), which is not valid UTF-8",
            "decode the text properly or remove it",
        )

    def convert(self, value: Any, depth: int) -> Any:
        kind = type(value)
        # The common types first, by identity: this runs for every value of every source.
        if kind is str:
            return value if value.isascii() else self.text(value)
        if kind is int or kind is bool or value is None:
            return value
        if kind is dict or kind is list:
            return self.container(value, depth)
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, float):
            return value if math.isfinite(value) else None
        if isinstance(value, int):
            return value
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
        trail, inner = self.trail, depth + 1
        try:
            if isinstance(value, Mapping):
                converted: dict[str, Any] = {}
                for key, item in value.items():
                    name = self.key(key)
                    trail.append(key)
                    converted[name] = self.convert(item, inner)
                    trail.pop()
                return converted
            items = []
            for number, item in enumerate(value):
                trail.append(number)
                items.append(self.convert(item, inner))
                trail.pop()
        finally:
            self.active.discard(id(value))
        if isinstance(value, set | frozenset):
            items.sort(key=_set_order)  # a set has no order: give it a stable one
        return items

    def key(self, key: object) -> str:
        if isinstance(key, str):
            return self.text(key)
        if isinstance(key, int) and not isinstance(key, bool):
            return str(key)
        raise self.refuse(
            f"has a key of type {type(key).__name__}",
            "use string keys (JSON objects have only string keys)",
        )


def _short(key: object) -> str:
    text = repr(key)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _set_order(item: Any) -> tuple[int, Any]:
    """Numbers by value, then everything else by its JSON text."""
    if isinstance(item, int | float) and not isinstance(item, bool):
        return (0, item)
    return (1, json.dumps(item, sort_keys=True))
