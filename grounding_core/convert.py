"""Protos of both APIs -> records. The only place that reads a response message.

Functions take the raw protobuf message (``Type.pb(message)``), which is several times faster
to read than the proto-plus wrapper. Struct data comes out as plain ``dict``/``list`` values.

Offsets: the services send UTF-8 byte spans; records get both byte and string spans. A span
that lies outside the text or inside a character is repaired, with a warning in the log: to
the claim's own text where the service sent it and it occurs in the answer, else outwards to the
nearest character boundaries. A wrong slice is never returned silently.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import logging
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from google.protobuf import struct_pb2

from .errors import OffsetError
from .facts import FactList
from .offsets import Utf8Offsets
from .records import (
    EMPTY_ANSWER,
    AnnotationMetadata,
    AnswerCitation,
    CitedChunk,
    Claim,
    FacetValue,
    GroundedAnswer,
    GroundingResult,
    GroundingSupport,
    PageSpan,
    RankSignals,
    SearchFacet,
    SearchResults,
    Session,
    SourceChunk,
    Turn,
)
from .specs import DocumentText

__all__ = [
    "answer_from_developer_knowledge",
    "answer_from_discovery_engine",
    "answer_from_search_summary",
    "chunk_from_developer_knowledge",
    "chunk_from_search_result",
    "chunks_from_search_results",
    "grounding_result_from_response",
    "search_results_from_response",
    "session_from_proto",
    "struct_to_dict",
]

logger = logging.getLogger(__name__)

_NO_DATA: dict[str, Any] = {}


def _value(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "number_value":
        number = value.number_value
        # Struct stores every number as a double; give integers back as int.
        if number.is_integer() and abs(number) < 2**53:
            return int(number)
        return number
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        return struct_to_dict(value.struct_value)
    if kind == "list_value":
        return [_value(v) for v in value.list_value.values]
    return None


def struct_to_dict(struct: struct_pb2.Struct) -> dict[str, Any]:
    """A ``google.protobuf.Struct`` as a plain ``dict`` (nested lists and dicts included)."""
    fields = struct.fields
    # Keys, then lookups: the map's items() view would iterate it in Python (3x slower).
    return {key: _value(fields[key]) for key in fields}


def _struct(message: Any, field: str) -> dict[str, Any]:
    if not message.HasField(field):
        return _NO_DATA
    return struct_to_dict(getattr(message, field))


def _optional(message: Any, field: str) -> Any:
    return getattr(message, field) if message.HasField(field) else None


def _timestamp(message: Any, field: str) -> _dt.datetime | None:
    if not message.HasField(field):
        return None
    stamp = getattr(message, field)
    return stamp.ToDatetime(tzinfo=_dt.timezone.utc)  # type: ignore[no-any-return]


def _enum_name(message: Any, field: str, number: int) -> str:
    enum = message.DESCRIPTOR.fields_by_name[field].enum_type
    value = enum.values_by_number.get(number)
    return value.name if value is not None else str(number)


# -- search results -----------------------------------------------------------------------------


_R = TypeVar("_R")


def _slot_builder(cls: type[_R]) -> Callable[..., _R]:
    """A function that makes a ``cls`` from every field's value, in field order, by setting its
    slots directly. A frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__``: 3.8 µs for a ``SourceChunk``, against 1.7 µs here, and this runs for
    every retrieved chunk. Only for a frozen slots dataclass with no ``__post_init__`` (the
    same record either way: a test compares them)."""
    if "__slots__" not in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} is not a slots dataclass without __post_init__")
    setters = tuple(
        cls.__dict__[field.name].__set__
        for field in dataclasses.fields(cls)  # type: ignore[arg-type]
    )
    new = object.__new__

    def build(*values: Any) -> _R:
        record = new(cls)
        for setter, value in zip(setters, values, strict=True):
            setter(record, value)
        return record

    build.__name__ = f"build_{cls.__name__}"
    return build


_rank_signals_record = _slot_builder(RankSignals)
_source_chunk_record = _slot_builder(SourceChunk)


def _rank_signals(result: Any) -> RankSignals | None:
    if not result.HasField("rank_signals"):
        return None
    signals = result.rank_signals
    has = signals.HasField
    custom = signals.custom_signals
    precomputed = signals.precomputed_expression_values
    # Every score is optional but default_rank. Positional, in the record's field order (a
    # test pins it): this runs for every retrieved chunk.
    return _rank_signals_record(
        signals.keyword_similarity_score if has("keyword_similarity_score") else None,
        signals.relevance_score if has("relevance_score") else None,
        signals.semantic_similarity_score if has("semantic_similarity_score") else None,
        signals.pctr_rank if has("pctr_rank") else None,
        signals.topicality_rank if has("topicality_rank") else None,
        signals.document_age if has("document_age") else None,
        signals.boosting_factor if has("boosting_factor") else None,
        signals.default_rank,
        {s.name: s.value for s in custom} if custom else {},
        tuple(precomputed) if precomputed else (),
    )


def _document_of_chunk(chunk_name: str) -> tuple[str, str]:
    """``(document_name, document_id)`` of a chunk resource name."""
    document, sep, _ = chunk_name.rpartition("/chunks/")
    if not sep:
        return "", ""
    return document, document.rpartition("/")[2]


def _annotation(annotation: Any) -> AnnotationMetadata:
    content = annotation.structured_content
    return AnnotationMetadata(
        structure_type=_enum_name(content, "structure_type", content.structure_type),
        content=content.content,
        image_id=annotation.image_id,
    )


# A chunk's document as its record has it: uri, title, MIME type, struct data.
_DocumentFields = tuple[str, str, str, dict[str, Any]]


def _document_fields(metadata: Any) -> _DocumentFields:
    values: dict[str, Any] = {}
    for field, value in metadata.ListFields():
        key = field.name
        # Newer API versions carry the MIME type; v1 does not (yet).
        if key in ("uri", "title", "mime_type"):
            values[key] = value
        elif key == "struct_data":
            values[key] = struct_to_dict(value)
    return (
        values.get("uri", ""),
        values.get("title", ""),
        values.get("mime_type", ""),
        values.get("struct_data", {}),
    )


# Struct values that are never shared mutable state: a dict of only these copies shallowly.
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _copy_json(value: Any) -> Any:
    """A copy of a ``struct_to_dict`` value: new dicts and lists all the way down."""
    if type(value) is dict:
        return {key: _copy_json(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy_json(item) for item in value]
    return value


class _Documents:
    """The record fields of each document's ``document_metadata``, read once per response.

    Every chunk result carries its document's metadata again (a k = 100 search of the
    emulator's built-in store: 100 chunks of 26 documents), and its struct data is the costliest
    part of a chunk to read. An entry is reused only for a message equal to the one it was read
    from, and every chunk gets struct data of its own (a fresh copy, deep unless every value is
    a scalar), so that no chunk shares a mutable value with another.
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        # document name -> [the message read, its fields, whether its struct data is flat
        # (None until the first reuse: a document with one chunk in the response needs no copy)]
        self._entries: dict[str, list[Any]] = {}

    def read(self, document_name: str, metadata: Any) -> _DocumentFields:
        """The fields of ``metadata``, the ``document_metadata`` of a chunk of
        ``document_name``."""
        entry = self._entries.get(document_name)
        if entry is None or entry[0] != metadata:
            fields = _document_fields(metadata)
            self._entries[document_name] = [metadata, fields, None]
            # The first chunk takes the dict just built; the next ones take copies of it.
            return fields
        _, (uri, title, mime_type, struct), flat = entry
        if flat is None:
            flat = entry[2] = all(type(v) in _SCALARS for v in struct.values())
        return uri, title, mime_type, dict(struct) if flat else _copy_json(struct)


