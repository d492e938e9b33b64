"""Boost control specs (``ConditionBoostSpec.boost_control_spec``) through Google's clients, as
Google's "Boost search results" page describes them: a piecewise linear boost over a numeric
attribute or a date's freshness, the condition ``true`` of its freshness examples, and the
boost spec langchain-google-community's integration test sends."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.api_core import exceptions
from google.cloud import discoveryengine_v1 as de

from grounding_emulator import CorpusStore, EmulatorServer
from tests.conftest import write_corpus
from tests.emulator.conftest import ONCE, assert_error, serving_config, versioned_client

STORE = "boost-docs"
CHUNKS = de.SearchRequest.ContentSearchSpec.SearchResultMode.CHUNKS
DAY = _dt.timedelta(days=1)
# id: (age of "published", star_rating); every document holds the query word once, in a text
# of the same length, so that the boosts alone order them.
DOCUMENTS = {
    "fresh-0d": (_dt.timedelta(hours=1), 5.0),
    "fresh-10d": (10 * DAY, 4.5),
    "fresh-45d": (45 * DAY, 4.0),
    "fresh-75d": (75 * DAY, 3.75),
    "fresh-100d": (100 * DAY, 3.0),
    "undated": (None, 2.0),
    "unrated": (5 * DAY, None),
}
# The page's freshness example: 7D -> 0.40, 30D -> 0.37, 60D -> 0.32, 90D -> 0.
PAGE_FRESHNESS = {
    "field_name": "published",
    "attribute_type": "FRESHNESS",
    "interpolation_type": "LINEAR",
    "control_points": [
        {"attribute_value": "7D", "boost_amount": 0.40},
        {"attribute_value": "30D", "boost_amount": 0.37},
        {"attribute_value": "60D", "boost_amount": 0.32},
        {"attribute_value": "90D", "boost_amount": 0},
    ],
}
# The page's star rating example: 3.5 -> 0.25, 4.0 -> 0.30, 4.5 -> 0.32.
PAGE_STARS = {
    "field_name": "star_rating",
    "attribute_type": "NUMERICAL",
    "interpolation_type": "LINEAR",
    "control_points": [
        {"attribute_value": "3.5", "boost_amount": 0.25},
        {"attribute_value": "4.0", "boost_amount": 0.30},
        {"attribute_value": "4.5", "boost_amount": 0.32},
    ],
}
# langchain-google-community's tests/integration_tests/test_vertex_ai_search.py, verbatim.
LANGCHAIN_BOOST_SPEC = {
    "condition_boost_specs": [
        {
            "condition": "true",
            "boost_control_spec": {
                "field_name": "dateModified",
                "attribute_type": "FRESHNESS",
                "interpolation_type": "LINEAR",
                "control_points": [
                    {"attribute_value": "7d", "boost_amount": 0.9},
                    {"attribute_value": "30d", "boost_amount": 0.7},
                ],
            },
        }
    ]
}


def _record(document_id: str, age: _dt.timedelta | None, stars: float | None) -> dict[str, Any]:
    now = _dt.datetime.now(_dt.timezone.utc)
    struct: dict[str, Any] = {"pier": document_id}
    if age is not None:
        struct["published"] = (now - age).strftime("%Y-%m-%dT%H:%M:%SZ")
        struct["dateModified"] = struct["published"]
    if stars is not None:
        struct["star_rating"] = stars
    return {
        "id": document_id,
        "title": f"Pier {document_id}",
        "content": f"The harbour report of pier {document_id.replace('-', '')}.",
        "struct_data": struct,
    }


@pytest.fixture(scope="module")
def boost_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    path: Path = tmp_path_factory.mktemp("boost") / f"{STORE}.jsonl"
    write_corpus(path, [_record(i, *values) for i, values in DOCUMENTS.items()])
    store = CorpusStore()
    store.ingest(STORE, path)
    with EmulatorServer(store) as server:
        yield server


@pytest.fixture(scope="module")
def client(boost_emulator: EmulatorServer) -> Any:
    return versioned_client(de, "SearchServiceClient", boost_emulator.address)


def factors(client: Any, *specs: dict[str, Any], store: str = STORE) -> dict[str, float]:
    """Each result's boosting factor (1 + its boost), in result order."""
    request = de.SearchRequest(
        serving_config=serving_config(store),
        query="harbour" if store == STORE else "lighthouse",
        page_size=10,
        content_search_spec={"search_result_mode": CHUNKS},
        boost_spec={"condition_boost_specs": list(specs)},
    )
    response = client.search(request=request, **ONCE)
    return {r.id: r.rank_signals.boosting_factor for r in response.results}


