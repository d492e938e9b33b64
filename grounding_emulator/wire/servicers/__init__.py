"""One servicer per Google service, each registering itself (``registry.py``).

Importing this package defines, and so registers, every servicer: ``search`` (SearchService),
``grounded_generation`` (GroundedGenerationService), ``conversational_search``
(ConversationalSearchService), ``session`` (SessionService, and the session RPCs of
ConversationalSearchService), ``conversation`` (the conversation RPCs of
ConversationalSearchService), ``developer_knowledge`` (DeveloperKnowledge), ``rank``
(RankService), ``data_store`` (DataStoreService), ``engine`` (EngineService), ``document``
(DocumentService), ``operations`` (google.longrunning.Operations). They share one ``Backend``
(``backend.py``).
"""

from grounding_emulator.wire.servicers.backend import Backend
from grounding_emulator.wire.servicers.conversation import ConversationServicer
from grounding_emulator.wire.servicers.conversational_search import ConversationalSearchServicer
from grounding_emulator.wire.servicers.data_store import DataStoreServicer
from grounding_emulator.wire.servicers.developer_knowledge import DeveloperKnowledgeServicer
from grounding_emulator.wire.servicers.document import DocumentServicer
from grounding_emulator.wire.servicers.engine import EngineServicer
from grounding_emulator.wire.servicers.grounded_generation import GroundedGenerationServicer
from grounding_emulator.wire.servicers.operations import OperationsServicer
from grounding_emulator.wire.servicers.rank import RankServicer
from grounding_emulator.wire.servicers.registry import Method, Servicer, method_table
from grounding_emulator.wire.servicers.search import SearchServicer
from grounding_emulator.wire.servicers.session import SessionServicer

__all__ = [
    "Backend",
    "ConversationServicer",
    "ConversationalSearchServicer",
    "DataStoreServicer",
    "DeveloperKnowledgeServicer",
    "DocumentServicer",
    "EngineServicer",
    "GroundedGenerationServicer",
    "Method",
    "OperationsServicer",
    "RankServicer",
    "SearchServicer",
    "Servicer",
    "SessionServicer",
    "method_table",
]
