"""Ingest stores only what Google's clients can be served: each bad document is skipped, named
with its reason, and the rest of the corpus is ingested and served (issue #16, point 4)."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path
from typing import Any

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_emulator import CorpusError, CorpusStore, EmulatorServer
from grounding_emulator.corpus.chunking import blocks_from_plain_text
from grounding_emulator.corpus.reading import Skipped, SourceDocument
from grounding_emulator.corpus.records import Document
from grounding_emulator.limits import MAX_CONTENT_BYTES, MAX_STRUCT_DEPTH, MAX_TEXT_FILE_BYTES
from tests.emulator.conftest import ONCE, serving_config, versioned_client

MODES = ("CHUNKS", "DOCUMENTS")
GOOD = {"id": "good", "title": "Lighthouses", "content": "Lighthouses guide ships at night."}
SURROGATE = (
    "has a lone surrogate (U+D800) at character {at}: text must be valid Unicode (protobuf "
    "strings are UTF-8); fix the \\u escape or the encoding it came from"
)
TOO_DEEP = (
    "is nested {depth} levels deep; Google's clients parse struct_data of at most 31 levels of "
    "objects and lists (protobuf's recursion limit of 100 counts the Struct and Value messages "
    "around each level): flatten it"
)


def nested(levels: int, leaf: Any = "leaf") -> Any:
    """``levels`` objects, one in the other (``nested(1)`` is ``{"k": leaf}``)."""
    value = leaf
    for _ in range(levels):
        value = {"k": value}
    return value


def search(server: EmulatorServer, query: str, mode: str = "CHUNKS") -> Any:
    """A search of data store ``kb`` through Google's client."""
    client = versioned_client(de, "SearchServiceClient", server.address)
    request = de.SearchRequest(
        serving_config=serving_config("kb"),
        query=query,
        content_search_spec={"search_result_mode": mode},
    )
    return client.search(request=request, **ONCE)


def served_ids(store: CorpusStore, query: str) -> list[str]:
    """The ids a search of ``kb`` finds, in both modes (they must agree)."""
    with EmulatorServer(store) as server:
        found = [[r.id for r in search(server, query, mode).results] for mode in MODES]
    assert found[0] == found[1]
    return found[0]


def ingest_lines(tmp_path: Path, *lines: str) -> tuple[CorpusStore, Any]:
    path = tmp_path / "kb.jsonl"
    path.write_text("\n".join([json.dumps(GOOD), *lines]) + "\n", encoding="utf-8")
    store = CorpusStore(semantic=False)
    return store, store.ingest("kb", path)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"id": "s", "content": "bad \\ud800 text"}', "content " + SURROGATE.format(at=4)),
        ('{"id": "s", "title": "\\ud800", "content": "x"}', "title " + SURROGATE.format(at=0)),
        ('{"id": "s", "uri": "https://x/\\udfff", "content": "x"}', "uri has a lone surrogate"),
        (
            '{"id": "s", "content": "x", "struct_data": {"a": ["ok", "\\ud800"]}}',
            "struct_data.a[1] " + SURROGATE.format(at=0),
        ),
        (
            '{"id": "s", "content": "x", "struct_data": {"\\ud800": 1}}',
            "struct_data key '\\\\ud800' has a lone surrogate",
        ),
        (
            '{"id": "s", "content": "x", "struct_data": ' + json.dumps(nested(200)) + "}",
            ("struct_data" + ".k" * 40)[:60] + "… " + TOO_DEEP.format(depth=32),
        ),
        (
            '{"id": "s", "content": "x", "struct_data": ' + '{"k":' * 5000 + "1" + "}" * 5000 + "}",
            "it is nested too deeply to parse; struct_data may be nested at most 31 levels: "
            "flatten it",
        ),
        (
            '{"id": "s", "content": "x", "struct_data": {"v": NaN}}',
            "not valid JSON (NaN is not a JSON number: use null or a string)",
        ),
        (
            '{"id": "s", "content": "x", "struct_data": {"v": -Infinity}}',
            "not valid JSON (-Infinity is not a JSON number: use null or a string)",
        ),
        (
            '{"id": "s", "content": "x", "struct_data": {"v": 1e400}}',
            "struct_data.v: inf is not a JSON number (struct_data numbers are finite doubles): "
            "use null or a string",
        ),
        (
            '{"id": "s", "content": "x", "struct_data": {"v": 1' + "0" * 400 + "}}",
            "struct_data.v: the integer is beyond a double's range (struct_data numbers are "
            "doubles): write it as a string",
        ),
        (
            '{"id": "s", "content": "x", "struct_data": {"v": 1' + "0" * 5000 + "}}",
            "not valid JSON (Exceeds the limit (4300 digits) for integer string conversion",
        ),
        (
            json.dumps({"id": "s", "content": "x" * (MAX_CONTENT_BYTES + 1)}),
            "content is 1,000,001 bytes of UTF-8; Google takes inline content of at most "
            "1,000,000 bytes (Document.Content.raw_bytes): split the document over several "
            "lines, or put it in a corpus folder as a file (up to 10,000,000 bytes)",
        ),
    ],
    ids=[
        "surrogate content",
        "surrogate title",
        "surrogate uri",
        "surrogate struct value",
        "surrogate struct key",
        "nested 200",
        "nested 5000",
        "NaN",
        "-Infinity",
        "1e400",
        "integer beyond a double",
        "integer of 5001 digits",
        "content over 1 MB",
    ],
)
def test_a_bad_document_is_skipped_and_the_rest_served(tmp_path, line, reason):
    store, snapshot = ingest_lines(tmp_path, line)
    assert [d.id for d in snapshot.documents] == ["good"]
    assert len(snapshot.skipped) == 1
    skipped = snapshot.skipped[0]
    assert (skipped.where, skipped.unsupported) == ("line 2", False)
    assert reason in skipped.reason
    assert served_ids(store, "lighthouses") == ["good"]


