"""``google.cloud.discoveryengine.{v}.EngineService``: CreateEngine, GetEngine, ListEngines,
UpdateEngine, DeleteEngine.

Each follows its v1 reference. An engine (an app) serves its data store's Search, SearchLite,
AnswerQuery, sessions and conversations under ``.../collections/{c}/engines/{e}/...``, as the
engines served with ``--engine`` do. ``Engine.data_store_ids``: "For SOLUTION_TYPE_SEARCH ...
they can only associate with at most one data store ... when used in CreateEngineRequest, one
DataStore id must be provided": a search engine has exactly one. Chat engines may have several
in Google; the emulator serves a chat engine over one (several: ``UNIMPLEMENTED``), and no
recommendation engine. The data store must exist in the engine's collection (``NOT_FOUND``; a
data store served from a folder counts) and have its industry vertical ("Vertical on Engine has
to match vertical of the DataStore linked to the engine").

CreateEngine and DeleteEngine return long-running operations, done at once
(``wire/operations.py``). The engines served from folders (``--engine``, ``python-docs-app``) are
listed and read in every project and location; updating or deleting one is
``FAILED_PRECONDITION``.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from google.cloud import discoveryengine_v1 as de
from google.protobuf import empty_pb2

from grounding_emulator.corpus.resources import EngineResource
from grounding_emulator.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    Unimplemented,
)
from grounding_emulator.limits import MAX_ENGINE_DISPLAY_NAME, MAX_RESOURCE_ID
from grounding_emulator.wire.messages.resources import (
    DataStoreMessage,
    EngineMessage,
    folder_engine,
)
from grounding_emulator.wire.names import CollectionName, parse_collection, parse_engine_name
from grounding_emulator.wire.servicers.fields import (
    ENGINE_ID,
    check_display_name,
    check_resource_id,
    made_resource,
    resource_message,
    resource_messages,
    solution_type_filter,
    update_fields,
)
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc

__all__ = ["EngineServicer"]

_SolutionType = de.SolutionType
_Vertical = de.IndustryVertical
_ListResponse = de.ListEnginesResponse.pb()
_CreateMetadata = de.CreateEngineMetadata.pb()
_DeleteMetadata = de.DeleteEngineMetadata.pb()
_SERVED = (
    _SolutionType.SOLUTION_TYPE_SEARCH,
    _SolutionType.SOLUTION_TYPE_CHAT,
    _SolutionType.SOLUTION_TYPE_GENERATIVE_CHAT,
)
# UpdateEngineRequest.update_mask: the Engine fields neither Immutable nor Output only, but
# data_store_ids (an engine's data store is fixed here) and solution_type (Required, set once).
_UPDATABLE = ("display_name", "search_engine_config", "chat_engine_config", "common_config")


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


class EngineServicer(Servicer):
    """``google.cloud.discoveryengine.v1.EngineService``."""

    services = discovery_engine("EngineService")

    def _folder_message(self, name: str) -> Any | None:
        engine_id = name.rsplit("/", 1)[1]
        data_store_id = self.backend.store.engines.get(engine_id)
        if data_store_id is None:
            return None
        created = self.backend.store.get(data_store_id).created
        return folder_engine(name, data_store_id, created)

    def _data_store_vertical(self, collection: CollectionName, data_store_id: str) -> int:
        """The industry vertical of the engine's data store; ``NOT_FOUND`` when it is not in
        the engine's collection."""
        name = f"{collection.path}/dataStores/{data_store_id}"
        resource = self.backend.resources.data_store(name)
        if resource is not None:
            return int(DataStoreMessage.FromString(resource.payload).industry_vertical)
        if data_store_id in self.backend.store.data_store_ids:
            return int(_Vertical.GENERIC)
        raise NotFound(
            f"engine.data_store_ids: data store {name} not found (an engine's data stores are in "
            "its collection): create it first"
        )

    def _check_engine(self, message: Any, collection: CollectionName) -> str:
        """Check an ``Engine`` to create; the id of its data store."""
        check_display_name(message.display_name, "engine.display_name", MAX_ENGINE_DISPLAY_NAME)
        solution = message.solution_type
        if solution == _SolutionType.SOLUTION_TYPE_UNSPECIFIED:
            raise InvalidArgument(
                "engine.solution_type is required: SOLUTION_TYPE_SEARCH for a search app",
                field="engine.solution_type",
            )
        if solution not in _SERVED:
            raise Unimplemented(
                f"engine.solution_type {_SolutionType(solution).name}: the emulator serves "
                "search and chat engines (SOLUTION_TYPE_SEARCH, SOLUTION_TYPE_CHAT)"
            )
        ids = list(message.data_store_ids)
        if not ids:
            raise InvalidArgument(
                "engine.data_store_ids: one data store id must be provided when an engine is "
                "created (Engine.data_store_ids)",
                field="engine.data_store_ids",
            )
        if len(ids) > 1:
            if solution == _SolutionType.SOLUTION_TYPE_SEARCH:
                raise InvalidArgument(
                    f"engine.data_store_ids has {len(ids)} data stores; a SOLUTION_TYPE_SEARCH "
                    "engine can only associate with at most one data store",
                    field="engine.data_store_ids",
                )
            raise Unimplemented(
                f"engine.data_store_ids has {len(ids)} data stores: the emulator serves an "
                "engine over one data store"
            )
        vertical = self._data_store_vertical(collection, ids[0])
        given = message.industry_vertical
        if given not in (_Vertical.INDUSTRY_VERTICAL_UNSPECIFIED, vertical):
            raise InvalidArgument(
                f"engine.industry_vertical {_Vertical(given).name} does not match the vertical "
                f"of data store {ids[0]} ({_Vertical(vertical).name}): they have to match",
                field="engine.industry_vertical",
            )
        return str(ids[0])

    @rpc("CreateEngine", de.CreateEngineRequest.pb(), versioned=True)
    def create_engine(self, request: Any, version: str) -> Any:
        """``CreateEngine``: ``engine_id`` of 1-63 characters ``[a-z0-9][a-z0-9-_]*``,
        ``display_name`` and ``solution_type`` required, one data store."""
        collection = parse_collection(request.parent)
        engine_id = check_resource_id(request.engine_id, "engine_id", ENGINE_ID, MAX_RESOURCE_ID)
        data_store_id = self._check_engine(request.engine, collection)
        name = f"{collection.path}/engines/{engine_id}"
        if engine_id in self.backend.store.engines:
            raise AlreadyExists(
                f"engine {name} already exists (served from a folder, in every project)"
            )
        now = _now()
        message = EngineMessage()
        message.CopyFrom(request.engine)
        message.name = name
        if not message.industry_vertical:
            message.industry_vertical = self._data_store_vertical(collection, data_store_id)
        message.create_time.FromDatetime(now)
        message.update_time.FromDatetime(now)
        self.backend.resources.create_engine(
            EngineResource(name, data_store_id, message.SerializeToString())
        )
        return self.backend.operations.finish(
            collection.path, "create-engine", version, message, _CreateMetadata(), now
        )

    @rpc("GetEngine", de.GetEngineRequest.pb())
    def get_engine(self, request: Any) -> Any:
        """``GetEngine``."""
        name = parse_engine_name(request.name).key
        made = self.backend.resources.engine(name)
        return resource_message(name, "engine", made, EngineMessage, self._folder_message)

    @rpc("ListEngines", de.ListEnginesRequest.pb())
    def list_engines(self, request: Any) -> Any:
        """``ListEngines``: every engine of the collection, by id (``page_size`` and
        ``page_token``: "Not supported"); ``filter`` "Filter by solution type. For example:
        solution_type=SOLUTION_TYPE_SEARCH"."""
        collection = parse_collection(request.parent)
        wanted = solution_type_filter(request.filter, "=")
        every = resource_messages(
            self.backend.resources.engines(collection.path),
            EngineMessage,
            self.backend.store.engines,
            self._folder_message,
            f"{collection.path}/engines",
        )
        response = _ListResponse()
        response.engines.extend(m for m in every if wanted is None or m.solution_type == wanted)
        return response

    @rpc("UpdateEngine", de.UpdateEngineRequest.pb())
    def update_engine(self, request: Any) -> Any:
        """``UpdateEngine``: the fields ``update_mask`` names ("If an unsupported or unknown
        field is provided, an INVALID_ARGUMENT error is returned"); without a mask, the
        updatable fields the request sets (AIP-134)."""
        name = parse_engine_name(request.engine.name, "engine.name").key
        resource = self._made(name)
        message = EngineMessage.FromString(resource.payload)
        update_fields(message, request, "engine", _UPDATABLE, MAX_ENGINE_DISPLAY_NAME)
        message.update_time.FromDatetime(_now())
        self.backend.resources.update_engine(
            EngineResource(name, resource.data_store, message.SerializeToString())
        )
        return message

    def _made(self, name: str) -> EngineResource:
        """The engine made through the API that ``name`` names."""
        served = FailedPrecondition(
            f"engine {name} is served from a folder (grounding serve --engine, or the built-in "
            "python-docs-app): it is not changed through the API; make an engine with "
            "CreateEngine to manage it through the API"
        )
        made = self.backend.resources.engine(name)
        return made_resource(name, "engine", made, self._folder_message, served)

    @rpc("DeleteEngine", de.DeleteEngineRequest.pb(), versioned=True)
    def delete_engine(self, request: Any, version: str) -> Any:
        """``DeleteEngine``: the engine, and the sessions and conversations under it (its data
        store stays); "If the Engine to delete does not exist, a NOT_FOUND error is returned"."""
        name = parse_engine_name(request.name).key
        self._made(name)
        self.backend.resources.delete_engine(name)
        self.backend.forget_under(name)
        parent = name.rsplit("/", 2)[0]
        return self.backend.operations.finish(
            parent, "delete-engine", version, empty_pb2.Empty(), _DeleteMetadata(), _now()
        )
