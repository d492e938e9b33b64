"""The public API of grounding_core is what __all__ says, pinned and sorted, every name importable.

The adapters may import only these names (tests/distribution/test_layering.py): a change here is
a change of the contract between the core and the adapters.
"""

import inspect

import grounding_core

PUBLIC = [
    "CHUNK_PROSE_KEYS",
    "DEFAULT_CITATION_THRESHOLD",
    "DEFAULT_COLLECTION",
    "DEFAULT_DEVELOPER_KNOWLEDGE_K",
    "DEFAULT_FALLBACK_ANSWER",
    "DEFAULT_GROUNDING_CONFIG",
    "DEFAULT_LOCATION",
    "DEFAULT_MAX_RETURN_RESULTS",
    "DEFAULT_MIN_SUPPORT_SCORE",
    "DEFAULT_RETRY",
    "DEFAULT_SEARCH_K",
    "DEFAULT_SERVING_CONFIG",
    "DEFAULT_TIMEOUT",
    "DEFAULT_WEAK_BELOW",
    "DEVELOPERKNOWLEDGE_EMULATOR_HOST",
    "DISCOVERYENGINE_EMULATOR_HOST",
    "MAX_ANSWER_TOKENS",
    "MAX_CHUNK_NEIGHBOURS",
    "MAX_FACTS",
    "MAX_FACT_CHARS",
    "AnnotationMetadata",
    "AnswerCitation",
    "AnswerSpec",
    "CallOptions",
    "ChunkSearchSpec",
    "CitedChunk",
    "Claim",
    "ClaimReport",
    "ClientOptionsArg",
    "ConfigurationError",
    "DeadlineExceededError",
    "DeveloperKnowledgeAnswerQuery",
    "DeveloperKnowledgeChunkSearch",
    "DeveloperKnowledgeClients",
    "DeveloperKnowledgeConnection",
    "DeveloperKnowledgeConnectionArgs",
    "DeveloperKnowledgeSearchSpec",
    "DiscoveryEngineAnswerQuery",
    "DiscoveryEngineChunkSearch",
    "DiscoveryEngineClients",
    "DiscoveryEngineConnection",
    "DiscoveryEngineConnectionArgs",
    "DiscoveryEngineTarget",
    "ErrorPolicy",
    "GroundedAnswer",
    "GroundingCheck",
    "GroundingError",
    "GroundingOutcome",
    "GroundingReport",
    "GroundingResult",
    "GroundingSource",
    "GroundingSpec",
    "GroundingSupport",
    "InputError",
    "InvalidRequestError",
    "NotFoundError",
    "OffsetError",
    "PageSpan",
    "PermissionDeniedError",
    "RankSignals",
    "RelevanceThreshold",
    "RetryPolicy",
    "SearchResultMode",
    "ServiceError",
    "ServiceUnavailableError",
    "SourceChunk",
    "UngroundedAnswerError",
    "UngroundedPolicy",
    "Utf8Offsets",
    "aanswer_developer_query",
    "aanswer_query",
    "acheck_grounding",
    "acheck_sources",
    "answer_developer_query",
    "answer_html",
    "answer_markdown",
    "answer_metadata",
    "answer_query",
    "answer_rich",
    "asearch_chunks",
    "asearch_developer_knowledge",
    "check_count",
    "check_grounding",
    "check_sources",
    "chunk_metadata",
    "grounding_config_path",
    "grounding_html",
    "grounding_markdown",
    "grounding_metadata",
    "grounding_rich",
    "grounding_source",
    "resolve_project",
    "search_chunks",
    "search_developer_knowledge",
    "support_level",
]


def test_all_is_pinned():
    assert grounding_core.__all__ == PUBLIC


def test_all_is_sorted_and_complete():
    names = grounding_core.__all__
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))
    assert len(names) == len(set(names))
    for name in names:
        assert getattr(grounding_core, name) is not None


def test_every_public_name_has_a_docstring():
    for name in grounding_core.__all__:
        value = getattr(grounding_core, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert value.__doc__, f"{name} has no docstring"
