"""The data stores, engines and documents made through Google's resource APIs (``DataStoreService``,
``EngineService``, ``DocumentService``), each under its full resource name.

Every resource is kept under its canonical name (``projects/{p}/locations/{l}/collections/{c}/
dataStores/{d}``, ``.../engines/{e}``), so that nothing made in one project, location or
collection is seen from another. (The data stores served from folders, ``CorpusStore``, are
served under every project and location, as they always were; ``Backend`` looks a name up here
first.) A resource's message is kept as the servicer built it (``payload``: the serialized v1
message, which Get and List return); the store keeps beside it only what it needs: a data
store's content config, an engine's data store.

A data store's documents are its source of truth; its search index (a ``DataStore`` snapshot,
chunked and indexed as a folder's documents are) is rebuilt from them when a search first needs
it after a change, so that a run of writes costs one rebuild. With a state dir every resource is
kept on disk and reloaded by the next ``ResourceStore`` on that dir::

    {state_dir}/projects/{p}/locations/{l}/collections/{c}/
        dataStores/{d}/data_store.json       the data store (its message, its content config)
        dataStores/{d}/documents/{id}.json   a document: its message, text, blocks, struct data
        engines/{e}/engine.json              an engine (its message, its data store)
        index/                               the indexes (a CorpusStore: atomic, checksummed)

Each file is written whole and swapped in (``os.replace``); an index whose documents are
unchanged is reloaded, not rebuilt (its fingerprint is the digest of the document files).
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import json
import logging
import os
import shutil
import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grounding_emulator.corpus.chunking import Block
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.embeddings import Embedder
from grounding_emulator.corpus.reading import SourceDocument
from grounding_emulator.corpus.records import Document
from grounding_emulator.corpus.store import CorpusStore
from grounding_emulator.errors import AlreadyExists, FailedPrecondition, NotFound

__all__ = ["DataStoreResource", "EngineResource", "ResourceStore", "StoredDocument"]

logger = logging.getLogger(__name__)

_DATA_STORE_FILE = "data_store.json"
_ENGINE_FILE = "engine.json"


def _collection(name: str) -> str:
    """``projects/{p}/locations/{l}/collections/{c}`` of a data store or engine name."""
    return name.rsplit("/", 2)[0]


def _last(name: str) -> str:
    return name.rsplit("/", 1)[1]


@dataclass(frozen=True, slots=True)
class _InCollection:
    """A data store or engine under its canonical ``name``, in a collection."""

    name: str

    @property
    def id(self) -> str:
        """The data store or engine id (the name's last part)."""
        return _last(self.name)

    @property
    def collection(self) -> str:
        """The collection it lives in."""
        return _collection(self.name)


@dataclass(frozen=True, slots=True)
class DataStoreResource(_InCollection):
    """A data store made through ``CreateDataStore``: its canonical ``name``, its
    ``content_config`` (``NO_CONTENT``, ``CONTENT_REQUIRED`` or ``PUBLIC_WEBSITE``) and its
    message (``payload``, serialized)."""

    content_config: str
    payload: bytes


@dataclass(frozen=True, slots=True)
class EngineResource(_InCollection):
    """An engine made through ``CreateEngine``: its canonical ``name``, the id of the data store
    it serves (in its collection) and its message (``payload``, serialized)."""

    data_store: str
    payload: bytes

    @property
    def data_store_name(self) -> str:
        """The canonical name of its data store."""
        return f"{self.collection}/dataStores/{self.data_store}"


@dataclass(frozen=True, slots=True)
class StoredDocument:
    """A document of a data store: what the corpus indexes (``source``: the document record and
    its blocks) and the ``Document`` message as the client gave it (``payload``, serialized)."""

    source: SourceDocument
    payload: bytes

    @property
    def id(self) -> str:
        """The document id."""
        return self.source.document.id


@dataclass(eq=False)
class _DataStoreState:
    resource: DataStoreResource
    documents: dict[str, StoredDocument] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)
    revision: int = 0
    built: int = -1
    snapshot: DataStore | None = None
    build_lock: threading.Lock = field(default_factory=threading.Lock)


