"""Reading Google's response messages: the parts every API module needs. Functions take the
raw protobuf message (``Type.pb(message)``), several times faster than the proto-plus wrapper."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from google.protobuf import struct_pb2

from ._errors import OffsetError
from ._offsets import Utf8Offsets
from ._records import EMPTY_ANSWER, SourceChunk

logger = logging.getLogger(__name__)

NO_DATA: dict[str, Any] = {}


def json_value(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "number_value":
        # Struct stores every number as a double; give integers back as int.
        number = value.number_value
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    if kind == "struct_value":
        return struct_to_dict(value.struct_value)
    if kind == "list_value":
        return [json_value(v) for v in value.list_value.values]
    return value.bool_value if kind == "bool_value" else None


def struct_to_dict(struct: struct_pb2.Struct) -> dict[str, Any]:
    """A ``google.protobuf.Struct`` as a plain ``dict`` (nested lists and dicts included)."""
    fields = struct.fields
    # Keys, then lookups: the map's items() view would iterate it in Python (3x slower).
    return {key: json_value(fields[key]) for key in fields}


def struct_field(message: Any, field: str) -> dict[str, Any]:
    return struct_to_dict(getattr(message, field)) if message.HasField(field) else NO_DATA


def optional(message: Any, field: str) -> Any:
    return getattr(message, field) if message.HasField(field) else None


def timestamp(message: Any, field: str) -> _dt.datetime | None:
    stamp, utc = optional(message, field), _dt.timezone.utc
    return None if stamp is None else stamp.ToDatetime(tzinfo=utc)


def enum_name(message: Any, field: str, number: int) -> str:
    enum = message.DESCRIPTOR.fields_by_name[field].enum_type
    value = enum.values_by_number.get(number)
    return value.name if value is not None else str(number)


def struct_text(struct_data: dict[str, Any]) -> str:
    # Struct fields are a map, unordered on the wire: sort for a stable text.
    return "\n".join(f"{k}: {v}" for k, v in sorted(struct_data.items()))


def content_digest(content: str) -> str:
    """16 hex digits of the SHA-256 of ``content``: what tells apart chunks that have no id."""
    return hashlib.sha256(content.encode()).hexdigest()[:16]


def chunk_from_developer_knowledge(chunk: Any) -> SourceChunk:
    """A Developer Knowledge ``DocumentChunk`` as a record named ``{parent}/chunks/{id}``, or
    ``{parent}#{content digest}`` in answer references, which carry no chunk id ("The
    ``document_chunk.id`` field is not set", ``Answer.DocumentReference``)."""
    document = chunk.document
    suffix = f"/chunks/{chunk.id}" if chunk.id else f"#{content_digest(chunk.content)}"
    return SourceChunk(
        name=chunk.parent + suffix,
        content=chunk.content,
        id=chunk.id,
        document_id=chunk.parent.removeprefix("documents/"),
        document_name=chunk.parent,
        uri=document.uri,
        title=document.title,
        description=document.description,
        data_source=document.data_source,
        update_time=timestamp(document, "update_time"),
        relevance_score=optional(chunk, "relevance_score"),
    )


class Spans:
    """Byte spans of one text -> string spans. A span outside the text or inside a character
    is repaired, with a warning in the log: to the claim's own text where the service sent it
    and it occurs in the text, else outwards to the nearest character boundaries."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offsets = Utf8Offsets(text)
        self._search_from = 0

    def span(
        self, byte_start: int, byte_end: int, *, what: str, expected: str = ""
    ) -> tuple[int, int]:
        try:
            start, end = self.offsets.char_span(byte_start, byte_end)
        except OffsetError as exc:
            problem = f"do not fit the text ({exc})"
        else:
            if not expected or self.text[start:end] == expected:
                self._search_from = end
                return start, end
            problem = f"slice to {self.text[start:end]!r}, not to the claim text {expected!r}"
            # A valid span with the wrong text: keep it unless the claim text is found.
            if self.text.find(expected) < 0:
                logger.warning("%s: bytes [%d, %d) %s", what, byte_start, byte_end, problem)
                return start, end
        start, end = self._repair(byte_start, byte_end, expected)
        sent = f"{what}: the service sent bytes [{byte_start}, {byte_end})"
        logger.warning("%s, which %s; using characters [%d, %d) instead", sent, problem, start, end)
        self._search_from = end
        return start, end

    def _repair(self, byte_start: int, byte_end: int, expected: str) -> tuple[int, int]:
        found = self.text.find(expected, self._search_from) if expected else -1
        if expected and found < 0:
            found = self.text.find(expected)
        if found >= 0:
            return found, found + len(expected)
        start = self.offsets.nearest_char(byte_start, round_up=False)
        return start, max(start, self.offsets.nearest_char(byte_end, round_up=True))

    def bytes_of(self, start: int, end: int) -> tuple[int, int]:
        return self.offsets.byte_span(start, end)


def resolve(indices: Iterable[int], items: Sequence[Any], what: str) -> tuple[Any, ...]:
    resolved = []
    for index in indices:
        if 0 <= index < len(items):
            resolved.append(items[index])
        else:
            left = "%s points at index %d, but only %d exist; left unresolved"
            logger.warning(left, what, index, len(items))
    return tuple(resolved)


def unique_names(references: Sequence[SourceChunk]) -> tuple[SourceChunk, ...]:
    """``references`` with names of their own: a shared name gets ``#`` and the content's
    digest, and one still shared (the same content twice) ``~2``, ``~3``, ... after it."""
    counts = Counter(reference.name for reference in references)
    used = {name for name, count in counts.items() if count == 1}
    next_number: dict[str, int] = {}
    out = []
    for reference in references:
        if counts[reference.name] == 1:
            out.append(reference)
            continue
        suffix = f"#{content_digest(reference.content)}"
        # A Developer Knowledge reference's name ends with its digest already.
        base = reference.name if reference.name.endswith(suffix) else reference.name + suffix
        # Numbers go on from the last one given for this base: linear in the references.
        number = next_number.get(base, 1)
        name = base if number == 1 else f"{base}~{number}"
        while name in used:
            number += 1
            name = f"{base}~{number}"
        # Names of other bases never collide: a base ends with a digest, never with "~n".
        next_number[base] = number + 1
        out.append(dataclasses.replace(reference, name=name))
    return tuple(out)


def skipped_reasons(text: str, reasons: Iterable[str]) -> tuple[str, ...]:
    """The service's skip reasons, or ``EMPTY_ANSWER`` when it sent no text and no reason."""
    given = tuple(reasons)
    return given or ((EMPTY_ANSWER,) if not text.strip() else ())


def segments(
    text: str,
    items: Iterable[Any],
    *,
    what: str,
    indices: Callable[[Any], tuple[int, ...]],
    references: Sequence[SourceChunk],
) -> list[tuple[Any, dict[str, Any]]]:
    """For each cited segment: the item and the span/reference fields its record takes."""
    spans = Spans(text)
    out = []
    for number, item in enumerate(items):
        where = f"{what}[{number}]"
        start, end = spans.span(item.start_index, item.end_index, what=where)
        byte_start, byte_end = spans.bytes_of(start, end)
        refs = indices(item)
        fields: dict[str, Any] = dict(start=start, end=end, text=text[start:end])
        fields.update(byte_start=byte_start, byte_end=byte_end, reference_indices=refs)
        fields["references"] = resolve(refs, references, f"{where}.sources")
        out.append((item, fields))
    return out
