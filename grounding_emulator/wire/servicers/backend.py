"""What every servicer shares: the corpus, the grounding judge, the Developer Knowledge store,
the sessions and the conversations."""

from __future__ import annotations

from dataclasses import dataclass, field

from grounding_emulator.answer.conversations import ConversationStore
from grounding_emulator.answer.sessions import SessionStore
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.store import CorpusStore
from grounding_emulator.grounding.judge import Judge
from grounding_emulator.wire.names import ParentName, ServingConfigName

__all__ = ["Backend"]


@dataclass(frozen=True, slots=True)
class Backend:
    """The state behind the services: ``store`` (data stores and engines), ``judge`` (grounding
    verdicts), the data store the Developer Knowledge service serves, ``sessions`` (the
    conversations of AnswerQuery and SessionService) and ``conversations`` (those of
    ConverseConversation); ``rerank_search`` how many first results Search, AnswerQuery and
    ConverseConversation rerank (0: none; ``search/reranking.py``)."""

    store: CorpusStore
    judge: Judge
    developer_knowledge_data_store: str
    rerank_search: int = 0
    sessions: SessionStore = field(default_factory=SessionStore)
    conversations: ConversationStore = field(default_factory=ConversationStore)

    def data_store(self, name: ServingConfigName | ParentName) -> DataStore:
        """The data store a serving config (or a session's parent) searches: its engine's, for
        an engine's; ``NotFound`` when it does not exist."""
        if name.engine is not None:
            return self.store.engine(name.engine)
        return self.store.get(str(name.data_store))
