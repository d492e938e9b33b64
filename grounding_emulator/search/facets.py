"""Facets of a search: counts of struct data values over the matching documents; pure.

Follows ``SearchRequest.FacetSpec`` and ``SearchResponse.Facet`` (v1 field docs):

- ``facet_key.key`` names a (flattened) struct data field; a document counts once for each
  distinct value it has (each element of a list field);
- text values are counted as they are; numerical values need ``facet_key.intervals`` ("Must be
  set for facets with numerical values. Must not be set for facet with text values", at most
  30), and count into each interval that contains them (``minimum``/``exclusive_minimum``,
  ``maximum``/``exclusive_maximum``);
- ``limit``: "If unspecified, defaults to 20. The maximum allowed value is 300. Values above 300
  are coerced to 300 ... If this field is negative, an INVALID_ARGUMENT is returned";
- order (``facet_key.order_by``): unset sorts text values in natural order (digit runs compare
  as numbers) and intervals in the order given; ``"count desc"`` by count, descending (ties in
  natural order); ``"value desc"`` text values in reverse natural order;
- ``facet_key.restricted_values`` (exact values), ``prefixes`` and ``contains`` ("Only supported
  on textual fields. Maximum is 10"; ``case_insensitive`` applies to the last two) keep only the
  text values they name;
- ``SearchRequest.facet_specs``: "A maximum of 100 values are allowed".

Not emulated: ``excluded_filter_keys`` (facet counts as if a key's filter clauses were absent)
and dynamic facets; ``enable_dynamic_position`` is accepted and keeps the request's order.

Where Google's docs do not say (a key that no document has), the facet is returned with no
values. The count is over every matching document, not only the page's.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from grounding_emulator.call_state import checked
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.errors import InvalidArgument, excerpt
from grounding_emulator.limits import (
    DEFAULT_FACET_LIMIT,
    MAX_FACET_INTERVALS,
    MAX_FACET_LIMIT,
    MAX_FACET_SPECS,
)

__all__ = ["FacetCount", "FacetRequest", "Interval", "check_facets", "count_facets"]

_DIGITS = re.compile(r"(\d+)")
_ORDERS = ("", "count desc", "value desc")
MAX_VALUE_MATCHERS = 10


@dataclass(frozen=True, slots=True)
class Interval:
    """A ``google.cloud.discoveryengine.v1.Interval``: each bound inclusive or exclusive, or
    absent (``None``)."""

    minimum: float | None = None
    exclusive_minimum: float | None = None
    maximum: float | None = None
    exclusive_maximum: float | None = None

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the interval."""
        return not (
            (self.minimum is not None and value < self.minimum)
            or (self.exclusive_minimum is not None and value <= self.exclusive_minimum)
            or (self.maximum is not None and value > self.maximum)
            or (self.exclusive_maximum is not None and value >= self.exclusive_maximum)
        )


@dataclass(frozen=True, slots=True)
class FacetRequest:
    """One ``FacetSpec``: the key, its limit (0 = the default), intervals and order."""

    key: str
    limit: int = 0
    intervals: tuple[Interval, ...] = ()
    order_by: str = ""
    restricted_values: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()
    contains: tuple[str, ...] = ()
    case_insensitive: bool = False

    def keeps(self, value: str) -> bool:
        """Whether the text ``value`` passes ``restricted_values``, ``prefixes`` and
        ``contains``."""
        if self.restricted_values and value not in self.restricted_values:
            return False
        folded = value.casefold() if self.case_insensitive else value

        def fold(text: str) -> str:
            return text.casefold() if self.case_insensitive else text

        if self.prefixes and not any(folded.startswith(fold(p)) for p in self.prefixes):
            return False
        return not self.contains or any(fold(c) in folded for c in self.contains)


@dataclass(frozen=True, slots=True)
class FacetCount:
    """One ``SearchResponse.Facet``: ``values`` are ``(text value or interval, count)``."""

    key: str
    values: tuple[tuple[str | Interval, int], ...]


