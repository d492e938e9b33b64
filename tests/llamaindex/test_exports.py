"""The public API of llamaindex_grounding is what __all__ says, sorted, every name documented."""

import inspect

import llamaindex_grounding


def test_all_is_pinned_and_sorted():
    assert llamaindex_grounding.__all__ == [
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
    assert llamaindex_grounding.__all__ == sorted(llamaindex_grounding.__all__)


def test_every_public_name_has_a_docstring():
    for name in llamaindex_grounding.__all__:
        value = getattr(llamaindex_grounding, name)
        assert inspect.isclass(value) or inspect.isfunction(value)
        assert value.__doc__, f"{name} has no docstring"


def test_main_entry_points_show_their_usage():
    for name in (
        "DiscoveryEngineRetriever",
        "DeveloperKnowledgeRetriever",
        "GroundedQueryEngine",
        "GroundingEvaluator",
        "DiscoveryEngineAnswerQueryEngine",
        "DeveloperKnowledgeAnswerQueryEngine",
        "DiscoveryEngineSearchSummaryQueryEngine",
        "DiscoveryEngineChatEngine",
        "DeveloperKnowledgeChatEngine",
        "DiscoveryEngineSearchTool",
        "AnswerQueryTool",
        "GroundedAgentWorkflow",
    ):
        doc = getattr(llamaindex_grounding, name).__doc__
        for section in ("Setup:", "Key init args:", "Instantiate:", "Usage:"):
            assert section in doc, f"{name} lacks {section}"
