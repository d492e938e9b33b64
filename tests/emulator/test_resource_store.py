"""``ResourceStore`` without a server: resources keyed by their full names, a data store's index
rebuilt only after its documents change, what a state dir keeps (and what it skips when a file
is damaged)."""

from __future__ import annotations

import datetime as _dt
import logging

import pytest

from grounding_emulator.corpus.content import DocumentInput, source_document
from grounding_emulator.corpus.resources import (
    DataStoreResource,
    EngineResource,
    ResourceStore,
    StoredDocument,
)
from grounding_emulator.errors import AlreadyExists, FailedPrecondition, NotFound

COLLECTION = "projects/p/locations/global/collections/default_collection"
NAME = f"{COLLECTION}/dataStores/kb"
NOW = _dt.datetime(2025, 1, 2, tzinfo=_dt.timezone.utc)


def stored(document_id: str, value: str) -> StoredDocument:
    given = DocumentInput(
        document_id, has_content=True, mime_type="text/plain", raw_bytes=value.encode()
    )
    return StoredDocument(source_document(given, gcs_root=None, where="document", now=NOW), b"")


def test_resources_are_kept_under_their_full_names():
    resources = ResourceStore()
    resources.create_data_store(DataStoreResource(NAME, "CONTENT_REQUIRED", b"1"))
    other = NAME.replace("projects/p/", "projects/q/")
    assert resources.data_store(NAME) == DataStoreResource(NAME, "CONTENT_REQUIRED", b"1")
    assert resources.data_store(other) is None
    assert [r.id for r in resources.data_stores(COLLECTION)] == ["kb"]
    assert resources.data_stores(other.rsplit("/", 2)[0]) == []
    with pytest.raises(AlreadyExists):
        resources.create_data_store(DataStoreResource(NAME, "NO_CONTENT", b""))
    with pytest.raises(NotFound, match=f"data store {other} not found"):
        resources.documents(other)


def test_the_index_is_rebuilt_only_after_the_documents_change():
    resources = ResourceStore()
    resources.create_data_store(DataStoreResource(NAME, "CONTENT_REQUIRED", b""))
    empty = resources.snapshot(NAME)
    assert (empty.id, len(empty.documents)) == ("kb", 0)
    resources.put_documents(NAME, [stored("a", "Alpha text."), stored("b", "Beta text.")])
    first = resources.snapshot(NAME)
    assert [d.id for d in first.documents] == ["a", "b"]
    assert resources.snapshot(NAME) is first
    assert resources.delete_documents(NAME, ["b", "missing"]) == ["b"]
    assert [d.id for d in resources.snapshot(NAME).documents] == ["a"]
    resources.put_documents(NAME, [stored("c", "Gamma.")], keep=["c"])
    assert [d.id for d in resources.snapshot(NAME).documents] == ["c"]


def test_a_data_store_an_engine_serves_is_kept_until_the_engine_goes():
    resources = ResourceStore()
    resources.create_data_store(DataStoreResource(NAME, "NO_CONTENT", b""))
    resources.create_engine(EngineResource(f"{COLLECTION}/engines/app", "kb", b""))
    with pytest.raises(FailedPrecondition, match="used by engine"):
        resources.delete_data_store(NAME)
    resources.delete_engine(f"{COLLECTION}/engines/app")
    resources.delete_data_store(NAME)
    assert resources.data_store(NAME) is None


def test_a_state_dir_keeps_everything_and_a_damaged_file_is_skipped(tmp_path, caplog):
    resources = ResourceStore(tmp_path)
    resources.create_data_store(DataStoreResource(NAME, "CONTENT_REQUIRED", b"\x01"))
    resources.put_documents(NAME, [stored("a", "Alpha."), stored("b", "Beta.")])
    (tmp_path / NAME / "documents" / "b.json").write_text("{broken", encoding="utf-8")
    caplog.set_level(logging.WARNING, logger="grounding_emulator")
    again = ResourceStore(tmp_path)
    assert again.data_store(NAME) == DataStoreResource(NAME, "CONTENT_REQUIRED", b"\x01")
    assert [d.id for d in again.documents(NAME)] == ["a"]
    assert again.documents(NAME)[0].source.document.content == "Alpha."
    assert any("ignoring" in r.getMessage() and "b.json" in r.getMessage() for r in caplog.records)
    again.delete_data_store(NAME)
    assert not (tmp_path / NAME).exists()
    assert ResourceStore(tmp_path).data_store(NAME) is None
