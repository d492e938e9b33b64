"""A document given through Google's ``DocumentService`` (created, updated or imported), read into
what the corpus holds: its text, the blocks its chunks are cut from, its struct data.

It follows the v1 ``Document`` field docs:

- ``content`` ("Content can only be set and must be set if this document is under a
  CONTENT_REQUIRED data store"): with a data store's ``content_config`` of ``NO_CONTENT`` (the
  default) a document with content is ``INVALID_ARGUMENT``, with ``CONTENT_REQUIRED`` (and
  ``PUBLIC_WEBSITE``) one without;
- ``content.raw_bytes``: "The maximum length is 1,000,000 bytes"; ``content.uri``: "Only Cloud
  Storage URIs (e.g. gs://bucket-name/path/to/file) are supported. The maximum file size is 2.5
  MB for text-based formats, 200 MB for other formats" (read from ``--gcs-root``, ``gcs.py``);
- ``content.mime_type``: of the types Google lists, ``text/plain``, ``text/html`` and
  ``application/pdf`` are parsed as a corpus file of that type is; ``application/json``,
  ``application/xml`` and ``text/xml`` are indexed as plain text; DOCX, PPTX, XLSX, XLSM and the
  image types (layout parser) are ``UNIMPLEMENTED``; a type Google does not list is
  ``INVALID_ARGUMENT``;
- ``struct_data`` / ``json_data`` (a JSON object; "It should conform to the registered Schema or
  an INVALID_ARGUMENT error is thrown": the emulator has no schema, it detects the field types as
  it does for every data store), checked as a corpus document's struct data is
  (``validation.py``).

A document's title is its struct data's ``title`` (a string), else the one its content gives (an
HTML ``<title>``, a PDF's title, the first heading), else its id; its URI the content's, else its
struct data's ``uri``. A document with struct data alone is searched by its struct data's values,
one ``field: value`` line each (Google searches a structured document's searchable fields, which
its schema names; the emulator has no schema, so every field is searchable).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grounding_emulator.corpus.chunking import Block, blocks_from_plain_text
from grounding_emulator.corpus.columns import flatten_struct
from grounding_emulator.corpus.gcs import GCS_SCHEME, gcs_path
from grounding_emulator.corpus.reading import SourceDocument, description_of, read_content
from grounding_emulator.corpus.records import Document
from grounding_emulator.corpus.validation import check_document
from grounding_emulator.errors import CorpusError, InvalidArgument, Unimplemented, excerpt
from grounding_emulator.limits import (
    MAX_CONTENT_BYTES,
    MAX_CONTENT_URI_BYTES,
    MAX_CONTENT_URI_TEXT_BYTES,
)

__all__ = [
    "CONTENT_CONFIGS",
    "MIME_TYPE_OF_EXTENSION",
    "PARSED_TYPES",
    "DocumentInput",
    "check_content_config",
    "source_document",
]

# DataStore.ContentConfig values the emulator serves documents of (GOOGLE_WORKSPACE needs
# Google Workspace: UNIMPLEMENTED when a data store is created).
CONTENT_CONFIGS = ("NO_CONTENT", "CONTENT_REQUIRED", "PUBLIC_WEBSITE")
# Content.mime_type: how the emulator reads each type Google lists.
PARSED_TYPES = {
    "text/plain": "text/plain",
    "text/html": "text/html",
    "application/pdf": "application/pdf",
    "application/json": "text/plain",
    "application/xml": "text/plain",
    "text/xml": "text/plain",
}
_NOT_EMULATED = frozenset(
    {
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "application/vnd.ms-excel.sheet.macroenabled.12",
        "image/bmp",
        "image/gif",
        "image/jpeg",
        "image/png",
        "image/tiff",
    }
)
# GcsSource.data_schema "content": "Each file matched by input_uris becomes a document"; its type
# by its extension.
MIME_TYPE_OF_EXTENSION = {
    ".txt": "text/plain",
    ".text": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
    ".json": "application/json",
    ".xml": "application/xml",
}


@dataclass(frozen=True, slots=True)
class DocumentInput:
    """A ``Document`` message's fields as plain values: its id, its struct data (from
    ``struct_data`` or the parsed ``json_data``; ``None`` when neither is set), and its content
    (``has_content``: the message has a ``content``; ``raw_bytes`` or ``uri`` is its data)."""

    id: str
    struct_data: Mapping[str, Any] | None = None
    has_content: bool = False
    mime_type: str = ""
    raw_bytes: bytes | None = None
    uri: str = ""


def check_content_config(given: DocumentInput, content_config: str, where: str) -> None:
    """``INVALID_ARGUMENT`` unless ``given``'s content agrees with its data store's content
    config (``Document.content``: "Content can only be set and must be set if this document is
    under a CONTENT_REQUIRED data store")."""
    required = content_config != "NO_CONTENT"
    if given.has_content and not required:
        raise InvalidArgument(
            f"{where}.content is set, but the data store's content_config is NO_CONTENT: content "
            "can only be set if the document is under a CONTENT_REQUIRED data store; give the "
            "document struct_data or json_data alone",
            field=f"{where}.content",
        )
    if required and not given.has_content:
        raise InvalidArgument(
            f"{where}.content is required: the data store's content_config is {content_config}, "
            "so each document must have content (raw_bytes or a gs:// uri, with its mime_type)",
            field=f"{where}.content",
        )


def _mime_type(given: DocumentInput, where: str) -> str:
    field = f"{where}.content.mime_type"
    if not given.mime_type:
        raise InvalidArgument(
            f"{field} is required with content: one of {', '.join(PARSED_TYPES)}", field=field
        )
    mime_type = given.mime_type.lower()
    if mime_type in _NOT_EMULATED:
        raise Unimplemented(
            f"{field} {excerpt(given.mime_type)}: the emulator does not parse this type; "
            f"convert the content to one of {', '.join(PARSED_TYPES)}"
        )
    if mime_type not in PARSED_TYPES:
        raise InvalidArgument(
            f"{field} {excerpt(given.mime_type)} is not a supported content type: use one of "
            f"{', '.join(PARSED_TYPES)} (Document.Content.mime_type)",
            field=field,
        )
    return mime_type


def _content_bytes(
    given: DocumentInput, mime_type: str, gcs_root: Path | None, where: str
) -> bytes:
    if given.raw_bytes is not None:
        if len(given.raw_bytes) > MAX_CONTENT_BYTES:
            field = f"{where}.content.raw_bytes"
            raise InvalidArgument(
                f"{field} has {len(given.raw_bytes):,} bytes; the maximum length is "
                f"{MAX_CONTENT_BYTES:,} bytes (Document.Content.raw_bytes): give the content as "
                "a gs:// uri, or split the document",
                field=field,
            )
        return given.raw_bytes
    field = f"{where}.content.uri"
    if not given.uri.startswith(GCS_SCHEME):
        raise InvalidArgument(
            f"{field} {excerpt(given.uri)}: only Cloud Storage URIs (gs://bucket-name/path/to/"
            "file) are supported (Document.Content.uri)",
            field=field,
        )
    path = gcs_path(given.uri, gcs_root, field)
    text = mime_type != "application/pdf"
    limit = MAX_CONTENT_URI_TEXT_BYTES if text else MAX_CONTENT_URI_BYTES
    size = path.stat().st_size
    if size > limit:
        kind = "text-based formats" if text else "other formats"
        raise InvalidArgument(
            f"{field} {excerpt(given.uri)} is {size:,} bytes; the maximum file size is "
            f"{limit:,} bytes for {kind} (Document.Content.uri): split the file",
            field=field,
        )
    return path.read_bytes()


def _struct_text(struct_data: Mapping[str, Any]) -> str:
    lines = []
    for key, value in flatten_struct(struct_data).items():
        values = value if isinstance(value, list) else [value]
        shown = [str(v) for v in values if isinstance(v, str | int | float) and v != ""]
        if shown:
            lines.append(f"{key}: {', '.join(shown)}")
    return "\n".join(lines)


def source_document(
    given: DocumentInput, *, gcs_root: Path | None, where: str, now: _dt.datetime
) -> SourceDocument:
    """``given`` read into a corpus document and its blocks, ``where`` naming it in errors (e.g.
    ``document`` or ``inline_source.documents[3]``): ``INVALID_ARGUMENT`` for what Google's
    field docs refuse, ``UNIMPLEMENTED`` for a type the emulator does not parse,
    ``FAILED_PRECONDITION`` / ``NOT_FOUND`` for a ``gs://`` URI without ``--gcs-root`` / without
    its file."""
    struct_data = dict(given.struct_data or {})
    title = ""
    text = ""
    blocks: list[Block] = []
    mime_type = "application/json"
    if given.has_content:
        if given.raw_bytes is None and not given.uri:
            field = f"{where}.content"
            raise InvalidArgument(
                f"{field} has neither raw_bytes nor uri: give the content's bytes or its gs:// URI",
                field=field,
            )
        mime_type = _mime_type(given, where)
        data = _content_bytes(given, mime_type, gcs_root, where)
        try:
            title, text, blocks = read_content(data, PARSED_TYPES[mime_type])
        except CorpusError as exc:
            field = f"{where}.content"
            raise InvalidArgument(f"{field} ({mime_type}): {exc}", field=field) from exc
    else:
        _check_struct(struct_data, where)
        text = _struct_text(struct_data)
        blocks = blocks_from_plain_text(text)
    given_title = struct_data.get("title")
    given_uri = struct_data.get("uri")
    document = Document(
        id=given.id,
        uri=given.uri or (given_uri if isinstance(given_uri, str) else ""),
        title=given_title if isinstance(given_title, str) and given_title else title or given.id,
        content=text,
        struct_data=struct_data,
        mime_type=mime_type,
        update_time=now,
        description=description_of(blocks),
    )
    try:
        check_document(document)
    except CorpusError as exc:
        raise InvalidArgument(f"{where}: {exc}", field=where) from exc
    return SourceDocument(document, tuple(blocks), origin=where)


def _check_struct(struct_data: Mapping[str, Any], where: str) -> None:
    """Check ``struct_data`` before it is flattened (its nesting is bounded then)."""
    try:
        check_document(Document(id="", uri="", title="", content="", struct_data=struct_data))
    except CorpusError as exc:
        field = f"{where}.struct_data"
        raise InvalidArgument(f"{field}: {exc}", field=field) from exc
