"""Reading a corpus: a folder of files or a JSONL file of documents, as ``SourceDocument``s.

Folders: Markdown (``.md``, ``.markdown``), plain text (``.txt``, ``.text``, ``.rst``), HTML
(``.html``, ``.htm``) and PDF (``.pdf``, one block per page paragraph, with page numbers), read
recursively in path order; hidden files and folders are skipped unlisted. A folder with no
supported file at all is a ``CorpusError`` naming it and the supported extensions.

JSONL: one document per line, ``{"id", "uri", "title", "content", "struct_data", "mime_type",
"update_time"}``; only ``content`` is required. ``mime_type`` (``text/markdown``, ``text/html``
or ``text/plain``, the default) says how the content is parsed into blocks.

What cannot be ingested does not stop the rest, as Google's ``ImportDocuments`` imports the good
documents and reports the others: the readers yield a ``Skipped`` record in its place, naming
the file (and line) and saying why and what to do (files of other types; files outside the
folder; named pipes, sockets and devices, never read, as reading one could wait forever;
unreadable, non-UTF-8 or oversized files and file names; a PDF whose decoded page content or text
passes a text file's bound, found page by page; JSONL lines that are not JSON objects of valid
documents, or hold a value out of range, such as an ``update_time`` past year 9999;
``DataStore.build`` adds documents that break a limit of ``validation.py`` or repeat an id).
The snapshot keeps them (``DataStore.skipped``), the store logs them and ``grounding
serve``/``ingest`` print them (``describe_skipped``). A corpus that cannot be opened at all is a
``CorpusError``.

Document ids are stable: the JSONL ``id``, or a slug of the file's relative path.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import logging
import os
import re
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from grounding_emulator.corpus.chunking import (
    Block,
    blocks_from_html,
    blocks_from_markdown,
    blocks_from_plain_text,
)
from grounding_emulator.corpus.records import Document
from grounding_emulator.corpus.validation import printable
from grounding_emulator.errors import CorpusError
from grounding_emulator.limits import (
    MAX_CONTENT_BYTES,
    MAX_JSONL_FILE_BYTES,
    MAX_PDF_FILE_BYTES,
    MAX_STRUCT_DEPTH,
    MAX_TEXT_FILE_BYTES,
)

__all__ = [
    "MIME_TYPES",
    "Skipped",
    "SourceDocument",
    "corpus_fingerprint",
    "describe_skipped",
    "description_of",
    "document_from_mapping",
    "read_content",
    "read_corpus",
    "read_folder",
    "read_jsonl",
]

logger = logging.getLogger(__name__)

MIME_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".text": "text/plain",
    ".rst": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
}
SUPPORTED_EXTENSIONS = ", ".join(MIME_TYPES)
# How many skipped files a report names (the count covers them all).
_NAMED_SKIPPED = 5
DOCUMENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$")
_SLUG = re.compile(r"[^A-Za-z0-9]+")


@dataclass(frozen=True, slots=True)
class SourceDocument:
    """A document and the structural blocks its chunks are cut from; ``origin`` names where it
    came from in errors (``kb.jsonl line 3``, a file's relative path; "" for others)."""

    document: Document
    blocks: tuple[Block, ...]
    origin: str = ""


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file or JSONL line that was not ingested: ``where`` names it (a path relative to the
    corpus folder, or ``line N`` of a JSONL file), ``reason`` says why and what to do;
    ``unsupported`` for a file whose type is not read at all (by design, not a fault)."""

    where: str
    reason: str
    unsupported: bool = False

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


def _slug(relative: str) -> str:
    slug = _SLUG.sub("-", relative).strip("-").lower() or "document"
    if len(slug) > 63 or not DOCUMENT_ID.match(slug):
        digest = hashlib.sha1(relative.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        slug = f"{slug[:52].strip('-') or 'd'}-{digest}"
    return slug


def _first_heading(blocks: list[Block]) -> str:
    return next((b.text for b in blocks if b.kind == "heading"), "")


def description_of(blocks: list[Block]) -> str:
    """A document's description: its first paragraph, flattened, at most 200 characters."""
    text = next((b.text for b in blocks if b.kind == "paragraph"), "")
    text = " ".join(text.split())
    return text if len(text) <= 200 else text[:197].rstrip() + "..."


def _blocks(content: str, mime_type: str) -> tuple[str, list[Block]]:
    if mime_type == "text/html":
        return blocks_from_html(content)
    if mime_type == "text/markdown":
        blocks = blocks_from_markdown(content)
    else:
        blocks = blocks_from_plain_text(content)
    return _first_heading(blocks), blocks


def _text_of(blocks: list[Block]) -> str:
    parts = []
    for block in blocks:
        parts.append(f"{'#' * block.level} {block.text}" if block.kind == "heading" else block.text)
    return "\n\n".join(parts)


def _check_pdf_bound(what: str, size: int, page: int) -> None:
    # Checked page by page, so that the work stops at the page that passes the bound.
    if size > MAX_TEXT_FILE_BYTES:
        raise CorpusError(
            f"its {what} passes {MAX_TEXT_FILE_BYTES:,} bytes at page {page}: the emulator reads "
            f"at most {MAX_TEXT_FILE_BYTES:,} bytes of a PDF's decoded page content and of its "
            'text, the bound of a text file ("Prepare data for ingesting"): split the PDF'
        )


def _pdf(source: Path | IO[bytes]) -> tuple[str, list[Block]]:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(source)
        title = ""
        if reader.metadata is not None and reader.metadata.title:
            title = str(reader.metadata.title)
        blocks: list[Block] = []
        content = text = 0
        for number, page in enumerate(reader.pages, start=1):
            # Pages may share a content stream: it counts once per page, as it is parsed once
            # per page; a few KB of PDF can hold megabytes of compressed content.
            stream = page.get_contents()
            content += len(stream.get_data()) if stream is not None else 0
            _check_pdf_bound("decoded page content", content, number)
            page_text = page.extract_text() or ""
            text += len(page_text.encode("utf-8", "surrogatepass"))
            _check_pdf_bound("text (UTF-8)", text, number)
            blocks.extend(blocks_from_plain_text(page_text, page=number))
    except (PyPdfError, OSError, ValueError) as exc:
        raise CorpusError(f"cannot read it as a PDF ({exc})") from exc
    return title, blocks


def read_content(data: bytes, mime_type: str) -> tuple[str, str, list[Block]]:
    """``(title, text, blocks)`` of a document's content of type ``mime_type``: ``text/plain``,
    ``text/markdown``, ``text/html`` (UTF-8) or ``application/pdf``; ``CorpusError`` saying why
    it cannot be read."""
    if mime_type == "application/pdf":
        title, blocks = _pdf(io.BytesIO(data))
        return title, _text_of(blocks), blocks
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"it is not UTF-8 text (byte {exc.start}: {exc.reason}): convert it to UTF-8"
        ) from exc
    title, blocks = _blocks(text, mime_type)
    if mime_type == "text/html":
        text = _text_of(blocks)
    return title, text, blocks


