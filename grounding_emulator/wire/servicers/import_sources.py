"""The documents of an ``ImportDocuments`` or ``PurgeDocuments`` source, as ``Document`` messages
(or document ids) one at a time, each with where it came from; what cannot be read becomes an
``Entry`` with its error, for the operation's ``error_samples``.

``GcsSource.data_schema`` (v1 field doc) for document imports:

- ``document`` (the default): "One JSON Document per line. Each document must have a valid
  Document.id" (the JSON of the ``Document`` message, ``json_format``);
- ``content``: "Unstructured data (e.g. PDF, HTML). Each file matched by input_uris becomes a
  document, with the ID set to the first 128 bits of SHA256(URI) encoded as a hex string" (its
  type by its extension, ``corpus/content.py``);
- ``custom``: "One custom data JSON per row in arbitrary format" (its struct data);
- ``csv``: "A CSV file with header ... Each entry after the header is imported as a Document"
  (its struct data: one string field per column).

``custom`` and ``csv`` documents take their id from ``id_field`` ("If it is unset, a default
value _id is used") or, with ``auto_generate_ids``, from "the hash of the payload" (the first 128
bits of the SHA-256 of its JSON, sorted keys). A request "can contain at most 100 files (or
100,000 files if data_schema is content). Each file can be up to 2 GB (or 100 MB if data_schema
is content)". PurgeDocuments' ``gcs_source`` takes ``document_id``: "One valid Document.id per
line".
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from grounding_emulator.corpus.content import MIME_TYPE_OF_EXTENSION
from grounding_emulator.corpus.gcs import gcs_files
from grounding_emulator.errors import EmulatorError, InvalidArgument, excerpt
from grounding_emulator.limits import (
    MAX_GCS_CONTENT_FILE_BYTES,
    MAX_GCS_CONTENT_FILES,
    MAX_GCS_FILE_BYTES,
    MAX_GCS_FILES,
)
from grounding_emulator.wire.messages.resources import DocumentMessage

__all__ = ["DATA_SCHEMAS", "Entry", "gcs_document_ids", "gcs_documents", "source_files"]

DATA_SCHEMAS = ("document", "content", "custom", "csv")
_WILDCARDS = frozenset("*?[")
DEFAULT_ID_FIELD = "_id"


@dataclass(frozen=True, slots=True)
class Entry:
    """One document of a source (``where`` names it): its message, or why it cannot be read."""

    where: str
    message: Any | None = None
    error: EmulatorError | None = None

    def document(self) -> Any:
        """The ``Document`` message; the error that kept it from being read, raised."""
        if self.message is None:
            raise self.error or InvalidArgument(f"{self.where}: no document", field=self.where)
        return self.message


def _gs_uri(root: Path, path: Path) -> str:
    return "gs://" + path.relative_to(root).as_posix()


def source_files(
    uris: list[str], root: Path | None, field: str, *, content: bool
) -> list[tuple[str, Path]]:
    """``(gs:// URI, local file)`` of every file the URIs name, checked before any is read:
    at most 100 files (100,000 for ``content``), each within its size limit."""
    limit = MAX_GCS_CONTENT_FILES if content else MAX_GCS_FILES
    size_limit = MAX_GCS_CONTENT_FILE_BYTES if content else MAX_GCS_FILE_BYTES
    if not uris:
        raise InvalidArgument(f"{field} is required: at least one gs:// URI", field=field)
    files: list[tuple[str, Path]] = []
    for index, uri in enumerate(uris):
        where = f"{field}[{index}]"
        for path in gcs_files(uri, root, where, limit):
            size = path.stat().st_size
            if size > size_limit:
                raise InvalidArgument(
                    f"{where} {excerpt(uri)}: {path.name} is {size:,} bytes; each file can be up "
                    f"to {size_limit:,} bytes (GcsSource.input_uris)",
                    field=where,
                )
            files.append((uri if not _WILDCARDS & set(uri) else "", path))
        if len(files) > limit:
            raise InvalidArgument(
                f"{field} name more than {limit} files; a request can contain at most {limit} "
                "(GcsSource.input_uris): split the import",
                field=field,
            )
    assert root is not None  # gcs_files refused the URIs otherwise
    base = root.resolve()
    return [(given or _gs_uri(base, path), path) for given, path in files]


def _lines(path: Path, uri: str) -> Iterator[tuple[str, str]]:
    with path.open(encoding="utf-8", errors="surrogateescape") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield f"{uri} line {number}", line


def _hashed_id(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _custom_message(
    data: Any, where: str, id_field: str, auto_generate_ids: bool
) -> tuple[Any | None, EmulatorError | None]:
    if not isinstance(data, dict):
        error = InvalidArgument(
            f"{where}: expected a JSON object, got a JSON {type(data).__name__}", field=where
        )
        return None, error
    if auto_generate_ids:
        document_id = _hashed_id(json.dumps(data, sort_keys=True, ensure_ascii=False))
    else:
        value = data.get(id_field)
        if not isinstance(value, str) or not value:
            error = InvalidArgument(
                f"{where}: the id field {id_field!r} must be a non-empty string (set id_field, "
                "or auto_generate_ids)",
                field=where,
            )
            return None, error
        document_id = value
    message = DocumentMessage(id=document_id)
    message.struct_data.update(data)
    return message, None


def _parse(line: str, where: str) -> Any:
    try:
        return json.loads(line)
    except RecursionError as exc:
        raise InvalidArgument(f"{where}: nested too deeply to be read", field=where) from exc
    except ValueError as exc:
        raise InvalidArgument(f"{where}: not valid JSON ({exc})", field=where) from exc


def gcs_documents(
    files: list[tuple[str, Path]], data_schema: str, id_field: str, auto_generate_ids: bool
) -> Iterator[Entry]:
    """The documents of the files of a ``gcs_source`` under ``data_schema``."""
    id_field = id_field or DEFAULT_ID_FIELD
    for uri, path in files:
        if data_schema == "content":
            mime_type = MIME_TYPE_OF_EXTENSION.get(path.suffix.lower(), "")
            message = DocumentMessage(id=_hashed_id(uri))
            message.content.uri = uri
            message.content.mime_type = mime_type
            yield Entry(uri, message)
        elif data_schema == "csv":
            yield from _csv_documents(uri, path, id_field, auto_generate_ids)
        else:
            for where, line in _lines(path, uri):
                try:
                    if data_schema == "custom":
                        data = _parse(line, where)
                        message, error = _custom_message(data, where, id_field, auto_generate_ids)
                        yield Entry(where, message, error)
                        continue
                    message = DocumentMessage()
                    json_format.Parse(line, message)
                except json_format.ParseError as exc:
                    yield Entry(where, error=InvalidArgument(f"{where}: {exc}", field=where))
                    continue
                except EmulatorError as exc:
                    yield Entry(where, error=exc)
                    continue
                yield Entry(where, message)


def _csv_documents(uri: str, path: Path, id_field: str, auto_generate_ids: bool) -> Iterator[Entry]:
    with path.open(encoding="utf-8", errors="surrogateescape", newline="") as handle:
        reader = csv.DictReader(handle)
        for number, row in enumerate(reader, start=2):
            where = f"{uri} line {number}"
            data = {k: v for k, v in row.items() if isinstance(k, str)}
            message, error = _custom_message(data, where, id_field, auto_generate_ids)
            yield Entry(where, message, error)


def gcs_document_ids(files: list[tuple[str, Path]]) -> Iterator[tuple[str, str]]:
    """``(where, id)`` of each line of PurgeDocuments' ``document_id`` files."""
    for uri, path in files:
        for where, line in _lines(path, uri):
            yield where, line.strip()
