"""What every servicer shares: the corpus, the resources made through Google's APIs, their
operations, the grounding judge, the Developer Knowledge store, the sessions and the
conversations."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grounding_emulator.answer.conversations import ConversationStore
from grounding_emulator.answer.sessions import SessionStore
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.resources import ResourceStore
from grounding_emulator.corpus.store import CorpusStore
from grounding_emulator.errors import NotFound
from grounding_emulator.grounding.judge import Judge
from grounding_emulator.wire.names import DEFAULT_COLLECTION, ParentName, ServingConfigName
from grounding_emulator.wire.operations import OperationStore

__all__ = ["Backend"]


def collection_path(name: ServingConfigName | ParentName) -> str:
    """The canonical collection of a serving config's or session parent's data store or
    engine (a collection-less data store is in ``default_collection``)."""
    collection = name.collection or DEFAULT_COLLECTION
    return f"projects/{name.project}/locations/{name.location}/collections/{collection}"


@dataclass(frozen=True, slots=True)
class Backend:
    """The state behind the services: ``store`` (the data stores and engines served from folders,
    under every project and location), ``resources`` (those made through DataStoreService,
    EngineService and DocumentService, each under its full name; ``EmulatorServer`` keeps them
    beside ``store``, ``ResourceStore.beside``; by default in memory), ``operations`` (their
    long-running operations), ``judge`` (grounding verdicts), the data store the Developer
    Knowledge service serves, ``sessions`` (the conversations of AnswerQuery and SessionService)
    and ``conversations`` (those of ConverseConversation); ``rerank_search`` how many first
    results Search, AnswerQuery and ConverseConversation rerank (0: none;
    ``search/reranking.py``); ``gcs_root`` the folder that stands for Cloud Storage
    (``corpus/gcs.py``)."""

    store: CorpusStore
    judge: Judge
    developer_knowledge_data_store: str
    rerank_search: int = 0
    sessions: SessionStore = field(default_factory=SessionStore)
    conversations: ConversationStore = field(default_factory=ConversationStore)
    resources: ResourceStore = field(default_factory=ResourceStore)
    operations: OperationStore = field(default_factory=OperationStore)
    gcs_root: Path | None = None

    def data_store(self, name: ServingConfigName | ParentName) -> DataStore:
        """The data store a serving config (or a session's parent) searches: its engine's, for
        an engine's; one made through the API in that project, location and collection first,
        else one served from a folder; ``NotFound`` when it does not exist."""
        collection = collection_path(name)
        if name.engine is not None:
            engine = self.resources.engine(f"{collection}/engines/{name.engine}")
            if engine is None:
                return self.store.engine(name.engine)
            return self.data_store_named(engine.data_store_name)
        return self.data_store_named(f"{collection}/dataStores/{name.data_store}")

    def content_config(self, name: ServingConfigName | ParentName) -> str:
        """The content config of the data store a serving config searches (one served from a
        folder holds content: ``CONTENT_REQUIRED``); ``NotFound`` when it does not exist."""
        self.data_store(name)
        collection = collection_path(name)
        key = f"{collection}/dataStores/{name.data_store}"
        if name.engine is not None:
            engine = self.resources.engine(f"{collection}/engines/{name.engine}")
            key = engine.data_store_name if engine is not None else ""
        resource = self.resources.data_store(key)
        return resource.content_config if resource is not None else "CONTENT_REQUIRED"

    def data_store_named(self, name: str) -> DataStore:
        """The data store of canonical name ``name``: made through the API, else served from
        a folder (by its id); ``NotFound`` naming both kinds a caller could mean, the API-made
        ones of that collection only (what another project made stays unseen)."""
        if self.resources.data_store(name) is not None:
            return self.resources.snapshot(name)
        collection, _, data_store_id = name.rpartition("/dataStores/")
        try:
            return self.store.get(data_store_id)
        except NotFound as exc:
            made = ", ".join(sorted(r.id for r in self.resources.data_stores(collection)))
            if not made:
                raise
            raise NotFound(f"{exc}; made through the API in {collection}: {made}") from exc

    def forget_under(self, name: str) -> None:
        """Forget the sessions and conversations of a deleted data store or engine."""
        self.sessions.remove_under(name)
        self.conversations.remove_under(name)
