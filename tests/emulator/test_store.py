"""The corpus store: persistence, reload without re-ingesting, atomic re-ingest, reset."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_emulator import CorpusError, CorpusStore, EmulatorServer, NotFound
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.index import ChunkIndex
from grounding_emulator.corpus.reading import read_jsonl
from grounding_emulator.search.engine import SearchParams, search
from tests.conftest import corpus_records, paging_document, write_corpus
from tests.emulator.conftest import ONCE, serving_config, versioned_client


def top_names(store: DataStore, query: str = "lighthouse keeper") -> list[str]:
    page = search(store, SearchParams(query=query, page_size=10))
    return [f"{h.document.id}/{h.chunk.id}:{h.relevance:.6f}" for h in page.hits]


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "small.jsonl", [paging_document(n) for n in range(6)])


def test_persisted_index_reloads_without_reingesting(tmp_path, small_corpus, monkeypatch):
    state = tmp_path / "state"
    first = CorpusStore(state).ingest("docs", small_corpus)
    assert CorpusStore(state).persisted_ids() == ("docs",)

    def no_build(*args, **kwargs):
        raise AssertionError("the corpus was ingested again")

    monkeypatch.setattr(DataStore, "build", no_build)
    again = CorpusStore(state)
    reloaded = again.ingest("docs", small_corpus)
    assert reloaded is again.get("docs")
    assert [c.content for c in reloaded.chunks] == [c.content for c in first.chunks]
    assert [c.id for c in reloaded.chunks] == [c.id for c in first.chunks]
    assert reloaded.documents == first.documents
    assert top_names(reloaded) == top_names(first)
    assert top_names(CorpusStore(state).load("docs")) == top_names(first)


def test_changed_corpus_is_reingested(tmp_path, small_corpus):
    state = tmp_path / "state"
    CorpusStore(state).ingest("docs", small_corpus)
    write_corpus(small_corpus, [paging_document(n) for n in range(8)])
    snapshot = CorpusStore(state).ingest("docs", small_corpus)
    assert len(snapshot.documents) == 8
    versions = [p for p in (state / "data_stores" / "docs").iterdir() if p.is_dir()]
    assert len(versions) == 1  # the old version was removed after the swap


def test_failed_reingest_keeps_the_previous_index(tmp_path, small_corpus):
    state = tmp_path / "state"
    store = CorpusStore(state)
    before = store.ingest("docs", small_corpus)
    current = store.current_version("docs")

    def broken():
        yield from read_jsonl(small_corpus)
        raise CorpusError("disk on fire")

    with pytest.raises(CorpusError, match="disk on fire"):
        store.ingest("docs", broken(), fingerprint="other")
    assert store.get("docs") is before
    assert store.current_version("docs") == current
    assert CorpusStore(state).load("docs").fingerprint == before.fingerprint


def test_failed_save_leaves_no_half_written_index(tmp_path, small_corpus, monkeypatch):
    state = tmp_path / "state"
    store = CorpusStore(state)
    before = store.ingest("docs", small_corpus)
    current = store.current_version("docs")

    def failing_save(self, directory):
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "partial").write_text("half")
        raise OSError("no space left on device")

    monkeypatch.setattr(ChunkIndex, "save", failing_save)
    write_corpus(small_corpus, [paging_document(n) for n in range(3)])
    with pytest.raises(OSError, match="no space left"):
        store.ingest("docs", small_corpus)
    assert store.get("docs") is before
    assert store.current_version("docs") == current
    leftovers = [p.name for p in (state / "data_stores" / "docs").iterdir() if p.is_dir()]
    assert leftovers == [current.name]


def test_readers_never_see_half_an_index(tmp_path, small_corpus):
    big = write_corpus(tmp_path / "big.jsonl", corpus_records())
    store = CorpusStore(tmp_path / "state")
    store.ingest("docs", small_corpus)
    totals: set[int] = set()
    errors: list[BaseException] = []
    stop = threading.Event()
    with EmulatorServer(store) as server:
        client = versioned_client(de, "SearchServiceClient", server.address)
        request = de.SearchRequest(
            serving_config=serving_config("docs"),
            query="lighthouse",
            page_size=1,
            content_search_spec={"search_result_mode": "CHUNKS"},
        )

        def read() -> None:
            while not stop.is_set():
                try:
                    totals.add(client.search(request=request, **ONCE).total_size)
                except Exception as exc:
                    errors.append(exc)
                    return

        reader = threading.Thread(target=read)
        reader.start()
        for corpus in (big, small_corpus, big):
            store.ingest("docs", corpus, reuse=False)
        stop.set()
        reader.join()
        client.transport.close()
    assert errors == []
    assert totals
    assert totals <= {30, 250}


def test_engines_reset_and_remove(small_corpus):
    store = CorpusStore()
    store.ingest("docs", small_corpus)
    store.add_engine("app", "docs")
    assert store.engine("app") is store.get("docs")
    with pytest.raises(NotFound, match="data store 'nope' not found"):
        store.add_engine("app2", "nope")
    with pytest.raises(CorpusError, match="engine id"):
        store.add_engine("bad id!", "docs")
    store.remove("docs")
    assert store.data_store_ids == ()
    with pytest.raises(NotFound, match="engine 'app' not found"):
        store.engine("app")
    store.ingest("docs", small_corpus)
    store.add_builtin()
    assert store.data_store_ids == ("docs", "python-docs")
    store.reset()
    assert store.data_store_ids == ()
    assert store.engines == {}


def test_several_data_stores_in_one_server(small_corpus, test_corpus_path):
    store = CorpusStore()
    store.ingest("small", small_corpus)
    store.ingest("full", test_corpus_path)
    with EmulatorServer(store) as server:
        client = versioned_client(de, "SearchServiceClient", server.address)
        totals = {}
        for name in ("small", "full"):
            request = de.SearchRequest(
                serving_config=serving_config(name),
                query="lighthouse",
                content_search_spec={"search_result_mode": "CHUNKS"},
            )
            totals[name] = client.search(request=request, **ONCE).total_size
        client.transport.close()
    assert totals == {"small": 30, "full": 250}


def test_invalid_data_store_id(small_corpus):
    with pytest.raises(CorpusError, match="data store id 'no/slash'"):
        CorpusStore().ingest("no/slash", small_corpus)
