"""Bad corpus data and damaged persisted indexes get a clear error naming the file (and line),
the field, the limit and what to do (the table of ``test_bad_inputs.py``, for the corpus).

A corpus with good documents beside the bad ones is ingested without them (each skip listed:
tests/emulator/test_ingest_validation.py); these cases hold only bad ones, which is an error.
"""

from __future__ import annotations

import datetime as _dt
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grounding_emulator import CorpusError, CorpusStore
from grounding_emulator.corpus.chunking import blocks_from_plain_text
from grounding_emulator.corpus.reading import SourceDocument
from grounding_emulator.corpus.records import Document
from tests.reliability.bad_input_table import clear_error_test, table_size_test
from tests.reliability.test_bad_inputs import search

NOTHING = "data store kb: no document could be ingested ("
RUN_AGAIN = "ingest its corpus again: grounding ingest --force --corpus kb=PATH"


_BASE: list[Path] = []


@pytest.fixture(autouse=True, scope="module")
def _scratch_base(tmp_path_factory: pytest.TempPathFactory) -> None:
    _BASE.append(tmp_path_factory.mktemp("bad-corpus"))


def _scratch() -> Path:
    """A new folder under this module's pytest temporary folder."""
    return Path(tempfile.mkdtemp(dir=_BASE[-1]))


def jsonl(*lines: str | bytes) -> Callable[[Any], Any]:
    """Ingest a JSONL file of these lines alone."""

    def call(emulator: Any) -> Any:
        path = _scratch() / "kb.jsonl"
        path.write_bytes(b"\n".join(x if isinstance(x, bytes) else x.encode() for x in lines))
        return CorpusStore(semantic=False).ingest("kb", path)

    return call


def folder(name: bytes, content: bytes = b"", size: int | None = None) -> Callable[[Any], Any]:
    """Ingest a folder of one file (``size``: a sparse file of that many bytes)."""

    def call(emulator: Any) -> Any:
        root = _scratch() / "kb"
        root.mkdir()
        with open(bytes(root) + b"/" + name, "wb") as handle:
            handle.write(content)
            if size is not None:
                handle.truncate(size)
        return CorpusStore(semantic=False).ingest("kb", root)

    return call


def big_jsonl(emulator: Any) -> Any:
    path = _scratch() / "kb.jsonl"
    with path.open("wb") as handle:
        handle.truncate(2_000_000_001)
    return CorpusStore(semantic=False).ingest("kb", path)


def python_source(**struct_data: Any) -> Callable[[Any], Any]:
    def call(emulator: Any) -> Any:
        document = Document(id="d", uri="urn:d", title="d", content="x", struct_data=struct_data)
        source = SourceDocument(document, tuple(blocks_from_plain_text("Lanterns glow.")))
        return CorpusStore(semantic=False).ingest("kb", [source])

    return call


def damaged(damage: Callable[[Path], None]) -> Callable[[Any], Any]:
    """Persist a small index, damage its live version, load it."""

    def call(emulator: Any) -> Any:
        scratch = _scratch()
        corpus = scratch / "kb.jsonl"
        records = [{"id": f"d{n}", "content": f"Lighthouse number {n}."} for n in range(3)]
        corpus.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
        store = CorpusStore(scratch / "state", semantic=False)
        store.ingest("kb", corpus)
        version = store.current_version("kb")
        assert version is not None
        damage(version)
        return CorpusStore(scratch / "state", semantic=False).load("kb")

    return call


def _edit_manifest(key: str, value: Any) -> Callable[[Path], None]:
    def edit(version: Path) -> None:
        manifest = json.loads((version / "manifest.json").read_text())
        manifest[key] = value
        (version / "manifest.json").write_text(json.dumps(manifest))

    return edit


def _cut(name: str, keep: int) -> Callable[[Path], None]:
    """Keep the first ``keep`` bytes of a column file of the index (``columns.py``)."""

    def cut(version: Path) -> None:
        path = version / name
        path.write_bytes(path.read_bytes()[:keep])

    return cut


def _nest(levels: int) -> str:
    return '{"k":' * levels + "1" + "}" * levels


