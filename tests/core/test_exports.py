"""The public surface of grounding_core: ``__all__`` pinned and sorted, at most 90 names, each
importable, documented and used by an adapter, the CLI or the docs.

The adapters may also import the core's public modules (``grounding_core.search``,
``.grounding``, ``.answers``, ``.agents``, ``.peers``, ``.views``...), never a private ``_``
module (the import-linter contracts in pyproject.toml).
"""

import inspect
import pathlib

import grounding_core

ROOT = pathlib.Path(__file__).resolve().parents[2]
USERS = ("langchain_grounding", "llamaindex_grounding", "grounding_core/cli", "docs")

PUBLIC = [
    "DEFAULT_CITATION_THRESHOLD",
    "DEFAULT_COLLECTION",
    "DEFAULT_FALLBACK_ANSWER",
    "DEFAULT_GROUNDING_CONFIG",
    "DEFAULT_LOCATION",
    "DEFAULT_MIN_SUPPORT_SCORE",
    "DEFAULT_RANKING_CONFIG",
    "DEFAULT_RETRY",
    "DEFAULT_SEARCH_K",
    "DEFAULT_SERVING_CONFIG",
    "DEFAULT_TIMEOUT",
    "DEVELOPERKNOWLEDGE_EMULATOR_HOST",
    "DISCOVERYENGINE_EMULATOR_HOST",
    "EMPTY_ANSWER",
    "GROUNDING_DATA_STORE",
    "AnswerCitation",
    "AnswerSpec",
    "AsyncClaimStream",
    "ChunkSearchSpec",
    "CitationSpan",
    "CitedChunk",
    "Claim",
    "ClaimReport",
    "ClaimStream",
    "ClaimVerdict",
    "ConfigurationError",
    "DataStoreSpec",
    "DeadlineExceededError",
    "DeveloperKnowledgeAnswerQuery",
    "DeveloperKnowledgeChunkSearch",
    "DeveloperKnowledgeConnection",
    "DeveloperKnowledgeConnectionArgs",
    "DeveloperKnowledgeSearchSpec",
    "DiscoveryEngineAnswerQuery",
    "DiscoveryEngineChunkSearch",
    "DiscoveryEngineConnection",
    "DiscoveryEngineConnectionArgs",
    "DiscoveryEngineRanking",
    "DiscoveryEngineSearchSummary",
    "DiscoveryEngineTarget",
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
    "PermissionDeniedError",
    "RankedRecord",
    "RankingRecord",
    "RankingSpec",
    "RetryPolicy",
    "SearchResults",
    "ServiceError",
    "ServiceUnavailableError",
    "Session",
    "SourceChunk",
    "SummarySpec",
    "Turn",
    "UngroundedAnswerError",
    "Utf8Offsets",
    "answer_citations",
    "answer_html",
    "answer_markdown",
    "answer_metadata",
    "answer_rich",
    "chunk_metadata",
    "condense_question",
    "extractive_answer",
    "grounding_html",
    "grounding_markdown",
    "grounding_metadata",
    "grounding_rich",
    "grounding_source",
    "report_citations",
    "search_response_metadata",
]


def test_all_is_pinned_sorted_and_at_most_90_names():
    names = grounding_core.__all__
    assert names == PUBLIC
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))
    assert len(set(names)) == len(names) <= 90


def test_every_public_name_is_importable_and_documented():
    for name in grounding_core.__all__:
        value = getattr(grounding_core, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert value.__doc__, f"{name} has no docstring"


def test_every_public_name_is_used_by_an_adapter_the_cli_or_the_docs():
    texts = "\n".join(
        path.read_text(encoding="utf-8")
        for folder in USERS
        for path in (ROOT / folder).rglob("*")
        if path.suffix in (".py", ".md")
    )
    unused = [name for name in grounding_core.__all__ if name not in texts]
    assert unused == []
