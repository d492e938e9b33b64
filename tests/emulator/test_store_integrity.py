"""The persisted index carries a manifest of sizes, checksums and counts, verified on every
load; a damaged index is rebuilt on reuse or refused saying what to run; the staging folder of a
writer that died is removed by the next ingest (issue #16, point 5)."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_emulator import CorpusError, CorpusStore, EmulatorServer
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.staging import remove_stale, staging_folder
from tests.conftest import paging_document, write_corpus
from tests.emulator.conftest import ONCE, serving_config, versioned_client

RUN_AGAIN = (
    "ingest its corpus again: grounding ingest --force --corpus docs=PATH (or grounding serve "
    "--force ...; in Python CorpusStore.ingest(..., reuse=False))"
)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "docs.jsonl", [paging_document(n) for n in range(4)])


@pytest.fixture
def state(tmp_path: Path, corpus: Path) -> Path:
    CorpusStore(tmp_path / "state", semantic=False).ingest("docs", corpus)
    return tmp_path / "state"


def version(state: Path) -> Path:
    found = CorpusStore(state, semantic=False).current_version("docs")
    assert found is not None
    return found


def cut_documents(folder: Path) -> None:
    path = folder / "documents" / "content.utf8"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def zero_size(folder: Path) -> None:
    (folder / "index" / "size").write_text("0")


def zero_size_in_place(folder: Path) -> None:
    size = folder / "index" / "size"
    size.write_text("0" * len(size.read_text()))  # "20" -> "00": the same length, another value


def remove_vocabulary(folder: Path) -> None:
    next((folder / "index").glob("vocab*")).unlink()


DAMAGES = [
    (zero_size, "index/size has 1 bytes, the manifest says 2"),
    (zero_size_in_place, "index/size does not match its checksum in the manifest"),
    (cut_documents, "documents/content.utf8 has {size} bytes, the manifest says {recorded}"),
    (remove_vocabulary, "index/vocab.index.json is missing (No such file or directory)"),
]


@pytest.mark.parametrize(
    ("damage", "problem"), DAMAGES, ids=["size 0", "size 00", "cut", "missing"]
)
def test_a_damaged_index_is_refused_naming_the_store_the_file_and_what_to_run(
    state, damage, problem
):
    folder = version(state)
    recorded = json.loads((folder / "manifest.json").read_text())["files"]
    damage(folder)
    problem = problem.format(
        size=f"{(folder / 'documents/content.utf8').stat().st_size:,}",
        recorded=f"{recorded['documents/content.utf8']['bytes']:,}",
    )
    with pytest.raises(CorpusError) as info:
        CorpusStore(state, semantic=False).load("docs")
    assert str(info.value) == (
        f"data store docs: the persisted index is damaged or unreadable: {folder}: cannot read "
        f"the saved data store ({problem}); {RUN_AGAIN}"
    )


@pytest.mark.parametrize(
    ("damage", "problem"), DAMAGES, ids=["size 0", "size 00", "cut", "missing"]
)
def test_reuse_rebuilds_a_damaged_index_and_serves_it(state, corpus, caplog, damage, problem):
    damaged = version(state)
    damage(damaged)
    store = CorpusStore(state, semantic=False)
    with caplog.at_level(logging.WARNING, logger="grounding_emulator.corpus.store"):
        snapshot = store.ingest("docs", corpus)
    assert len(snapshot.documents) == 4
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].startswith(
        "data store docs: the persisted index is damaged or unreadable, ingesting the corpus "
        f"again: {damaged}: cannot read the saved data store ("
    )
    assert version(state) != damaged
    assert not damaged.exists()  # the damaged version went with the swap
    assert len(CorpusStore(state, semantic=False).load("docs").chunks) == len(snapshot.chunks)
    with EmulatorServer(store) as server:
        client = versioned_client(de, "SearchServiceClient", server.address)
        request = de.SearchRequest(serving_config=serving_config("docs"), query="lighthouse")
        assert client.search(request=request, **ONCE).total_size == 4


def test_counts_that_disagree_with_the_manifest_are_refused(state):
    folder = version(state)
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["documents"] = 5
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(CorpusError, match=r"documents/offsets.npy holds 4 documents, not 5\)"):
        DataStore.load(folder)


def test_the_manifest_records_every_file_and_is_written_last(state):
    folder = version(state)
    manifest = json.loads((folder / "manifest.json").read_text())
    files = sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.name != "manifest.json"
    )
    assert sorted(manifest["files"]) == files
    assert "documents/content.utf8" in files
    assert "chunks/content.utf8" in files
    assert "index/size" in files
    for name, facts in manifest["files"].items():
        assert facts["bytes"] == (folder / name).stat().st_size
        assert len(facts["sha256"]) == 64
    assert (manifest["documents"], manifest["chunks"], manifest["format"]) == (4, 20, 5)
    newest = max((folder / name).stat().st_mtime_ns for name in files)
    assert (folder / "manifest.json").stat().st_mtime_ns >= newest


def test_an_index_of_the_previous_format_is_rebuilt(state, corpus):
    folder = version(state)
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["format"] = 3
    del manifest["files"]
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(CorpusError, match="index format 3 is not 5"):
        CorpusStore(state, semantic=False).load("docs")
    assert len(CorpusStore(state, semantic=False).ingest("docs", corpus).documents) == 4
    assert version(state) != folder


KILLED_WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from grounding_emulator.corpus.staging import staging_folder
    with staging_folder(Path(sys.argv[1])) as folder:
        (folder / "snapshot").mkdir()
        print(folder, flush=True)
        time.sleep(600)
    """
)


def test_the_staging_folder_of_a_killed_writer_is_removed_by_the_next_ingest(state, corpus):
    parent = version(state).parent
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(parent)], stdout=subprocess.PIPE, text=True
    )
    staged = Path(writer.stdout.readline().strip())
    assert staged.is_dir()
    assert remove_stale(parent) == []  # its writer is alive: the folder is in use
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    writer.stdout.close()
    assert staged.is_dir()  # SIGKILL ran no clean-up
    CorpusStore(state, semantic=False).ingest("docs", corpus)  # a reuse, no new version
    assert not staged.exists()
    assert sorted(p.name for p in parent.iterdir() if p.name.startswith(".tmp-")) == []


def test_a_live_staging_folder_is_kept_and_an_old_unlocked_one_removed(tmp_path):
    with staging_folder(tmp_path) as live:
        assert remove_stale(tmp_path) == []
        # A folder without a lock: a writer of the previous version, or one that died at once.
        old = tmp_path / ".tmp-oldwriter"
        old.mkdir()
        young = tmp_path / ".tmp-justmade"
        young.mkdir()
        hour_ago = time.time() - 3600
        os.utime(old, (hour_ago, hour_ago))
        assert remove_stale(tmp_path) == [old]
        assert live.is_dir()
        assert young.is_dir()
    assert not live.exists()