def check_facets(requests: Sequence[FacetRequest]) -> None:
    """Refuse what the FacetSpec docs refuse (``INVALID_ARGUMENT``, naming the field)."""
    if len(requests) > MAX_FACET_SPECS:
        raise InvalidArgument(
            f"facet_specs has {len(requests)} values; at most {MAX_FACET_SPECS} are allowed",
            field="facet_specs",
        )
    for number, request in enumerate(requests):
        where = f"facet_specs[{number}]"
        if not request.key:
            raise InvalidArgument(f"{where}.facet_key.key is required", field=f"{where}.facet_key")
        if request.limit < 0:
            raise InvalidArgument(
                f"{where}.limit must be >= 0, got {request.limit}", field=f"{where}.limit"
            )
        if len(request.intervals) > MAX_FACET_INTERVALS:
            raise InvalidArgument(
                f"{where}.facet_key.intervals has {len(request.intervals)} intervals; at most "
                f"{MAX_FACET_INTERVALS} are allowed",
                field=f"{where}.facet_key.intervals",
            )
        for name in ("restricted_values", "prefixes", "contains"):
            if len(getattr(request, name)) > MAX_VALUE_MATCHERS:
                raise InvalidArgument(
                    f"{where}.facet_key.{name} has {len(getattr(request, name))} values; at most "
                    f"{MAX_VALUE_MATCHERS} are allowed",
                    field=f"{where}.facet_key.{name}",
                )
        if request.order_by not in _ORDERS:
            raise InvalidArgument(
                f"{where}.facet_key.order_by must be 'count desc' or 'value desc', got "
                f"{excerpt(request.order_by)}",
                field=f"{where}.facet_key.order_by",
            )


def _natural(value: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in _DIGITS.split(value))


def _values(value: Any) -> Iterable[Any]:
    if isinstance(value, list):
        return value
    return () if value is None else (value,)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _count_one(
    store: DataStore, documents: Sequence[int], request: FacetRequest, where: str
) -> FacetCount:
    if request.intervals:
        counts = [0] * len(request.intervals)
        for index in documents:
            values = _values(store.flat_struct(index).get(request.key))
            numbers = [v for v in values if _is_number(v)]
            for position, interval in enumerate(request.intervals):
                if any(interval.contains(float(v)) for v in numbers):
                    counts[position] += 1
        pairs: list[tuple[str | Interval, int]] = [
            (interval, count)
            for interval, count in zip(request.intervals, counts, strict=True)
            if count
        ]
        if request.order_by == "count desc":
            pairs.sort(key=lambda p: -p[1])
    else:
        text: Counter[str] = Counter()
        for index in documents:
            values = set()
            for value in _values(store.flat_struct(index).get(request.key)):
                if _is_number(value):
                    raise InvalidArgument(
                        f"{where}.facet_key.intervals must be set: {excerpt(request.key)} has "
                        f"numerical values",
                        field=f"{where}.facet_key.intervals",
                    )
                values.add(str(value).lower() if isinstance(value, bool) else str(value))
            text.update(v for v in values if request.keeps(v))
        ordered = sorted(text.items(), key=lambda p: _natural(p[0]))
        if request.order_by == "value desc":
            ordered.reverse()
        elif request.order_by == "count desc":
            ordered.sort(key=lambda p: -p[1])
        pairs = list(ordered)
    limit = min(request.limit or DEFAULT_FACET_LIMIT, MAX_FACET_LIMIT)
    return FacetCount(request.key, tuple(pairs[:limit]))


def count_facets(
    store: DataStore, documents: Sequence[int], requests: Sequence[FacetRequest]
) -> tuple[FacetCount, ...]:
    """The facets of ``requests`` over the matching ``documents`` (indexes into the store)."""
    return tuple(
        _count_one(store, documents, request, f"facet_specs[{number}]")
        for number, request in enumerate(checked(requests, "facet spec"))
    )
