"""ImportDocuments and PurgeDocuments through Google's clients, and the operations they return:
inline and ``gs://`` sources under each data schema, error samples for the bad documents, FULL
and INCREMENTAL reconciliation, purges forced or dry; GetOperation, ListOperations and
CancelOperation on them."""

from __future__ import annotations

import json

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.longrunning import operations_pb2
from google.protobuf import field_mask_pb2

from tests.emulator.conftest import ONCE, assert_error, versioned_client
from tests.emulator.google_resources import (
    Content,
    branch,
    data_store,
    search_ids,
    text,
    text_pdf,
    unique,
)

Mode = de.ImportDocumentsRequest.ReconciliationMode
INVALID_ARGUMENT = 3


@pytest.fixture
def gcs(emulator_and_clients):
    """The folder standing for Cloud Storage."""
    return emulator_and_clients[0].backend.gcs_root


def document(document_id, value, **fields):
    made = text(value)
    made.id = document_id
    for key, item in fields.items():
        setattr(made, key, item)
    return made


def import_inline(clients, parent, documents, **fields):
    request = de.ImportDocumentsRequest(
        parent=branch(parent),
        inline_source=de.ImportDocumentsRequest.InlineSource(documents=documents),
        **fields,
    )
    return clients.documents.import_documents(request=request, **ONCE)


def ids(clients, parent):
    return [d.id for d in clients.documents.list_documents(parent=branch(parent), **ONCE)]


def test_an_inline_import_imports_the_good_documents_and_samples_the_errors(clients):
    parent = data_store(clients, unique("inline"))
    operation = import_inline(
        clients,
        parent,
        [
            document("good-1", "Seagulls nest on the cliffs."),
            document("bad id", "x"),
            de.Document(struct_data={"no": "content, no id"}),
            document("good-2", "Puffins dive for sand eels."),
            document("good-1", "A second copy of good-1."),
        ],
    )
    assert operation.done()
    assert operation.operation.name.startswith(f"{parent}/branches/0/operations/import-documents-")
    response = operation.result(timeout=10)
    assert [s.code for s in response.error_samples] == [INVALID_ARGUMENT] * 3
    assert [s.message.split(" ", 1)[0] for s in response.error_samples] == [
        "inline_source.documents[1].id",
        "inline_source.documents[2].id",
        "inline_source.documents[4]:",
    ]
    assert "must conform to RFC-1034" in response.error_samples[0].message
    assert "each document must have a valid Document.id" in response.error_samples[1].message
    assert "repeated (first: inline_source.documents[0])" in response.error_samples[2].message
    metadata = de.ImportDocumentsMetadata(operation.metadata)
    assert (metadata.success_count, metadata.failure_count, metadata.total_count) == (2, 3, 5)
    assert ids(clients, parent) == ["good-1", "good-2"]
    assert search_ids(clients, parent, "puffins") == ["good-2"]


def test_full_reconciliation_deletes_the_documents_the_source_does_not_have(clients):
    parent = data_store(clients, unique("full"))
    import_inline(clients, parent, [document(i, f"Old {i}.") for i in ("a", "b", "c")])
    operation = import_inline(
        clients,
        parent,
        [document("b", "New b about otters."), document("d", "New d.")],
        reconciliation_mode=Mode.FULL,
    )
    assert de.ImportDocumentsMetadata(operation.metadata).success_count == 2
    assert ids(clients, parent) == ["b", "d"]
    assert search_ids(clients, parent, "otters") == ["b"]
    import_inline(clients, parent, [document("e", "Incremental e.")])  # INCREMENTAL: adds
    assert ids(clients, parent) == ["b", "d", "e"]


def test_an_incremental_import_with_an_update_mask_changes_only_those_fields(clients):
    parent = data_store(clients, unique("masked"))
    import_inline(clients, parent, [document("a", "Kept content about herons.")])
    operation = import_inline(
        clients,
        parent,
        [document("a", "Replaced content.", struct_data={"colour": "grey"})],
        update_mask=field_mask_pb2.FieldMask(paths=["struct_data"]),
    )
    assert not operation.result(timeout=10).error_samples
    got = clients.documents.get_document(name=f"{branch(parent)}/documents/a", **ONCE)
    assert got.content.raw_bytes == b"Kept content about herons."
    assert dict(got.struct_data) == {"colour": "grey"}


