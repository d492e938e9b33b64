"""LangChain adapters over grounding_core: Vertex AI Search chunks as Documents, grounding
checks as a chain step or a callback, grounded answers from answerQuery.

>>> from langchain_grounding import DiscoveryEngineRetriever, GroundingChecker  # doctest: +SKIP
"""

from typing import TYPE_CHECKING, Any

from grounding_core import GroundingReport, UngroundedAnswerError

from .answer_query_tool import AnswerQueryTool
from .answers import DeveloperKnowledgeAnswer, DiscoveryEngineAnswer
from .callbacks import AsyncGroundingCallbackHandler, GroundingCallbackHandler
from .developer_knowledge_retriever import DeveloperKnowledgeRetriever
from .developer_knowledge_search_tool import DeveloperKnowledgeSearchTool
from .discovery_engine_reranker import DiscoveryEngineReranker
from .discovery_engine_retriever import DiscoveryEngineRetriever
from .discovery_engine_search_tool import DiscoveryEngineSearchTool
from .documents import chunk_to_document
from .extractive_chat_model import ExtractiveChatModel
from .grounded_chain import GroundedChain, with_grounding
from .grounding_checker import GroundingChecker
from .question_condenser import QuestionCondenser
from .search_summary import DiscoveryEngineSummary

__all__ = [
    "AnswerQueryTool",
    "AsyncGroundingCallbackHandler",
    "DeveloperKnowledgeAnswer",
    "DeveloperKnowledgeRetriever",
    "DeveloperKnowledgeSearchTool",
    "DiscoveryEngineAnswer",
    "DiscoveryEngineReranker",
    "DiscoveryEngineRetriever",
    "DiscoveryEngineSearchTool",
    "DiscoveryEngineSummary",
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

if TYPE_CHECKING:
    from .grounding_middleware import GroundingMiddleware


def __getattr__(name: str) -> Any:
    # GroundingMiddleware stands on LangChain's agents (the langchain package, the
    # [langchain-agents] extra): imported at first use, so that the rest needs langchain-core only.
    if name == "GroundingMiddleware":
        from .grounding_middleware import GroundingMiddleware

        return GroundingMiddleware
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