def _chunk(
    chunk: Any,
    documents: _Documents | None = None,
    rank_signals: RankSignals | None = None,
    model_scores: dict[str, tuple[float, ...]] | None = None,
) -> SourceChunk:
    # Each field read directly (this runs for every retrieved chunk): cheaper than ListFields
    # and a loop over its names. An absent field reads as its default, the record's default.
    name = chunk.name
    document_name, document_id = _document_of_chunk(name)
    metadata = chunk.document_metadata
    if documents is None:
        uri, title, mime_type, struct_data = _document_fields(metadata)
    else:
        uri, title, mime_type, struct_data = documents.read(document_name, metadata)
    has = chunk.HasField
    page_span = chunk.page_span if has("page_span") else None
    neighbours = chunk.chunk_metadata if has("chunk_metadata") else None
    # Usually empty: () costs nothing, a tuple of an empty repeated field does.
    contents, annotations, data_urls = (
        chunk.annotation_contents,
        chunk.annotation_metadata,
        chunk.data_urls,
    )
    # Every field, in the record's field order (a test pins it).
    return _source_chunk_record(
        name,
        chunk.content,
        chunk.id,
        document_id,
        document_name,
        uri,
        title,
        mime_type,
        "",  # description
        "",  # data_source
        None,  # update_time
        struct_data,
        struct_to_dict(chunk.derived_struct_data) if has("derived_struct_data") else {},
        PageSpan(page_span.page_start, page_span.page_end) if page_span is not None else None,
        "",  # page_identifier
        tuple(map(_chunk, neighbours.previous_chunks)) if neighbours is not None else (),
        tuple(map(_chunk, neighbours.next_chunks)) if neighbours is not None else (),
        chunk.relevance_score if has("relevance_score") else None,
        rank_signals,
        {} if model_scores is None else model_scores,
        tuple(contents) if contents else (),
        tuple(map(_annotation, annotations)) if annotations else (),
        tuple(data_urls) if data_urls else (),
    )


