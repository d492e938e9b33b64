"""The emulator's corpus store: every data store and engine it serves, optionally on disk.

``CorpusStore`` maps data store ids to immutable ``DataStore`` snapshots and engine ids to data
store ids. With a ``state_dir`` every ingested snapshot is persisted and reloaded on the next run
without re-ingesting, when its corpus has not changed (same fingerprint, tokenizer, chunk size).

Re-ingesting is atomic, in memory and on disk::

    state_dir/data_stores/{id}/CURRENT        name of the live version, replaced atomically
    state_dir/data_stores/{id}/v{n}-{rand}/   a complete snapshot (manifest.json written last)
    state_dir/data_stores/{id}/.tmp-{rand}/   a snapshot being written (locked by its writer)

A new snapshot is built and written completely before ``CURRENT`` and the in-memory reference are
swapped; an error or a crash before that leaves the previous version serving. The staging folder
of a writer that died (even by ``SIGKILL``) is removed by the next ingest of that data store
(``staging.py``).

Every reload verifies the snapshot's files against the sizes and checksums of its manifest, and
its counts (``DataStore.load``). ``ingest`` with ``reuse`` (what ``grounding serve`` and
``grounding ingest`` do) rebuilds a damaged index from the corpus, with a warning naming the
file; ``load``, which has no corpus to rebuild from, raises a ``CorpusError`` that names the data
store and the file and says what to run.

Search is hybrid (BM25 + semantic similarity) when the store has an embedder: by default the
``semantic`` extra's model when it is installed (``embeddings.default_embedder``); chunks and
their sentences are embedded at ingest and their vectors persisted with the snapshot. A
persisted snapshot is reused only when it was built with the same embedding model (or none, for
a BM25-only store). Without a state dir nothing is persisted but the vectors: the default
embedder caches them across processes (``embedding_cache.py``), so that a new process ingesting
the same corpus (the built-in one of a default ``EmulatorServer()``) embeds nothing again.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
import uuid
from collections.abc import Iterable
from pathlib import Path

from grounding_emulator.corpus.builtin import (
    BUILTIN_DATA_STORE,
    BUILTIN_ENGINE,
    builtin_documents,
    builtin_fingerprint,
)
from grounding_emulator.corpus.chunking import DEFAULT_MAX_CHARS
from grounding_emulator.corpus.datastore import FORMAT_VERSION, DataStore, ProgressCallback
from grounding_emulator.corpus.embeddings import Embedder, default_embedder
from grounding_emulator.corpus.progress import ProgressLog
from grounding_emulator.corpus.reading import (
    DOCUMENT_ID,
    Skipped,
    SourceDocument,
    corpus_fingerprint,
    describe_skipped,
    read_corpus,
)
from grounding_emulator.corpus.staging import remove_stale, staging_folder
from grounding_emulator.corpus.tokens import TOKENIZER_VERSION
from grounding_emulator.errors import CorpusError, NotFound

__all__ = ["CorpusStore"]

logger = logging.getLogger(__name__)

_CURRENT = "CURRENT"


def _check_id(kind: str, value: str) -> str:
    if not isinstance(value, str) or not DOCUMENT_ID.match(value):
        raise CorpusError(
            f"{kind} id {value!r} is not valid: use letters, digits, '-' and '_', at most 63 "
            "characters, starting with a letter or digit"
        )
    return value


class CorpusStore:
    """The data stores and engines of one emulator.

    >>> store = CorpusStore()
    >>> store.add_builtin().id
    'python-docs'
    >>> store.engine("python-docs-app").id
    'python-docs'
    """

    def __init__(
        self,
        state_dir: Path | str | None = None,
        *,
        max_chunk_chars: int = DEFAULT_MAX_CHARS,
        semantic: bool | Embedder = True,
    ) -> None:
        """``semantic``: ``True`` embeds chunks with the default model when it is installed,
        ``False`` keeps search BM25-only, an ``Embedder`` uses that one."""
        self.state_dir = Path(state_dir) if state_dir is not None else None
        self.max_chunk_chars = max_chunk_chars
        self.embedder: Embedder | None
        if semantic is True:
            self.embedder = default_embedder()
        elif semantic is False:
            self.embedder = None
        else:
            self.embedder = semantic
        self._data_stores: dict[str, DataStore] = {}
        self._engines: dict[str, str] = {}
        self._lock = threading.Lock()
        self._ingest_lock = threading.Lock()

    def __repr__(self) -> str:
        state_dir = str(self.state_dir) if self.state_dir else None
        engines = dict(sorted(self._engines.items()))
        return (
            f"CorpusStore(state_dir={state_dir!r}, data_stores={sorted(self._data_stores)}, "
            f"engines={engines})"
        )

    # -- reading --------------------------------------------------------------------------------

    @property
    def data_store_ids(self) -> tuple[str, ...]:
        """The ids of the data stores served, sorted."""
        return tuple(sorted(self._data_stores))

    @property
    def engines(self) -> dict[str, str]:
        """Engine id -> data store id."""
        return dict(self._engines)

    def get(self, data_store_id: str) -> DataStore:
        """The live snapshot of a data store; ``NotFound`` if there is none."""
        snapshot = self._data_stores.get(data_store_id)
        if snapshot is None:
            known = ", ".join(self.data_store_ids) or "none"
            raise NotFound(f"data store {data_store_id!r} not found (data stores: {known})")
        return snapshot

    def engine(self, engine_id: str) -> DataStore:
        """The live snapshot of the data store an engine serves; ``NotFound`` if none."""
        data_store_id = self._engines.get(engine_id)
        if data_store_id is None:
            known = ", ".join(sorted(self._engines)) or "none"
            raise NotFound(f"engine {engine_id!r} not found (engines: {known})")
        return self.get(data_store_id)

    # -- changing -------------------------------------------------------------------------------

    def add_engine(self, engine_id: str, data_store_id: str) -> None:
        """Serve data store ``data_store_id`` as engine ``engine_id`` too."""
        _check_id("engine", engine_id)
        self.get(data_store_id)
        with self._lock:
            self._engines[engine_id] = data_store_id

    def put(self, snapshot: DataStore) -> DataStore:
        """Serve ``snapshot`` (persisting it first when there is a state dir)."""
        _check_id("data store", snapshot.id)
        if self.state_dir is not None:
            self._persist(snapshot)
        with self._lock:
            self._data_stores[snapshot.id] = snapshot
        logger.info(
            "data store %s: %d documents, %d chunks, %s search",
            snapshot.id,
            len(snapshot.documents),
            len(snapshot.chunks),
            f"hybrid ({snapshot.embedding_model})" if snapshot.semantic is not None else "BM25",
        )
        return snapshot

    def ingest(
        self,
        data_store_id: str,
        source: Path | str | Iterable[SourceDocument],
        *,
        fingerprint: str | None = None,
        base_uri: str | None = None,
        reuse: bool = True,
        on_progress: ProgressCallback | None = None,
    ) -> DataStore:
        """Build (or, with ``reuse``, reload from the state dir) and serve a data store.

        ``source`` is a folder, a ``.jsonl`` file, or source documents (then pass a
        ``fingerprint`` to make the persisted index reusable). What was skipped
        (``DataStore.skipped``) is logged: files of unsupported types at INFO in one line (count
        and first names), each file or line skipped as bad at WARNING with its reason; a folder
        with no file of a supported type, or a corpus of which nothing could be ingested, is a
        ``CorpusError``. A persisted index that fails its integrity check is rebuilt (WARNING).
        Without ``on_progress``, a phase that lasts (embedding, a large corpus) is logged at INFO
        every few seconds with its rate and time left (``progress.ProgressLog``).
        """
        _check_id("data store", data_store_id)
        if on_progress is None:
            on_progress = ProgressLog(data_store_id, lambda line: logger.info("%s", line))
        with self._ingest_lock:
            if self.state_dir is not None and self._folder(data_store_id).is_dir():
                remove_stale(self._folder(data_store_id))
            path: Path | None = None
            documents: Iterable[SourceDocument | Skipped] = ()
            if isinstance(source, str | Path):
                path = Path(source)
                documents = read_corpus(path, base_uri=base_uri)
                fingerprint = fingerprint or corpus_fingerprint(path, base_uri=base_uri)
            else:
                documents = source
            snapshot = self._reload(data_store_id, fingerprint) if reuse and fingerprint else None
            if snapshot is None:
                snapshot = self._build(data_store_id, documents, fingerprint, on_progress)
            else:
                with self._lock:
                    self._data_stores[data_store_id] = snapshot
            if path is not None:
                self._log_skipped(data_store_id, path, snapshot.skipped)
            return snapshot

    @staticmethod
    def _log_skipped(data_store_id: str, path: Path, skipped: tuple[Skipped, ...]) -> None:
        """Log what was skipped; each record carries ``skipped=True`` (a program that prints
        the list itself, as the CLI does, can filter them out)."""
        unsupported = any(s.unsupported for s in skipped)  # then the first line is on them
        for number, line in enumerate(describe_skipped(path, skipped)):
            level = logging.INFO if unsupported and number == 0 else logging.WARNING
            logger.log(level, "data store %s: %s", data_store_id, line, extra={"skipped": True})

    def _build(
        self,
        data_store_id: str,
        documents: Iterable[SourceDocument | Skipped],
        fingerprint: str | None,
        on_progress: ProgressCallback | None,
    ) -> DataStore:
        started = time.perf_counter()
        snapshot = DataStore.build(
            data_store_id,
            documents,
            max_chunk_chars=self.max_chunk_chars,
            fingerprint=fingerprint or "",
            on_progress=on_progress,
            embedder=self.embedder,
        )
        logger.info(
            "ingested data store %s in %.2f s", data_store_id, time.perf_counter() - started
        )
        return self.put(snapshot)

    def add_builtin(
        self, *, reuse: bool = True, on_progress: ProgressCallback | None = None
    ) -> DataStore:
        """Serve the built-in Python docs as ``python-docs``, and as engine ``python-docs-app``."""
        snapshot = self.ingest(
            BUILTIN_DATA_STORE,
            builtin_documents(),
            fingerprint=builtin_fingerprint(),
            reuse=reuse,
            on_progress=on_progress,
        )
        self.add_engine(BUILTIN_ENGINE, BUILTIN_DATA_STORE)
        return snapshot

    def remove(self, data_store_id: str) -> None:
        """Stop serving a data store and the engines bound to it (its files stay on disk)."""
        with self._lock:
            if self._data_stores.pop(data_store_id, None) is None:
                raise NotFound(f"data store {data_store_id!r} not found")
            for engine_id in [e for e, d in self._engines.items() if d == data_store_id]:
                del self._engines[engine_id]

    def delete(self, data_store_id: str) -> None:
        """Stop serving a data store, if it is served, and delete its persisted index."""
        with self._lock:
            self._data_stores.pop(data_store_id, None)
            for engine_id in [e for e, d in self._engines.items() if d == data_store_id]:
                del self._engines[engine_id]
        if self.state_dir is not None:
            shutil.rmtree(self._folder(_check_id("data store", data_store_id)), ignore_errors=True)

    def reset(self) -> None:
        """Serve nothing: forget every data store and engine (persisted indexes stay on disk)."""
        with self._lock:
            self._data_stores.clear()
            self._engines.clear()

    # -- persistence ----------------------------------------------------------------------------

    def _folder(self, data_store_id: str) -> Path:
        assert self.state_dir is not None
        return self.state_dir / "data_stores" / data_store_id

    def current_version(self, data_store_id: str) -> Path | None:
        """The folder of the persisted live version of a data store, if any."""
        if self.state_dir is None:
            return None
        folder = self._folder(data_store_id)
        try:
            name = (folder / _CURRENT).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        version = folder / name
        return version if version.is_dir() else None

    def load(self, data_store_id: str) -> DataStore:
        """Serve the persisted live version of a data store without re-ingesting; a version
        that fails its integrity check is a ``CorpusError`` saying what to run."""
        version = self.current_version(data_store_id)
        if version is None:
            raise NotFound(f"data store {data_store_id!r} has no persisted index")
        try:
            snapshot = DataStore.load(version, embedder=self.embedder)
        except CorpusError as exc:
            raise CorpusError(
                f"data store {data_store_id}: the persisted index is damaged or unreadable: "
                f"{exc}; ingest its corpus again: grounding ingest --force --corpus "
                f"{data_store_id}=PATH (or grounding serve --force ...; in Python "
                "CorpusStore.ingest(..., reuse=False))"
            ) from exc
        with self._lock:
            self._data_stores[data_store_id] = snapshot
        return snapshot

    def persisted_ids(self) -> tuple[str, ...]:
        """The ids of the data stores persisted in the state dir."""
        if self.state_dir is None:
            return ()
        folder = self.state_dir / "data_stores"
        if not folder.is_dir():
            return ()
        return tuple(sorted(p.name for p in folder.iterdir() if (p / _CURRENT).is_file()))

    def _reload(self, data_store_id: str, fingerprint: str) -> DataStore | None:
        version = self.current_version(data_store_id)
        if version is None:
            return None
        try:
            manifest = DataStore.read_manifest(version)
        except CorpusError as exc:
            logger.warning("ignoring the persisted %s: %s", data_store_id, exc)
            return None
        wanted = {
            "format": FORMAT_VERSION,
            "tokenizer": TOKENIZER_VERSION,
            "fingerprint": fingerprint,
            "max_chunk_chars": self.max_chunk_chars,
            "embedding_model": self.embedder.model_id if self.embedder is not None else "",
        }
        if any(manifest.get(key, "") != value for key, value in wanted.items()):
            return None
        try:
            snapshot = DataStore.load(version, embedder=self.embedder)
        except CorpusError as exc:
            logger.warning(
                "data store %s: the persisted index is damaged or unreadable, ingesting the "
                "corpus again: %s",
                data_store_id,
                exc,
            )
            return None
        logger.info("reloaded data store %s from %s", data_store_id, version)
        return snapshot

    def _persist(self, snapshot: DataStore) -> None:
        """Write ``snapshot`` as the live version of its data store; an ``OSError`` (a full
        disk) names the data store's folder when the system names no file."""
        folder = self._folder(snapshot.id)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            version = folder / f"v{time.time_ns()}-{uuid.uuid4().hex[:6]}"
            with staging_folder(folder) as staging:
                snapshot.save(staging / "snapshot")
                (staging / "snapshot").rename(version)
            pointer = folder / f".{_CURRENT}.{uuid.uuid4().hex[:8]}"
            pointer.write_text(version.name, encoding="utf-8")
            os.replace(pointer, folder / _CURRENT)
        except OSError as exc:
            if exc.filename is not None:
                raise
            # A failed write (ENOSPC) names no file: name where it was writing.
            raise OSError(exc.errno, exc.strerror or str(exc), str(folder)) from exc
        for old in folder.iterdir():
            # Staging folders are other writers' (or stale: ``remove_stale`` judges them).
            if old.is_dir() and old != version and not old.name.startswith("."):
                shutil.rmtree(old, ignore_errors=True)