def _inside(root: Path, path: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except ValueError:
        return False
    return True


def _visible_files(root: Path) -> Iterator[Path]:
    for directory, folders, files in os.walk(root, followlinks=False):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        yield from (Path(directory, name) for name in sorted(files) if not name.startswith("."))


def _supported(path: Path) -> bool:
    return path.suffix.lower() in MIME_TYPES


def describe_skipped(corpus: Path, skipped: Sequence[Skipped]) -> tuple[str, ...]:
    """Lines on what was skipped: one for the files of unsupported types (their count and the
    first names), one per file or line skipped as bad (its reason)."""
    lines = []
    unsupported = [s.where for s in skipped if s.unsupported]
    if unsupported:
        names = ", ".join(unsupported[:_NAMED_SKIPPED])
        more = ", ..." if len(unsupported) > _NAMED_SKIPPED else ""
        lines.append(
            f"{corpus}: skipped {len(unsupported)} file{'s' if len(unsupported) != 1 else ''} "
            f"of unsupported types ({names}{more}); supported: {SUPPORTED_EXTENSIONS}"
        )
    lines.extend(f"{corpus}: skipped {s}" for s in skipped if not s.unsupported)
    return tuple(lines)


def _folder_files(root: Path) -> Iterator[Path]:
    return (p for p in _visible_files(root) if _supported(p) and _inside(root, p))


def _size_limit(mime_type: str) -> tuple[int, str]:
    if mime_type == "application/pdf":
        return MAX_PDF_FILE_BYTES, "PDF files"
    return MAX_TEXT_FILE_BYTES, "text-based files (with layout-aware document chunking)"


_NOT_REGULAR = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _check_regular(mode: int) -> None:
    """``CorpusError`` unless ``mode`` is a regular file's: reading a named pipe or a device
    could wait forever (or never end)."""
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _NOT_REGULAR if test(mode)), "not a file")
        raise CorpusError(
            f"it is {kind}, not a regular file, and is not read (reading it could wait "
            "forever): put the content in a regular file"
        )


