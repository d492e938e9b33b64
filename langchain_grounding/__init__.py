"""LangChain adapters over grounding_core: Vertex AI Search chunks as Documents, grounding
checks as a chain step or a callback, grounded answers from answerQuery.

>>> from langchain_grounding import DiscoveryEngineRetriever, GroundingChecker  # doctest: +SKIP
"""

from grounding_core import GroundingReport, UngroundedAnswerError

from .answers import DeveloperKnowledgeAnswer, DiscoveryEngineAnswer
from .callbacks import AsyncGroundingCallbackHandler, GroundingCallbackHandler
from .developer_knowledge_retriever import DeveloperKnowledgeRetriever
from .discovery_engine_retriever import DiscoveryEngineRetriever
from .discovery_engine_search_tool import DiscoveryEngineSearchTool
from .documents import chunk_to_document
from .extractive_chat_model import ExtractiveChatModel
from .grounded_chain import GroundedChain, with_grounding
from .grounding_checker import GroundingChecker
from .question_condenser import QuestionCondenser
from .search_summary import DiscoveryEngineSummary

__all__ = [
    "AsyncGroundingCallbackHandler",
    "DeveloperKnowledgeAnswer",
    "DeveloperKnowledgeRetriever",
    "DiscoveryEngineAnswer",
    "DiscoveryEngineRetriever",
    "DiscoveryEngineSearchTool",
    "DiscoveryEngineSummary",
    "ExtractiveChatModel",
    "GroundedChain",
    "GroundingCallbackHandler",
    "GroundingChecker",
    "GroundingReport",
    "QuestionCondenser",
    "UngroundedAnswerError",
    "chunk_to_document",
    "with_grounding",
]
