"""DataStoreService through Google's clients: create (a done operation), get, list (paged,
filtered), update (masked), delete; ids and names checked as Google documents them; a data store
made in one project is seen from no other; folder data stores read but not changed."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1beta
from google.protobuf import empty_pb2, field_mask_pb2

from tests.emulator.conftest import ONCE, assert_error, versioned_client
from tests.emulator.google_resources import (
    COLLECTION,
    FOLDER_DATA_STORE,
    PROJECT,
    data_store,
    engine,
    search_ids,
    unique,
)

ContentConfig = de.DataStore.ContentConfig


def test_create_returns_a_done_operation_with_the_data_store_and_its_metadata(clients):
    data_store_id = unique("made")
    operation = clients.data_stores.create_data_store(
        parent=COLLECTION,
        data_store=de.DataStore(
            display_name="My Data Store",
            industry_vertical=de.IndustryVertical.GENERIC,
            solution_types=[de.SolutionType.SOLUTION_TYPE_SEARCH],
            content_config=ContentConfig.CONTENT_REQUIRED,
        ),
        data_store_id=data_store_id,
        **ONCE,
    )
    assert operation.done()
    assert operation.operation.name.startswith(f"{COLLECTION}/operations/create-data-store-")
    made = operation.result(timeout=10)
    name = f"{COLLECTION}/dataStores/{data_store_id}"
    assert made.name == name
    assert made.display_name == "My Data Store"
    assert made.industry_vertical == de.IndustryVertical.GENERIC
    assert list(made.solution_types) == [de.SolutionType.SOLUTION_TYPE_SEARCH]
    assert made.content_config == ContentConfig.CONTENT_REQUIRED
    assert made.default_schema_id == "default_schema"
    assert made.create_time.timestamp() > 0
    metadata = de.CreateDataStoreMetadata(operation.metadata)
    assert metadata.create_time == made.create_time
    assert metadata.update_time >= metadata.create_time
    assert clients.data_stores.get_data_store(name=name, **ONCE) == made
    bare = f"projects/{PROJECT}/locations/global/dataStores/{data_store_id}"
    assert clients.data_stores.get_data_store(name=bare, **ONCE) == made


def test_an_unset_content_config_is_no_content(clients):
    name = data_store(clients, unique("plain"), content_config="CONTENT_CONFIG_UNSPECIFIED")
    got = clients.data_stores.get_data_store(name=name, **ONCE)
    assert got.content_config == ContentConfig.NO_CONTENT


def test_update_changes_the_masked_fields_and_delete_removes_the_data_store(clients):
    name = data_store(clients, unique("changed"))
    updated = clients.data_stores.update_data_store(
        data_store=de.DataStore(name=name, display_name="Renamed", content_config="NO_CONTENT"),
        update_mask=field_mask_pb2.FieldMask(paths=["display_name"]),
        **ONCE,
    )
    assert updated.display_name == "Renamed"
    assert updated.content_config == ContentConfig.CONTENT_REQUIRED  # not in the mask
    assert clients.data_stores.get_data_store(name=name, **ONCE).display_name == "Renamed"

    operation = clients.data_stores.delete_data_store(name=name, **ONCE)
    assert operation.done()
    assert operation.operation.name.startswith(f"{COLLECTION}/operations/delete-data-store-")
    assert operation.result(timeout=10) == empty_pb2.Empty()
    assert de.DeleteDataStoreMetadata(operation.metadata).update_time
    with pytest.raises(core_exceptions.NotFound) as excinfo:
        clients.data_stores.get_data_store(name=name, **ONCE)
    assert_error(excinfo, core_exceptions.NotFound, f"data store {name} not found")
    with pytest.raises(core_exceptions.NotFound):
        clients.data_stores.delete_data_store(name=name, **ONCE)


@pytest.mark.parametrize(
    ("paths", "fragment"),
    [
        (["content_config"], "update_mask names 'content_config', which cannot be updated"),
        (["name"], "update_mask names 'name'"),
        (["nonsense"], "update_mask names 'nonsense'"),
    ],
)
def test_update_refuses_fields_that_cannot_change(clients, paths, fragment):
    name = data_store(clients, unique("fixed"))
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        clients.data_stores.update_data_store(
            data_store=de.DataStore(name=name, display_name="x"),
            update_mask=field_mask_pb2.FieldMask(paths=paths),
            **ONCE,
        )
    assert_error(excinfo, core_exceptions.InvalidArgument, fragment)


def test_listing_pages_through_the_collection_by_id(clients, emulator_and_clients):
    collection = f"projects/{unique('lister')}/locations/global/collections/default_collection"
    ids = sorted(f"ds-{n:02d}" for n in range(12))
    for data_store_id in ids:
        data_store(clients, data_store_id, collection=collection)
    first = clients.data_stores.list_data_stores(
        request=de.ListDataStoresRequest(parent=collection), **ONCE
    )
    page = next(iter(first.pages))
    expected = sorted([*ids, FOLDER_DATA_STORE])
    assert [d.name.rsplit("/", 1)[1] for d in page.data_stores] == expected[:10]  # default 10
    assert page.next_page_token
    assert [d.name.rsplit("/", 1)[1] for d in first] == expected  # the pager fetches the rest
    big = clients.data_stores.list_data_stores(
        request=de.ListDataStoresRequest(parent=collection, page_size=500), **ONCE
    )
    assert len(next(iter(big.pages)).data_stores) == 13  # coerced to 50: one page
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        clients.data_stores.list_data_stores(
            request=de.ListDataStoresRequest(parent=collection, page_size=-1), **ONCE
        )
    assert_error(excinfo, core_exceptions.InvalidArgument, "page_size must be >= 0, got -1")
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        clients.data_stores.list_data_stores(
            request=de.ListDataStoresRequest(parent=COLLECTION, page_token=page.next_page_token),
            **ONCE,
        )
    assert_error(excinfo, core_exceptions.InvalidArgument, "page_token does not belong")


def test_list_filters_by_solution_type(clients):
    collection = f"projects/{unique('filter')}/locations/global/collections/default_collection"
    clients.data_stores.create_data_store(
        parent=collection,
        data_store=de.DataStore(
            display_name="chat", solution_types=[de.SolutionType.SOLUTION_TYPE_CHAT]
        ),
        data_store_id="chatty",
        **ONCE,
    ).result(timeout=10)
    search = "solution_type:SOLUTION_TYPE_SEARCH"
    chat = "solution_type:SOLUTION_TYPE_CHAT"
    listed = {
        text: [
            d.name.rsplit("/", 1)[1]
            for d in clients.data_stores.list_data_stores(
                request=de.ListDataStoresRequest(parent=collection, filter=text), **ONCE
            )
        ]
        for text in (search, chat, "")
    }
    assert listed == {search: [FOLDER_DATA_STORE], chat: ["chatty"], "": ["chatty", "kb"]}
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        clients.data_stores.list_data_stores(
            request=de.ListDataStoresRequest(parent=collection, filter="display_name:x"), **ONCE
        )
    assert_error(
        excinfo, core_exceptions.InvalidArgument, "write solution_type:SOLUTION_TYPE_SEARCH"
    )


@pytest.mark.parametrize(
    ("data_store_id", "display_name", "error", "fragment"),
    [
        ("", "x", core_exceptions.InvalidArgument, "data_store_id is required"),
        ("has space", "x", core_exceptions.InvalidArgument, "must conform to RFC-1034"),
        ("d" * 64, "x", core_exceptions.InvalidArgument, "a length limit of 63 characters"),
        ("-dash", "x", core_exceptions.InvalidArgument, "starting with a letter or digit"),
        ("ok", "", core_exceptions.InvalidArgument, "data_store.display_name is required"),
        ("ok", "n" * 129, core_exceptions.InvalidArgument, "has 129 characters; the limit is 128"),
        (FOLDER_DATA_STORE, "x", core_exceptions.AlreadyExists, "already exists"),
    ],
)
def test_create_checks_the_id_and_the_display_name(
    clients, data_store_id, display_name, error, fragment
):
    with pytest.raises(error) as excinfo:
        clients.data_stores.create_data_store(
            parent=COLLECTION,
            data_store=de.DataStore(display_name=display_name),
            data_store_id=data_store_id,
            **ONCE,
        )
    assert_error(excinfo, error, fragment)


def test_an_id_taken_in_the_collection_is_already_exists(clients):
    data_store_id = unique("twice")
    data_store(clients, data_store_id)
    with pytest.raises(core_exceptions.AlreadyExists) as excinfo:
        data_store(clients, data_store_id)
    assert_error(excinfo, core_exceptions.AlreadyExists, f"dataStores/{data_store_id} already")


@pytest.mark.parametrize(
    ("data_store", "fragment"),
    [
        (
            de.DataStore(display_name="m", industry_vertical=de.IndustryVertical.MEDIA),
            "industry_vertical MEDIA: the emulator serves GENERIC data stores only",
        ),
        (
            de.DataStore(display_name="w", content_config=ContentConfig.GOOGLE_WORKSPACE),
            "content_config GOOGLE_WORKSPACE",
        ),
    ],
)
def test_what_the_emulator_does_not_serve_is_unimplemented(clients, data_store, fragment):
    with pytest.raises(core_exceptions.MethodNotImplemented) as excinfo:
        clients.data_stores.create_data_store(
            parent=COLLECTION, data_store=data_store, data_store_id=unique("no"), **ONCE
        )
    assert_error(excinfo, core_exceptions.MethodNotImplemented, fragment)


@pytest.mark.parametrize(
    ("parent", "error", "fragment"),
    [
        ("projects/p/locations/mars", core_exceptions.InvalidArgument, "location 'mars'"),
        (
            "projects/p/locations/global/collections/other",
            core_exceptions.NotFound,
            "collection 'other' not found",
        ),
        ("nonsense", core_exceptions.InvalidArgument, "parent 'nonsense' is not a collection"),
    ],
)
def test_the_parent_is_a_collection_in_a_vertex_ai_search_location(
    clients, parent, error, fragment
):
    with pytest.raises(error) as excinfo:
        clients.data_stores.create_data_store(
            parent=parent,
            data_store=de.DataStore(display_name="x"),
            data_store_id="x",
            **ONCE,
        )
    assert_error(excinfo, error, fragment)


def test_a_data_store_made_in_one_project_is_seen_from_no_other(clients):
    data_store_id = unique("mine")
    name = data_store(clients, data_store_id)
    elsewhere = name.replace(f"projects/{PROJECT}/", "projects/someone-else/")
    in_eu = name.replace("/locations/global/", "/locations/eu/")
    for other in (elsewhere, in_eu):
        with pytest.raises(core_exceptions.NotFound):
            clients.data_stores.get_data_store(name=other, **ONCE)
        with pytest.raises(core_exceptions.NotFound) as missing:
            search_ids(clients, other, "anything")
        assert "made through the API" not in missing.value.message
        listed = clients.data_stores.list_data_stores(
            request=de.ListDataStoresRequest(parent=other.rsplit("/", 2)[0]), **ONCE
        )
        assert data_store_id not in [d.name.rsplit("/", 1)[1] for d in listed]


def test_a_missing_data_store_is_not_found_naming_those_of_its_collection(clients):
    data_store_id = unique("named")
    name = data_store(clients, data_store_id)
    with pytest.raises(core_exceptions.NotFound) as missing:
        search_ids(clients, name.replace(data_store_id, "nowhere"), "anything")
    assert missing.value.message.startswith(
        f"data store 'nowhere' not found (data stores: {FOLDER_DATA_STORE}"
    )
    assert f"; made through the API in {COLLECTION}: " in missing.value.message
    assert data_store_id in missing.value.message.rpartition(": ")[2].split(", ")


def test_folder_data_stores_are_read_in_every_project_but_not_changed(clients):
    name = "projects/any/locations/us/collections/default_collection/dataStores/kb"
    got = clients.data_stores.get_data_store(name=name, **ONCE)
    assert got.name == name
    assert got.content_config == ContentConfig.CONTENT_REQUIRED
    assert list(got.solution_types) == [de.SolutionType.SOLUTION_TYPE_SEARCH]
    with pytest.raises(core_exceptions.FailedPrecondition) as excinfo:
        clients.data_stores.delete_data_store(name=name, **ONCE)
    assert_error(excinfo, core_exceptions.FailedPrecondition, "served from a folder")
    with pytest.raises(core_exceptions.FailedPrecondition):
        clients.data_stores.update_data_store(
            data_store=de.DataStore(name=name, display_name="x"), **ONCE
        )


def test_a_data_store_an_engine_serves_is_not_deleted(clients):
    data_store_id = unique("served")
    name = data_store(clients, data_store_id)
    engine_id = unique("app")
    engine(clients, engine_id, [data_store_id], display_name="app").result(timeout=10)
    with pytest.raises(core_exceptions.FailedPrecondition) as excinfo:
        clients.data_stores.delete_data_store(name=name, **ONCE)
    assert_error(excinfo, core_exceptions.FailedPrecondition, f"engines/{engine_id}")


def test_a_v1beta_client_gets_the_v1beta_messages_of_its_operation(emulator_and_clients):
    server, _ = emulator_and_clients
    client = versioned_client(discoveryengine_v1beta, "DataStoreServiceClient", server.address)
    operation = client.create_data_store(
        parent=COLLECTION,
        data_store=discoveryengine_v1beta.DataStore(display_name="beta"),
        data_store_id=unique("beta"),
        **ONCE,
    )
    made = operation.result(timeout=10)
    assert isinstance(made, discoveryengine_v1beta.DataStore)
    assert made.display_name == "beta"
    assert operation.operation.response.type_url.endswith("v1beta.DataStore")
    client.transport.close()