def _modified(seconds: float) -> _dt.datetime:
    """A file's modification time as its ``update_time``; ``CorpusError`` when no timestamp can
    carry it."""
    try:
        return _dt.datetime.fromtimestamp(int(seconds), tz=_dt.timezone.utc)
    except (OverflowError, OSError, ValueError) as exc:
        raise CorpusError(
            f"its modification time ({seconds:.0f} s from 1970) is outside the years 1 to 9999 "
            f"that a Timestamp carries ({exc}): touch it"
        ) from exc


def _read_file(path: Path, mime_type: str, size: int) -> tuple[str, str, list[Block]]:
    """``(title, content, blocks)`` of one file of ``size`` bytes (``CorpusError`` saying why
    it cannot be)."""
    limit, kind = _size_limit(mime_type)
    if size > limit:
        raise CorpusError(
            f"it is {size:,} bytes; Google imports {kind} of at most {limit:,} bytes "
            '("Prepare data for ingesting"): split it'
        )
    if mime_type == "application/pdf":
        title, blocks = _pdf(path)
        return title, _text_of(blocks), blocks
    try:
        content = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"it is not UTF-8 text (byte {exc.start}: {exc.reason}): convert it to UTF-8"
        ) from exc
    title, blocks = _blocks(content, mime_type)
    if mime_type == "text/html":
        content = _text_of(blocks)
    return title, content, blocks


def read_folder(root: Path, *, base_uri: str | None = None) -> Iterator[SourceDocument | Skipped]:
    """The documents of every supported file under ``root``, and a ``Skipped`` for each file
    that cannot be one.

    A document's URI is ``base_uri`` + its relative path when ``base_uri`` is given, else its
    ``file://`` URI; its struct data is ``{"path", "directory", "extension"}``.
    """
    root = root.resolve()
    seen: set[str] = set()
    for path in _visible_files(root):
        relative = path.relative_to(root).as_posix()
        where = printable(relative)
        if not _supported(path):
            yield Skipped(where, "unsupported type", unsupported=True)
            continue
        if not _inside(root, path):
            yield Skipped(
                where,
                f"it leads outside the corpus folder {root}: copy the file into the folder, or "
                "serve its own folder as a corpus too",
            )
            continue
        if where != relative:  # the name has bytes that are not UTF-8 (lone surrogates)
            yield Skipped(where, "its name is not valid UTF-8: rename it")
            continue
        mime_type = MIME_TYPES[path.suffix.lower()]
        try:
            status = path.stat()
            _check_regular(status.st_mode)
            update_time = _modified(status.st_mtime)
            title, content, blocks = _read_file(path, mime_type, status.st_size)
        except OSError as exc:
            yield Skipped(where, f"cannot read it ({exc.strerror or exc})")
            continue
        except CorpusError as exc:
            yield Skipped(where, str(exc))
            continue
        doc_id = _slug(relative)
        if doc_id in seen:
            doc_id = _slug(relative + "#")
        seen.add(doc_id)
        uri = base_uri.rstrip("/") + "/" + relative if base_uri else path.as_uri()
        document = Document(
            id=doc_id,
            uri=uri,
            title=title or path.stem,
            content=content,
            struct_data={
                "path": relative,
                "directory": Path(relative).parent.as_posix(),
                "extension": path.suffix.lower().lstrip("."),
            },
            mime_type=mime_type,
            update_time=update_time,
            description=description_of(blocks),
        )
        yield SourceDocument(document, tuple(blocks), origin=where)