# Snippets carry Google's hit highlighting ("Get snippets and extracted content"): bold tags.
_HIGHLIGHT = re.compile(r"</?b>")
_NO_SNIPPET = "NO_SNIPPET_AVAILABLE"


# The contents of a DOCUMENTS-mode result that hold text, in "auto"'s order: the key of each in
# the derived struct data, and the key of a part's text.
_DOCUMENT_PARTS = {
    "extractive_segments": "content",
    "extractive_answers": "content",
    "snippets": "snippet",
}


def _parts_text(derived: dict[str, Any], key: str) -> str:
    """The parts of one content joined by blank lines: blank ones, "No snippet is available"
    ones and anything but text skipped; snippets without their highlighting tags."""
    listed = derived.get(key)
    if not isinstance(listed, list):
        return ""
    text_key = _DOCUMENT_PARTS[key]
    parts = [
        p.get(text_key, "")
        for p in listed
        if isinstance(p, dict) and p.get("snippet_status") != _NO_SNIPPET
    ]
    text = "\n\n".join(p for p in parts if isinstance(p, str) and p.strip())
    return _HIGHLIGHT.sub("", text) if key == "snippets" else text


def _struct_text(struct_data: dict[str, Any]) -> str:
    # Struct fields are a map, unordered on the wire: sort for a stable text.
    return "\n".join(f"{k}: {v}" for k, v in sorted(struct_data.items()))


def _document_text(
    derived: dict[str, Any], struct_data: dict[str, Any], choice: DocumentText
) -> str:
    """What a DOCUMENTS-mode result offers as text (``ChunkSearchSpec.document_text``): the
    chosen content ("" when the result has none of it), or for ``"auto"`` the extractive
    segments, else the extractive answers, else the snippets, else the document's struct data
    as ``key: value`` lines."""
    if choice == "struct_data":
        return _struct_text(struct_data)
    if choice != "auto":
        return _parts_text(derived, choice)
    for key in _DOCUMENT_PARTS:
        text = _parts_text(derived, key)
        if text:
            return text
    return _struct_text(struct_data)


def _model_scores(result: Any) -> dict[str, tuple[float, ...]]:
    scores = result.model_scores
    # Usually empty: a new empty dict is far cheaper than a comprehension over the map.
    return {k: tuple(v.values) for k, v in scores.items()} if scores else {}


