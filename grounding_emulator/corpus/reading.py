"""Reading a corpus: a folder of files or a JSONL file of documents, as ``SourceDocument``s.

Folders: Markdown (``.md``, ``.markdown``), plain text (``.txt``, ``.text``, ``.rst``), HTML
(``.html``, ``.htm``) and PDF (``.pdf``, one block per page paragraph, with page numbers), read
recursively in path order. Files outside the folder (symlinks or ``..`` that lead out) are
refused with a warning; hidden files and folders are skipped. Files of other types are skipped
too, and reported: ``skipped_files`` lists them, ``describe_skipped`` says so in one line (the
store logs it, ``grounding serve``/``ingest`` print it); a folder with no supported file at all
is a ``CorpusError`` naming it and the supported extensions.

JSONL: one document per line, ``{"id", "uri", "title", "content", "struct_data", "mime_type",
"update_time"}``; only ``content`` is required. ``mime_type`` (``text/markdown``, ``text/html``
or ``text/plain``, the default) says how the content is parsed into blocks.

Document ids are stable: the JSONL ``id``, or a slug of the file's relative path.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grounding_emulator.corpus.chunking import (
    Block,
    blocks_from_html,
    blocks_from_markdown,
    blocks_from_plain_text,
)
from grounding_emulator.corpus.records import Document
from grounding_emulator.errors import CorpusError

__all__ = [
    "MIME_TYPES",
    "SourceDocument",
    "corpus_fingerprint",
    "describe_skipped",
    "document_from_mapping",
    "read_corpus",
    "read_folder",
    "read_jsonl",
    "skipped_files",
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
    """A document and the structural blocks its chunks are cut from."""

    document: Document
    blocks: tuple[Block, ...]


def _slug(relative: str) -> str:
    slug = _SLUG.sub("-", relative).strip("-").lower() or "document"
    if len(slug) > 63 or not DOCUMENT_ID.match(slug):
        digest = hashlib.sha1(relative.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        slug = f"{slug[:52].strip('-') or 'd'}-{digest}"
    return slug


def _first_heading(blocks: list[Block]) -> str:
    return next((b.text for b in blocks if b.kind == "heading"), "")


def _description(blocks: list[Block]) -> str:
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


def _pdf(path: Path) -> tuple[str, list[Block]]:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(path)
        title = ""
        if reader.metadata is not None and reader.metadata.title:
            title = str(reader.metadata.title)
        blocks: list[Block] = []
        for number, page in enumerate(reader.pages, start=1):
            blocks.extend(blocks_from_plain_text(page.extract_text() or "", page=number))
    except (PyPdfError, OSError, ValueError) as exc:
        raise CorpusError(f"{path}: cannot read the PDF ({exc})") from exc
    return title, blocks


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


def skipped_files(root: Path) -> tuple[str, ...]:
    """The files under folder ``root`` that are skipped for their type (relative paths, in
    path order; hidden ones are not listed)."""
    root = root.resolve()
    return tuple(p.relative_to(root).as_posix() for p in _visible_files(root) if not _supported(p))


def describe_skipped(root: Path, skipped: tuple[str, ...]) -> str:
    """One line on the files ``skipped_files`` found: their count and the first names."""
    names = ", ".join(skipped[:_NAMED_SKIPPED]) + (", ..." if len(skipped) > _NAMED_SKIPPED else "")
    return (
        f"{root}: skipped {len(skipped)} file{'s' if len(skipped) != 1 else ''} of unsupported "
        f"types ({names}); supported: {SUPPORTED_EXTENSIONS}"
    )


def _folder_files(root: Path) -> Iterator[Path]:
    for path in filter(_supported, _visible_files(root)):
        if not _inside(root, path):
            logger.warning("skipping %s: it leads outside the corpus root %s", path, root)
            continue
        yield path


def read_folder(root: Path, *, base_uri: str | None = None) -> Iterator[SourceDocument]:
    """The documents of every supported file under ``root``.

    A document's URI is ``base_uri`` + its relative path when ``base_uri`` is given, else its
    ``file://`` URI; its struct data is ``{"path", "directory", "extension"}``.
    """
    root = root.resolve()
    seen: set[str] = set()
    for path in _folder_files(root):
        relative = path.relative_to(root).as_posix()
        mime_type = MIME_TYPES[path.suffix.lower()]
        if mime_type == "application/pdf":
            title, blocks = _pdf(path)
            content = _text_of(blocks)
        else:
            try:
                content = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise CorpusError(f"{path}: cannot read it as UTF-8 text ({exc})") from exc
            title, blocks = _blocks(content, mime_type)
            if mime_type == "text/html":
                content = _text_of(blocks)
        doc_id = _slug(relative)
        if doc_id in seen:
            doc_id = _slug(relative + "#")
        seen.add(doc_id)
        uri = base_uri.rstrip("/") + "/" + relative if base_uri else path.as_uri()
        stat = path.stat()
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
            update_time=_dt.datetime.fromtimestamp(int(stat.st_mtime), tz=_dt.timezone.utc),
            description=_description(blocks),
        )
        yield SourceDocument(document, tuple(blocks))


def _timestamp(value: object, where: str) -> _dt.datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise CorpusError(f"{where}: update_time must be an RFC 3339 string, got {value!r}")
    try:
        stamp = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise CorpusError(f"{where}: update_time {value!r} is not RFC 3339") from exc
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=_dt.timezone.utc)
    return stamp.astimezone(_dt.timezone.utc)


def _string(record: Mapping[str, Any], key: str, where: str, default: str = "") -> str:
    value = record.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise CorpusError(f"{where}: {key} must be a string, got {type(value).__name__}")
    return value


def document_from_mapping(record: Mapping[str, Any], *, where: str, number: int) -> SourceDocument:
    """One JSONL record as a source document; ``where`` names it in errors."""
    if not isinstance(record, Mapping):
        raise CorpusError(f"{where}: expected a JSON object, got {type(record).__name__}")
    content = record.get("content")
    if not isinstance(content, str):
        raise CorpusError(f"{where}: content is required and must be a string")
    doc_id = _string(record, "id", where) or f"doc-{number}"
    if not DOCUMENT_ID.match(doc_id):
        raise CorpusError(
            f"{where}: id {doc_id!r} is not a valid document id: use letters, digits, '-' and "
            "'_', at most 63 characters, starting with a letter or digit"
        )
    struct_data = record.get("struct_data") or {}
    if not isinstance(struct_data, Mapping):
        raise CorpusError(f"{where}: struct_data must be a JSON object")
    mime_type = _string(record, "mime_type", where, "text/plain")
    if mime_type not in ("text/plain", "text/markdown", "text/html"):
        raise CorpusError(
            f"{where}: mime_type {mime_type!r} is not supported: use text/plain, text/markdown "
            "or text/html"
        )
    heading, blocks = _blocks(content, mime_type)
    if mime_type == "text/html":
        content = _text_of(blocks)
    document = Document(
        id=doc_id,
        uri=_string(record, "uri", where) or f"urn:document:{doc_id}",
        title=_string(record, "title", where) or heading or doc_id,
        content=content,
        struct_data=dict(struct_data),
        mime_type=mime_type,
        update_time=_timestamp(record.get("update_time"), where),
        description=_string(record, "description", where) or _description(blocks),
    )
    return SourceDocument(document, tuple(blocks))


def read_jsonl(path: Path) -> Iterator[SourceDocument]:
    """The documents of a JSONL file, one per non-empty line."""
    seen: set[str] = set()
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise CorpusError(f"{path}: cannot open it ({exc})") from exc
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path} line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{where}: not valid JSON ({exc})") from exc
            source = document_from_mapping(record, where=where, number=number)
            if source.document.id in seen:
                raise CorpusError(f"{where}: duplicate document id {source.document.id!r}")
            seen.add(source.document.id)
            yield source


def read_corpus(path: Path, *, base_uri: str | None = None) -> Iterator[SourceDocument]:
    """The documents of a folder or of a ``.jsonl`` file."""
    if path.is_dir():
        if next(_folder_files(path.resolve()), None) is None:
            skipped = skipped_files(path)
            found = f"; it has {len(skipped)} of other types" if skipped else ""
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
    a corpus with the same fingerprint can be reused."""
    digest = hashlib.sha256(f"{path.resolve()}|{base_uri}".encode())
    if path.is_dir():
        root = path.resolve()
        files = list(_folder_files(root))
    else:
        files = [path]
    for file in files:
        stat = file.stat()
        digest.update(f"{file}|{stat.st_size}|{stat.st_mtime_ns}\n".encode("utf-8", "replace"))
    return digest.hexdigest()[:32]