def _timestamp(value: object) -> _dt.datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise CorpusError(f"update_time must be an RFC 3339 string, got {value!r}")
    try:
        stamp = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise CorpusError(f"update_time {printable(value)!r} is not RFC 3339") from exc
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=_dt.timezone.utc)
    try:
        return stamp.astimezone(_dt.timezone.utc)
    except OverflowError as exc:  # 9999-12-31T23:59:59-01:00 is in year 10000 in UTC
        raise CorpusError(
            f"update_time {printable(value)!r} is outside the range of a Timestamp "
            "(google.protobuf.Timestamp: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z): give a "
            "time within it"
        ) from exc


def _string(record: Mapping[str, Any], key: str, default: str = "") -> str:
    value = record.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise CorpusError(f"{key} must be a string, got {type(value).__name__}")
    return value


def _content(record: Mapping[str, Any]) -> str:
    content = record.get("content")
    if not isinstance(content, str):
        raise CorpusError("content is required and must be a string")
    # Cheap bounds first: a character is 1 to 4 bytes of UTF-8.
    if len(content) * 4 > MAX_CONTENT_BYTES:
        size = len(content.encode("utf-8", "surrogatepass"))
        if size > MAX_CONTENT_BYTES:
            raise CorpusError(
                f"content is {size:,} bytes of UTF-8; Google takes inline content of at most "
                f"{MAX_CONTENT_BYTES:,} bytes (Document.Content.raw_bytes): split the document "
                f"over several lines, or put it in a corpus folder as a file (up to "
                f"{MAX_TEXT_FILE_BYTES:,} bytes)"
            )
    return content


def _document(record: Any, number: int) -> SourceDocument:
    if not isinstance(record, Mapping):
        raise CorpusError(f"expected a JSON object, got {type(record).__name__}")
    content = _content(record)
    doc_id = _string(record, "id") or f"doc-{number}"
    if not DOCUMENT_ID.match(doc_id):
        raise CorpusError(
            f"id {printable(doc_id)!r} is not a valid document id: use letters, digits, '-' and "
            "'_', at most 63 characters, starting with a letter or digit"
        )
    struct_data = record.get("struct_data") or {}
    if not isinstance(struct_data, Mapping):
        raise CorpusError("struct_data must be a JSON object")
    mime_type = _string(record, "mime_type", "text/plain")
    if mime_type not in ("text/plain", "text/markdown", "text/html"):
        raise CorpusError(
            f"mime_type {printable(mime_type)!r} is not supported: use text/plain, "
            "text/markdown or text/html"
        )
    heading, blocks = _blocks(content, mime_type)
    if mime_type == "text/html":
        content = _text_of(blocks)
    document = Document(
        id=doc_id,
        uri=_string(record, "uri") or f"urn:document:{doc_id}",
        title=_string(record, "title") or heading or doc_id,
        content=content,
        struct_data=dict(struct_data),
        mime_type=mime_type,
        update_time=_timestamp(record.get("update_time")),
        description=_string(record, "description") or description_of(blocks),
    )
    return SourceDocument(document, tuple(blocks))


