"""The checks that keep every stored value servable through Google's clients, and Google's
documented limits on a document (the values are in ``grounding_emulator/limits.py``).

Sizes (Google's pages; the readers check them, ``reading.py``):

- a JSONL document's ``content`` is inline content: ``Document.Content.raw_bytes`` "The maximum
  length is 1,000,000 bytes (1 MB / ~0.95 MiB)" (the Discovery Engine v1 ``Document`` reference);
- a file of a corpus folder: "Prepare data for ingesting"
  (cloud.google.com/generative-ai-app-builder/docs/prepare-data): text-based files (HTML, TXT,
  ...) under 10 MB with layout-aware document chunking (which chunk mode is), PDF under 200 MB;
- a JSONL file: ``GcsSource.input_uris`` "Each file can be up to 2 GB".

Values (what protobuf and Google's clients can carry; Google documents no other rule):

- text is valid Unicode: protobuf strings are UTF-8, and a lone surrogate (a JSON ``\\ud800``
  escape) cannot be encoded, so every response carrying it would fail. NUL and other control
  characters are valid UTF-8 and protobuf strings carry them: they are accepted, as Google's
  pages on document content and ``struct_data`` say nothing of them;
- ``struct_data`` is a ``google.protobuf.Struct``: numbers are doubles, and ``NaN``/``Infinity``
  are not JSON values (RFC 8259; proto3's JSON mapping refuses them), so they, integers beyond a
  double's range and non-JSON values (a Python ``datetime``, bytes) are refused;
- nesting: Google's clients parse a message nested at most 100 deep (protobuf's default
  recursion limit in Python's upb, C++ and Java). Each level of a Struct costs 3 (``Struct``, its
  ``fields`` entry, ``Value``); the deepest response carrying ``struct_data``
  (``ListSessionsResponse`` > session > turn > ``detailed_answer`` > reference > chunk info >
  document metadata) leaves room for 31 levels (measured: 32 fail to parse). An array level costs
  2; it is counted as a level all the same, so that one rule covers both.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from grounding_emulator.corpus.records import Document
from grounding_emulator.errors import CorpusError
from grounding_emulator.limits import MAX_STRUCT_DEPTH

__all__ = ["check_document", "check_text", "printable"]

# Characters of a deep field's path an error shows.
_SHOWN_FIELD = 60
_TEXT_FIELDS = ("id", "uri", "title", "content", "description", "mime_type")


def printable(text: str) -> str:
    """``text`` with lone surrogates written as ``\\udXXX`` escapes (safe to print and log)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def check_text(field: str, text: str) -> None:
    """``CorpusError`` naming ``field`` when ``text`` is not valid Unicode (a lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise CorpusError(
            f"{field} has a lone surrogate (U+{ord(text[exc.start]):04X}) at character "
            f"{exc.start}: text must be valid Unicode (protobuf strings are UTF-8); fix the "
            "\\u escape or the encoding it came from"
        ) from exc


def _check_scalar(field: str, value: Any) -> None:
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, str):
        check_text(field, value)
        return
    if isinstance(value, int):
        try:
            float(value)
        except OverflowError as exc:
            raise CorpusError(
                f"{field}: the integer is beyond a double's range (struct_data numbers are "
                "doubles): write it as a string"
            ) from exc
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CorpusError(
                f"{field}: {value} is not a JSON number (struct_data numbers are finite "
                "doubles): use null or a string"
            )
        return
    raise CorpusError(
        f"{field}: a {type(value).__name__} is not a JSON value: use a string, number, boolean, "
        "null, list or object"
    )


def _check_struct(data: Mapping[str, Any]) -> None:
    """Walk ``struct_data`` without recursion: a deep value cannot exhaust the stack."""
    stack: list[tuple[str, Any, int]] = [("struct_data", data, 1)]
    while stack:
        field, value, depth = stack.pop()
        if depth > MAX_STRUCT_DEPTH:
            shown = field if len(field) <= _SHOWN_FIELD else field[:_SHOWN_FIELD] + "…"
            raise CorpusError(
                f"{shown} is nested {depth} levels deep; Google's clients parse struct_data of "
                f"at most {MAX_STRUCT_DEPTH} levels of objects and lists (protobuf's recursion "
                "limit of 100 counts the Struct and Value messages around each level): flatten it"
            )
        if isinstance(value, Mapping):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise CorpusError(f"{field}: key {key!r} is not a string (Struct keys are)")
                check_text(f"{field} key {printable(key)!r}", key)
                child = f"{field}.{printable(key)}"
                if isinstance(item, Mapping | list | tuple):
                    stack.append((child, item, depth + 1))
                else:
                    _check_scalar(child, item)
        else:
            for index, item in enumerate(value):
                child = f"{field}[{index}]"
                if isinstance(item, Mapping | list | tuple):
                    stack.append((child, item, depth + 1))
                else:
                    _check_scalar(child, item)


def check_document(document: Document) -> None:
    """``CorpusError`` (naming the field, the limit and what to do) unless every value of
    ``document`` can be served: valid Unicode text, ``struct_data`` of JSON values nested within
    what Google's clients parse."""
    for field in _TEXT_FIELDS:
        check_text(field, getattr(document, field))
    if not isinstance(document.struct_data, Mapping):
        raise CorpusError("struct_data must be a mapping (a JSON object)")
    _check_struct(document.struct_data)