def _from_document(result: Any, document_text: DocumentText) -> SourceChunk:
    document = result.document
    struct_data = _struct(document, "struct_data")
    derived = _struct(document, "derived_struct_data")
    uri = derived.get("link") or struct_data.get("uri") or struct_data.get("url") or ""
    title = derived.get("title") or struct_data.get("title") or ""
    return SourceChunk(
        name=document.name,
        content=_document_text(derived, struct_data, document_text),
        id=document.id or result.id,
        document_id=document.id or result.id,
        document_name=document.name,
        uri=str(uri),
        title=str(title),
        mime_type=document.content.mime_type,
        struct_data=struct_data,
        derived_struct_data=derived,
        relevance_score=_segment_score(derived),
        rank_signals=_rank_signals(result),
        model_scores=_model_scores(result),
    )


def _segment_score(derived: dict[str, Any]) -> float | None:
    """A document's relevance score: the best ``relevanceScore`` of its extractive segments
    (sent with ``return_extractive_segment_score``, "Get snippets and extracted content"),
    else ``None``: a DOCUMENTS-mode result has no score of its own."""
    scores = [
        s["relevanceScore"]
        for s in derived.get("extractive_segments", ())
        if isinstance(s, dict) and type(s.get("relevanceScore")) in (int, float)
    ]
    return float(max(scores)) if scores else None


def _search_result(
    result: Any, document_text: DocumentText, documents: _Documents | None
) -> SourceChunk:
    if result.HasField("chunk"):
        return _chunk(result.chunk, documents, _rank_signals(result), _model_scores(result))
    return _from_document(result, document_text)


def chunk_from_search_result(result: Any, document_text: DocumentText = "auto") -> SourceChunk:
    """A ``SearchResponse.SearchResult`` (raw pb) in chunk or document mode as a record; a
    document's text is its ``document_text`` content (``ChunkSearchSpec.document_text``)."""
    return _search_result(result, document_text, None)


def chunks_from_search_results(
    results: Iterable[Any], document_text: DocumentText = "auto"
) -> list[SourceChunk]:
    """``chunk_from_search_result`` of each result of one search (raw pb, the pages of one
    response), reading the metadata of a document that several chunks share once."""
    documents = _Documents()
    return [_search_result(result, document_text, documents) for result in results]


def _facet_value(value: Any) -> FacetValue:
    if value.WhichOneof("facet_value") == "interval":
        interval = {field.name: bound for field, bound in value.interval.ListFields()}
        return FacetValue(count=value.count, interval=interval)
    return FacetValue(count=value.count, value=value.value)


def search_results_from_response(response: Any, chunks: Sequence[SourceChunk]) -> SearchResults:
    """The response-level fields of a ``SearchResponse`` (raw pb, the first page) with the
    ``chunks`` read from its pages."""
    expansion = response.query_expansion_info
    return SearchResults(
        chunks=tuple(chunks),
        total_size=response.total_size,
        corrected_query=response.corrected_query,
        expanded_query=expansion.expanded_query,
        pinned_result_count=expansion.pinned_result_count,
        facets=tuple(
            SearchFacet(
                key=facet.key,
                values=tuple(_facet_value(v) for v in facet.values),
                dynamic_facet=facet.dynamic_facet,
            )
            for facet in response.facets
        ),
        attribution_token=response.attribution_token,
    )


def _content_digest(content: str) -> str:
    """16 hex digits of the SHA-256 of ``content``: what tells apart chunks that have no id."""
    return hashlib.sha256(content.encode()).hexdigest()[:16]


def chunk_from_developer_knowledge(chunk: Any) -> SourceChunk:
    """A Developer Knowledge ``DocumentChunk`` (raw pb) as a record.

    Its name is ``{parent}/chunks/{id}``. Answer references carry no chunk id ("The
    ``document_chunk.id`` field is not set", ``Answer.DocumentReference``): there it is
    ``{parent}#{digest}``, the digest of the chunk's content, so that two chunks of one
    document have two names, and a chunk the same name in every answer that cites it.
    """
    document = chunk.document
    if chunk.id:
        name = f"{chunk.parent}/chunks/{chunk.id}"
    else:
        name = f"{chunk.parent}#{_content_digest(chunk.content)}"
    return SourceChunk(
        name=name,
        content=chunk.content,
        id=chunk.id,
        document_id=chunk.parent.removeprefix("documents/"),
        document_name=chunk.parent,
        uri=document.uri,
        title=document.title,
        description=document.description,
        data_source=document.data_source,
        update_time=_timestamp(document, "update_time"),
        relevance_score=_optional(chunk, "relevance_score"),
    )


