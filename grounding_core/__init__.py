"""Framework-neutral core: Google's grounding APIs as plain records.

Search chunks, check grounding and answer queries on Discovery Engine (Vertex AI Search) and
the Developer Knowledge API, against Google Cloud or the local emulator
(``grounding_emulator``). The only package of the project that imports Google's client
libraries; the LangChain and LlamaIndex adapters receive the records defined here.

>>> from grounding_core import DiscoveryEngineClients, DiscoveryEngineTarget, search_chunks
>>> clients = DiscoveryEngineClients(emulator_host="localhost:8123")  # doctest: +SKIP
>>> target = DiscoveryEngineTarget(project="my-project", data_store="docs")
>>> chunks = search_chunks(clients, target, "what is a generator?")  # doctest: +SKIP
"""

from .annotate import DEFAULT_WEAK_BELOW, support_level
from .answering import DeveloperKnowledgeAnswerQuery, DiscoveryEngineAnswerQuery
from .answers import (
    aanswer_developer_query,
    aanswer_query,
    answer_developer_query,
    answer_query,
)
from .check import DEFAULT_FALLBACK_ANSWER, ErrorPolicy, GroundingCheck, GroundingOutcome
from .clients import (
    DEVELOPERKNOWLEDGE_EMULATOR_HOST,
    DISCOVERYENGINE_EMULATOR_HOST,
    DeveloperKnowledgeClients,
    DiscoveryEngineClients,
)
from .connection import (
    ClientOptionsArg,
    DeveloperKnowledgeConnection,
    DeveloperKnowledgeConnectionArgs,
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
)
from .errors import (
    ConfigurationError,
    DeadlineExceededError,
    GroundingError,
    InputError,
    InvalidRequestError,
    NotFoundError,
    OffsetError,
    PermissionDeniedError,
    ServiceError,
    ServiceUnavailableError,
    UngroundedAnswerError,
)
from .facts import MAX_ANSWER_TOKENS, MAX_FACT_CHARS, MAX_FACTS
from .grounding import acheck_grounding, acheck_sources, check_grounding, check_sources
from .html_report import answer_html, grounding_html
from .metadata import (
    CHUNK_PROSE_KEYS,
    answer_metadata,
    chunk_metadata,
    grounding_metadata,
    grounding_source,
)
from .offsets import Utf8Offsets
from .records import (
    AnnotationMetadata,
    AnswerCitation,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingResult,
    GroundingSource,
    GroundingSupport,
    PageSpan,
    RankSignals,
    SourceChunk,
)
from .render import answer_markdown, grounding_markdown
from .report import DEFAULT_MIN_SUPPORT_SCORE, ClaimReport, GroundingReport, UngroundedPolicy
from .retrieval import DeveloperKnowledgeChunkSearch, DiscoveryEngineChunkSearch
from .search import (
    asearch_chunks,
    asearch_developer_knowledge,
    search_chunks,
    search_developer_knowledge,
)
from .settings import (
    DEFAULT_COLLECTION,
    DEFAULT_GROUNDING_CONFIG,
    DEFAULT_LOCATION,
    DEFAULT_RETRY,
    DEFAULT_SERVING_CONFIG,
    DEFAULT_TIMEOUT,
    CallOptions,
    DiscoveryEngineTarget,
    RetryPolicy,
    grounding_config_path,
    resolve_project,
)
from .specs import (
    DEFAULT_CITATION_THRESHOLD,
    DEFAULT_DEVELOPER_KNOWLEDGE_K,
    DEFAULT_MAX_RETURN_RESULTS,
    DEFAULT_SEARCH_K,
    MAX_CHUNK_NEIGHBOURS,
    AnswerSpec,
    ChunkSearchSpec,
    DeveloperKnowledgeSearchSpec,
    GroundingSpec,
    RelevanceThreshold,
    SearchResultMode,
    check_count,
)
from .terminal import answer_rich, grounding_rich

__all__ = [
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