def test_what_google_can_carry_is_kept(tmp_path):
    """The deepest struct_data Google's clients parse, NUL and control characters, big but
    finite numbers: stored, and served through Google's client in both search modes."""
    struct = {"deep": nested(MAX_STRUCT_DEPTH - 1), "n": 1.5e308, "i": 2**63, "t": "a\x00b\x1b"}
    record = {
        "id": "edge",
        "title": "Nul\x00title",
        "content": "Beacons \x00 glow.",
        "struct_data": struct,
    }
    store, snapshot = ingest_lines(tmp_path, json.dumps(record))
    assert [d.id for d in snapshot.documents] == ["good", "edge"]
    assert snapshot.skipped == ()
    with EmulatorServer(store) as server:
        for mode in MODES:
            result = search(server, "beacons", mode).results[0]
            assert result.id == "edge"
            if mode == "CHUNKS":
                data = dict(result.chunk.document_metadata.struct_data)
            else:
                data = dict(result.document.struct_data)
            assert data["t"] == "a\x00b\x1b"
            assert data["n"] == 1.5e308
            assert data["i"] == float(2**63)
            leaf = data["deep"]
            for _ in range(MAX_STRUCT_DEPTH - 1):
                leaf = leaf["k"]
            assert leaf == "leaf"


def test_struct_data_one_level_deeper_is_refused(tmp_path):
    record = {"id": "deep", "content": "x", "struct_data": {"deep": nested(MAX_STRUCT_DEPTH)}}
    _, snapshot = ingest_lines(tmp_path, json.dumps(record))
    assert [d.id for d in snapshot.documents] == ["good"]
    assert snapshot.skipped[0].reason.endswith(TOO_DEEP.format(depth=MAX_STRUCT_DEPTH + 1))


def test_a_bad_file_of_a_folder_is_skipped_and_the_rest_served(tmp_path):
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "good.md").write_text("# Lighthouses\n\nLighthouses guide ships.", encoding="utf-8")
    (folder / "latin1.txt").write_bytes("Caf\xe9 lighthouses".encode("latin-1"))
    with (folder / "huge.txt").open("wb") as handle:
        handle.truncate(MAX_TEXT_FILE_BYTES + 1)
    os.close(os.open(os.fsencode(folder) + b"/caf\xe9.md", os.O_CREAT | os.O_WRONLY))
    store = CorpusStore(semantic=False)
    snapshot = store.ingest("kb", folder)
    assert [d.id for d in snapshot.documents] == ["good-md"]
    assert [(s.where, s.reason) for s in snapshot.skipped] == [
        ("caf\\udce9.md", "its name is not valid UTF-8: rename it"),
        (
            "huge.txt",
            "it is 10,000,001 bytes; Google imports text-based files (with layout-aware document "
            'chunking) of at most 10,000,000 bytes ("Prepare data for ingesting"): split it',
        ),
        (
            "latin1.txt",
            "it is not UTF-8 text (byte 3: invalid continuation byte): convert it to UTF-8",
        ),
    ]
    assert served_ids(store, "lighthouses") == ["good-md"]


def test_a_jsonl_line_that_is_not_utf8_is_skipped(tmp_path):
    path = tmp_path / "kb.jsonl"
    path.write_bytes(json.dumps(GOOD).encode() + b'\n{"content": "caf\xe9"}\n')
    snapshot = CorpusStore(semantic=False).ingest("kb", path)
    assert [d.id for d in snapshot.documents] == ["good"]
    assert snapshot.skipped == (
        Skipped("line 2", "it is not UTF-8 text: convert the file to UTF-8"),
    )