# -- spans --------------------------------------------------------------------------------------


class _Spans:
    """Byte spans of one text -> string spans, repairing bad ones with a warning."""

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
        logger.warning(
            "%s: the service sent bytes [%d, %d), which %s; using characters [%d, %d) instead",
            what,
            byte_start,
            byte_end,
            problem,
            start,
            end,
        )
        self._search_from = end
        return start, end

    def _repair(self, byte_start: int, byte_end: int, expected: str) -> tuple[int, int]:
        if expected:
            found = self.text.find(expected, self._search_from)
            if found < 0:
                found = self.text.find(expected)
            if found >= 0:
                return found, found + len(expected)
        start = self.offsets.nearest_char(byte_start, round_up=False)
        end = self.offsets.nearest_char(byte_end, round_up=True)
        return start, max(start, end)

    def bytes_of(self, start: int, end: int) -> tuple[int, int]:
        return self.offsets.byte_span(start, end)


def _resolve(indices: Iterable[int], items: Sequence[Any], what: str) -> tuple[Any, ...]:
    resolved = []
    for index in indices:
        if 0 <= index < len(items):
            resolved.append(items[index])
        else:
            logger.warning(
                "%s points at index %d, but only %d exist; left unresolved",
                what,
                index,
                len(items),
            )
    return tuple(resolved)


# -- grounding check ----------------------------------------------------------------------------


def _fact_index(source: str) -> int | None:
    return int(source) if source.isdigit() else None


def grounding_result_from_response(answer: str, response: Any, facts: FactList) -> GroundingResult:
    """A ``CheckGroundingResponse`` (raw pb) for ``answer`` as a record.

    ``facts`` maps each fact back to the source it was built from, so that citations point at
    the caller's sources even when empty ones were skipped.
    """
    cited_chunks = tuple(
        CitedChunk(
            text=chunk.chunk_text,
            source_index=facts.source_index(_fact_index(chunk.source)),
            fact_index=_fact_index(chunk.source),
            attributes=dict(chunk.source_metadata),
            uri=chunk.uri,
            title=chunk.title,
            domain=chunk.domain,
        )
        for chunk in response.cited_chunks
    )
    spans = _Spans(answer)
    claims = []
    for number, claim in enumerate(response.claims):
        start = end = byte_start = byte_end = None
        if claim.HasField("start_pos") and claim.HasField("end_pos"):
            start, end = spans.span(
                claim.start_pos,
                claim.end_pos,
                what=f"claims[{number}] start_pos/end_pos",
                expected=claim.claim_text,
            )
            byte_start, byte_end = spans.bytes_of(start, end)
        indices = tuple(claim.citation_indices)
        claims.append(
            Claim(
                text=claim.claim_text,
                start=start,
                end=end,
                byte_start=byte_start,
                byte_end=byte_end,
                citation_indices=indices,
                citations=_resolve(indices, cited_chunks, f"claims[{number}].citation_indices"),
                score=_optional(claim, "score"),
                grounding_check_required=(
                    claim.grounding_check_required
                    if claim.HasField("grounding_check_required")
                    else True
                ),
            )
        )
    return GroundingResult(
        answer=answer,
        support_score=_optional(response, "support_score"),
        claims=tuple(claims),
        cited_chunks=cited_chunks,
        cited_facts=tuple(fact.chunk_text for fact in response.cited_facts),
    )


# -- answers ------------------------------------------------------------------------------------