def test_a_gcs_import_reads_jsonl_documents_content_files_custom_json_and_csv(clients, gcs):
    bucket = gcs / unique("bucket")
    (bucket / "pdfs").mkdir(parents=True)
    (bucket / "pdfs" / "one.pdf").write_bytes(text_pdf("Annual report of the lighthouse trust"))
    (bucket / "pdfs" / "two.txt").write_text("Notes on fog horns.", encoding="utf-8")
    lines = [
        {
            "id": "j1",
            "structData": {"title": "Jetty"},
            "content": {"mimeType": "text/plain", "uri": f"gs://{bucket.name}/pdfs/two.txt"},
        },
        {"id": "j2", "content": {"mimeType": "text/plain", "rawBytes": "UmVlZnMgYW5kIHJvY2tz"}},
        "not json",
    ]
    (bucket / "docs.jsonl").write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines),
        encoding="utf-8",
    )
    (bucket / "custom.json").write_text(
        json.dumps({"_id": "c1", "title": "Custom buoy"}) + "\n" + json.dumps({"title": "no id"}),
        encoding="utf-8",
    )
    (bucket / "rows.csv").write_text("sku,title\ns1,Red kayak\ns2,Blue canoe\n", encoding="utf-8")
    content = data_store(clients, unique("gcs-content"))

    def run(parent, uri, schema, **fields):
        request = de.ImportDocumentsRequest(
            parent=branch(parent),
            gcs_source=de.GcsSource(input_uris=[uri], data_schema=schema),
            **fields,
        )
        operation = clients.documents.import_documents(request=request, **ONCE)
        return operation.result(timeout=10), de.ImportDocumentsMetadata(operation.metadata)

    response, metadata = run(content, f"gs://{bucket.name}/pdfs/*", "content")
    assert (metadata.success_count, metadata.failure_count) == (2, 0)
    listed = list(clients.documents.list_documents(parent=branch(content), **ONCE))
    assert sorted(d.content.uri for d in listed) == [
        f"gs://{bucket.name}/pdfs/one.pdf",
        f"gs://{bucket.name}/pdfs/two.txt",
    ]
    assert all(len(d.id) == 32 and int(d.id, 16) >= 0 for d in listed)  # SHA-256 prefix
    assert search_ids(clients, content, "lighthouse trust") != []

    response, metadata = run(content, f"gs://{bucket.name}/docs.jsonl", "document")
    assert (metadata.success_count, metadata.failure_count) == (2, 1)
    assert response.error_samples[0].message.startswith(f"gs://{bucket.name}/docs.jsonl line 3")
    assert search_ids(clients, content, "reefs rocks") == ["j2"]

    structured = data_store(clients, unique("gcs-custom"), content_config="NO_CONTENT")
    response, metadata = run(structured, f"gs://{bucket.name}/custom.json", "custom")
    assert (metadata.success_count, metadata.failure_count) == (1, 1)
    assert "the id field '_id' must be a non-empty string" in response.error_samples[0].message
    response, metadata = run(structured, f"gs://{bucket.name}/rows.csv", "csv", id_field="sku")
    assert (metadata.success_count, metadata.failure_count) == (2, 0)
    assert ids(clients, structured) == ["c1", "s1", "s2"]
    assert search_ids(clients, structured, "kayak") == ["s1"]
    response, metadata = run(
        structured, f"gs://{bucket.name}/rows.csv", "csv", auto_generate_ids=True
    )
    assert metadata.success_count == 2
    assert len(ids(clients, structured)) == 5