def test_python_sources_are_checked_too():
    def source(doc_id: str, **fields: Any) -> SourceDocument:
        document = Document(id=doc_id, uri=f"urn:{doc_id}", title=doc_id, content="x", **fields)
        return SourceDocument(document, tuple(blocks_from_plain_text("Lanterns glow.")))

    moment = _dt.datetime(2024, 1, 1)
    snapshot = CorpusStore(semantic=False).ingest(
        "kb",
        [
            source("ok", struct_data={"when": "2024-01-01"}),
            source("when", struct_data={"when": moment}),
            source("raw", struct_data={"raw": [b"bytes"]}),
            source("ok"),
        ],
    )
    assert [d.id for d in snapshot.documents] == ["ok"]
    assert [str(s) for s in snapshot.skipped] == [
        "document 'when': struct_data.when: a datetime is not a JSON value: use a string, "
        "number, boolean, null, list or object",
        "document 'raw': struct_data.raw[0]: a bytes is not a JSON value: use a string, number, "
        "boolean, null, list or object",
        "document 'ok': duplicate document id 'ok' (first: document 'ok'): give each document "
        "its own id",
    ]


def test_a_corpus_of_which_nothing_can_be_ingested_is_an_error(tmp_path):
    path = tmp_path / "kb.jsonl"
    path.write_text('{"content": "\\ud800"}\nnope\n', encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        CorpusStore(semantic=False).ingest("kb", path)
    assert str(info.value) == (
        "data store kb: no document could be ingested (line 1: content "
        + SURROGATE.format(at=0)
        + "; line 2: not valid JSON (Expecting value at column 1)): fix the corpus"
    )


def test_what_was_skipped_is_kept_with_the_persisted_index(tmp_path):
    path = tmp_path / "kb.jsonl"
    path.write_text(json.dumps(GOOD) + '\n{"content": "\\ud800"}\n', encoding="utf-8")
    first = CorpusStore(tmp_path / "state", semantic=False).ingest("kb", path)
    again = CorpusStore(tmp_path / "state", semantic=False).load("kb")
    assert again.skipped == first.skipped
    assert [s.where for s in again.skipped] == ["line 2"]


def test_the_deepest_struct_data_parses_in_the_deepest_response(tmp_path):
    """``GetSession`` with answer details nests struct_data deepest (session > turn > answer >
    reference > document info or chunk info > document metadata): 31 levels still parse in
    Google's client."""
    record = {
        "id": "edge",
        "title": "Beacons",
        "content": "Beacons glow on the harbour wall every night.",
        "struct_data": {"deep": nested(MAX_STRUCT_DEPTH - 1)},
    }
    store, _ = ingest_lines(tmp_path, json.dumps(record))
    data_store = "projects/p/locations/global/collections/default_collection/dataStores/kb"
    with EmulatorServer(store) as server:
        answers = versioned_client(de, "ConversationalSearchServiceClient", server.address)
        sessions = versioned_client(de, "SessionServiceClient", server.address)
        answer = answers.answer_query(
            request=de.AnswerQueryRequest(
                serving_config=f"{data_store}/servingConfigs/default_serving_config",
                query={"text": "Where do beacons glow every night?"},
                session=f"{data_store}/sessions/-",
            ),
            **ONCE,
        )
        detailed = sessions.get_session(
            request={"name": answer.session.name, "include_answer_details": True}, **ONCE
        )
        references = detailed.turns[0].detailed_answer.references
        cited = [
            r.chunk_info.document_metadata if "chunk_info" in r else r.unstructured_document_info
            for r in references
        ]
        edge = [c for c in cited if c.uri == "urn:document:edge"]
        assert len(edge) == 1, references
        leaf = dict(edge[0].struct_data)["deep"]
        for _ in range(MAX_STRUCT_DEPTH - 1):
            leaf = leaf["k"]
        assert leaf == "leaf"


def test_a_corpus_of_stop_words_only_is_indexed_and_persisted(tmp_path):
    """Titles and headings of stop words alone give an index without a token (bm25s cannot
    build one): every score is 0, and the snapshot saves and reloads."""
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nLighthouses guide ships.", encoding="utf-8")
    store = CorpusStore(tmp_path / "state", semantic=False)
    snapshot = store.ingest("kb", folder)
    assert [d.title for d in snapshot.documents] == ["A"]
    reloaded = CorpusStore(tmp_path / "state", semantic=False).load("kb")
    assert len(reloaded.heading_index) == len(reloaded.chunks) == 1
    assert served_ids(store, "lighthouses") == ["a-md"]


def test_a_new_file_of_another_type_is_listed_after_a_reuse(tmp_path):
    """The corpus fingerprint covers skipped files too, so the kept list stays true."""
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "a.md").write_text("# Lighthouses\n\nLighthouses guide ships.", encoding="utf-8")
    state = tmp_path / "state"
    assert CorpusStore(state, semantic=False).ingest("kb", folder).skipped == ()
    (folder / "data.csv").write_text("a,b", encoding="utf-8")
    snapshot = CorpusStore(state, semantic=False).ingest("kb", folder)
    assert snapshot.skipped == (Skipped("data.csv", "unsupported type", unsupported=True),)