# -- files ----------------------------------------------------------------------------------------


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole: a reader sees the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pending = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
    pending.write_bytes(data)
    os.replace(pending, path)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _document_json(stored: StoredDocument) -> bytes:
    document = stored.source.document
    record = {
        "id": document.id,
        "uri": document.uri,
        "title": document.title,
        "content": document.content,
        "struct_data": dict(document.struct_data),
        "mime_type": document.mime_type,
        "update_time": document.update_time.isoformat() if document.update_time else None,
        "description": document.description,
        "blocks": [[b.kind, b.text, b.level, b.page] for b in stored.source.blocks],
        "origin": stored.source.origin,
        "payload": _b64(stored.payload),
    }
    return json.dumps(record, ensure_ascii=False).encode("utf-8")


def _document_of(data: bytes) -> StoredDocument:
    record = json.loads(data)
    update_time = record["update_time"]
    document = Document(
        id=record["id"],
        uri=record["uri"],
        title=record["title"],
        content=record["content"],
        struct_data=record["struct_data"],
        mime_type=record["mime_type"],
        update_time=_dt.datetime.fromisoformat(update_time) if update_time else None,
        description=record["description"],
    )
    blocks = tuple(Block(kind, text, level, page) for kind, text, level, page in record["blocks"])
    return StoredDocument(
        SourceDocument(document, blocks, record["origin"]), base64.b64decode(record["payload"])
    )


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ResourceStore:
    """The data stores, engines and documents made through Google's resource APIs.

    >>> resources = ResourceStore()
    >>> name = "projects/p/locations/global/collections/default_collection/dataStores/kb"
    >>> resources.create_data_store(DataStoreResource(name, "NO_CONTENT", b""))
    >>> [d.id for d in resources.data_stores(name.rsplit("/", 2)[0])]
    ['kb']
    """

    def __init__(
        self,
        state_dir: Path | str | None = None,
        *,
        embedder: Embedder | None = None,
        max_chunk_chars: int | None = None,
    ) -> None:
        """``state_dir``: where the resources are kept (``None``: in memory); ``embedder`` and
        ``max_chunk_chars``: how documents are indexed (those of the ``CorpusStore`` it stands
        beside, ``ResourceStore.beside``)."""
        self.state_dir = Path(state_dir) if state_dir is not None else None
        self._embedder = embedder
        self._max_chunk_chars = max_chunk_chars
        self._lock = threading.RLock()
        self._data_stores: dict[str, _DataStoreState] = {}
        self._engines: dict[str, EngineResource] = {}
        self._indexes: dict[str, CorpusStore] = {}
        if self.state_dir is not None:
            self._load()

    @classmethod
    def beside(cls, store: CorpusStore) -> ResourceStore:
        """The resources kept beside ``store``: in ``{state_dir}/resources`` when it has a state
        dir, indexed as its data stores are (same embedder, same chunk size)."""
        state_dir = store.state_dir / "resources" if store.state_dir is not None else None
        return cls(state_dir, embedder=store.embedder, max_chunk_chars=store.max_chunk_chars)

    def __repr__(self) -> str:
        return (
            f"ResourceStore(state_dir={str(self.state_dir) if self.state_dir else None!r}, "
            f"data_stores={sorted(self._data_stores)}, engines={sorted(self._engines)})"
        )

    # -- data stores ----------------------------------------------------------------------------

    def data_store(self, name: str) -> DataStoreResource | None:
        """The data store of canonical name ``name``, if it was made."""
        with self._lock:
            state = self._data_stores.get(name)
            return state.resource if state is not None else None

    def data_stores(self, collection: str) -> list[DataStoreResource]:
        """The data stores of a collection, by id."""
        prefix = f"{collection}/dataStores/"
        with self._lock:
            found = [s.resource for n, s in self._data_stores.items() if n.startswith(prefix)]
        return sorted(found, key=lambda r: r.id)

    def create_data_store(self, resource: DataStoreResource) -> None:
        """Keep a new data store (``ALREADY_EXISTS`` when its name is taken)."""
        with self._lock:
            if resource.name in self._data_stores:
                raise AlreadyExists(f"data store {resource.name} already exists")
            self._data_stores[resource.name] = _DataStoreState(resource)
            self._save_data_store(resource)

    def update_data_store(self, resource: DataStoreResource) -> None:
        """Replace a data store's message (``NOT_FOUND`` when there is none)."""
        with self._lock:
            self._state(resource.name).resource = resource
            self._save_data_store(resource)

    def delete_data_store(self, name: str) -> None:
        """Forget a data store, its documents and its index; ``FAILED_PRECONDITION`` while an
        engine serves it."""
        state = self._state(name)
        with state.build_lock, self._lock:
            users = sorted(e.name for e in self._engines.values() if e.data_store_name == name)
            if users:
                raise FailedPrecondition(
                    f"data store {name} is used by engine {users[0]}: delete the engine first"
                )
            del self._data_stores[name]
            index = self._indexes.get(_collection(name))
            if index is not None:
                index.delete(_last(name))
            if self.state_dir is not None:
                shutil.rmtree(self.state_dir / name, ignore_errors=True)

    def _state(self, name: str) -> _DataStoreState:
        with self._lock:
            state = self._data_stores.get(name)
        if state is None:
            raise NotFound(f"data store {name} not found")
        return state

    # -- engines --------------------------------------------------------------------------------

    def engine(self, name: str) -> EngineResource | None:
        """The engine of canonical name ``name``, if it was made."""
        with self._lock:
            return self._engines.get(name)

    def engines(self, collection: str) -> list[EngineResource]:
        """The engines of a collection, by id."""
        prefix = f"{collection}/engines/"
        with self._lock:
            found = [e for n, e in self._engines.items() if n.startswith(prefix)]
        return sorted(found, key=lambda e: e.id)

    def create_engine(self, resource: EngineResource) -> None:
        """Keep a new engine (``ALREADY_EXISTS`` when its name is taken)."""
        with self._lock:
            if resource.name in self._engines:
                raise AlreadyExists(f"engine {resource.name} already exists")
            self._engines[resource.name] = resource
            self._save_engine(resource)

    def update_engine(self, resource: EngineResource) -> None:
        """Replace an engine's message (``NOT_FOUND`` when there is none)."""
        with self._lock:
            if resource.name not in self._engines:
                raise NotFound(f"engine {resource.name} not found")
            self._engines[resource.name] = resource
            self._save_engine(resource)

    def delete_engine(self, name: str) -> None:
        """Forget an engine (``NOT_FOUND`` when there is none); its data store stays."""
        with self._lock:
            if self._engines.pop(name, None) is None:
                raise NotFound(f"engine {name} not found")
            if self.state_dir is not None:
                shutil.rmtree(self.state_dir / name, ignore_errors=True)

    # -- documents ------------------------------------------------------------------------------

    def documents(self, name: str) -> list[StoredDocument]:
        """The documents of data store ``name``, by id."""
        state = self._state(name)
        with self._lock:
            return [state.documents[i] for i in sorted(state.documents)]

    def document(self, name: str, document_id: str) -> StoredDocument | None:
        """A document of data store ``name``, if it has one of that id."""
        state = self._state(name)
        with self._lock:
            return state.documents.get(document_id)

    def put_documents(
        self, name: str, documents: Sequence[StoredDocument], *, keep: Iterable[str] | None = None
    ) -> None:
        """Add or replace ``documents`` in data store ``name``; with ``keep``, also remove every
        other document whose id is not in it (a FULL import's reconciliation)."""
        state = self._state(name)
        with self._lock:
            if keep is not None:
                kept = set(keep) | {d.id for d in documents}
                self._remove(state, [i for i in state.documents if i not in kept])
            for stored in documents:
                state.documents[stored.id] = stored
                state.digests[stored.id] = self._save_document(name, stored)
            state.revision += 1

    def delete_documents(self, name: str, document_ids: Iterable[str]) -> list[str]:
        """Remove documents from data store ``name``; the ids that were there."""
        state = self._state(name)
        with self._lock:
            removed = [i for i in dict.fromkeys(document_ids) if i in state.documents]
            self._remove(state, removed)
            if removed:
                state.revision += 1
            return removed

    def _remove(self, state: _DataStoreState, document_ids: Sequence[str]) -> None:
        for document_id in document_ids:
            del state.documents[document_id]
            state.digests.pop(document_id, None)
            if self.state_dir is not None:
                path = self.state_dir / state.resource.name / "documents" / f"{document_id}.json"
                path.unlink(missing_ok=True)

    # -- search ---------------------------------------------------------------------------------

    def snapshot(self, name: str) -> DataStore:
        """The search index of data store ``name``, rebuilt from its documents when they changed
        since it was built (reloaded from the state dir when it was built before a restart)."""
        state = self._state(name)
        with self._lock:
            if state.snapshot is not None and state.built == state.revision:
                return state.snapshot
        with state.build_lock:
            with self._lock:
                if state.snapshot is not None and state.built == state.revision:
                    return state.snapshot
                revision = state.revision
                sources = [state.documents[i].source for i in sorted(state.documents)]
                fingerprint = self._fingerprint(state)
                index = self._index(state.resource.collection)
            snapshot = index.ingest(
                state.resource.id, sources, fingerprint=fingerprint, reuse=bool(fingerprint)
            )
            with self._lock:
                state.snapshot, state.built = snapshot, revision
            return snapshot

    def _fingerprint(self, state: _DataStoreState) -> str:
        """The digest of the data store's document files ("" in memory: nothing to reuse)."""
        if self.state_dir is None:
            return ""
        digest = hashlib.sha256(b"resources-1\n")
        for document_id in sorted(state.digests):
            digest.update(f"{document_id} {state.digests[document_id]}\n".encode())
        return digest.hexdigest()[:32]

    def _index(self, collection: str) -> CorpusStore:
        index = self._indexes.get(collection)
        if index is None:
            folder = self.state_dir / collection / "index" if self.state_dir else None
            options: dict[str, Any] = {"semantic": self._embedder or False}
            if self._max_chunk_chars is not None:
                options["max_chunk_chars"] = self._max_chunk_chars
            index = self._indexes[collection] = CorpusStore(folder, **options)
        return index

    def reset(self) -> None:
        """Forget every resource (what is kept in the state dir stays on disk)."""
        with self._lock:
            self._data_stores.clear()
            self._engines.clear()
            self._indexes.clear()

    # -- persistence ----------------------------------------------------------------------------

    def _save_data_store(self, resource: DataStoreResource) -> None:
        if self.state_dir is None:
            return
        record = {"content_config": resource.content_config, "payload": _b64(resource.payload)}
        _write(self.state_dir / resource.name / _DATA_STORE_FILE, json.dumps(record).encode())

    def _save_engine(self, resource: EngineResource) -> None:
        if self.state_dir is None:
            return
        record = {"data_store": resource.data_store, "payload": _b64(resource.payload)}
        _write(self.state_dir / resource.name / _ENGINE_FILE, json.dumps(record).encode())

    def _save_document(self, name: str, stored: StoredDocument) -> str:
        if self.state_dir is None:
            return ""
        data = _document_json(stored)
        _write(self.state_dir / name / "documents" / f"{stored.id}.json", data)
        return _digest(data)

    def _load(self) -> None:
        """Read back what a previous store kept in the state dir (a file that cannot be read is
        skipped with a warning naming it)."""
        assert self.state_dir is not None
        pattern = "projects/*/locations/*/collections/*/dataStores/*/" + _DATA_STORE_FILE
        for path in sorted(self.state_dir.glob(pattern)):
            name = path.parent.relative_to(self.state_dir).as_posix()
            try:
                record: Mapping[str, Any] = json.loads(path.read_bytes())
                resource = DataStoreResource(
                    name, record["content_config"], base64.b64decode(record["payload"])
                )
            except (OSError, ValueError, KeyError, TypeError) as exc:
                logger.warning("ignoring data store %s: cannot read %s (%s)", name, path, exc)
                continue
            state = self._data_stores[name] = _DataStoreState(resource)
            for document_path in sorted((path.parent / "documents").glob("*.json")):
                try:
                    data = document_path.read_bytes()
                    stored = _document_of(data)
                except (OSError, ValueError, KeyError, TypeError) as exc:
                    logger.warning("data store %s: ignoring %s (%s)", name, document_path, exc)
                    continue
                state.documents[stored.id] = stored
                state.digests[stored.id] = _digest(data)
        pattern = "projects/*/locations/*/collections/*/engines/*/" + _ENGINE_FILE
        for path in sorted(self.state_dir.glob(pattern)):
            name = path.parent.relative_to(self.state_dir).as_posix()
            try:
                record = json.loads(path.read_bytes())
                engine = EngineResource(
                    name, record["data_store"], base64.b64decode(record["payload"])
                )
            except (OSError, ValueError, KeyError, TypeError) as exc:
                logger.warning("ignoring engine %s: cannot read %s (%s)", name, path, exc)
                continue
            self._engines[name] = engine
        if self._data_stores or self._engines:
            logger.info(
                "reloaded %d data stores and %d engines from %s",
                len(self._data_stores),
                len(self._engines),
                self.state_dir,
            )