@pytest.mark.parametrize(
    ("source", "error", "fragment"),
    [
        (
            {"bigquery_source": de.BigQuerySource(project_id="p", dataset_id="d", table_id="t")},
            core_exceptions.MethodNotImplemented,
            "bigquery_source: the emulator imports from inline_source and gcs_source only",
        ),
        ({}, core_exceptions.InvalidArgument, "a source is required"),
        (
            {"gcs_source": de.GcsSource(input_uris=["gs://nobucket/x.json"])},
            core_exceptions.NotFound,
            "gcs_source.input_uris[0] 'gs://nobucket/x.json': no such object",
        ),
        (
            {"gcs_source": de.GcsSource(input_uris=["gs://nobucket/*.json"])},
            core_exceptions.NotFound,
            "no object matches",
        ),
        (
            {"gcs_source": de.GcsSource(input_uris=["http://x/y"])},
            core_exceptions.InvalidArgument,
            "is not a Cloud Storage object URI",
        ),
        (
            {"gcs_source": de.GcsSource(input_uris=["gs://b/" + "x" * 2000])},
            core_exceptions.InvalidArgument,
            "a Cloud Storage URI can be up to 2000 characters long",
        ),
        (
            {"gcs_source": de.GcsSource(input_uris=["gs://b/x"], data_schema="user_event")},
            core_exceptions.InvalidArgument,
            "gcs_source.data_schema 'user_event' is not a document schema",
        ),
        (
            {"inline_source": {"documents": []}, "auto_generate_ids": True},
            core_exceptions.InvalidArgument,
            "auto_generate_ids is supported with gcs_source whose data_schema is custom or csv",
        ),
        (
            {"inline_source": {"documents": []}, "update_mask": {"paths": ["id"]}},
            core_exceptions.InvalidArgument,
            "update_mask names 'id'",
        ),
    ],
)
def test_an_import_that_cannot_succeed_is_refused_before_any_document(
    clients, source, error, fragment
):
    parent = data_store(clients, unique("refused"))
    request = de.ImportDocumentsRequest(parent=branch(parent), **source)
    with pytest.raises(error) as excinfo:
        clients.documents.import_documents(request=request, **ONCE)
    assert_error(excinfo, error, fragment)
    assert ids(clients, parent) == []


def test_a_pattern_naming_more_than_100_files_is_refused(clients, gcs):
    folder = gcs / unique("many")
    folder.mkdir()
    for number in range(101):
        (folder / f"{number:03d}.json").write_text("{}", encoding="utf-8")
    parent = data_store(clients, unique("many"))
    request = de.ImportDocumentsRequest(
        parent=branch(parent), gcs_source=de.GcsSource(input_uris=[f"gs://{folder.name}/*.json"])
    )
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        clients.documents.import_documents(request=request, **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, "matches more than 100 files")


def test_a_purge_without_force_counts_and_samples_but_deletes_nothing(clients):
    parent = data_store(clients, unique("dry"))
    import_inline(clients, parent, [document(f"p{n}", f"Purge me {n}.") for n in range(3)])
    operation = clients.documents.purge_documents(
        request=de.PurgeDocumentsRequest(parent=branch(parent), filter="*", force=False),
        **ONCE,
    )
    response = operation.result(timeout=10)
    assert operation.operation.name.startswith(f"{parent}/branches/0/operations/purge-documents-")
    assert response.purge_count == 3
    assert sorted(response.purge_sample) == [
        f"{parent}/branches/default_branch/documents/p{n}" for n in range(3)
    ]
    assert de.PurgeDocumentsMetadata(operation.metadata).success_count == 0
    assert ids(clients, parent) == ["p0", "p1", "p2"]


def test_a_forced_purge_deletes_every_document_or_those_named(clients):
    parent = data_store(clients, unique("forced"))
    import_inline(clients, parent, [document(f"p{n}", f"Purged gannet {n}.") for n in range(4)])
    named = de.PurgeDocumentsRequest(
        parent=branch(parent),
        filter="*",
        force=True,
        inline_source=de.PurgeDocumentsRequest.InlineSource(
            documents=[f"{branch(parent)}/documents/p0", f"{branch(parent)}/documents/gone"]
        ),
    )
    operation = clients.documents.purge_documents(request=named, **ONCE)
    assert operation.result(timeout=10).purge_count == 1
    metadata = de.PurgeDocumentsMetadata(operation.metadata)
    assert (metadata.success_count, metadata.ignored_count) == (1, 1)
    assert ids(clients, parent) == ["p1", "p2", "p3"]

    every = de.PurgeDocumentsRequest(parent=branch(parent), filter="*", force=True)
    operation = clients.documents.purge_documents(request=every, **ONCE)
    response = operation.result(timeout=10)
    assert response.purge_count == 3
    assert list(response.purge_sample) == []
    assert ids(clients, parent) == []
    assert search_ids(clients, parent, "gannet") == []