def _discovery_engine_reference(reference: Any) -> SourceChunk:
    kind = reference.WhichOneof("content")
    if kind == "chunk_info":
        info = reference.chunk_info
        meta = info.document_metadata
        return SourceChunk(
            name=info.chunk,
            content=info.content,
            id=info.chunk.rpartition("/")[2],
            document_id=meta.document.rpartition("/")[2],
            document_name=meta.document,
            uri=meta.uri,
            title=meta.title,
            page_identifier=meta.page_identifier,
            struct_data=_struct(meta, "struct_data"),
            relevance_score=_optional(info, "relevance_score"),
        )
    if kind == "unstructured_document_info":
        info = reference.unstructured_document_info
        contents = list(info.chunk_contents)
        scores = [c.relevance_score for c in contents if c.HasField("relevance_score")]
        return SourceChunk(
            name=info.document,
            content="\n\n".join(c.content for c in contents),
            document_id=info.document.rpartition("/")[2],
            document_name=info.document,
            uri=info.uri,
            title=info.title,
            page_identifier=", ".join(c.page_identifier for c in contents if c.page_identifier),
            struct_data=_struct(info, "struct_data"),
            relevance_score=max(scores) if scores else None,
        )
    if kind == "structured_document_info":
        info = reference.structured_document_info
        struct_data = _struct(info, "struct_data")
        return SourceChunk(
            name=info.document,
            content=_struct_text(struct_data),
            document_id=info.document.rpartition("/")[2],
            document_name=info.document,
            uri=info.uri,
            title=info.title,
            struct_data=struct_data,
        )
    return SourceChunk(name="", content="")


def _unique_names(references: Sequence[SourceChunk]) -> tuple[SourceChunk, ...]:
    """``references`` with a name each that no other has. A unique name is kept (a chunk's
    resource name, a document's); a name several share (two references to one document) gets
    ``#`` and the content's digest, and one still shared (the same content twice) ``~2``,
    ``~3``, ... on its later occurrences."""
    counts = Counter(reference.name for reference in references)
    used = {name for name, count in counts.items() if count == 1}
    next_number: dict[str, int] = {}
    out = []
    for reference in references:
        if counts[reference.name] == 1:
            out.append(reference)
            continue
        suffix = f"#{_content_digest(reference.content)}"
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


def _skipped_reasons(text: str, reasons: Iterable[str]) -> tuple[str, ...]:
    """The service's skip reasons, or ``EMPTY_ANSWER`` when it sent no text and no reason."""
    given = tuple(reasons)
    return given or ((EMPTY_ANSWER,) if not text.strip() else ())


def _reference_index(reference_id: str) -> int:
    # Discovery Engine names references by their position, as a decimal string.
    return int(reference_id) if reference_id.isdigit() else -1


def _segments(
    text: str,
    items: Iterable[Any],
    *,
    what: str,
    indices: Callable[[Any], tuple[int, ...]],
    references: Sequence[SourceChunk],
) -> list[tuple[Any, dict[str, Any]]]:
    """For each cited segment: the item and the span/reference fields its record takes."""
    spans = _Spans(text)
    out = []
    for number, item in enumerate(items):
        start, end = spans.span(item.start_index, item.end_index, what=f"{what}[{number}]")
        byte_start, byte_end = spans.bytes_of(start, end)
        refs = indices(item)
        fields = {
            "start": start,
            "end": end,
            "byte_start": byte_start,
            "byte_end": byte_end,
            "text": text[start:end],
            "reference_indices": refs,
            "references": _resolve(refs, references, f"{what}[{number}].sources"),
        }
        out.append((item, fields))
    return out


def answer_from_discovery_engine(answer: Any, *, session: str = "") -> GroundedAnswer:
    """A Discovery Engine ``Answer`` (raw pb) as a record."""
    text = answer.answer_text
    references = _unique_names([_discovery_engine_reference(r) for r in answer.references])

    def indices(item: Any) -> tuple[int, ...]:
        return tuple(_reference_index(s.reference_id) for s in item.sources)

    citations = _segments(
        text, answer.citations, what="citations", indices=indices, references=references
    )
    supports = _segments(
        text,
        answer.grounding_supports,
        what="grounding_supports",
        indices=indices,
        references=references,
    )
    return GroundedAnswer(
        answer_text=text,
        citations=tuple(AnswerCitation(**fields) for _, fields in citations),
        references=references,
        grounding_score=_optional(answer, "grounding_score"),
        grounding_supports=tuple(
            GroundingSupport(
                **fields,
                score=_optional(item, "grounding_score"),
                grounding_check_required=_optional(item, "grounding_check_required"),
            )
            for item, fields in supports
        ),
        state=_enum_name(answer, "state", answer.state),
        skipped_reasons=_skipped_reasons(
            text,
            (
                _enum_name(answer, "answer_skipped_reasons", r)
                for r in answer.answer_skipped_reasons
            ),
        ),
        related_questions=tuple(answer.related_questions),
        name=answer.name,
        session=session,
    )


