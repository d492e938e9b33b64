"""Resources made through Google's clients are kept in the state dir: a new emulator on it
serves the same data stores, engines and documents (its index reloaded, not rebuilt); in memory,
nothing is kept."""

from __future__ import annotations

import logging

from tests.emulator.conftest import ONCE
from tests.emulator.google_resources import (
    COLLECTION,
    branch,
    clients_of,
    create_document,
    data_store,
    engine,
    search_ids,
    serve,
    text,
)


def make_resources(address: str) -> None:
    clients = clients_of(address)
    name = data_store(clients, "kept")
    create_document(clients, name, "bird", text("Cormorants dry their wings."))
    engine(clients, "kept-app", ["kept"], display_name="kept").result(timeout=10)
    assert search_ids(clients, name, "cormorants") == ["bird"]  # builds and saves the index
    clients.close()


def test_resources_survive_a_restart_on_the_same_state_dir(tmp_path, caplog):
    state_dir = tmp_path / "state"
    with serve(tmp_path, state_dir) as server:
        make_resources(server.address)
    caplog.set_level(logging.INFO, logger="grounding_emulator")
    with serve(tmp_path, state_dir) as server:
        clients = clients_of(server.address)
        name = f"{COLLECTION}/dataStores/kept"
        assert clients.data_stores.get_data_store(name=name, **ONCE).display_name == "kept"
        document = clients.documents.get_document(name=f"{branch(name)}/documents/bird", **ONCE)
        assert document.content.raw_bytes == b"Cormorants dry their wings."
        engine = clients.engines.get_engine(name=f"{COLLECTION}/engines/kept-app", **ONCE)
        assert list(engine.data_store_ids) == ["kept"]
        assert search_ids(clients, f"{COLLECTION}/engines/kept-app", "wings") == ["bird"]
        clients.close()
    messages = [r.getMessage() for r in caplog.records]
    assert "reloaded 1 data stores and 1 engines from " + str(state_dir / "resources") in messages
    assert any(m.startswith("reloaded data store kept from ") for m in messages)
    assert not any(m.startswith("ingested data store kept") for m in messages)


def test_without_a_state_dir_nothing_is_kept(tmp_path):
    with serve(tmp_path) as server:
        make_resources(server.address)
    with serve(tmp_path) as server:
        clients = clients_of(server.address)
        listed = clients.data_stores.list_data_stores(parent=COLLECTION, **ONCE)
        assert [d.name.rsplit("/", 1)[1] for d in listed] == ["kb"]
        clients.close()