def test_freshness_boost_follows_the_pages_curve(client):
    """ "Less than the first control point: the boost amount of the first control point ...
    Between control points: calculated by linear interpolation ... Greater than the last
    control point: the boost amount of the last control point"."""
    found = factors(client, {"condition": "true", "boost_control_spec": PAGE_FRESHNESS})
    expected = {
        "fresh-0d": 0.40,
        "unrated": 0.40,  # 5 days: before the first point
        "fresh-10d": 0.40 - 0.03 * 3 / 23,
        "fresh-45d": 0.345,
        "fresh-75d": 0.16,
        "fresh-100d": 0.0,
        "undated": 0.0,  # no date, no boost
    }
    assert found == pytest.approx({k: 1 + v for k, v in expected.items()}, abs=1e-4)
    assert list(found.values()) == sorted(found.values(), reverse=True)  # equal relevance


def test_numerical_boost_follows_the_pages_star_rating_example(client):
    found = factors(client, {"condition": "star_rating >= 3.0", "boost_control_spec": PAGE_STARS})
    expected = {
        "fresh-0d": 0.32,  # 5.0: past the last point
        "fresh-10d": 0.32,
        "fresh-45d": 0.30,
        "fresh-75d": 0.275,  # 3.75: halfway between 3.5 and 4.0
        "fresh-100d": 0.25,  # 3.0: before the first point
        "undated": 0.0,  # 2.0 fails the condition
        "unrated": 0.0,  # no rating, no boost
    }
    assert found == pytest.approx({k: 1 + v for k, v in expected.items()}, abs=1e-4)
    assert list(found.values()) == sorted(found.values(), reverse=True)


def test_the_control_spec_replaces_the_condition_boost(client):
    """ "If both are set then the global boost is ignored and the more fine-grained
    boost_control_spec is applied"."""
    both = factors(client, {"condition": "true", "boost": 1.0, "boost_control_spec": PAGE_STARS})
    alone = factors(client, {"condition": "true", "boost_control_spec": PAGE_STARS})
    assert both == alone
    assert both["fresh-0d"] == pytest.approx(1.32)


def test_the_condition_true_matches_every_document(client):
    found = factors(client, {"condition": "true", "boost": 0.5})
    assert found == pytest.approx(dict.fromkeys(DOCUMENTS, 1.5))


def test_the_langchain_boost_spec_is_applied(client, boost_emulator):
    """What langchain-google-community's integration test sends (lowercase day units, the
    inferred ``dateModified``), through Search and ConverseConversation."""
    [spec] = LANGCHAIN_BOOST_SPEC["condition_boost_specs"]
    found = factors(client, spec)
    assert found["fresh-0d"] == pytest.approx(1.9)
    assert found["fresh-10d"] == pytest.approx(1.9 - 0.2 * 3 / 23, abs=1e-4)
    assert found["fresh-45d"] == pytest.approx(1.7)
    assert found["undated"] == pytest.approx(1.0)
    conversations = versioned_client(
        de, "ConversationalSearchServiceClient", boost_emulator.address
    )
    parent = serving_config(STORE).rsplit("/servingConfigs/", 1)[0]
    response = conversations.converse_conversation(
        request=de.ConverseConversationRequest(
            name=f"{parent}/conversations/-",
            query={"input": "harbour report"},
            boost_spec=LANGCHAIN_BOOST_SPEC,
        ),
        **ONCE,
    )
    boosted = {r.id: r.rank_signals.boosting_factor for r in response.search_results}
    assert boosted == pytest.approx(found, abs=1e-4)
    assert list(boosted.values()) == sorted(boosted.values(), reverse=True)


