"""The schema a data store detects from its documents' struct data: the type of each field.

Google auto-detects a schema from structured data ("Provide or auto-detect a schema",
cloud.google.com/generative-ai-app-builder/docs/provide-schema) and filters by field type
("Filter generic search for structured or unstructured data",
cloud.google.com/generative-ai-app-builder/docs/filter-search-metadata): text fields take
``ANY``, numbers ``IN`` and comparisons, datetimes comparisons, geolocations ``GEO_DISTANCE``.
The emulator detects the types from the values:

- a string is ``datetime`` when it is an ISO 8601 date or date-time (``2024-04-16``,
  ``2024-04-16T12:00:00-07:00``), else ``text``; a number is ``number``; ``true``/``false``
  is ``boolean``;
- an object with numeric ``latitude`` and ``longitude`` is ``geolocation`` (kept whole, not
  flattened into two number fields);
- a list has the types of its elements;
- a field whose values differ in type across documents has every type it holds (Google's
  schema gives a field one type; the emulator keeps each value usable by its own type).
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal, cast

__all__ = [
    "FieldType",
    "Moment",
    "TypeDetector",
    "detect_types",
    "geolocation_of",
    "parse_moment",
]

FieldType = Literal["text", "number", "boolean", "datetime", "geolocation"]

Moment = tuple[int, int]
"""A span of time as ``(start, end)`` microseconds since the Unix epoch, end exclusive."""

# ISO 8601 as Google's filter page writes it: "2023", "2024-04-16",
# "2024-04-16T12:00:00-07:00" (bounded: no nested repetition).
_ISO_8601 = re.compile(
    r"(?P<year>\d{4})(?:-(?P<month>\d{2})(?:-(?P<day>\d{2})"
    r"(?:[T ](?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?P<fraction>\.\d{1,9})?)?"
    r"(?P<zone>Z|[+-]\d{2}:?\d{2})?)?)?)?"
)
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_MICROSECOND = _dt.timedelta(microseconds=1)


def _micros(moment: _dt.datetime) -> int:
    return (moment - _EPOCH) // _MICROSECOND


def _zone(text: str | None) -> _dt.timezone:
    if text is None or text == "Z":
        return _dt.timezone.utc
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    offset = _dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return _dt.timezone(sign * offset)


@functools.lru_cache(maxsize=4096)
def parse_moment(text: str, *, date_only_ok: bool = True) -> Moment | None:
    """The span an ISO 8601 date or date-time covers (``None`` if ``text`` is not one).

    A year, month or day covers all of it; a time covers its minute, second or fraction. Without
    an offset a time is UTC. ``date_only_ok=False`` refuses a bare year or year-month (which
    detection must not take for a date).

    >>> parse_moment("1970-01-02")
    (86400000000, 172800000000)
    >>> parse_moment("2023", date_only_ok=False) is None
    True
    """
    match = _ISO_8601.fullmatch(text.strip())
    if match is None or (not date_only_ok and match["day"] is None):
        return None
    parts = match.groupdict()
    try:
        start = _dt.datetime(
            int(parts["year"]),
            int(parts["month"] or 1),
            int(parts["day"] or 1),
            int(parts["hour"] or 0),
            int(parts["minute"] or 0),
            int(parts["second"] or 0),
            int((parts["fraction"] or ".0")[1:7].ljust(6, "0")),
            tzinfo=_zone(parts["zone"]),
        )
    except (ValueError, OverflowError):
        return None
    if parts["month"] is None:
        end = start.replace(year=start.year + 1) if start.year < 9999 else start
    elif parts["day"] is None:
        end = (start + _dt.timedelta(days=32)).replace(day=1)
    elif parts["hour"] is None:
        end = start + _dt.timedelta(days=1)
    elif parts["second"] is None:
        end = start + _dt.timedelta(minutes=1)
    elif parts["fraction"] is None:
        end = start + _dt.timedelta(seconds=1)
    else:
        end = start + _MICROSECOND
    return _micros(start), _micros(end)


def geolocation_of(value: Any) -> tuple[float, float] | None:
    """``(latitude, longitude)`` of a geolocation value (an object with both numbers)."""
    if not isinstance(value, Mapping):
        return None
    latitude, longitude = value.get("latitude"), value.get("longitude")
    if not all(
        isinstance(n, int | float) and not isinstance(n, bool) for n in (latitude, longitude)
    ):
        return None
    return float(cast(float, latitude)), float(cast(float, longitude))


def _type_of(value: Any) -> FieldType | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "datetime" if parse_moment(value, date_only_ok=False) else "text"
    if geolocation_of(value) is not None:
        return "geolocation"
    return None


class TypeDetector:
    """Collects the types of flattened struct rows one at a time (what ``detect_types`` does
    for a whole list): an ingest adds each document's row as it reads it."""

    __slots__ = ("_found",)

    def __init__(self) -> None:
        self._found: dict[str, set[FieldType]] = {}

    def add(self, row: Mapping[str, Any]) -> None:
        """Count the fields of one flattened row."""
        found = self._found
        for name, value in row.items():
            kinds = found.setdefault(name, set())
            for item in value if isinstance(value, list | tuple) else (value,):
                kind = _type_of(item)
                if kind is not None:
                    kinds.add(kind)

    def types(self) -> dict[str, frozenset[FieldType]]:
        """The types each field holds over the rows added (a field of nulls has none)."""
        return {name: frozenset(kinds) for name, kinds in self._found.items()}


def detect_types(rows: Iterable[Mapping[str, Any]]) -> dict[str, frozenset[FieldType]]:
    """The types each (flattened) field holds over ``rows``; a field of nulls has none."""
    detector = TypeDetector()
    for row in rows:
        detector.add(row)
    return detector.types()
