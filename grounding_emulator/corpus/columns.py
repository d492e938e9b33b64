"""A data store's documents and chunks as compact columns, read lazily.

A million chunks as Python objects (a ``Document`` and a ``Chunk`` each, their strings, a
flattened struct dict, lookup dicts) take gigabytes and tens of seconds to rebuild at every load.
Here each text field of a table is one UTF-8 buffer and an ``int64`` offsets array (item ``i`` is
``buffer[offsets[i]:offsets[i + 1]]``), each number field one ``int32`` array; a record is built
when it is asked for (a search returns ten). Saved, a buffer is a plain ``.utf8`` file and the
arrays ``.npy`` files, which ``load`` memory-maps: loading costs a few checks, not a parse, and
the pages a search never touches are never read.

On disk (under ``documents/`` and ``chunks/`` of a snapshot folder)::

    documents/{field}.utf8    id, uri, title, content, mime_type, update_time (ISO 8601 or ""),
                              description, struct_data (JSON)
    documents/offsets.npy     int64 [fields, documents + 1]
    documents/by_id.npy       document numbers sorted by id (binary search: ``index_of``)
    documents/by_name.npy     ... sorted by Developer Knowledge name (``index_of_name``)
    documents/schema.json     the detected type of each flattened struct field (``schema.py``)
    chunks/{content,heading}.utf8, chunks/offsets.npy
    chunks/numbers.npy        int32 [chunks, 4]: document, ordinal, page_start, page_end (0: none)
"""

from __future__ import annotations

import bisect
import datetime as _dt
import json
import mmap
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, get_args, overload

import numpy as np
from cachetools import LRUCache

from grounding_emulator.corpus.records import Chunk, Document, developer_knowledge_name
from grounding_emulator.corpus.schema import FieldType, TypeDetector, geolocation_of
from grounding_emulator.errors import CorpusError

__all__ = ["ChunkTable", "DocumentTable", "TextColumn", "flatten_struct"]

_DOCUMENT_FIELDS = (
    "id",
    "uri",
    "title",
    "content",
    "mime_type",
    "update_time",
    "description",
    "struct_data",
)
_CHUNK_FIELDS = ("content", "heading")
_NUMBERS = ("document", "ordinal", "page_start", "page_end")
# Lone surrogates cannot be ingested (validation.py), but a record built in code may hold one:
# it round-trips instead of failing a save.
_ERRORS = "surrogatepass"
# ``raw_decode`` skips ``json.loads``' Python-level wrapper: 0.4 µs instead of 1.7 µs for a
# small object, which counts when a filter reads the struct data of a million documents.
_DECODER = json.JSONDecoder()


def _json(text: str) -> Any:
    """The JSON value ``text`` (written by ``json.dumps``: no surrounding whitespace)."""
    return _DECODER.raw_decode(text)[0]


