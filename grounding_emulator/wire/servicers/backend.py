"""What every servicer shares: the corpus, the grounding judge, the Developer Knowledge store."""

from __future__ import annotations

from dataclasses import dataclass

from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.store import CorpusStore
from grounding_emulator.grounding.judge import Judge
from grounding_emulator.wire.names import ServingConfigName

__all__ = ["Backend"]


@dataclass(frozen=True, slots=True)
class Backend:
    """The state behind the services: ``store`` (data stores and engines), ``judge`` (grounding
    verdicts), and the data store the Developer Knowledge service serves."""

    store: CorpusStore
    judge: Judge
    developer_knowledge_data_store: str

    def data_store(self, name: ServingConfigName) -> DataStore:
        """The data store a serving config searches (its engine's, for an engine's)."""
        if name.engine is not None:
            return self.store.engine(name.engine)
        return self.store.get(str(name.data_store))
