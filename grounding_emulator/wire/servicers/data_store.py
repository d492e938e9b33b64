"""``google.cloud.discoveryengine.{v}.DataStoreService``: CreateDataStore, GetDataStore,
ListDataStores, UpdateDataStore, DeleteDataStore.

Each follows its v1 reference (the request messages' field docs): a data store is made in a
project, location and collection of its own, and seen from nowhere else; CreateDataStore and
DeleteDataStore return long-running operations, done at once (``wire/operations.py``). The data
stores served from folders (``grounding serve --corpus``, and the built-in one) are listed and
read in every project and location, as they are searched there, but they change with their
folder only: updating or deleting one is ``FAILED_PRECONDITION``.

The industry vertical is ``GENERIC`` (or unset): ``MEDIA`` and ``HEALTHCARE_FHIR`` data stores,
whose documents follow Google's own schemas, are ``UNIMPLEMENTED``, as is a ``GOOGLE_WORKSPACE``
content config (Google Workspace is not emulated). An unset content config is ``NO_CONTENT``
("If this field is unset, the server behavior defaults to NO_CONTENT").
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from google.cloud import discoveryengine_v1 as de
from google.protobuf import empty_pb2

from grounding_emulator.corpus.content import CONTENT_CONFIGS
from grounding_emulator.corpus.resources import DataStoreResource
from grounding_emulator.errors import AlreadyExists, FailedPrecondition, Unimplemented
from grounding_emulator.limits import (
    DEFAULT_DATA_STORE_PAGE_SIZE,
    MAX_DATA_STORE_DISPLAY_NAME,
    MAX_DATA_STORE_PAGE_SIZE,
    MAX_RESOURCE_ID,
)
from grounding_emulator.page_tokens import fingerprint, page_bounds
from grounding_emulator.wire.messages.resources import (
    DEFAULT_SCHEMA,
    DataStoreMessage,
    folder_data_store,
)
from grounding_emulator.wire.names import parse_collection, parse_data_store_name
from grounding_emulator.wire.servicers.fields import (
    RESOURCE_ID,
    check_display_name,
    check_resource_id,
    made_resource,
    resource_message,
    resource_messages,
    solution_type_filter,
    update_fields,
)
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc

__all__ = ["DataStoreServicer", "folder_served"]

_ContentConfig = DataStoreMessage.ContentConfig
_Vertical = de.IndustryVertical
_ListResponse = de.ListDataStoresResponse.pb()
_CreateMetadata = de.CreateDataStoreMetadata.pb()
_DeleteMetadata = de.DeleteDataStoreMetadata.pb()
# UpdateDataStoreRequest.update_mask: "If an unsupported or unknown field is provided, an
# INVALID_ARGUMENT error is returned"; the fields neither Immutable nor Output only.
_UPDATABLE = (
    "display_name",
    "solution_types",
    "advanced_site_search_config",
    "natural_language_query_understanding_config",
    "document_processing_config",
    "workspace_config",
    "healthcare_fhir_config",
)
# Input only, or omitted "from all API responses" (DataStore.kms_key_name, .starting_schema).
_NOT_RETURNED = ("kms_key_name", "starting_schema")


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def folder_served(data_store_id: str) -> FailedPrecondition:
    """The error for a change to a data store served from a folder."""
    return FailedPrecondition(
        f"data store {data_store_id!r} is served from a folder or JSONL file (grounding serve "
        "--corpus, or the built-in corpus): it changes with its files, not through the API; "
        "make a data store with CreateDataStore to manage it through the API"
    )


def _check_data_store(message: Any, field: str) -> str:
    """Check a ``DataStore`` to create; its content config's name."""
    check_display_name(message.display_name, f"{field}.display_name", MAX_DATA_STORE_DISPLAY_NAME)
    vertical = message.industry_vertical
    if vertical not in (_Vertical.INDUSTRY_VERTICAL_UNSPECIFIED, _Vertical.GENERIC):
        raise Unimplemented(
            f"{field}.industry_vertical {_Vertical(vertical).name}: the emulator serves GENERIC "
            "data stores only (media and healthcare documents follow Google's own schemas)"
        )
    config = str(_ContentConfig.Name(message.content_config))
    if config == "CONTENT_CONFIG_UNSPECIFIED":
        config = "NO_CONTENT"
    if config not in CONTENT_CONFIGS:
        raise Unimplemented(
            f"{field}.content_config {config}: the emulator serves data stores of "
            f"{', '.join(CONTENT_CONFIGS)} (Google Workspace is not emulated)"
        )
    return config


