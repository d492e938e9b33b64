from ._agent_outputs import tool_nodes
from ._core import GroundingReport, UngroundedAnswerError
from .answer_query_tool import AnswerQueryTool
from .citations import citation_blocks, cited_chat_message
from .developer_knowledge_answer_query_engine import DeveloperKnowledgeAnswerQueryEngine
from .developer_knowledge_chat_engine import DeveloperKnowledgeChatEngine
from .developer_knowledge_retriever import DeveloperKnowledgeRetriever
from .developer_knowledge_search_tool import DeveloperKnowledgeSearchTool
from .discovery_engine_answer_query_engine import DiscoveryEngineAnswerQueryEngine
from .discovery_engine_chat_engine import DiscoveryEngineChatEngine
from .discovery_engine_grounded_llm import DiscoveryEngineGroundedLLM
from .discovery_engine_reranker import DiscoveryEngineReranker
from .discovery_engine_retriever import DiscoveryEngineRetriever
from .discovery_engine_search_summary_query_engine import DiscoveryEngineSearchSummaryQueryEngine
from .discovery_engine_search_tool import DiscoveryEngineSearchTool
from .events import (
    ClaimVerdictEvent,
    GroundingCheckEndEvent,
    GroundingCheckStartEvent,
    SearchResponseEvent,
)
from .extractive_llm import ExtractiveLLM
from .grounded_agent_workflow import AgentGroundingEvent, GroundedAgentOutput, GroundedAgentWorkflow
from .grounded_query_engine import GroundedQueryEngine
from .grounding_evaluation_result import GroundingEvaluationResult
from .grounding_evaluator import GroundingEvaluator
from .nodes import chunk_to_node

__all__ = [
    "AgentGroundingEvent",
    "AnswerQueryTool",
    "ClaimVerdictEvent",
    "DeveloperKnowledgeAnswerQueryEngine",
    "DeveloperKnowledgeChatEngine",
    "DeveloperKnowledgeRetriever",
    "DeveloperKnowledgeSearchTool",
    "DiscoveryEngineAnswerQueryEngine",
    "DiscoveryEngineChatEngine",
    "DiscoveryEngineGroundedLLM",
    "DiscoveryEngineReranker",
    "DiscoveryEngineRetriever",
    "DiscoveryEngineSearchSummaryQueryEngine",
    "DiscoveryEngineSearchTool",
    "ExtractiveLLM",
    "GroundedAgentOutput",
    "GroundedAgentWorkflow",
    "GroundedQueryEngine",
    "GroundingCheckEndEvent",
    "GroundingCheckStartEvent",
    "GroundingEvaluationResult",
    "GroundingEvaluator",
    "GroundingReport",
    "SearchResponseEvent",
    "UngroundedAnswerError",
    "chunk_to_node",
    "citation_blocks",
    "cited_chat_message",
    "tool_nodes",
]
