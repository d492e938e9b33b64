"""The request parts Search and AnswerQuery share, read into the engines' values: boost specs
(with their boost control specs), data store specs, the search result mode, ``user_pseudo_id``,
the query's length (which Rank and ConverseConversation check too).

Each reader takes the request field it reads from (``SearchRequest`` and
``AnswerQueryRequest.search_spec.search_params`` hold the same specs), so that errors name it.
"""

from __future__ import annotations

import itertools
import math
import re
from typing import Any, cast

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.errors import InvalidArgument, excerpt
from grounding_emulator.limits import MAX_BOOST_SPECS, MAX_QUERY_CHARS, MAX_USER_PSEUDO_ID
from grounding_emulator.search.engine import AttributeType, BoostControl, ConditionBoost, Mode

__all__ = [
    "boosts",
    "check_query",
    "check_user_pseudo_id",
    "data_store_specs",
    "search_result_mode",
]

_Mode = de.SearchRequest.pb().ContentSearchSpec.SearchResultMode
_Control = de.SearchRequest.pb().BoostSpec.ConditionBoostSpec.BoostControlSpec
# ControlPoint.attribute_value for FRESHNESS: "an XSD dayTimeDuration value ... The pattern for
# this is: [nD][T[nH][nM][nS]]. For example, 5D, 3DT12H30M, T24H". XSD's leading P and lowercase
# units (langchain-google-community's integration test sends "7d") are accepted too.
_DURATION = re.compile(
    r"P?(?:(?P<days>\d+)D)?(?:T(?=\d)(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?"
    r"(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?",
    re.IGNORECASE,
)
_SECONDS = {"days": 86_400, "hours": 3_600, "minutes": 60, "seconds": 1}
# DataStoreSpec.data_store: "Full resource name of DataStore", with or without its collection
# (the emulator serves collection-less data stores too).
_DATA_STORE = re.compile(
    r"^projects/[^/]+/locations/[^/]+(?:/collections/[^/]+)?/dataStores/(?P<data_store>[^/]+)$"
)


def _attribute_value(text: str, attribute_type: AttributeType, field: str) -> float:
    """A control point's ``attribute_value``: a number, or a duration in seconds."""
    if attribute_type == "NUMERICAL":
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise InvalidArgument(
                f"{field} {excerpt(text)} is not a number: the NUMERICAL attribute value of a "
                'control point is the field\'s value as a string, e.g. "3.5" or "12"',
                field=field,
            )
        return value
    match = _DURATION.fullmatch(text.strip())
    if match is None or not any(match.groupdict().values()):
        raise InvalidArgument(
            f"{field} {excerpt(text)} is not a duration: a FRESHNESS attribute value is an XSD "
            "dayTimeDuration, [nD][T[nH][nM][nS]], e.g. 5D, 3DT12H30M or T24H",
            field=field,
        )
    return sum(float(n) * _SECONDS[unit] for unit, n in match.groupdict().items() if n)


def _control(spec: Any, field: str) -> BoostControl:
    """A ``BoostControlSpec`` (``field``: where it is in the request), checked as its field docs
    say: a curve through control points that "can only be monotonically increasing or
    decreasing (constant values are acceptable)", boost amounts "between -1 to 1", linear
    interpolation ("If unspecified ... it defaults to Linear")."""
    if spec.attribute_type not in (_Control.NUMERICAL, _Control.FRESHNESS):
        raise InvalidArgument(
            f"{field}.attribute_type must be NUMERICAL or FRESHNESS, got {spec.attribute_type}",
            field=f"{field}.attribute_type",
        )
    attribute_type = cast(AttributeType, _Control.AttributeType.Name(spec.attribute_type))
    if spec.interpolation_type not in (_Control.INTERPOLATION_TYPE_UNSPECIFIED, _Control.LINEAR):
        raise InvalidArgument(
            f"{field}.interpolation_type must be LINEAR, got {spec.interpolation_type}",
            field=f"{field}.interpolation_type",
        )
    if not spec.field_name:
        raise InvalidArgument(f"{field}.field_name is required", field=f"{field}.field_name")
    if not spec.control_points:
        raise InvalidArgument(
            f"{field}.control_points is empty: give at least one control point "
            "(attribute_value, boost_amount)",
            field=f"{field}.control_points",
        )
    points: list[tuple[float, float]] = []
    for number, point in enumerate(spec.control_points):
        where = f"{field}.control_points[{number}]"
        value = _attribute_value(point.attribute_value, attribute_type, f"{where}.attribute_value")
        if not -1.0 <= point.boost_amount <= 1.0:
            raise InvalidArgument(
                f"{where}.boost_amount must be between -1 and 1, got {point.boost_amount}",
                field=f"{where}.boost_amount",
            )
        if points and value <= points[-1][0]:
            raise InvalidArgument(
                f"{where}.attribute_value {excerpt(point.attribute_value)} is not after the "
                "previous control point's: list control points in increasing attribute value",
                field=f"{where}.attribute_value",
            )
        points.append((value, float(point.boost_amount)))
    steps = [b[1] - a[1] for a, b in itertools.pairwise(points)]
    if any(s > 0 for s in steps) and any(s < 0 for s in steps):
        raise InvalidArgument(
            f"{field}.control_points: the boost amounts go up and down; the curve can only be "
            "monotonically increasing or decreasing (constant values are acceptable)",
            field=f"{field}.control_points",
        )
    return BoostControl(spec.field_name, attribute_type, tuple(points), field)