class DataStoreServicer(Servicer):
    """``google.cloud.discoveryengine.v1.DataStoreService``."""

    services = discovery_engine("DataStoreService")

    def _folder_message(self, name: str) -> Any | None:
        """The message of the folder data store a canonical name names, if it is served."""
        data_store_id = name.rsplit("/", 1)[1]
        if data_store_id not in self.backend.store.data_store_ids:
            return None
        return folder_data_store(name, self.backend.store.get(data_store_id))

    def _made(self, name: str) -> DataStoreResource:
        """The data store made through the API that ``name`` names."""
        served = folder_served(name.rsplit("/", 1)[1])
        made = self.backend.resources.data_store(name)
        return made_resource(name, "data store", made, self._folder_message, served)

    @rpc("CreateDataStore", de.CreateDataStoreRequest.pb(), versioned=True)
    def create_data_store(self, request: Any, version: str) -> Any:
        """``CreateDataStore`` ("Creates a DataStore"): ``data_store_id`` RFC-1034, at most 63
        characters; ``display_name`` required, at most 128 characters; ``ALREADY_EXISTS`` for a
        taken id (a folder data store's id too: it is served in every project)."""
        collection = parse_collection(request.parent, bare=True)
        data_store_id = check_resource_id(
            request.data_store_id, "data_store_id", RESOURCE_ID, MAX_RESOURCE_ID
        )
        config = _check_data_store(request.data_store, "data_store")
        name = f"{collection.path}/dataStores/{data_store_id}"
        if data_store_id in self.backend.store.data_store_ids:
            raise AlreadyExists(
                f"data store {name} already exists (served from a folder, in every project)"
            )
        now = _now()
        message = DataStoreMessage()
        message.CopyFrom(request.data_store)
        for field in _NOT_RETURNED:
            message.ClearField(field)
        message.name = name
        message.content_config = _ContentConfig.Value(config)
        message.default_schema_id = DEFAULT_SCHEMA
        message.create_time.FromDatetime(now)
        self.backend.resources.create_data_store(
            DataStoreResource(name, config, message.SerializeToString())
        )
        return self.backend.operations.finish(
            collection.path, "create-data-store", version, message, _CreateMetadata(), now
        )

    @rpc("GetDataStore", de.GetDataStoreRequest.pb())
    def get_data_store(self, request: Any) -> Any:
        """``GetDataStore``; "If the requested DataStore does not exist, a NOT_FOUND error is
        returned"."""
        name = parse_data_store_name(request.name).key
        made = self.backend.resources.data_store(name)
        return resource_message(name, "data store", made, DataStoreMessage, self._folder_message)

    @rpc("ListDataStores", de.ListDataStoresRequest.pb())
    def list_data_stores(self, request: Any) -> Any:
        """``ListDataStores``: the collection's data stores by id, paged ("If unspecified,
        defaults to 10. The maximum allowed value is 50"); ``filter`` "Filter by solution type.
        For example: filter = 'solution_type:SOLUTION_TYPE_SEARCH'"."""
        collection = parse_collection(request.parent, bare=True)
        wanted = solution_type_filter(request.filter, ":")
        every = resource_messages(
            self.backend.resources.data_stores(collection.path),
            DataStoreMessage,
            self.backend.store.data_store_ids,
            self._folder_message,
            f"{collection.path}/dataStores",
        )
        found = [m for m in every if wanted is None or wanted in m.solution_types]
        start, end, token = page_bounds(
            len(found),
            request.page_size,
            request.page_token,
            fingerprint(["ListDataStores", collection.path, request.filter]),
            default=DEFAULT_DATA_STORE_PAGE_SIZE,
            maximum=MAX_DATA_STORE_PAGE_SIZE,
            fields="parent and filter",
        )
        response = _ListResponse(next_page_token=token)
        response.data_stores.extend(found[start:end])
        return response

    @rpc("UpdateDataStore", de.UpdateDataStoreRequest.pb())
    def update_data_store(self, request: Any) -> Any:
        """``UpdateDataStore``: the fields ``update_mask`` names ("If an unsupported or unknown
        field is provided, an INVALID_ARGUMENT error is returned"); without a mask, the
        updatable fields the request sets (AIP-134)."""
        name = parse_data_store_name(request.data_store.name, "data_store.name").key
        resource = self._made(name)
        message = DataStoreMessage.FromString(resource.payload)
        update_fields(message, request, "data_store", _UPDATABLE, MAX_DATA_STORE_DISPLAY_NAME)
        self.backend.resources.update_data_store(
            DataStoreResource(name, resource.content_config, message.SerializeToString())
        )
        return message

    @rpc("DeleteDataStore", de.DeleteDataStoreRequest.pb(), versioned=True)
    def delete_data_store(self, request: Any, version: str) -> Any:
        """``DeleteDataStore``: the data store, its documents, and the sessions and
        conversations under it; "If the DataStore to delete does not exist, a NOT_FOUND error is
        returned"; ``FAILED_PRECONDITION`` while an engine serves it (Google does not document
        this case)."""
        name = parse_data_store_name(request.name).key
        self._made(name)
        self.backend.resources.delete_data_store(name)
        self.backend.forget_under(name)
        parent = name.rsplit("/", 2)[0]
        return self.backend.operations.finish(
            parent, "delete-data-store", version, empty_pb2.Empty(), _DeleteMetadata(), _now()
        )
