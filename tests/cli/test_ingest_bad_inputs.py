"""``grounding ingest`` and ``grounding serve`` on a corpus with bad parts, and on a damaged
persisted index: the rest is ingested and served, each skip listed with its reason (issue #16,
points 4 and 5)."""

from __future__ import annotations

import json
from pathlib import Path

from google.cloud import discoveryengine_v1 as de

from grounding_emulator import CorpusStore
from tests.cli.invoke import run
from tests.emulator.conftest import ONCE, serving_config, versioned_client
from tests.emulator.test_cli import serving

GOOD = {"id": "good", "title": "Lighthouses", "content": "Lighthouses guide ships at night."}
SURROGATE_LINE = '{"id": "bad", "content": "lone \\ud800 surrogate"}'
SURROGATE_REASON = (
    "content has a lone surrogate (U+D800) at character 5: text must be valid Unicode "
    "(protobuf strings are UTF-8); fix the \\u escape or the encoding it came from"
)


def bad_corpus(tmp_path: Path) -> Path:
    path = tmp_path / "kb.jsonl"
    path.write_text(f"{json.dumps(GOOD)}\n{SURROGATE_LINE}\nnot json\n", encoding="utf-8")
    return path


def test_ingest_lists_each_skipped_line_and_exits_1(tmp_path, capsys):
    corpus = bad_corpus(tmp_path)
    code, out, err = run(
        capsys, "ingest", "--state-dir", str(tmp_path / "s"), "--corpus", str(corpus)
    )
    assert code == 1
    assert out.splitlines()[-3:] == [
        "data store kb: 1 document, 1 chunk",
        f"{corpus}: skipped line 2: {SURROGATE_REASON}",
        f"{corpus}: skipped line 3: not valid JSON (Expecting value at column 1)",
    ]
    assert err == ""  # listed once, not logged again
    # The reused index lists them again (they are kept in its manifest).
    code, again, _ = run(
        capsys, "ingest", "--state-dir", str(tmp_path / "s"), "--corpus", str(corpus)
    )
    assert (code, again.splitlines()[-3:]) == (1, out.splitlines()[-3:])
    assert len(CorpusStore(tmp_path / "s").load("kb").documents) == 1


def test_ingest_exits_0_when_only_files_of_unsupported_types_were_skipped(tmp_path, capsys):
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nLighthouses.", encoding="utf-8")
    (folder / "data.csv").write_text("a,b", encoding="utf-8")
    (folder / "bad.txt").write_bytes(b"\xff\xfe")
    code, out, _ = run(capsys, "ingest", "--no-state", "--corpus", str(folder))
    assert code == 1
    assert out.splitlines()[-2:] == [
        f"{folder}: skipped 1 file of unsupported types (data.csv); supported: .md, .markdown, "
        ".txt, .text, .rst, .html, .htm, .pdf",
        f"{folder}: skipped bad.txt: it is not UTF-8 text (byte 0: invalid start byte): convert "
        "it to UTF-8",
    ]
    (folder / "bad.txt").unlink()
    code, out, _ = run(capsys, "ingest", "--no-state", "--corpus", str(folder))
    assert code == 0


def test_ingest_rebuilds_a_damaged_index_saying_so(tmp_path, capsys, caplog):
    corpus = tmp_path / "kb.jsonl"
    corpus.write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    state = ["--state-dir", str(tmp_path / "s")]
    assert run(capsys, "ingest", *state, "--corpus", str(corpus))[0] == 0
    damaged = CorpusStore(tmp_path / "s").current_version("kb")
    (damaged / "index" / "size").write_text("0")
    with caplog.at_level("WARNING", logger="grounding_emulator.corpus.store"):
        code, out, _ = run(capsys, "ingest", *state, "--corpus", str(corpus))
    assert code == 0
    assert "data store kb: 1 document, 1 chunk" in out
    assert [r.getMessage() for r in caplog.records] == [
        "data store kb: the persisted index is damaged or unreadable, ingesting the corpus "
        f"again: {damaged}: cannot read the saved data store (index/size does not match its "
        "checksum in the manifest)"
    ]
    assert CorpusStore(tmp_path / "s").current_version("kb") != damaged


def test_serve_force_reingests(tmp_path):
    corpus = tmp_path / "kb.jsonl"
    corpus.write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    state = tmp_path / "s"
    CorpusStore(state).ingest("kb", corpus)
    before = CorpusStore(state).current_version("kb")
    with serving("--no-builtin", "--state-dir", str(state), "--corpus", str(corpus), "--force"):
        pass
    assert CorpusStore(state).current_version("kb") != before


def test_serve_serves_the_rest_of_a_corpus_with_a_bad_line(tmp_path):
    corpus = bad_corpus(tmp_path)
    with serving("--no-builtin", "--no-state", "--corpus", str(corpus)) as (address, lines):
        text = "".join(lines)
        assert f"{corpus}: skipped line 2: {SURROGATE_REASON}" in text
        assert f"{corpus}: skipped line 3: not valid JSON" in text
        client = versioned_client(de, "SearchServiceClient", address)
        for mode in ("CHUNKS", "DOCUMENTS"):
            response = client.search(
                request=de.SearchRequest(
                    serving_config=serving_config("kb"),
                    query="lighthouses",
                    content_search_spec={"search_result_mode": mode},
                ),
                **ONCE,
            )
            assert [r.id for r in response.results] == ["good"]
