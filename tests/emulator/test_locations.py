"""Locations in resource names, through Google's clients: ``global``, ``us`` and ``eu`` are
served ("Vertex AI Search locations", cloud.google.com/generative-ai-app-builder/docs/locations);
any other is INVALID_ARGUMENT naming the field and the location (Google documents no status)."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de

from tests.emulator.conftest import ONCE, assert_error, serving_config, versioned_client

REFUSED = (
    "location 'us-central1' is not a Vertex AI Search location: use global, us or eu (the "
    "multi-regions us and eu are served by us-discoveryengine.googleapis.com and "
    "eu-discoveryengine.googleapis.com)"
)


@pytest.mark.parametrize("location", ["global", "us", "eu"])
def test_the_documented_locations_are_served(search_client, grounding_client, location):
    request = de.SearchRequest(
        serving_config=serving_config(location=location), query="lighthouse", page_size=1
    )
    page = next(iter(search_client.search(request=request, **ONCE).pages))
    assert len(page.results) == 1
    checked = grounding_client.check_grounding(
        request={
            "grounding_config": f"projects/p/locations/{location}/groundingConfigs/"
            "default_grounding_config",
            "answer_candidate": "The keeper lights the lamp.",
            "facts": [{"fact_text": "The keeper lights the lamp."}],
        },
        **ONCE,
    )
    assert checked.support_score is not None


@pytest.mark.parametrize(
    "name",
    [
        serving_config(location="us-central1"),
        serving_config("test-app", kind="engines", location="us-central1"),
        serving_config(location="us-central1", collection=None),
    ],
    ids=["data-store", "engine", "collection-less"],
)
def test_search_refuses_other_locations(search_client, name):
    request = de.SearchRequest(serving_config=name, query="lighthouse")
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        search_client.search(request=request, **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, f"serving_config {name!r}: {REFUSED}")


def test_answer_query_refuses_other_locations(answer_client):
    name = serving_config("test-app", kind="engines", location="europe-west1")
    request = de.AnswerQueryRequest(serving_config=name, query={"text": "lighthouse?"})
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        answer_client.answer_query(request=request, **ONCE)
    assert_error(
        excinfo,
        core_exceptions.InvalidArgument,
        f"serving_config {name!r}: location 'europe-west1' is not a Vertex AI Search location",
    )


def test_check_grounding_refuses_other_locations(grounding_client):
    name = "projects/p/locations/asia/groundingConfigs/default_grounding_config"
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        grounding_client.check_grounding(
            request={"grounding_config": name, "answer_candidate": "x", "facts": []}, **ONCE
        )
    assert_error(
        excinfo,
        core_exceptions.InvalidArgument,
        f"grounding_config {name!r}: location 'asia' is not a Vertex AI Search location",
    )


def test_sessions_refuse_other_locations(emulator):
    sessions = versioned_client(de, "SessionServiceClient", emulator.address)
    parent = "projects/p/locations/us-central1/collections/default_collection/engines/test-app"
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        sessions.list_sessions(parent=parent, **ONCE)
    assert_error(
        excinfo,
        core_exceptions.InvalidArgument,
        f"parent {parent!r}: location 'us-central1' is not a Vertex AI Search location",
    )