def document_from_mapping(record: Mapping[str, Any], *, where: str, number: int) -> SourceDocument:
    """One JSONL record as a source document; ``where`` names it in errors and is its
    ``origin``."""
    try:
        source = _document(record, number)
    except CorpusError as exc:
        raise CorpusError(f"{where}: {exc}") from exc
    return replace(source, origin=where)


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number: use null or a string")


def _parse_line(line: str) -> Any:
    try:
        return json.loads(line, parse_constant=_not_a_number)
    except RecursionError as exc:
        raise CorpusError(
            f"it is nested too deeply to parse; struct_data may be nested at most "
            f"{MAX_STRUCT_DEPTH} levels: flatten it"
        ) from exc
    except json.JSONDecodeError as exc:
        raise CorpusError(f"not valid JSON ({exc.msg} at column {exc.colno})") from exc
    except ValueError as exc:  # NaN/Infinity, an integer of over 4,300 digits
        raise CorpusError(f"not valid JSON ({exc})") from exc


def read_jsonl(path: Path) -> Iterator[SourceDocument | Skipped]:
    """The documents of a JSONL file, one per non-empty line, and a ``Skipped`` for each line
    that cannot be one (a repeated id is skipped by ``DataStore.build``, as from any source)."""
    try:
        size = path.stat().st_size
        handle = path.open(encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        raise CorpusError(f"{path}: cannot open it ({exc})") from exc
    if size > MAX_JSONL_FILE_BYTES:
        handle.close()
        raise CorpusError(
            f"{path} is {size:,} bytes; Google imports JSONL files of at most "
            f"{MAX_JSONL_FILE_BYTES:,} bytes (GcsSource.input_uris): split it"
        )
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"line {number}"
            try:
                if printable(line) != line:
                    raise CorpusError("it is not UTF-8 text: convert the file to UTF-8")
                source = _document(_parse_line(line), number)
            except CorpusError as exc:
                yield Skipped(where, str(exc))
                continue
            yield replace(source, origin=where)


def read_corpus(path: Path, *, base_uri: str | None = None) -> Iterator[SourceDocument | Skipped]:
    """The documents of a folder or of a ``.jsonl`` file, and what was skipped."""
    if path.is_dir():
        root = path.resolve()
        if next(_folder_files(root), None) is None:
            others = sum(1 for p in _visible_files(root) if not _supported(p))
            found = f"; it has {others} of other types" if others else ""
            raise CorpusError(
                f"corpus folder {path} has no file of a supported type ({SUPPORTED_EXTENSIONS})"
                f"{found}: add such files, or convert the others (a .jsonl file of documents "
                "is a corpus too)"
            )
        return read_folder(path, base_uri=base_uri)
    if path.is_file() and path.suffix.lower() in (".jsonl", ".ndjson"):
        return read_jsonl(path)
    if not path.exists():
        raise CorpusError(f"corpus {path} does not exist")
    raise CorpusError(f"corpus {path} is neither a folder nor a .jsonl file")


def corpus_fingerprint(path: Path, *, base_uri: str | None = None) -> str:
    """A cheap fingerprint of a corpus (paths, sizes, modification times): an index built from
    a corpus with the same fingerprint can be reused. It covers every visible file of a folder,
    skipped ones too, so that the list of what was skipped stays true."""
    digest = hashlib.sha256(f"{path.resolve()}|{base_uri}".encode("utf-8", "replace"))
    files = list(_visible_files(path.resolve())) if path.is_dir() else [path]
    for file in files:
        try:
            stat = file.stat()
        except OSError:  # a dangling symlink: skipped when read, and so it stays
            digest.update(f"{file}|missing\n".encode("utf-8", "replace"))
            continue
        digest.update(f"{file}|{stat.st_size}|{stat.st_mtime_ns}\n".encode("utf-8", "replace"))
    return digest.hexdigest()[:32]
