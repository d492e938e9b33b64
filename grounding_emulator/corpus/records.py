"""The emulator's corpus records: documents and their chunks (frozen, plain values).

A ``Document`` is what was ingested (one file, one JSONL line, one built-in topic); a ``Chunk``
is a piece of it, cut along its structure. Both are what the engines search and the servicers
turn into Google's messages.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

__all__ = ["Chunk", "Document", "data_source_of", "developer_knowledge_name"]


def developer_knowledge_name(uri: str) -> str:
    """The Developer Knowledge resource name of a document: ``documents/{uri without scheme}``.

    >>> developer_knowledge_name("https://docs.python.org/3/reference/simple_stmts.html#assert")
    'documents/docs.python.org/3/reference/simple_stmts.html#assert'
    >>> developer_knowledge_name("file:///srv/docs/guide.md")
    'documents/srv/docs/guide.md'
    """
    scheme, sep, rest = uri.partition("://")
    if not sep or not scheme.isalpha():
        rest = uri
    return "documents/" + rest.lstrip("/")


def data_source_of(uri: str) -> str:
    """The host of ``uri``, or ``local`` for a file URI (a Developer Knowledge filter field).

    >>> data_source_of("https://docs.python.org/3/"), data_source_of("file:///srv/a.md")
    ('docs.python.org', 'local')
    """
    return urlsplit(uri).hostname or "local"


@dataclass(frozen=True, slots=True)
class Document:
    """One ingested document.

    ``struct_data`` is what filters and boosts work on; ``update_time`` (UTC) and the URI's host
    (``data_source``) are what Developer Knowledge filters work on.
    """

    id: str
    uri: str
    title: str
    content: str
    struct_data: Mapping[str, Any] = field(default_factory=dict)
    mime_type: str = "text/plain"
    update_time: _dt.datetime | None = None
    description: str = ""

    @property
    def data_source(self) -> str:
        """The host of the URI (``docs.python.org``), or ``local`` for file URIs."""
        return data_source_of(self.uri)

    @property
    def developer_knowledge_name(self) -> str:
        """``documents/{uri without scheme}``."""
        return developer_knowledge_name(self.uri)

    @property
    def content_length_bytes(self) -> int:
        """Length of ``content`` in UTF-8 bytes."""
        return len(self.content.encode("utf-8", "surrogatepass"))


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a document.

    ``id`` is ``c{ordinal + 1}`` (stable as long as the document and the chunk size are);
    ``heading`` is the section path it sits under (indexed for search, not returned as content);
    ``page_start``/``page_end`` are 1-based pages for paged sources (PDF), else ``None``.
    """

    id: str
    document_index: int
    ordinal: int
    content: str
    heading: str = ""
    page_start: int | None = None
    page_end: int | None = None
