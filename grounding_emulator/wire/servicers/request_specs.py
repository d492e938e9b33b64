"""The request parts Search and AnswerQuery share, read into the engines' values: boost specs,
data store specs, the search result mode, ``user_pseudo_id``.

Each reader takes the request field it reads from (``SearchRequest`` and
``AnswerQueryRequest.search_spec.search_params`` hold the same specs), so that errors name it.
"""

from __future__ import annotations

import re
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.errors import InvalidArgument, excerpt
from grounding_emulator.limits import MAX_USER_PSEUDO_ID
from grounding_emulator.search.engine import ConditionBoost, Mode

__all__ = ["boosts", "check_user_pseudo_id", "data_store_specs", "search_result_mode"]

_Mode = de.SearchRequest.pb().ContentSearchSpec.SearchResultMode
# DataStoreSpec.data_store: "Full resource name of DataStore", with or without its collection
# (the emulator serves collection-less data stores too).
_DATA_STORE = re.compile(
    r"^projects/[^/]+/locations/[^/]+(?:/collections/[^/]+)?/dataStores/(?P<data_store>[^/]+)$"
)


def boosts(boost_spec: Any) -> tuple[ConditionBoost, ...]:
    """A ``SearchRequest.BoostSpec``'s condition boosts."""
    return tuple(
        ConditionBoost(spec.condition, spec.boost) for spec in boost_spec.condition_boost_specs
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
        extra.extend(boosts(spec.boost_spec))
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


def check_user_pseudo_id(value: str) -> None:
    """``user_pseudo_id``: "a length limit of 128 characters. Otherwise, an INVALID_ARGUMENT
    error is returned" (the field doc of both SearchRequest and AnswerQueryRequest)."""
    if len(value) > MAX_USER_PSEUDO_ID:
        raise InvalidArgument(
            f"user_pseudo_id has {len(value)} characters; at most {MAX_USER_PSEUDO_ID} are allowed",
            field="user_pseudo_id",
        )