SURROGATE = "has a lone surrogate (U+D800)"
VALID_UNICODE = "text must be valid Unicode (protobuf strings are UTF-8)"
NOT_JSON = "is not a JSON value: use a string, number, boolean, null, list or object"

# (id, callable taking the emulator, expected exception, message fragments)
CASES = [
    # -- JSONL documents: file, line, field, limit, what to do ---------------------------------
    (
        "lone surrogate in content",
        jsonl('{"content": "a \\ud800 b"}'),
        CorpusError,
        [NOTHING, "line 1: content " + SURROGATE, "at character 2", VALID_UNICODE],
    ),
    (
        "lone surrogate in title",
        jsonl('{"content": "x", "title": "\\ud800"}'),
        CorpusError,
        ["line 1: title " + SURROGATE, "fix the \\u escape"],
    ),
    (
        "lone surrogate in uri",
        jsonl('{"content": "x", "uri": "https://e/\\udc00"}'),
        CorpusError,
        ["line 1: uri has a lone surrogate (U+DC00)"],
    ),
    (
        "lone surrogate in a struct value",
        jsonl('{"content": "x", "struct_data": {"a": {"b": "\\ud800"}}}'),
        CorpusError,
        ["line 1: struct_data.a.b " + SURROGATE],
    ),
    (
        "lone surrogate in a struct key",
        jsonl('{"content": "x", "struct_data": {"\\ud800": 1}}'),
        CorpusError,
        ["line 1: struct_data key '\\\\ud800' " + SURROGATE],
    ),
    (
        "struct_data nested 200 deep",
        jsonl('{"content": "x", "struct_data": ' + _nest(200) + "}"),
        CorpusError,
        ["line 1: struct_data.k.k", "is nested 32 levels deep", "at most 31 levels", "flatten it"],
    ),
    (
        "struct_data nested 5000 deep",
        jsonl('{"content": "x", "struct_data": ' + _nest(5000) + "}"),
        CorpusError,
        ["line 1: it is nested too deeply to parse", "at most 31 levels: flatten it"],
    ),
    (
        "NaN in struct_data",
        jsonl('{"content": "x", "struct_data": {"v": NaN}}'),
        CorpusError,
        ["line 1: not valid JSON (NaN is not a JSON number: use null or a string)"],
    ),
    (
        "Infinity in struct_data",
        jsonl('{"content": "x", "struct_data": {"v": Infinity}}'),
        CorpusError,
        ["line 1: not valid JSON (Infinity is not a JSON number"],
    ),
    (
        "number overflowing a double",
        jsonl('{"content": "x", "struct_data": {"v": 1e999}}'),
        CorpusError,
        ["line 1: struct_data.v: inf is not a JSON number", "finite doubles"],
    ),
    (
        "integer beyond a double",
        jsonl('{"content": "x", "struct_data": {"v": 1' + "0" * 320 + "}}"),
        CorpusError,
        ["line 1: struct_data.v: the integer is beyond a double's range", "write it as a string"],
    ),
    (
        "content over the inline limit",
        jsonl(json.dumps({"content": "é" * 500_001})),
        CorpusError,
        [
            "line 1: content is 1,000,002 bytes of UTF-8",
            "at most 1,000,000 bytes (Document.Content.raw_bytes)",
            "split the document",
        ],
    ),
    (
        "line not UTF-8",
        jsonl(b'{"content": "caf\xe9"}'),
        CorpusError,
        ["line 1: it is not UTF-8 text: convert the file to UTF-8"],
    ),
    (
        "line not an object",
        jsonl("[1, 2]"),
        CorpusError,
        ["line 1: expected a JSON object, got list"],
    ),
    (
        "several bad lines",
        jsonl("nope", '{"content": 3}', '{"content": "x", "id": "a b"}', "{}"),
        CorpusError,
        [
            "line 1: not valid JSON (Expecting value at column 1)",
            "line 2: content is required and must be a string",
            "line 3: id 'a b' is not a valid document id",
            "; ...): fix the corpus",
        ],
    ),
    (
        "JSONL file over 2 GB",
        big_jsonl,
        CorpusError,
        ["kb.jsonl is 2,000,000,001 bytes", "at most 2,000,000,000 bytes", "split it"],
    ),
    # -- folder files: file, limit, what to do -------------------------------------------------
    (
        "file not UTF-8",
        folder(b"notes.txt", "caf\xe9".encode("latin-1")),
        CorpusError,
        [NOTHING, "notes.txt: it is not UTF-8 text (byte 3", "convert it to UTF-8"],
    ),
    (
        "file name not UTF-8",
        folder(b"caf\xe9.md", b"# Cafe"),
        CorpusError,
        ["caf\\udce9.md: its name is not valid UTF-8: rename it"],
    ),
    (
        "text file over 10 MB",
        folder(b"big.md", size=10_000_001),
        CorpusError,
        ["big.md: it is 10,000,001 bytes", "at most 10,000,000 bytes", "split it"],
    ),
    (
        "PDF over 200 MB",
        folder(b"big.pdf", size=200_000_001),
        CorpusError,
        ["big.pdf: it is 200,000,001 bytes", "PDF files of at most 200,000,000 bytes"],
    ),
    (
        "broken PDF",
        folder(b"broken.pdf", b"%PDF-1.4 not really"),
        CorpusError,
        ["broken.pdf: cannot read it as a PDF"],
    ),
    # -- documents given in Python --------------------------------------------------------------
    (
        "datetime in struct_data",
        python_source(when=_dt.datetime(2024, 1, 1)),
        CorpusError,
        ["document 'd': struct_data.when: a datetime " + NOT_JSON],
    ),
    (
        "bytes in struct_data",
        python_source(raw=b"x"),
        CorpusError,
        ["document 'd': struct_data.raw: a bytes " + NOT_JSON],
    ),
    (
        "NaN from Python",
        python_source(v=float("nan")),
        CorpusError,
        ["document 'd': struct_data.v: nan is not a JSON number"],
    ),
    # -- the persisted index: data store, file, what to run ----------------------------------
    (
        "index size file zeroed",
        damaged(lambda v: (v / "index" / "size").write_text("0")),
        CorpusError,
        ["data store kb: the persisted index is damaged", "index/size", RUN_AGAIN],
    ),
    (
        "documents cut short",
        damaged(_cut("documents/content.utf8", 2)),
        CorpusError,
        ["documents/content.utf8 has 2 bytes, the manifest says", RUN_AGAIN],
    ),
    (
        "chunks file emptied",
        damaged(_cut("chunks/content.utf8", 0)),
        CorpusError,
        ["chunks/content.utf8 has 0 bytes, the manifest says", "grounding serve --force"],
    ),
    (
        "index file missing",
        damaged(lambda v: (v / "index" / "params.index.json").unlink()),
        CorpusError,
        ["index/params.index.json is missing", RUN_AGAIN],
    ),
    (
        "manifest count edited",
        damaged(_edit_manifest("chunks", 7)),
        CorpusError,
        ["chunks/offsets.npy holds 3 chunks, not 7", RUN_AGAIN],
    ),
    (
        "manifest unreadable",
        damaged(lambda v: (v / "manifest.json").write_text("{")),
        CorpusError,
        ["holds no complete data store", RUN_AGAIN],
    ),
    (
        "index of another format",
        damaged(_edit_manifest("format", 3)),
        CorpusError,
        ["index format 3 is not 5", "CorpusStore.ingest(..., reuse=False)"],
    ),
]


test_the_table_is_big_enough = table_size_test(CASES, minimum=30)


test_bad_corpus_input_gets_a_clear_error = clear_error_test(CASES)


def test_the_emulator_still_serves_after_all_of_that(emulator):
    chunks_before = len(emulator.store.get("test-docs").chunks)
    for _, call, error, _ in CASES:
        with pytest.raises(error):
            call(emulator)
    assert len(emulator.store.get("test-docs").chunks) == chunks_before
    top = search(emulator, "lighthouse keeper number 131", k=1)
    assert top[0].document_id == "page-13"