@pytest.mark.parametrize("filter_", ["", 'id: ANY("x")'])
def test_a_purge_filter_other_than_star_is_refused(clients, filter_):
    parent = data_store(clients, unique("filter"))
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        clients.documents.purge_documents(
            request=de.PurgeDocumentsRequest(parent=branch(parent), filter=filter_, force=True),
            **ONCE,
        )
    assert_error(excinfo, core_exceptions.InvalidArgument, "the only supported value is *")


def test_operations_are_got_listed_and_cancelled_by_name(clients):
    parent = data_store(clients, unique("ops"))
    first = import_inline(clients, parent, [document("a", "One.")])
    second = clients.documents.purge_documents(
        request=de.PurgeDocumentsRequest(parent=branch(parent), filter="*"), **ONCE
    )
    got = clients.documents.get_operation(
        request=operations_pb2.GetOperationRequest(name=first.operation.name), **ONCE
    )
    assert got == first.operation
    assert got.done
    bare = parent.replace("/collections/default_collection", "")
    listed = clients.documents.list_operations(
        request=operations_pb2.ListOperationsRequest(name=bare), **ONCE
    )
    assert [o.name for o in listed.operations] == [first.operation.name, second.operation.name]
    clients.documents.cancel_operation(
        request=operations_pb2.CancelOperationRequest(name=first.operation.name), **ONCE
    )
    assert (
        clients.documents.get_operation(
            request=operations_pb2.GetOperationRequest(name=first.operation.name), **ONCE
        )
        == first.operation
    )
    missing = f"{branch(parent)}/operations/import-documents-1"
    with pytest.raises(core_exceptions.NotFound) as excinfo:
        clients.documents.get_operation(
            request=operations_pb2.GetOperationRequest(name=missing), **ONCE
        )
    assert_error(excinfo, core_exceptions.NotFound, "operation")
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        clients.documents.list_operations(
            request=operations_pb2.ListOperationsRequest(name=parent, filter="done=true"), **ONCE
        )
    assert_error(excinfo, core_exceptions.InvalidArgument, "filter 'done=true'")


def test_the_operations_client_of_a_transport_polls_the_same_operations(clients):
    parent = data_store(clients, unique("poll"))
    operation = import_inline(clients, parent, [document("a", "Polled.")])
    polled = clients.documents.transport.operations_client.get_operation(operation.operation.name)
    assert polled == operation.operation
    assert polled.response.type_url.endswith("v1.ImportDocumentsResponse")
    assert polled.metadata.type_url.endswith("v1.ImportDocumentsMetadata")


def test_documents_with_every_content_type_go_in_one_import(clients):
    parent = data_store(clients, unique("mixed"))
    operation = import_inline(
        clients,
        parent,
        [
            de.Document(id="h", content=Content(mime_type="text/html", raw_bytes=b"<p>Wren</p>")),
            de.Document(
                id="p", content=Content(mime_type="application/pdf", raw_bytes=text_pdf("Robin"))
            ),
            de.Document(
                id="j",
                content=Content(mime_type="application/json", raw_bytes=b'{"bird": "Finch"}'),
            ),
        ],
    )
    assert not operation.result(timeout=10).error_samples
    assert [search_ids(clients, parent, q) for q in ("wren", "robin", "finch")] == [
        ["h"],
        ["p"],
        ["j"],
    ]


async def test_an_async_client_awaits_the_operation(emulator_and_clients):
    server, clients = emulator_and_clients
    parent = data_store(clients, unique("async"))
    client = versioned_client(de, "DocumentServiceAsyncClient", server.address, asynchronous=True)
    operation = await client.import_documents(
        request=de.ImportDocumentsRequest(
            parent=branch(parent),
            inline_source=de.ImportDocumentsRequest.InlineSource(
                documents=[document("a", "Awaited kittiwakes.")]
            ),
        ),
        **ONCE,
    )
    response = await operation.result()
    assert list(response.error_samples) == []
    assert de.ImportDocumentsMetadata(operation.metadata).success_count == 1
    await client.transport.close()
    assert search_ids(clients, parent, "kittiwakes") == ["a"]