def boosts(boost_spec: Any, field: str = "boost_spec") -> tuple[ConditionBoost, ...]:
    """A ``SearchRequest.BoostSpec``'s condition boosts (``field``: where it is in the
    request): "Maximum number of specifications is 20" (``condition_boost_specs``,
    https://cloud.google.com/python/docs/reference/discoveryengine/latest/google.cloud.discoveryengine_v1.types.SearchRequest.BoostSpec)."""
    count = len(boost_spec.condition_boost_specs)
    if count > MAX_BOOST_SPECS:
        raise InvalidArgument(
            f"{field}.condition_boost_specs has {count} specifications; at most "
            f"{MAX_BOOST_SPECS} are allowed: combine conditions with OR, or drop the weakest",
            field=f"{field}.condition_boost_specs",
        )
    return tuple(
        ConditionBoost(
            spec.condition,
            spec.boost,
            _control(
                spec.boost_control_spec,
                f"{field}.condition_boost_specs[{number}].boost_control_spec",
            )
            if spec.HasField("boost_control_spec")
            else None,
        )
        for number, spec in enumerate(boost_spec.condition_boost_specs)
    )


def data_store_specs(
    specs: Any, data_store: DataStore, field: str
) -> tuple[tuple[ConditionBoost, ...], tuple[tuple[str, str], ...]]:
    """The boosts and the ``(field, filter)`` pairs of the ``SearchRequest.DataStoreSpec``s
    ``specs`` (the request field ``field``). An engine here serves one data store: a spec naming
    another one is ``INVALID_ARGUMENT`` (``SearchRequest.data_store_specs``: "A struct to define
    data stores to filter on ... Otherwise, an INVALID_ARGUMENT error is returned")."""
    extra: list[ConditionBoost] = []
    filters: list[tuple[str, str]] = []
    for number, spec in enumerate(specs):
        name = f"{field}[{number}].data_store"
        match = _DATA_STORE.match(spec.data_store)
        if match is None:
            raise InvalidArgument(
                f"{name} {excerpt(spec.data_store)} is not a data store name: expected "
                "projects/{p}/locations/{l}/collections/{c}/dataStores/{d}",
                field=name,
            )
        if match["data_store"] != data_store.id:
            raise InvalidArgument(
                f"{name} {excerpt(match['data_store'])} is not a data store of this serving "
                "config: it "
                f"searches projects/{{p}}/locations/{{l}}/collections/{{c}}/dataStores/"
                f"{data_store.id}",
                field=name,
            )
        if spec.filter:
            filters.append((f"{field}[{number}].filter", spec.filter))
        extra.extend(boosts(spec.boost_spec, f"{field}[{number}].boost_spec"))
    return tuple(extra), tuple(filters)


def search_result_mode(value: int, field: str) -> Mode:
    """A ``ContentSearchSpec.SearchResultMode`` (``SearchParams.search_result_mode`` of
    AnswerQuery is the same enum): "If unspecified, the search result mode defaults to
    DOCUMENTS"."""
    if value in (_Mode.SEARCH_RESULT_MODE_UNSPECIFIED, _Mode.DOCUMENTS):
        return "documents"
    if value == _Mode.CHUNKS:
        return "chunks"
    raise InvalidArgument(f"{field} {value} is not a search result mode", field=field)


def check_query(text: str, field: str) -> str:
    """``text``, a query (Search's ``query``, AnswerQuery's ``query.text``, Rank's ``query``,
    ConverseConversation's ``query.input``, a session turn's ``query.text``), refused with
    ``INVALID_ARGUMENT`` over ``MAX_QUERY_CHARS``: Google documents no length
    (``SearchRequest.query``: "Raw search query"; ``RankRequest.query``: "The query to use",
    https://cloud.google.com/generative-ai-app-builder/docs/reference/rest/v1/projects.locations.rankingConfigs/rank);
    the bound is the emulator's (docs/emulator.md), checked before any work."""
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidArgument(
            f"{field} has {len(text)} characters; the emulator takes at most {MAX_QUERY_CHARS} "
            "(Google documents no bound): shorten it to the question itself",
            field=field,
        )
    return text


def check_user_pseudo_id(value: str) -> None:
    """``user_pseudo_id``: "a length limit of 128 characters. Otherwise, an INVALID_ARGUMENT
    error is returned" (the field doc of both SearchRequest and AnswerQueryRequest)."""
    if len(value) > MAX_USER_PSEUDO_ID:
        raise InvalidArgument(
            f"user_pseudo_id has {len(value)} characters; at most {MAX_USER_PSEUDO_ID} are allowed",
            field="user_pseudo_id",
        )