def flatten_struct(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested struct data as ``{"a.b": value}`` (lists and geolocations stay values).

    >>> flatten_struct({"a": {"b": 1}, "c": [1, 2]})
    {'a.b': 1, 'c': [1, 2]}
    """
    if not any(isinstance(value, Mapping) for value in data.values()):
        return {f"{prefix}{key}": value for key, value in data.items()} if prefix else dict(data)
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and geolocation_of(value) is None:
            flat.update(flatten_struct(value, name + "."))
        else:
            flat[name] = value
    return flat


class TextColumn(Sequence[str]):
    """Strings in one UTF-8 buffer (``bytes``, ``bytearray`` or a read-only ``mmap``) and their
    ``offsets`` (``len + 1`` non-decreasing byte positions)."""

    __slots__ = ("_count", "_data", "_ends", "_offsets")

    def __init__(self, data: bytes | bytearray | mmap.mmap, offsets: np.ndarray) -> None:
        self._data = data
        self._offsets = offsets
        self._count = len(offsets) - 1
        # Indexing a memoryview gives a Python int at once; a numpy array gives a numpy scalar
        # first (three times slower), and a search reads a dozen offsets for every result.
        self._ends = np.ascontiguousarray(offsets, dtype=np.int64).data

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        ends = self._ends
        return self._data[ends[index] : ends[index + 1]].decode("utf-8", _ERRORS)

    def byte_length(self, index: int) -> int:
        """The UTF-8 length of item ``index``, without decoding it."""
        return int(self._ends[index + 1] - self._ends[index])

    @property
    def data(self) -> bytes | bytearray | mmap.mmap:
        """The UTF-8 buffer."""
        return self._data

    @property
    def offsets(self) -> np.ndarray:
        """The byte offsets (``len + 1``)."""
        return self._offsets


class _TextBuilder:
    """Appends strings to a growing buffer (no per-string Python object kept)."""

    __slots__ = ("_data", "_offsets")

    def __init__(self) -> None:
        self._data = bytearray()
        self._offsets = array("q", [0])

    def append(self, text: str) -> None:
        self._data += text.encode("utf-8", _ERRORS)
        self._offsets.append(len(self._data))

    def column(self) -> TextColumn:
        return TextColumn(self._data, np.frombuffer(self._offsets, dtype=np.int64))


def _map(path: Path) -> bytes | mmap.mmap:
    """The bytes of ``path``, memory-mapped (an empty file cannot be mapped: ``b""``)."""
    with path.open("rb") as handle:
        if path.stat().st_size == 0:
            return b""
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


def _load_array(path: Path) -> np.ndarray:
    """A saved ``.npy`` array, memory-mapped unless empty (numpy cannot map zero bytes)."""
    try:
        array: np.ndarray = np.load(path, mmap_mode="r", allow_pickle=False)
    except ValueError:
        array = np.load(path, allow_pickle=False)
    return array


def _write_columns(directory: Path, columns: Mapping[str, TextColumn]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, column in columns.items():
        with (directory / f"{name}.utf8").open("wb") as handle:
            handle.write(column.data)
    np.save(directory / "offsets.npy", np.stack([np.asarray(c.offsets) for c in columns.values()]))


def _read_columns(
    directory: Path, names: Sequence[str], count: int, unit: str
) -> dict[str, TextColumn]:
    """The text columns ``names`` of ``count`` records, checked against their files: a count
    other than the manifest's, a file cut or padded, offsets that run backwards are a
    ``CorpusError`` naming the file."""
    folder = directory.name
    offsets = _load_array(directory / "offsets.npy")
    if offsets.ndim != 2 or offsets.shape[0] != len(names) or offsets.dtype != np.int64:
        raise CorpusError(
            f"{folder}/offsets.npy holds {offsets.dtype} offsets of shape {offsets.shape}, "
            f"not int64 ({len(names)}, records + 1): rebuild the index"
        )
    if offsets.shape[1] != count + 1:
        raise CorpusError(f"{folder}/offsets.npy holds {offsets.shape[1] - 1} {unit}, not {count}")
    columns = {}
    for row, name in enumerate(names):
        path = directory / f"{name}.utf8"
        size = path.stat().st_size
        ends = offsets[row]
        if ends[0] != 0 or ends[-1] != size or bool((np.diff(ends) < 0).any()):
            raise CorpusError(
                f"{folder}/{name}.utf8 has {size:,} bytes, which its offsets in "
                f"{folder}/offsets.npy do not cover (0 to {int(ends[-1]):,}, non-decreasing): "
                "rebuild the index"
            )
        # A plain ndarray view of the mapped offsets: np.memmap's indexing is 4 times slower.
        columns[name] = TextColumn(_map(path), np.asarray(ends))
    return columns


# Records built lately are kept for the next searches, which return the popular chunks and
# their documents again: building one decodes its text from the columns (a k = 100 search of the
# built-in store took 2.5 ms instead of 0.9 ms with the records in memory). A table keeps at
# most about this many characters of text (a document's content, a chunk's content and heading).
RECENT_CHARACTERS = 16 << 20


def _text_size(record: Document | Chunk) -> int:
    # The content dominates; the rest of a record counts as a few hundred characters.
    return len(record.content) + 256


def _recent() -> LRUCache[int, Any]:
    return LRUCache(maxsize=RECENT_CHARACTERS, getsizeof=_text_size)


class _Table:
    """What both tables share: slices as tuples, equality with any sequence, and the records
    built lately (``RECENT_CHARACTERS``)."""

    __slots__ = ()

    def __len__(self) -> int:
        raise NotImplementedError

    def _record(self, index: int) -> Any:
        raise NotImplementedError

    def _get(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self._get(i) for i in range(*index.indices(len(self))))
        index = int(index)
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"record {index} of {len(self)}")
        recent: LRUCache[int, Any] = self._recent  # type: ignore[attr-defined]
        with self._recent_lock:  # type: ignore[attr-defined]
            record = recent.get(index)
        if record is None:
            record = self._record(index)
            # One record over the bound (a long PDF's text) is not kept: LRUCache refuses it.
            if _text_size(record) <= recent.maxsize:
                with self._recent_lock:  # type: ignore[attr-defined]
                    recent[index] = record
        return record

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        if len(self) != len(other):
            return False
        return all(self._record(i) == item for i, item in enumerate(other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {len(self)}>"


class DocumentTable(_Table, Sequence[Document]):
    """Documents as columns; ``table[i]`` builds document ``i``. ``index_of(id)`` and
    ``index_of_name(name)`` search orders saved with the table (built on first use for a new
    table), ``struct(i)`` and ``struct_types`` serve filters without building documents."""

    __slots__ = (
        "_columns",
        "_count",
        "_lock",
        "_orders",
        "_recent",
        "_recent_lock",
        "_types",
    )

    def __init__(
        self,
        columns: Mapping[str, TextColumn],
        types: Mapping[str, frozenset[FieldType]],
        orders: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        self._columns = dict(columns)
        self._count = len(self._columns["id"])
        self._types = dict(types)
        self._orders: dict[str, np.ndarray] = dict(orders or {})
        self._lock = threading.Lock()
        self._recent, self._recent_lock = _recent(), threading.Lock()

    @classmethod
    def from_records(cls, documents: Iterable[Document]) -> DocumentTable:
        """A table of ``documents`` (kept in order)."""
        builder = DocumentTableBuilder()
        for document in documents:
            builder.add(document)
        return builder.table()

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Document: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Document, ...]: ...
    def __getitem__(self, index: int | slice) -> Document | tuple[Document, ...]:
        return self._get(index)  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[Document]:
        return (self._record(i) for i in range(len(self)))

    def _record(self, index: int) -> Document:
        text = self._columns
        return Document(
            id=text["id"][index],
            uri=text["uri"][index],
            title=text["title"][index],
            content=text["content"][index],
            struct_data=_json(text["struct_data"][index]),
            mime_type=text["mime_type"][index],
            update_time=self.update_time(index),
            description=text["description"][index],
        )

    def uri(self, index: int) -> str:
        """The URI of document ``index``, without building the document."""
        return self._columns["uri"][index]

    def update_time(self, index: int) -> _dt.datetime | None:
        """The update time of document ``index``, without building the document."""
        stamp = self._columns["update_time"][index]
        return _dt.datetime.fromisoformat(stamp) if stamp else None

    def struct(self, index: int) -> dict[str, Any]:
        """The struct data of document ``index`` (parsed, not flattened)."""
        data: dict[str, Any] = _json(self._columns["struct_data"][index])
        return data

    @property
    def struct_types(self) -> Mapping[str, frozenset[FieldType]]:
        """The types each flattened struct field holds over the documents."""
        return self._types

    def _order(self, kind: str) -> np.ndarray:
        """Document numbers sorted by ``kind`` (``id`` or ``name``); a stable sort, so equal
        keys keep document order."""
        with self._lock:
            order = self._orders.get(kind)
            if order is None:
                key = self._key(kind)
                order = np.asarray(sorted(range(self._count), key=key), dtype=np.int32)
                self._orders[kind] = order
        return order

    def _key(self, kind: str) -> Callable[[int], str]:
        ids, uris = self._columns["id"], self._columns["uri"]
        if kind == "id":
            return lambda i: ids[int(i)]
        return lambda i: developer_knowledge_name(uris[int(i)])

    def _find(self, kind: str, value: str) -> int | None:
        order = self._order(kind)
        key = self._key(kind)
        # The last of equal keys: the document a {key: index} dict kept before (last one wins).
        position = bisect.bisect_right(order, value, key=key) - 1
        if position < 0 or key(order[position]) != value:
            return None
        return int(order[position])

    def index_of(self, document_id: str) -> int | None:
        """The number of the document with id ``document_id``."""
        return self._find("id", document_id)

    def index_of_name(self, name: str) -> int | None:
        """The number of the document whose Developer Knowledge name is ``name``."""
        return self._find("name", name)

    def content_length(self, index: int) -> int:
        """The UTF-8 length of document ``index``'s content (read from its offsets)."""
        return self._columns["content"].byte_length(index)

    def save(self, directory: Path) -> None:
        """Write the table into ``directory`` (created)."""
        _write_columns(directory, self._columns)
        np.save(directory / "by_id.npy", self._order("id"))
        np.save(directory / "by_name.npy", self._order("name"))
        schema = {name: sorted(kinds) for name, kinds in self._types.items()}
        (directory / "schema.json").write_text(
            json.dumps(schema, ensure_ascii=False), encoding="utf-8"
        )

    @classmethod
    def load(cls, directory: Path, count: int) -> DocumentTable:
        """Map a table of ``count`` documents written by ``save`` (``CorpusError`` naming the
        file when a file does not fit)."""
        columns = _read_columns(directory, _DOCUMENT_FIELDS, count, "documents")
        orders = {}
        for kind in ("id", "name"):
            order = _load_array(directory / f"by_{kind}.npy")
            if order.shape != (count,) or order.dtype != np.int32:
                raise CorpusError(
                    f"documents/by_{kind}.npy holds {order.dtype} {order.shape}, not int32 "
                    f"({count},): rebuild the index"
                )
            orders[kind] = order
        return cls(columns, _read_schema(directory / "schema.json"), orders)


def _read_schema(path: Path) -> dict[str, frozenset[FieldType]]:
    """The struct field types saved in ``path`` (``{field: [type, ...]}``); anything else is a
    ``CorpusError`` naming the file."""
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise CorpusError(f"documents/schema.json is not JSON ({exc}): rebuild the index") from exc
    known = set(get_args(FieldType))
    if not isinstance(schema, dict) or not all(
        isinstance(kinds, list) and set(kinds) <= known for kinds in schema.values()
    ):
        raise CorpusError(
            "documents/schema.json is not {field: [type, ...]} with types among "
            f"{sorted(known)}: rebuild the index"
        )
    return {name: frozenset(kinds) for name, kinds in schema.items()}


class DocumentTableBuilder:
    """Appends documents to growing columns, detecting the struct schema on the way."""

    __slots__ = ("_detector", "_text")

    def __init__(self) -> None:
        self._text = {name: _TextBuilder() for name in _DOCUMENT_FIELDS}
        self._detector = TypeDetector()

    def add(self, document: Document) -> None:
        """Append ``document``."""
        text = self._text
        text["id"].append(document.id)
        text["uri"].append(document.uri)
        text["title"].append(document.title)
        text["content"].append(document.content)
        text["mime_type"].append(document.mime_type)
        stamp = document.update_time
        text["update_time"].append(stamp.isoformat() if stamp is not None else "")
        text["description"].append(document.description)
        struct = document.struct_data
        text["struct_data"].append(json.dumps(dict(struct), ensure_ascii=False))
        if struct:
            self._detector.add(flatten_struct(struct))

    def table(self) -> DocumentTable:
        """The documents appended so far."""
        columns = {name: builder.column() for name, builder in self._text.items()}
        return DocumentTable(columns, self._detector.types())


class ChunkTable(_Table, Sequence[Chunk]):
    """Chunks as columns; ``table[i]`` builds chunk ``i`` (its id is ``c{ordinal + 1}``);
    ``document_numbers`` is the document of every chunk, as an array."""

    __slots__ = ("_columns", "_numbers", "_recent", "_recent_lock")

    def __init__(self, columns: Mapping[str, TextColumn], numbers: np.ndarray) -> None:
        self._columns = dict(columns)
        self._numbers = numbers
        self._recent, self._recent_lock = _recent(), threading.Lock()

    @classmethod
    def from_records(cls, chunks: Iterable[Chunk]) -> ChunkTable:
        """A table of ``chunks`` (kept in order)."""
        builder = ChunkTableBuilder()
        for chunk in chunks:
            builder.add(chunk)
        return builder.table()

    def __len__(self) -> int:
        return len(self._numbers)

    @overload
    def __getitem__(self, index: int) -> Chunk: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Chunk, ...]: ...
    def __getitem__(self, index: int | slice) -> Chunk | tuple[Chunk, ...]:
        return self._get(index)  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[Chunk]:
        return (self._record(i) for i in range(len(self)))

    def _record(self, index: int) -> Chunk:
        document, ordinal, page_start, page_end = self._numbers[index].tolist()
        return Chunk(
            id=f"c{ordinal + 1}",
            document_index=document,
            ordinal=ordinal,
            content=self._columns["content"][index],
            heading=self._columns["heading"][index],
            page_start=page_start or None,
            page_end=page_end or None,
        )

    @property
    def document_numbers(self) -> np.ndarray:
        """``int32``: the document number of each chunk."""
        column: np.ndarray = self._numbers[:, 0]
        return column

    def save(self, directory: Path) -> None:
        """Write the table into ``directory`` (created)."""
        _write_columns(directory, self._columns)
        np.save(directory / "numbers.npy", np.asarray(self._numbers))

    @classmethod
    def load(cls, directory: Path, count: int) -> ChunkTable:
        """Map a table of ``count`` chunks written by ``save`` (``CorpusError`` naming the file
        when a file does not fit)."""
        columns = _read_columns(directory, _CHUNK_FIELDS, count, "chunks")
        numbers = _load_array(directory / "numbers.npy")
        if numbers.shape != (count, len(_NUMBERS)) or numbers.dtype != np.int32:
            raise CorpusError(
                f"chunks/numbers.npy holds {numbers.dtype} {numbers.shape}, not int32 "
                f"({count}, {len(_NUMBERS)}): rebuild the index"
            )
        return cls(columns, numbers)


class ChunkTableBuilder:
    """Appends chunks to growing columns."""

    __slots__ = ("_numbers", "_text")

    def __init__(self) -> None:
        self._text = {name: _TextBuilder() for name in _CHUNK_FIELDS}
        self._numbers = array("i")

    def add(self, chunk: Chunk) -> None:
        """Append ``chunk`` (whose id must be ``c{ordinal + 1}``, as ``build`` makes them)."""
        if chunk.id != f"c{chunk.ordinal + 1}":
            raise ValueError(f"chunk id {chunk.id!r} is not c{chunk.ordinal + 1} (its ordinal)")
        self._text["content"].append(chunk.content)
        self._text["heading"].append(chunk.heading)
        self._numbers.extend(
            (chunk.document_index, chunk.ordinal, chunk.page_start or 0, chunk.page_end or 0)
        )

    def table(self) -> ChunkTable:
        """The chunks appended so far."""
        columns = {name: builder.column() for name, builder in self._text.items()}
        numbers = np.frombuffer(self._numbers, dtype=np.int32).reshape(-1, len(_NUMBERS))
        return ChunkTable(columns, numbers)