def answer_from_developer_knowledge(answer: Any) -> GroundedAnswer:
    """A Developer Knowledge ``Answer`` (raw pb) as a record."""
    text = answer.answer_text
    references = _unique_names(
        [
            chunk_from_developer_knowledge(r.document_reference.document_chunk)
            for r in answer.references
        ]
    )

    def indices(item: Any) -> tuple[int, ...]:
        return tuple(s.reference_index for s in item.sources)

    citations = _segments(
        text, answer.citations, what="citations", indices=indices, references=references
    )
    return GroundedAnswer(
        answer_text=text,
        citations=tuple(AnswerCitation(**fields) for _, fields in citations),
        references=references,
        # The Developer Knowledge Answer has no state and no skip reason: the call succeeded,
        # and an answer without text is a declined one.
        state="SUCCEEDED",
        skipped_reasons=_skipped_reasons(text, ()),
    )


def session_from_proto(session: Any) -> Session:
    """A Discovery Engine ``Session`` (raw pb) as a record; a turn's ``detailed_answer`` only
    when the service sent one (``GetSession`` with ``include_answer_details``)."""
    return Session(
        name=session.name,
        display_name=session.display_name,
        state=_enum_name(session, "state", session.state),
        user_pseudo_id=session.user_pseudo_id,
        turns=tuple(
            Turn(
                query=turn.query.text,
                query_id=turn.query.query_id,
                answer=turn.answer,
                detailed_answer=(
                    answer_from_discovery_engine(turn.detailed_answer, session=session.name)
                    if turn.HasField("detailed_answer")
                    else None
                ),
            )
            for turn in session.turns
        ),
        labels=tuple(session.labels),
        start_time=_timestamp(session, "start_time"),
        end_time=_timestamp(session, "end_time"),
        is_pinned=session.is_pinned,
    )


# -- search summaries ---------------------------------------------------------------------------


def _summary_reference(
    reference: Any, results: Mapping[tuple[str, str], SourceChunk]
) -> SourceChunk:
    """A summary's reference: the search result it names when the response holds it (a chunk
    result with the cited content: its full record, its chunk name), else a record of its own
    (named after the document)."""
    contents = [c.content for c in reference.chunk_contents]
    for content in contents:
        found = results.get((reference.document, content))
        if found is not None:
            return found
    return SourceChunk(
        name=reference.document,
        content="\n\n".join(contents),
        document_id=reference.document.rpartition("/")[2],
        document_name=reference.document,
        uri=reference.uri,
        title=reference.title,
        page_identifier=", ".join(
            c.page_identifier for c in reference.chunk_contents if c.page_identifier
        ),
    )


def answer_from_search_summary(response: Any) -> GroundedAnswer:
    """The ``summary`` of a ``SearchResponse`` (raw pb) as a record.

    The text is ``summary_with_metadata.summary`` (the text the citation spans index; its
    ``summary_text`` twin carries in-line ``[n]`` markers), else ``summary_text`` (a skipped
    summary's fallback message). References are resolved to the response's chunk results.
    """
    summary = response.summary
    metadata = summary.summary_with_metadata
    text = metadata.summary if summary.HasField("summary_with_metadata") else summary.summary_text
    chunks = chunks_from_search_results(r for r in response.results if r.HasField("chunk"))
    by_content = {(c.document_name, c.content): c for c in chunks}
    references = _unique_names([_summary_reference(r, by_content) for r in metadata.references])

    def indices(item: Any) -> tuple[int, ...]:
        return tuple(s.reference_index for s in item.sources)

    citations = _segments(
        text,
        metadata.citation_metadata.citations,
        what="summary citations",
        indices=indices,
        references=references,
    )
    return GroundedAnswer(
        answer_text=text,
        citations=tuple(AnswerCitation(**fields) for _, fields in citations),
        references=references,
        skipped_reasons=_skipped_reasons(
            text,
            (
                _enum_name(summary, "summary_skipped_reasons", r)
                for r in summary.summary_skipped_reasons
            ),
        ),
    )
