"""The public API of langchain_grounding is what __all__ says, pinned and sorted, every name
documented."""

import inspect

import langchain_grounding


def test_all_is_pinned_and_sorted():
    assert langchain_grounding.__all__ == [
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
    assert langchain_grounding.__all__ == sorted(langchain_grounding.__all__)


def test_every_public_name_has_a_docstring():
    for name in langchain_grounding.__all__:
        value = getattr(langchain_grounding, name)
        assert inspect.isclass(value) or inspect.isfunction(value)
        assert value.__doc__, f"{name} has no docstring"


def test_the_agent_entry_points_show_their_usage():
    for name in (
        "DiscoveryEngineSearchTool",
        "DeveloperKnowledgeSearchTool",
        "AnswerQueryTool",
        "GroundingMiddleware",
    ):
        doc = getattr(langchain_grounding, name).__doc__
        for section in ("Setup:", "Key init args:", "Instantiate:", "Usage:"):
            assert section in doc, f"{name} lacks {section}"
