from ._core_names import GroundingReport, UngroundedAnswerError
from .answer_query_tool import AnswerQueryTool
from .answers import DeveloperKnowledgeAnswer, DiscoveryEngineAnswer
from .callbacks import AsyncGroundingCallbackHandler, GroundingCallbackHandler
from .developer_knowledge_retriever import DeveloperKnowledgeRetriever
from .developer_knowledge_search_tool import DeveloperKnowledgeSearchTool
from .discovery_engine_multi_turn_retriever import DiscoveryEngineMultiTurnRetriever
from .discovery_engine_reranker import DiscoveryEngineReranker
from .discovery_engine_retriever import DiscoveryEngineRetriever
from .discovery_engine_search_tool import DiscoveryEngineSearchTool
from .documents import chunk_to_document
from .extractive_chat_model import ExtractiveChatModel
from .grounded_chain import GroundedChain, with_grounding
from .grounded_chat_model import ChatDiscoveryEngineGrounded
from .grounding_checker import GroundingChecker
from .grounding_middleware import GroundingMiddleware  # needs the [langchain-agents] extra
from .question_condenser import QuestionCondenser
from .search_summary import DiscoveryEngineSummary
from .search_summary_tool import DiscoveryEngineSummaryTool

__all__ = [
    "AnswerQueryTool",
    "AsyncGroundingCallbackHandler",
    "ChatDiscoveryEngineGrounded",
    "DeveloperKnowledgeAnswer",
    "DeveloperKnowledgeRetriever",
    "DeveloperKnowledgeSearchTool",
    "DiscoveryEngineAnswer",
    "DiscoveryEngineMultiTurnRetriever",
    "DiscoveryEngineReranker",
    "DiscoveryEngineRetriever",
    "DiscoveryEngineSearchTool",
    "DiscoveryEngineSummary",
    "DiscoveryEngineSummaryTool",
    "ExtractiveChatModel",
    "GroundedChain",
    "GroundingCallbackHandler",
    "GroundingChecker",
    "GroundingMiddleware",
    "GroundingReport",
    "QuestionCondenser",
    "UngroundedAnswerError",
    "chunk_to_document",
    "with_grounding",
]
