"""Discovery Engine ``DataStore``, ``Engine`` and ``Document`` messages: the resources kept by
``ResourceStore`` and the data stores served from folders -> protos, and a request's
``Document`` -> plain values (``corpus/content.py``)."""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any

from google.cloud import discoveryengine_v1 as de
from google.protobuf import json_format

from grounding_emulator.corpus.content import DocumentInput
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.records import Document
from grounding_emulator.corpus.resources import StoredDocument
from grounding_emulator.errors import InvalidArgument

__all__ = [
    "DataStoreMessage",
    "DocumentMessage",
    "EngineMessage",
    "document_input",
    "document_message",
    "folder_data_store",
    "folder_document",
    "folder_engine",
    "given_document",
]

DataStoreMessage = de.DataStore.pb()
EngineMessage = de.Engine.pb()
DocumentMessage = de.Document.pb()
_SEARCH = int(de.SolutionType.SOLUTION_TYPE_SEARCH)
_GENERIC = int(de.IndustryVertical.GENERIC)
# The schema Google creates with every data store (DataStore.default_schema_id).
DEFAULT_SCHEMA = "default_schema"
# Fields of a Document that are output only: what a client sends in them is not kept.
_OUTPUT_ONLY = ("name", "derived_struct_data", "index_time", "index_status")


def folder_data_store(name: str, snapshot: DataStore) -> Any:
    """The ``DataStore`` message of a data store served from a folder: a generic search data
    store of content, created when its index was built."""
    message = DataStoreMessage(
        name=name,
        display_name=snapshot.id,
        industry_vertical=_GENERIC,
        content_config=DataStoreMessage.ContentConfig.CONTENT_REQUIRED,
        default_schema_id=DEFAULT_SCHEMA,
    )
    message.solution_types.append(_SEARCH)
    message.create_time.FromDatetime(snapshot.created)
    return message


def folder_engine(name: str, data_store_id: str, created: _dt.datetime) -> Any:
    """The ``Engine`` message of an engine served with ``--engine`` (or the built-in's)."""
    message = EngineMessage(
        name=name,
        display_name=name.rsplit("/", 1)[1],
        solution_type=_SEARCH,
        industry_vertical=_GENERIC,
    )
    message.data_store_ids.append(data_store_id)
    message.create_time.FromDatetime(created)
    message.update_time.FromDatetime(created)
    return message


def folder_document(name: str, document: Document, indexed: _dt.datetime) -> Any:
    """The ``Document`` message of a document of a data store served from a folder: its id, its
    struct data and its content's type (the text is in the data store's chunks)."""
    message = DocumentMessage(name=name, id=document.id)
    if document.struct_data:
        message.struct_data.update(document.struct_data)
    message.content.mime_type = document.mime_type
    message.index_time.FromDatetime(document.update_time or indexed)
    return message


def document_message(name: str, stored: StoredDocument) -> Any:
    """The ``Document`` message of a document made through the API: as the client gave it, with
    its name and the time it was indexed."""
    message = DocumentMessage.FromString(stored.payload)
    message.name = name
    message.id = stored.id
    update_time = stored.source.document.update_time
    if update_time is not None:
        message.index_time.FromDatetime(update_time)
    return message


def given_document(message: Any, document_id: str) -> bytes:
    """What is kept of a request's ``Document``: the message without its output-only fields,
    with its id (serialized)."""
    kept = DocumentMessage()
    kept.CopyFrom(message)
    for name in _OUTPUT_ONLY:
        kept.ClearField(name)
    kept.id = document_id
    return bytes(kept.SerializeToString())


def _json_object(text: str, field: str) -> dict[str, Any]:
    try:
        value = json.loads(text, parse_constant=lambda name: float(name))
    except RecursionError as exc:
        raise InvalidArgument(
            f"{field} is nested too deeply to be read: flatten it", field=field
        ) from exc
    except ValueError as exc:
        raise InvalidArgument(f"{field} is not valid JSON ({exc})", field=field) from exc
    if not isinstance(value, dict):
        raise InvalidArgument(
            f"{field} must be a JSON object, got a JSON {type(value).__name__}", field=field
        )
    return value


def document_input(message: Any, document_id: str, where: str) -> DocumentInput:
    """A request's ``Document`` as plain values (``where`` names it in errors): its struct data
    from ``struct_data`` or ``json_data`` (which must be a JSON object), its content."""
    data = message.WhichOneof("data")
    struct_data: dict[str, Any] | None = None
    if data == "struct_data":
        struct_data = json_format.MessageToDict(message.struct_data)
    elif data == "json_data":
        struct_data = _json_object(message.json_data, f"{where}.json_data")
    content = message.content
    kind = content.WhichOneof("content")
    return DocumentInput(
        id=document_id,
        struct_data=struct_data,
        has_content=message.HasField("content"),
        mime_type=content.mime_type,
        raw_bytes=content.raw_bytes if kind == "raw_bytes" else None,
        uri=content.uri if kind == "uri" else "",
    )
