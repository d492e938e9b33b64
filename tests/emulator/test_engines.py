"""EngineService through Google's clients: an engine made over a data store serves its search,
answers and sessions; create (one data store, checked), get, list (filtered), update, delete
(its sessions go with it); folder engines read but not changed."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.protobuf import field_mask_pb2

from tests.emulator.conftest import ONCE, assert_error
from tests.emulator.google_resources import (
    COLLECTION,
    create_document,
    data_store,
    engine,
    search_ids,
    text,
    unique,
)


def test_an_engine_serves_its_data_stores_search_answers_and_sessions(clients):
    data_store_id = unique("served")
    name = data_store(clients, data_store_id)
    document = text("The lighthouse keeper climbs ninety-nine stairs every evening.")
    create_document(clients, name, "keeper", document)
    engine_id = unique("app")
    operation = engine(
        clients,
        engine_id,
        [data_store_id],
        search_engine_config=de.Engine.SearchEngineConfig(
            search_tier=de.SearchTier.SEARCH_TIER_ENTERPRISE,
            search_add_ons=[de.SearchAddOn.SEARCH_ADD_ON_LLM],
        ),
    )
    assert operation.operation.name.startswith(f"{COLLECTION}/operations/create-engine-")
    made = operation.result(timeout=10)
    engine_name = f"{COLLECTION}/engines/{engine_id}"
    assert made.name == engine_name
    assert list(made.data_store_ids) == [data_store_id]
    assert made.search_engine_config.search_tier == de.SearchTier.SEARCH_TIER_ENTERPRISE
    assert made.create_time == made.update_time
    assert de.CreateEngineMetadata(operation.metadata).create_time == made.create_time

    assert search_ids(clients, engine_name, "stairs") == ["keeper"]
    answer = clients.answers.answer_query(
        request=de.AnswerQueryRequest(
            serving_config=f"{engine_name}/servingConfigs/default_serving_config",
            query=de.Query(text="How many stairs does the keeper climb?"),
            session=f"{engine_name}/sessions/-",
        ),
        **ONCE,
    )
    assert "ninety-nine stairs" in answer.answer.answer_text
    assert answer.session.name.startswith(f"{engine_name}/sessions/")
    listed = clients.sessions.list_sessions(parent=engine_name, **ONCE)
    assert [s.name for s in listed] == [answer.session.name]


def test_get_list_update_and_delete(clients):
    data_store_id = unique("base")
    data_store(clients, data_store_id)
    engine_id = unique("crud")
    made = engine(clients, engine_id, [data_store_id]).result(timeout=10)
    name = made.name
    assert clients.engines.get_engine(name=name, **ONCE) == made
    listed = clients.engines.list_engines(parent=COLLECTION, **ONCE)
    assert name in [e.name for e in listed]
    searching = clients.engines.list_engines(
        request=de.ListEnginesRequest(
            parent=COLLECTION, filter="solution_type=SOLUTION_TYPE_SEARCH"
        ),
        **ONCE,
    )
    assert name in [e.name for e in searching]
    chatting = clients.engines.list_engines(
        request=de.ListEnginesRequest(parent=COLLECTION, filter="solution_type=SOLUTION_TYPE_CHAT"),
        **ONCE,
    )
    assert name not in [e.name for e in chatting]

    updated = clients.engines.update_engine(
        engine=de.Engine(name=name, display_name="Renamed", solution_type="SOLUTION_TYPE_CHAT"),
        update_mask=field_mask_pb2.FieldMask(paths=["display_name"]),
        **ONCE,
    )
    assert updated.display_name == "Renamed"
    assert updated.solution_type == de.SolutionType.SOLUTION_TYPE_SEARCH
    assert updated.update_time > made.update_time
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        clients.engines.update_engine(
            engine=de.Engine(name=name),
            update_mask=field_mask_pb2.FieldMask(paths=["data_store_ids"]),
            **ONCE,
        )
    assert_error(excinfo, core_exceptions.InvalidArgument, "update_mask names 'data_store_ids'")

    operation = clients.engines.delete_engine(name=name, **ONCE)
    assert operation.operation.name.startswith(f"{COLLECTION}/operations/delete-engine-")
    assert de.DeleteEngineMetadata(operation.metadata).update_time
    with pytest.raises(core_exceptions.NotFound):
        clients.engines.get_engine(name=name, **ONCE)
    with pytest.raises(core_exceptions.NotFound):
        search_ids(clients, name, "anything")


def test_deleting_an_engine_forgets_its_sessions(clients):
    data_store_id = unique("kept")
    data_store(clients, data_store_id)
    engine_id = unique("again")
    engine(clients, engine_id, [data_store_id]).result(timeout=10)
    name = f"{COLLECTION}/engines/{engine_id}"
    clients.sessions.create_session(parent=name, session=de.Session(user_pseudo_id="u"), **ONCE)
    assert len(list(clients.sessions.list_sessions(parent=name, **ONCE))) == 1
    clients.engines.delete_engine(name=name, **ONCE)
    engine(clients, engine_id, [data_store_id]).result(timeout=10)
    assert list(clients.sessions.list_sessions(parent=name, **ONCE)) == []


def test_an_engine_can_serve_a_folder_data_store(clients):
    engine_id = unique("folder-app")
    engine(clients, engine_id, ["kb"]).result(timeout=10)
    assert search_ids(clients, f"{COLLECTION}/engines/{engine_id}", "folder") == ["folder-doc"]


@pytest.mark.parametrize(
    ("engine_id", "data_store_ids", "fields", "error", "fragment"),
    [
        ("Upper", ["kb"], {}, core_exceptions.InvalidArgument, "use lower-case letters"),
        ("e" * 64, ["kb"], {}, core_exceptions.InvalidArgument, "length limit of 63"),
        ("ok", [], {}, core_exceptions.InvalidArgument, "one data store id must be provided"),
        (
            "ok",
            ["kb", "kb2"],
            {},
            core_exceptions.InvalidArgument,
            "can only associate with at most one data store",
        ),
        ("ok", ["missing"], {}, core_exceptions.NotFound, "dataStores/missing not found"),
        (
            "ok",
            ["kb"],
            {"solution_type": de.SolutionType.SOLUTION_TYPE_UNSPECIFIED},
            core_exceptions.InvalidArgument,
            "engine.solution_type is required",
        ),
        (
            "ok",
            ["kb"],
            {"solution_type": de.SolutionType.SOLUTION_TYPE_RECOMMENDATION},
            core_exceptions.MethodNotImplemented,
            "SOLUTION_TYPE_RECOMMENDATION",
        ),
        (
            "ok",
            ["kb", "kb2"],
            {"solution_type": de.SolutionType.SOLUTION_TYPE_CHAT},
            core_exceptions.MethodNotImplemented,
            "an engine over one data store",
        ),
        (
            "ok",
            ["kb"],
            {"industry_vertical": de.IndustryVertical.MEDIA},
            core_exceptions.InvalidArgument,
            "does not match the vertical of data store kb (GENERIC)",
        ),
        ("ok", ["kb"], {"display_name": ""}, core_exceptions.InvalidArgument, "display_name"),
    ],
)
def test_create_checks_the_engine_as_google_documents_it(
    clients, engine_id, data_store_ids, fields, error, fragment
):
    with pytest.raises(error) as excinfo:
        engine(clients, engine_id, data_store_ids, **fields)
    assert_error(excinfo, error, fragment)


def test_folder_engines_are_read_but_not_changed(emulator_and_clients):
    server, clients = emulator_and_clients
    server.store.add_engine("kb-app", "kb")
    name = f"{COLLECTION}/engines/kb-app"
    got = clients.engines.get_engine(name=name, **ONCE)
    assert list(got.data_store_ids) == ["kb"]
    assert got.solution_type == de.SolutionType.SOLUTION_TYPE_SEARCH
    with pytest.raises(core_exceptions.FailedPrecondition) as excinfo:
        clients.engines.delete_engine(name=name, **ONCE)
    assert_error(excinfo, core_exceptions.FailedPrecondition, "served from a folder")
    with pytest.raises(core_exceptions.AlreadyExists):
        engine(clients, "kb-app", ["kb"])
