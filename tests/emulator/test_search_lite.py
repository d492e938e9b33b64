"""SearchLite through Google's client: Search on a public website data store (or an engine over
one), ``FAILED_PRECONDITION`` on any other data store, as the method's reference says."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de

from tests.emulator.conftest import ONCE, assert_error
from tests.emulator.google_resources import (
    COLLECTION,
    create_document,
    data_store,
    engine,
    serving_config,
    text,
)


@pytest.fixture(scope="module", autouse=True)
def _data_stores(clients):
    """A public website data store ``site`` (served by the engine ``site-app``) and a data
    store ``private`` of no website."""
    website = data_store(clients, "site", content_config="PUBLIC_WEBSITE")
    page = text("<title>About Google</title><p>Google organizes information.</p>", "text/html")
    create_document(clients, website, "about", page)
    engine(clients, "site-app", ["site"], display_name="site").result(timeout=10)
    data_store(clients, "private")


@pytest.mark.parametrize("parent", ["dataStores/site", "engines/site-app"])
def test_search_lite_searches_a_public_website_as_search_does(clients, parent):
    request = de.SearchRequest(
        serving_config=serving_config(f"{COLLECTION}/{parent}"), query="Google"
    )
    lite = clients.search.search_lite(request=request, **ONCE)
    assert [r.document.name for r in lite.results] == [
        f"{COLLECTION}/dataStores/site/branches/default_branch/documents/about"
    ]
    full = clients.search.search(request=request, **ONCE)
    assert [r.id for r in lite.results] == [r.id for r in full.results]
    assert lite.results[0].document.derived_struct_data["title"] == "About Google"


@pytest.mark.parametrize("parent", ["dataStores/private", "dataStores/kb"])
def test_search_lite_on_a_data_store_not_of_a_website_is_failed_precondition(clients, parent):
    request = de.SearchRequest(serving_config=serving_config(f"{COLLECTION}/{parent}"), query="x")
    with pytest.raises(core_exceptions.FailedPrecondition) as excinfo:
        clients.search.search_lite(request=request, **ONCE)
    assert_error(
        excinfo,
        core_exceptions.FailedPrecondition,
        "SearchLite serves public website search only",
        "content_config CONTENT_REQUIRED",
    )


def test_search_lite_on_a_missing_data_store_is_not_found(clients):
    request = de.SearchRequest(serving_config=serving_config(f"{COLLECTION}/dataStores/none"))
    with pytest.raises(core_exceptions.NotFound):
        clients.search.search_lite(request=request, **ONCE)
