"""DocumentService's single-document RPCs through Google's clients: create, get, list (paged),
update (masked, allow_missing), delete; text, HTML and PDF content, inline or from a ``gs://``
URI, struct and JSON data, Unicode; documents searchable at once; Google's document rules
refused with the field named; a folder data store's documents read but not changed."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.protobuf import field_mask_pb2

from grounding_emulator import CorpusStore, EmulatorServer
from tests.emulator.conftest import ONCE, assert_error
from tests.emulator.google_resources import (
    COLLECTION,
    Content,
    branch,
    clients_of,
    create_document,
    data_store,
    search_ids,
    text,
    text_pdf,
    unique,
)


@pytest.fixture(scope="module")
def content_store(clients):
    """A CONTENT_REQUIRED data store of the module."""
    return data_store(clients, unique("content"))


@pytest.fixture(scope="module")
def structured_store(clients):
    """A NO_CONTENT data store of the module."""
    return data_store(clients, unique("structured"), content_config="NO_CONTENT")


def test_a_document_round_trips_and_is_found_by_search_at_once(clients, content_store):
    document = text("The lighthouse keeper climbs ninety-nine stairs every evening.")
    document.struct_data = {"floor": 3, "tags": ["lamp", "stairs"]}
    made = create_document(clients, content_store, "keeper", document)
    name = f"{content_store}/branches/default_branch/documents/keeper"
    assert made.name == name
    assert made.id == "keeper"
    assert made.content.mime_type == "text/plain"
    assert made.content.raw_bytes == document.content.raw_bytes
    assert dict(made.struct_data) == {"floor": 3.0, "tags": ["lamp", "stairs"]}
    assert made.index_time.timestamp() > 0
    assert clients.documents.get_document(name=name, **ONCE) == made
    assert search_ids(clients, content_store, "ninety-nine stairs") == ["keeper"]
    response = clients.search.search(
        request=de.SearchRequest(
            serving_config=f"{content_store}/servingConfigs/default_search",
            query="stairs",
            filter='tags: ANY("lamp")',
            content_search_spec={"search_result_mode": "CHUNKS"},
        ),
        **ONCE,
    )
    assert [r.chunk.content for r in response.results] == [
        "The lighthouse keeper climbs ninety-nine stairs every evening."
    ]
    assert response.results[0].chunk.document_metadata.struct_data["floor"] == 3


@pytest.mark.parametrize(
    ("document_id", "content", "query", "title"),
    [
        (
            "page",
            Content(
                mime_type="text/html",
                raw_bytes=b"<html><head><title>Harbour guide</title></head><body><h1>Tides</h1>"
                b"<p>The harbour floods twice a day.</p></body></html>",
            ),
            "harbour floods",
            "Harbour guide",
        ),
        (
            "report",
            Content(mime_type="application/pdf", raw_bytes=text_pdf("Quarterly revenue grew")),
            "quarterly revenue",
            "report",
        ),
        (
            "unicode",
            Content(
                mime_type="text/plain",
                raw_bytes="東京タワーは一九五八年に完成しました。Café crème 🚀".encode(),
            ),
            "東京タワー",
            "unicode",
        ),
    ],
)
def test_html_pdf_and_unicode_content_are_read_and_searched(
    clients, content_store, document_id, content, query, title
):
    create_document(clients, content_store, document_id, de.Document(content=content))
    response = clients.search.search(
        request=de.SearchRequest(
            serving_config=f"{content_store}/servingConfigs/default_search", query=query
        ),
        **ONCE,
    )
    assert response.results[0].id == document_id
    assert response.results[0].document.derived_struct_data["title"] == title


def test_content_from_a_gs_uri_is_read_from_the_gcs_root(emulator_and_clients, content_store):
    server, clients = emulator_and_clients
    path = server.backend.gcs_root / "bucket" / "docs" / "tide.html"
    path.parent.mkdir(parents=True)
    path.write_text("<title>Tide table</title><p>High tide comes at noon.</p>", encoding="utf-8")
    document = de.Document(content=Content(mime_type="text/html", uri="gs://bucket/docs/tide.html"))
    made = create_document(clients, content_store, "tide", document)
    assert made.content.uri == "gs://bucket/docs/tide.html"
    assert search_ids(clients, content_store, "high tide noon")[0] == "tide"


def test_struct_and_json_data_make_a_searchable_structured_document(clients, structured_store):
    create_document(
        clients, structured_store, "boat", de.Document(struct_data={"title": "Sailing boat"})
    )
    made = create_document(
        clients,
        structured_store,
        "ferry",
        de.Document(json_data='{"title": "Night ferry", "ports": ["Dover", "Calais"]}'),
    )
    assert made.json_data == '{"title": "Night ferry", "ports": ["Dover", "Calais"]}'
    assert search_ids(clients, structured_store, "Calais") == ["ferry"]
    assert search_ids(clients, structured_store, "sailing") == ["boat"]


def test_update_with_a_mask_changes_only_those_fields(clients, content_store):
    made = create_document(clients, content_store, "masked", text("Old text about anchors."))
    given = text("New text about sails.")
    given.name = made.name
    given.struct_data = {"kind": "note"}
    updated = clients.documents.update_document(
        document=given, update_mask=field_mask_pb2.FieldMask(paths=["struct_data"]), **ONCE
    )
    assert updated.content.raw_bytes == b"Old text about anchors."
    assert dict(updated.struct_data) == {"kind": "note"}
    replaced = clients.documents.update_document(document=given, **ONCE)  # no mask: all fields
    assert replaced.content.raw_bytes == b"New text about sails."
    assert search_ids(clients, content_store, "sails") == ["masked"]
    assert "masked" not in search_ids(clients, content_store, "anchors")


def test_update_creates_a_missing_document_only_with_allow_missing(clients, content_store):
    given = text("Made by an update.")
    given.name = f"{content_store}/branches/default_branch/documents/upserted"
    with pytest.raises(core_exceptions.NotFound) as excinfo:
        clients.documents.update_document(document=given, **ONCE)
    assert_error(excinfo, core_exceptions.NotFound, "set allow_missing")
    request = de.UpdateDocumentRequest(document=given, allow_missing=True)
    made = clients.documents.update_document(request=request, **ONCE)
    assert made.name == given.name


def test_delete_removes_the_document_from_get_list_and_search(clients, content_store):
    made = create_document(clients, content_store, "doomed", text("A doomed walrus story."))
    clients.documents.delete_document(name=made.name, **ONCE)
    with pytest.raises(core_exceptions.NotFound):
        clients.documents.get_document(name=made.name, **ONCE)
    with pytest.raises(core_exceptions.NotFound):
        clients.documents.delete_document(name=made.name, **ONCE)
    assert "doomed" not in [
        d.id for d in clients.documents.list_documents(parent=branch(content_store), **ONCE)
    ]
    assert search_ids(clients, content_store, "walrus") == []


def test_listing_pages_through_the_documents_by_id(clients):
    name = data_store(clients, unique("paged"))
    for number in range(5):
        create_document(clients, name, f"d{number}", text(f"Document number {number}."))
    pager = clients.documents.list_documents(
        request=de.ListDocumentsRequest(parent=branch(name), page_size=2), **ONCE
    )
    pages = [[d.id for d in page.documents] for page in pager.pages]
    assert pages == [["d0", "d1"], ["d2", "d3"], ["d4"]]
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        clients.documents.list_documents(
            request=de.ListDocumentsRequest(parent=branch(name), page_size=-5), **ONCE
        )
    assert_error(excinfo, core_exceptions.InvalidArgument, "page_size must be >= 0")


def test_a_document_id_taken_is_already_exists(clients, content_store):
    create_document(clients, content_store, "taken", text("First."))
    with pytest.raises(core_exceptions.AlreadyExists) as excinfo:
        create_document(clients, content_store, "taken", text("Second."))
    assert_error(excinfo, core_exceptions.AlreadyExists, "document 'taken' already exists")


@pytest.mark.parametrize(
    ("store", "document_id", "document", "error", "fragment"),
    [
        ("content", "", text("x"), core_exceptions.InvalidArgument, "document_id is required"),
        ("content", "a b", text("x"), core_exceptions.InvalidArgument, "RFC-1034"),
        ("content", "i" * 129, text("x"), core_exceptions.InvalidArgument, "limit of 128"),
        (
            "content",
            "none",
            de.Document(struct_data={"a": 1}),
            core_exceptions.InvalidArgument,
            "document.content is required: the data store's content_config is CONTENT_REQUIRED",
        ),
        (
            "structured",
            "some",
            text("x"),
            core_exceptions.InvalidArgument,
            "document.content is set, but the data store's content_config is NO_CONTENT",
        ),
        (
            "content",
            "big",
            de.Document(content=Content(mime_type="text/plain", raw_bytes=b"x" * 1_000_001)),
            core_exceptions.InvalidArgument,
            "document.content.raw_bytes has 1,000,001 bytes; the maximum length is 1,000,000",
        ),
        (
            "content",
            "typeless",
            de.Document(content=Content(raw_bytes=b"x")),
            core_exceptions.InvalidArgument,
            "document.content.mime_type is required",
        ),
        (
            "content",
            "odd",
            de.Document(content=Content(mime_type="text/x-odd", raw_bytes=b"x")),
            core_exceptions.InvalidArgument,
            "'text/x-odd' is not a supported content type",
        ),
        (
            "content",
            "word",
            de.Document(
                content=Content(
                    mime_type="application/vnd.openxmlformats-officedocument"
                    ".wordprocessingml.document",
                    raw_bytes=b"x",
                )
            ),
            core_exceptions.MethodNotImplemented,
            "the emulator does not parse this type",
        ),
        (
            "content",
            "latin1",
            de.Document(
                content=Content(mime_type="text/plain", raw_bytes="café".encode("latin-1"))
            ),
            core_exceptions.InvalidArgument,
            "it is not UTF-8 text",
        ),
        (
            "content",
            "web",
            de.Document(content=Content(mime_type="text/html", uri="https://example.com/")),
            core_exceptions.InvalidArgument,
            "only Cloud Storage URIs",
        ),
        (
            "content",
            "lost",
            de.Document(content=Content(mime_type="text/html", uri="gs://bucket/nowhere.html")),
            core_exceptions.NotFound,
            "document.content.uri 'gs://bucket/nowhere.html': no such object",
        ),
        (
            "content",
            "escape",
            de.Document(content=Content(mime_type="text/html", uri="gs://bucket/../../etc/x")),
            core_exceptions.InvalidArgument,
            "leads outside the folder",
        ),
        (
            "structured",
            "array",
            de.Document(json_data="[1, 2]"),
            core_exceptions.InvalidArgument,
            "document.json_data must be a JSON object",
        ),
        (
            "structured",
            "broken",
            de.Document(json_data="{nope"),
            core_exceptions.InvalidArgument,
            "document.json_data is not valid JSON",
        ),
        (
            "structured",
            "infinite",
            de.Document(json_data='{"x": Infinity}'),
            core_exceptions.InvalidArgument,
            "is not a JSON number",
        ),
    ],
)
def test_what_googles_document_rules_refuse_is_refused_naming_the_field(
    clients, content_store, structured_store, store, document_id, document, error, fragment
):
    parent = content_store if store == "content" else structured_store
    with pytest.raises(error) as excinfo:
        create_document(clients, parent, document_id, document)
    assert_error(excinfo, error, fragment)


def test_a_gs_uri_without_a_gcs_root_is_failed_precondition():
    with EmulatorServer(CorpusStore(semantic=False)) as server:
        clients = clients_of(server.address)
        parent = data_store(clients, "nogcs")
        document = de.Document(content=Content(mime_type="text/html", uri="gs://b/x.html"))
        with pytest.raises(core_exceptions.FailedPrecondition) as excinfo:
            create_document(clients, parent, "x", document)
        assert_error(excinfo, core_exceptions.FailedPrecondition, "start it with --gcs-root DIR")
        clients.close()


def test_a_folder_data_stores_documents_are_read_but_not_changed(clients):
    parent = f"{COLLECTION}/dataStores/kb"
    listed = list(clients.documents.list_documents(parent=branch(parent), **ONCE))
    assert [d.id for d in listed] == ["folder-doc"]
    assert listed[0].name == f"{parent}/branches/default_branch/documents/folder-doc"
    assert clients.documents.get_document(name=listed[0].name, **ONCE) == listed[0]
    with pytest.raises(core_exceptions.FailedPrecondition) as excinfo:
        create_document(clients, parent, "new", text("x"))
    assert_error(excinfo, core_exceptions.FailedPrecondition, "served from a folder")
    with pytest.raises(core_exceptions.FailedPrecondition):
        clients.documents.delete_document(name=listed[0].name, **ONCE)


@pytest.mark.parametrize(
    ("parent", "error", "fragment"),
    [
        (f"{COLLECTION}/dataStores/kb/branches/1", core_exceptions.NotFound, "branch '1'"),
        (f"{COLLECTION}/dataStores/none/branches/0", core_exceptions.NotFound, "'none' not found"),
        (
            f"{COLLECTION}/engines/e/branches/0",
            core_exceptions.InvalidArgument,
            "under data stores",
        ),
    ],
)
def test_documents_live_under_a_data_stores_default_branch(clients, parent, error, fragment):
    with pytest.raises(error) as excinfo:
        clients.documents.list_documents(parent=parent, **ONCE)
    assert_error(excinfo, error, fragment)
