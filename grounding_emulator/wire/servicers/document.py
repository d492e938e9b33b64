"""``google.cloud.discoveryengine.{v}.DocumentService``: CreateDocument, GetDocument,
ListDocuments, UpdateDocument, DeleteDocument, ImportDocuments, PurgeDocuments.

Each follows its v1 reference (the request messages' field docs). Documents live under a data
store's branch (``.../dataStores/{d}/branches/default_branch``; ``0`` names it too, as Google's
operation names do). A document is read as ``corpus/content.py`` says (its content, its struct
data, Google's rules on both) and chunked and indexed as a folder's documents are; it is found
by Search, SearchLite and AnswerQuery from the next call on. Its message is kept as the client
gave it (without the output-only fields) and returned with its name and ``index_time``.

ImportDocuments (``inline_source``, or ``gcs_source`` read from ``--gcs-root``,
``import_sources.py``; the other sources need Google's databases: ``UNIMPLEMENTED``) and
PurgeDocuments return operations done at once (``wire/operations.py``). An import imports the
documents it can and reports the others: ``ImportDocumentsMetadata`` counts them,
``ImportDocumentsResponse.error_samples`` holds the first ``MAX_ERROR_SAMPLES`` errors, each a
``google.rpc.Status`` with the error's code and a message naming the document (its index in
``inline_source.documents``, or its file and line). ``reconciliation_mode`` ``INCREMENTAL`` (the
default) "Inserts new documents or updates existing documents"; ``FULL`` also deletes the
documents whose ids the source does not have ("Existing documents may be deleted if they are not
present in the source location"). A document id repeated within one import is an error sample
(Google does not say which copy wins).

The documents of a data store served from a folder are read (Get, List) but not changed:
``FAILED_PRECONDITION``.
"""

from __future__ import annotations

import datetime as _dt
import random
from collections.abc import Iterable, Iterator
from typing import Any

import grpc
from google.cloud import discoveryengine_v1 as de
from google.protobuf import empty_pb2
from google.rpc import status_pb2

from grounding_emulator.corpus.content import check_content_config, source_document
from grounding_emulator.corpus.resources import DataStoreResource, StoredDocument
from grounding_emulator.errors import (
    AlreadyExists,
    EmulatorError,
    InvalidArgument,
    NotFound,
    Unimplemented,
)
from grounding_emulator.limits import (
    DEFAULT_DOCUMENT_PAGE_SIZE,
    MAX_DOCUMENT_ID,
    MAX_DOCUMENT_PAGE_SIZE,
    MAX_PURGE_SAMPLE,
)
from grounding_emulator.page_tokens import fingerprint, page_bounds
from grounding_emulator.wire.messages.resources import (
    DocumentMessage,
    document_input,
    document_message,
    folder_document,
    given_document,
)
from grounding_emulator.wire.names import (
    ParentName,
    parse_branch,
    parse_document_name,
)
from grounding_emulator.wire.servicers.data_store import folder_served
from grounding_emulator.wire.servicers.fields import RESOURCE_ID, check_resource_id
from grounding_emulator.wire.servicers.import_sources import (
    DATA_SCHEMAS,
    Entry,
    gcs_document_ids,
    gcs_documents,
    source_files,
)
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc

__all__ = ["MAX_ERROR_SAMPLES", "DocumentServicer"]

# ImportDocumentsResponse.error_samples: "A sample of errors encountered while processing the
# request"; Google does not say how many.
MAX_ERROR_SAMPLES = 100
_ImportRequest = de.ImportDocumentsRequest.pb()
_Mode = _ImportRequest.ReconciliationMode
_ListResponse = de.ListDocumentsResponse.pb()
_ImportResponse = de.ImportDocumentsResponse.pb()
_ImportMetadata = de.ImportDocumentsMetadata.pb()
_PurgeResponse = de.PurgeDocumentsResponse.pb()
_PurgeMetadata = de.PurgeDocumentsMetadata.pb()
# UpdateDocumentRequest.update_mask / ImportDocumentsRequest.update_mask: the Document fields a
# client sets (the others are Immutable or output only).
_UPDATABLE = ("struct_data", "json_data", "content", "schema_id", "parent_document_id", "acl_info")
# ImportDocumentsRequest sources that read Google's databases.
_NOT_EMULATED = (
    "bigquery_source",
    "fhir_store_source",
    "spanner_source",
    "cloud_sql_source",
    "firestore_source",
    "alloy_db_source",
    "bigtable_source",
)


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def _status(error: EmulatorError) -> Any:
    code = getattr(grpc.StatusCode, error.code, grpc.StatusCode.UNKNOWN)
    return status_pb2.Status(code=code.value[0], message=str(error))


