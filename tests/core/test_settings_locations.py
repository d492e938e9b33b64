"""Locations: the core takes the three Google documents for Discovery Engine ("Vertex AI Search
locations", cloud.google.com/generative-ai-app-builder/docs/locations) and refuses any other
before a call is made, in every place a location enters."""

from __future__ import annotations

import pytest
from google.auth.credentials import AnonymousCredentials
from pydantic import ValidationError

from grounding_core import (
    ConfigurationError,
    DiscoveryEngineClients,
    DiscoveryEngineConnection,
    DiscoveryEngineTarget,
    grounding_config_path,
)
from grounding_core.settings import LOCATIONS, check_location

REFUSAL = (
    "location 'us-central1' is not a Vertex AI Search location: use 'global', 'us' or 'eu' "
    "(Google serves Search, AnswerQuery and CheckGrounding there only; a data store created in "
    "'US (multiple regions)' is in 'us', one in 'EU (multiple regions)' in 'eu', any other in "
    "'global')"
)


def test_the_documented_locations():
    assert LOCATIONS == ("global", "us", "eu")
    assert [check_location(location) for location in LOCATIONS] == ["global", "us", "eu"]


@pytest.mark.parametrize(
    "build",
    [
        lambda: check_location("us-central1"),
        lambda: DiscoveryEngineTarget(project="p", data_store="d", location="us-central1"),
        lambda: DiscoveryEngineTarget(project="p", data_store="d").replace(location="us-central1"),
        lambda: DiscoveryEngineTarget.from_serving_config(
            "projects/p/locations/us-central1/collections/c/dataStores/d/servingConfigs/s"
        ),
        lambda: grounding_config_path("p", "us-central1"),
        lambda: DiscoveryEngineClients(location="us-central1", credentials=AnonymousCredentials()),
        lambda: DiscoveryEngineClients(location="us-central1", emulator_host="localhost:1"),
        lambda: DiscoveryEngineConnection.create(
            project_id="p", location="us-central1", emulator_host="localhost:1"
        ),
    ],
    ids=[
        "check",
        "target",
        "replace",
        "serving-config",
        "grounding",
        "clients",
        "emulator",
        "conn",
    ],
)
def test_other_locations_are_refused_everywhere(build):
    with pytest.raises(ConfigurationError) as excinfo:
        build()
    assert str(excinfo.value) == REFUSAL


@pytest.mark.parametrize("location", ["US", "Global", "europe-west1", "asia"])
def test_case_and_regions_matter(location):
    with pytest.raises(ConfigurationError, match=f"location '{location}' is not a Vertex AI"):
        check_location(location)


def test_malformed_locations_keep_their_own_messages():
    with pytest.raises(ConfigurationError, match="location is empty"):
        check_location("")
    with pytest.raises(ConfigurationError, match="location must be a string, got NoneType"):
        check_location(None)  # type: ignore[arg-type]


def test_the_multi_regions_have_their_hosts():
    hosts = {
        location: DiscoveryEngineClients(location=location, credentials=AnonymousCredentials())
        for location in LOCATIONS
    }
    assert {k: v.endpoint for k, v in hosts.items()} == {
        "global": "discoveryengine.googleapis.com",
        "us": "us-discoveryengine.googleapis.com",
        "eu": "eu-discoveryengine.googleapis.com",
    }
    target = DiscoveryEngineTarget(project="p", engine="app", location="eu")
    assert target.grounding_config_path == (
        "projects/p/locations/eu/groundingConfigs/default_grounding_config"
    )


def test_the_frameworks_refuse_them_too():
    from langchain_grounding import DiscoveryEngineRetriever
    from llamaindex_grounding import DiscoveryEngineRetriever as LlamaRetriever

    # LangChain's pydantic model reports it as a validation error of the field.
    with pytest.raises(ValidationError, match="location 'us-central1' is not a Vertex AI"):
        DiscoveryEngineRetriever(
            data_store_id="d", project_id="p", location="us-central1", emulator_host="h:1"
        )
    with pytest.raises(ConfigurationError, match="location 'us-central1' is not a Vertex AI"):
        LlamaRetriever(
            data_store_id="d", project_id="p", location="us-central1", emulator_host="h:1"
        )


def test_the_developer_knowledge_api_has_no_locations_to_check():
    from grounding_core import DeveloperKnowledgeClients

    clients = DeveloperKnowledgeClients(location="us-central1")
    assert (clients.location, clients.endpoint) == (
        "us-central1",
        "developerknowledge.googleapis.com",
    )