def test_the_langchain_boost_spec_is_accepted_where_no_document_has_the_date(search_client):
    # dateModified is one of the dates Google infers for website data: no schema needed.
    [spec] = LANGCHAIN_BOOST_SPEC["condition_boost_specs"]
    found = factors(search_client, spec, store="test-docs")
    assert found
    assert set(found.values()) == {1.0}


SPEC = "boost_spec.condition_boost_specs[0].boost_control_spec"


def with_control(**changes: Any) -> dict[str, Any]:
    return {"condition": "true", "boost_control_spec": {**PAGE_STARS, **changes}}


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        (
            with_control(field_name="stars"),
            [f"{SPEC}.field_name", "'stars' is not a struct_data field", "star_rating"],
        ),
        (
            with_control(field_name="published"),
            [f"{SPEC}.field_name", "attribute_type NUMERICAL reads a number field"],
        ),
        (
            {"condition": "true", "boost_control_spec": {**PAGE_FRESHNESS, "field_name": "pier"}},
            [f"{SPEC}.field_name", "attribute_type FRESHNESS reads a datetime field"],
        ),
        (
            with_control(attribute_type="ATTRIBUTE_TYPE_UNSPECIFIED"),
            [f"{SPEC}.attribute_type must be NUMERICAL or FRESHNESS"],
        ),
        (with_control(field_name=""), [f"{SPEC}.field_name is required"]),
        (with_control(control_points=[]), [f"{SPEC}.control_points is empty"]),
        (
            with_control(control_points=[{"attribute_value": "high", "boost_amount": 0.1}]),
            [f"{SPEC}.control_points[0].attribute_value 'high' is not a number"],
        ),
        (
            {
                "condition": "true",
                "boost_control_spec": {
                    **PAGE_FRESHNESS,
                    "control_points": [{"attribute_value": "7 days", "boost_amount": 0.1}],
                },
            },
            [f"{SPEC}.control_points[0].attribute_value", "[nD][T[nH][nM][nS]]"],
        ),
        (
            with_control(control_points=[{"attribute_value": "4", "boost_amount": 1.5}]),
            [f"{SPEC}.control_points[0].boost_amount must be between -1 and 1, got 1.5"],
        ),
        (
            with_control(
                control_points=[
                    {"attribute_value": "4", "boost_amount": 0.1},
                    {"attribute_value": "3", "boost_amount": 0.2},
                ]
            ),
            [f"{SPEC}.control_points[1].attribute_value", "increasing attribute value"],
        ),
        (
            with_control(
                control_points=[
                    {"attribute_value": "3", "boost_amount": 0.1},
                    {"attribute_value": "4", "boost_amount": 0.3},
                    {"attribute_value": "5", "boost_amount": 0.2},
                ]
            ),
            [f"{SPEC}.control_points", "monotonically increasing or decreasing"],
        ),
    ],
)
def test_a_bad_control_spec_is_invalid_argument(client, spec, fragments):
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        factors(client, spec)
    assert_error(excinfo, exceptions.InvalidArgument, *fragments)


def test_a_bad_control_spec_in_a_data_store_spec_names_its_field(client):
    data_store = serving_config(STORE).rsplit("/servingConfigs/", 1)[0]
    request = de.SearchRequest(
        serving_config=serving_config(STORE),
        query="harbour",
        data_store_specs=[
            {
                "data_store": data_store,
                "boost_spec": {"condition_boost_specs": [with_control(control_points=[])]},
            }
        ],
    )
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        client.search(request=request, **ONCE)
    assert_error(
        excinfo,
        exceptions.InvalidArgument,
        "data_store_specs[0].boost_spec.condition_boost_specs[0].boost_control_spec"
        ".control_points is empty",
    )


def test_a_condition_of_true_stays_malformed_as_a_filter(client):
    # The boost page's "condition": true is not in the filter grammar: only boosts take it.
    request = de.SearchRequest(serving_config=serving_config(STORE), query="harbour", filter="true")
    with pytest.raises(exceptions.InvalidArgument):
        client.search(request=request, **ONCE)