def _check_paths(paths: Iterable[str], field: str) -> tuple[str, ...]:
    for path in paths:
        if path not in _UPDATABLE:
            raise InvalidArgument(
                f"{field} names {path!r}, which cannot be updated on a document: use "
                f"{', '.join(_UPDATABLE)}",
                field=field,
            )
    return tuple(dict.fromkeys(paths))


def _merged(existing: bytes, given: Any, paths: tuple[str, ...]) -> Any:
    """``existing`` (a kept ``Document``) with ``given``'s ``paths`` (update masks)."""
    message = DocumentMessage.FromString(existing)
    for path in paths:
        field = DocumentMessage.DESCRIPTOR.fields_by_name[path]
        if field.message_type is None and field.containing_oneof is None:
            setattr(message, path, getattr(given, path))
        elif not given.HasField(path):
            message.ClearField(path)
        elif field.message_type is None:
            setattr(message, path, getattr(given, path))
        else:
            getattr(message, path).CopyFrom(getattr(given, path))
    return message


class DocumentServicer(Servicer):
    """``google.cloud.discoveryengine.v1.DocumentService``."""

    services = discovery_engine("DocumentService")

    # -- where documents live ---------------------------------------------------------------------

    def _made(self, parent: ParentName) -> DataStoreResource:
        """The data store made through the API that ``parent`` names: ``FAILED_PRECONDITION``
        for one served from a folder, ``NOT_FOUND`` for none."""
        resource = self.backend.resources.data_store(parent.key)
        if resource is None:
            self.backend.store.get(str(parent.data_store))  # NOT_FOUND when not served at all
            raise folder_served(str(parent.data_store))
        return resource

    def _stored(
        self, message: Any, document_id: str, resource: DataStoreResource, where: str
    ) -> StoredDocument:
        """A request's ``Document`` read, checked against its data store and indexed text."""
        given = document_input(message, document_id, where)
        check_content_config(given, resource.content_config, where)
        source = source_document(given, gcs_root=self.backend.gcs_root, where=where, now=_now())
        return StoredDocument(source, given_document(message, document_id))

    # -- single documents -----------------------------------------------------------------------

    @rpc("GetDocument", de.GetDocumentRequest.pb())
    def get_document(self, request: Any) -> Any:
        """``GetDocument``; "If the requested Document does not exist, a NOT_FOUND error is
        returned"."""
        parent, document_id = parse_document_name(request.name)
        name = f"{parent.key}/branches/default_branch/documents/{document_id}"
        if self.backend.resources.data_store(parent.key) is not None:
            stored = self.backend.resources.document(parent.key, document_id)
            if stored is None:
                raise NotFound(f"document {request.name} not found")
            return document_message(name, stored)
        snapshot = self.backend.store.get(str(parent.data_store))
        index = snapshot.document_index(document_id)
        if index is None:
            raise NotFound(f"document {request.name} not found")
        return folder_document(name, snapshot.documents[index], snapshot.created)

    @rpc("ListDocuments", de.ListDocumentsRequest.pb())
    def list_documents(self, request: Any) -> Any:
        """``ListDocuments``: the branch's documents by id, paged ("If unspecified, defaults to
        100. The maximum allowed value is 1000. Values above 1000 are set to 1000. If this field
        is negative, an INVALID_ARGUMENT error is returned")."""
        parent = parse_branch(request.parent)
        prefix = f"{parent.key}/branches/default_branch/documents/"
        bound = fingerprint(["ListDocuments", parent.key])
        response = _ListResponse()

        def page(count: int) -> tuple[int, int, str]:
            return page_bounds(
                count,
                request.page_size,
                request.page_token,
                bound,
                default=DEFAULT_DOCUMENT_PAGE_SIZE,
                maximum=MAX_DOCUMENT_PAGE_SIZE,
                fields="parent",
            )

        if self.backend.resources.data_store(parent.key) is not None:
            documents = self.backend.resources.documents(parent.key)
            start, end, token = page(len(documents))
            response.documents.extend(
                document_message(prefix + d.id, d) for d in documents[start:end]
            )
        else:
            snapshot = self.backend.store.get(str(parent.data_store))
            table = snapshot.documents
            start, end, token = page(len(table))
            response.documents.extend(
                folder_document(prefix + d.id, d, snapshot.created) for d in table[start:end]
            )
        response.next_page_token = token
        return response

    @rpc("CreateDocument", de.CreateDocumentRequest.pb())
    def create_document(self, request: Any) -> Any:
        """``CreateDocument``: ``document_id`` "must conform to RFC-1034 standard with a length
        limit of 128 characters" and "must be unique among all Documents with the same parent.
        Otherwise, an ALREADY_EXISTS error is returned"."""
        parent = parse_branch(request.parent)
        document_id = check_resource_id(
            request.document_id, "document_id", RESOURCE_ID, MAX_DOCUMENT_ID
        )
        resource = self._made(parent)
        if self.backend.resources.document(parent.key, document_id) is not None:
            raise AlreadyExists(
                f"document {document_id!r} already exists in {request.parent}: give another "
                "document_id, or update it with UpdateDocument"
            )
        stored = self._stored(request.document, document_id, resource, "document")
        self.backend.resources.put_documents(parent.key, [stored])
        name = f"{parent.key}/branches/default_branch/documents/{document_id}"
        return document_message(name, stored)

    @rpc("UpdateDocument", de.UpdateDocumentRequest.pb())
    def update_document(self, request: Any) -> Any:
        """``UpdateDocument``: the document ``document.name`` names; "If the Document to update
        does not exist and allow_missing is not set, a NOT_FOUND error is returned" (with it, "a
        new Document is be created"); ``update_mask`` "Indicates which fields in the provided
        imported 'document' to update. If not set, by default updates all fields"."""
        parent, document_id = parse_document_name(request.document.name, "document.name")
        check_resource_id(document_id, "document.name", RESOURCE_ID, MAX_DOCUMENT_ID)
        resource = self._made(parent)
        paths = _check_paths(request.update_mask.paths, "update_mask")
        existing = self.backend.resources.document(parent.key, document_id)
        if existing is None and not request.allow_missing:
            raise NotFound(
                f"document {request.document.name} not found: create it, or set allow_missing"
            )
        message = request.document
        if existing is not None and paths:
            message = _merged(existing.payload, request.document, paths)
        stored = self._stored(message, document_id, resource, "document")
        self.backend.resources.put_documents(parent.key, [stored])
        name = f"{parent.key}/branches/default_branch/documents/{document_id}"
        return document_message(name, stored)

    @rpc("DeleteDocument", de.DeleteDocumentRequest.pb())
    def delete_document(self, request: Any) -> Any:
        """``DeleteDocument``; "If the Document to delete does not exist, a NOT_FOUND error is
        returned"."""
        parent, document_id = parse_document_name(request.name)
        self._made(parent)
        if not self.backend.resources.delete_documents(parent.key, [document_id]):
            raise NotFound(f"document {request.name} not found")
        return empty_pb2.Empty()

    # -- imports --------------------------------------------------------------------------------

    def _entries(self, request: Any) -> Iterator[Entry]:
        """The documents of an import's source, each with where it came from."""
        source = request.WhichOneof("source")
        if source in _NOT_EMULATED:
            raise Unimplemented(
                f"{source}: the emulator imports from inline_source and gcs_source only (a "
                "gs:// URI is read from --gcs-root DIR)"
            )
        if source is None:
            raise InvalidArgument(
                "a source is required: inline_source (documents) or gcs_source (gs:// URIs)",
                field="source",
            )
        schema = request.gcs_source.data_schema or "document"
        ids_from_data = schema in ("custom", "csv")
        if request.auto_generate_ids and request.id_field:
            raise InvalidArgument(
                "id_field: only set this field when auto_generate_ids is unset or false",
                field="id_field",
            )
        for flag in ("auto_generate_ids", "id_field"):
            if getattr(request, flag) and (source != "gcs_source" or not ids_from_data):
                raise InvalidArgument(
                    f"{flag} is supported with gcs_source whose data_schema is custom or csv "
                    "(the emulator's sources)",
                    field=flag,
                )
        if source == "inline_source":
            for index, message in enumerate(request.inline_source.documents):
                yield Entry(f"inline_source.documents[{index}]", message)
            return
        if schema not in DATA_SCHEMAS:
            raise InvalidArgument(
                f"gcs_source.data_schema {schema!r} is not a document schema: use "
                f"{', '.join(DATA_SCHEMAS)}",
                field="gcs_source.data_schema",
            )
        files = source_files(
            list(request.gcs_source.input_uris),
            self.backend.gcs_root,
            "gcs_source.input_uris",
            content=schema == "content",
        )
        yield from gcs_documents(files, schema, request.id_field, request.auto_generate_ids)

    def _import(
        self, request: Any, resource: DataStoreResource, paths: tuple[str, ...]
    ) -> tuple[list[StoredDocument], list[str], list[EmulatorError], int]:
        """``(documents read, every id the source names, errors, entries)``."""
        documents: dict[str, StoredDocument] = {}
        seen: dict[str, str] = {}
        errors: list[EmulatorError] = []
        total = 0
        data_store = resource.name
        for entry in self._entries(request):
            total += 1
            try:
                message = entry.document()
                document_id = message.id
                if not document_id:
                    raise InvalidArgument(
                        f"{entry.where}.id is required: each document must have a valid "
                        "Document.id",
                        field=f"{entry.where}.id",
                    )
                check_resource_id(document_id, f"{entry.where}.id", RESOURCE_ID, MAX_DOCUMENT_ID)
                if document_id in seen:
                    raise InvalidArgument(
                        f"{entry.where}: document id {document_id!r} is repeated (first: "
                        f"{seen[document_id]}): give each document its own id",
                        field=f"{entry.where}.id",
                    )
                seen[document_id] = entry.where
                existing = self.backend.resources.document(data_store, document_id)
                if existing is not None and paths:
                    message = _merged(existing.payload, message, paths)
                documents[document_id] = self._stored(message, document_id, resource, entry.where)
            except EmulatorError as exc:
                errors.append(exc)
        return list(documents.values()), list(seen), errors, total

    @rpc("ImportDocuments", de.ImportDocumentsRequest.pb(), versioned=True)
    def import_documents(self, request: Any, version: str) -> Any:
        """``ImportDocuments`` ("Bulk import of multiple Documents. Request processing may be
        synchronous. Non-existing items are created. Note: It is possible for a subset of the
        Documents to be successfully updated.")."""
        parent = parse_branch(request.parent)
        resource = self._made(parent)
        paths = _check_paths(request.update_mask.paths, "update_mask")
        started = _now()
        documents, ids, errors, total = self._import(request, resource, paths)
        full = request.reconciliation_mode == _Mode.FULL
        self.backend.resources.put_documents(parent.key, documents, keep=ids if full else None)
        response = _ImportResponse()
        response.error_samples.extend(_status(e) for e in errors[:MAX_ERROR_SAMPLES])
        if request.HasField("error_config"):
            response.error_config.CopyFrom(request.error_config)
        metadata = _ImportMetadata(
            success_count=len(documents), failure_count=len(errors), total_count=total
        )
        branch = f"{parent.key}/branches/default_branch"
        return self.backend.operations.finish(
            branch, "import-documents", version, response, metadata, started, _now()
        )

    # -- purges ---------------------------------------------------------------------------------

    def _purge_ids(self, request: Any, parent: ParentName) -> list[str]:
        """The ids a purge names: its source's, else every document's."""
        source = request.WhichOneof("source")
        if source == "inline_source":
            ids = []
            for index, name in enumerate(request.inline_source.documents):
                field = f"inline_source.documents[{index}]"
                owner, document_id = parse_document_name(name, field)
                if owner.key != parent.key:
                    raise InvalidArgument(
                        f"{field} {name!r} is not a document of {request.parent}", field=field
                    )
                ids.append(document_id)
            return ids
        if source == "gcs_source":
            schema = request.gcs_source.data_schema or "document_id"
            if schema != "document_id":
                raise InvalidArgument(
                    f"gcs_source.data_schema {schema!r}: a purge reads document_id (one "
                    "Document.id per line)",
                    field="gcs_source.data_schema",
                )
            files = source_files(
                list(request.gcs_source.input_uris),
                self.backend.gcs_root,
                "gcs_source.input_uris",
                content=False,
            )
            return [document_id for _, document_id in gcs_document_ids(files)]
        return [d.id for d in self.backend.resources.documents(parent.key)]

    @rpc("PurgeDocuments", de.PurgeDocumentsRequest.pb(), versioned=True)
    def purge_documents(self, request: Any, version: str) -> Any:
        """``PurgeDocuments`` ("Permanently deletes all selected Documents in a branch"):
        ``filter`` "Required ... Only currently supported value is * (all items)"; ``force``
        "Actually performs the purge. If force is set to false, return the expected purge count
        without deleting any documents", with a ``purge_sample`` ("A max of 100 names will be
        returned and the names are chosen at random"). With an ``inline_source`` or
        ``gcs_source`` only the documents it names are purged; names of documents the branch
        does not have are counted in ``ignored_count``."""
        parent = parse_branch(request.parent)
        self._made(parent)
        if request.filter != "*":
            raise InvalidArgument(
                f"filter {request.filter!r} is not supported: the only supported value is * "
                "(all documents; an inline_source or gcs_source narrows them)",
                field="filter",
            )
        started = _now()
        ids = list(dict.fromkeys(self._purge_ids(request, parent)))
        present = [i for i in ids if self.backend.resources.document(parent.key, i) is not None]
        response = _PurgeResponse()
        metadata = _PurgeMetadata(ignored_count=len(ids) - len(present))
        prefix = f"{parent.key}/branches/default_branch/documents/"
        if request.force:
            removed = self.backend.resources.delete_documents(parent.key, present)
            response.purge_count = len(removed)
            metadata.success_count = len(removed)
        else:
            response.purge_count = len(present)
            sample = random.sample(present, min(MAX_PURGE_SAMPLE, len(present)))
            response.purge_sample.extend(prefix + i for i in sample)
        branch = f"{parent.key}/branches/default_branch"
        return self.backend.operations.finish(
            branch, "purge-documents", version, response, metadata, started, _now()
        )
