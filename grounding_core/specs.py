"""Per-call options of search, grounding check and answer, validated against the API limits.

Each spec refuses a value the service would refuse, with an ``InputError`` that names the
field, the limit and what to do, before anything is sent.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .errors import InputError

__all__ = [
    "DEFAULT_CITATION_THRESHOLD",
    "DEFAULT_DEVELOPER_KNOWLEDGE_K",
    "DEFAULT_MAX_RETURN_RESULTS",
    "DEFAULT_SEARCH_K",
    "MAX_CHUNK_NEIGHBOURS",
    "MAX_PAGE_SIZE",
    "AnswerSpec",
    "ChunkSearchSpec",
    "DeveloperKnowledgeSearchSpec",
    "GroundingSpec",
    "RelevanceThreshold",
    "SearchResultMode",
    "check_count",
    "check_fraction",
]

MAX_PAGE_SIZE = 100
MAX_CHUNK_NEIGHBOURS = 3
MAX_DEVELOPER_KNOWLEDGE_TEXT = 500

# checkGrounding's documented default ("GroundingSpec.citation_threshold ... defaults to 0.6").
DEFAULT_CITATION_THRESHOLD = 0.6

# How many chunks the retrievers return unless told (a bare ChunkSearchSpec asks for 10).
DEFAULT_SEARCH_K = 4
DEFAULT_DEVELOPER_KNOWLEDGE_K = 5
# How many search results an answer may draw on unless told.
DEFAULT_MAX_RETURN_RESULTS = 10

RelevanceThreshold = Literal["lowest", "low", "medium", "high"]
SearchResultMode = Literal["chunks", "documents"]


def check_count(name: str, value: object, *, minimum: int, maximum: int | None = None) -> int:
    """``value`` if it is an int within ``[minimum, maximum]``, else an ``InputError``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(
            f"{name} must be an integer, got {type(value).__name__} {value!r}",
            field=name,
            limit=maximum,
        )
    if value < minimum or (maximum is not None and value > maximum):
        bounds = f">= {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        raise InputError(f"{name} must be {bounds}, got {value}", field=name, limit=maximum)
    return value


def check_fraction(name: str, value: object) -> float:
    """``value`` if it is a number in [0, 1] (a threshold or a score), else an ``InputError``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or math.isnan(value)
        or not 0.0 <= value <= 1.0
    ):
        raise InputError(
            f"{name} must be a number between 0 and 1, got {value!r}", field=name, limit="[0, 1]"
        )
    return float(value)


def _check_search_mode(value: object) -> None:
    if value not in ("chunks", "documents"):
        raise InputError(
            f"search_mode must be 'chunks' or 'documents', got {value!r}", field="search_mode"
        )


def _keep_boost_spec(spec: ChunkSearchSpec | AnswerSpec) -> None:
    """Check ``spec.boost_spec`` and keep a copy of it: the caller's dict may change later, a
    frozen spec may not."""
    if spec.boost_spec is None:
        return
    if not isinstance(spec.boost_spec, Mapping):
        raise InputError(
            "boost_spec must be a dict in the API's BoostSpec form, e.g. "
            "{'condition_boost_specs': [{'condition': 'lang: ANY(\"en\")', 'boost': 0.5}]}",
            field="boost_spec",
        )
    object.__setattr__(spec, "boost_spec", copy.deepcopy(dict(spec.boost_spec)))


def _check_text(name: str, value: object, *, maximum: int | None = None) -> str:
    if not isinstance(value, str):
        raise InputError(
            f"{name} must be a string, got {type(value).__name__}", field=name, limit=maximum
        )
    if maximum is not None and len(value) > maximum:
        raise InputError(
            f"{name} has {len(value)} characters; the API accepts at most {maximum}: shorten it",
            field=name,
            limit=maximum,
        )
    return value


@dataclass(frozen=True, slots=True)
class ChunkSearchSpec:
    """Options of a Discovery Engine search.

    ``k`` results are returned (pages of up to 100 are fetched until ``k`` are collected or the
    results run out). ``boost_spec`` takes the API's ``BoostSpec`` as a dict, e.g.
    ``{"condition_boost_specs": [{"condition": 'lang: ANY("en")', "boost": 0.5}]}``.
    Neighbouring chunks (``num_previous_chunks``/``num_next_chunks``, at most 3) exist only in
    chunk mode (``search_mode="chunks"``, the default; ``"documents"`` for structured and
    website data stores).

    >>> ChunkSearchSpec(k=5, filter='lang: ANY("en")', num_next_chunks=1).k
    5
    """

    k: int = 10
    filter: str = ""
    boost_spec: Mapping[str, Any] | None = None
    order_by: str = ""
    num_previous_chunks: int = 0
    num_next_chunks: int = 0
    relevance_threshold: RelevanceThreshold | None = None
    search_mode: SearchResultMode = "chunks"

    def __post_init__(self) -> None:
        check_count("k", self.k, minimum=1)
        _check_text("filter", self.filter)
        _check_text("order_by", self.order_by)
        for name in ("num_previous_chunks", "num_next_chunks"):
            check_count(name, getattr(self, name), minimum=0, maximum=MAX_CHUNK_NEIGHBOURS)
        _check_search_mode(self.search_mode)
        if self.search_mode != "chunks" and (self.num_previous_chunks or self.num_next_chunks):
            raise InputError(
                "num_previous_chunks/num_next_chunks need search_mode='chunks': documents have no "
                "neighbouring chunks",
                field="chunk_spec",
            )
        if self.relevance_threshold not in (None, "lowest", "low", "medium", "high"):
            raise InputError(
                "relevance_threshold must be one of 'lowest', 'low', 'medium', 'high' or None, "
                f"got {self.relevance_threshold!r}",
                field="relevance_threshold",
            )
        _keep_boost_spec(self)


@dataclass(frozen=True, slots=True)
class DeveloperKnowledgeSearchSpec:
    """Options of a Developer Knowledge ``SearchDocumentChunks`` call (filter: AIP-160 on
    ``data_source``, ``uri``, ``update_time``, ``content_length_bytes``; at most 500 characters).

    >>> DeveloperKnowledgeSearchSpec(k=3, filter='data_source = "firebase.google.com"').k
    3
    """

    k: int = DEFAULT_DEVELOPER_KNOWLEDGE_K
    filter: str = ""

    def __post_init__(self) -> None:
        check_count("k", self.k, minimum=1)
        _check_text("filter", self.filter, maximum=MAX_DEVELOPER_KNOWLEDGE_TEXT)


@dataclass(frozen=True, slots=True)
class GroundingSpec:
    """Options of a grounding check.

    ``citation_threshold`` (0..1, default ``DEFAULT_CITATION_THRESHOLD``, 0.6): a fact is
    cited for a claim when its support score reaches it; higher means fewer, stronger
    citations. ``enable_claim_level_score`` fills ``Claim.score``.
    """

    citation_threshold: float = DEFAULT_CITATION_THRESHOLD
    enable_claim_level_score: bool = False

    def __post_init__(self) -> None:
        check_fraction("citation_threshold", self.citation_threshold)


@dataclass(frozen=True, slots=True)
class AnswerSpec:
    """Options of a Discovery Engine ``answerQuery``.

    >>> AnswerSpec(max_return_results=5, include_citations=True).max_return_results
    5
    """

    include_citations: bool = True
    max_return_results: int = DEFAULT_MAX_RETURN_RESULTS
    filter: str = ""
    boost_spec: Mapping[str, Any] | None = None
    order_by: str = ""
    search_mode: SearchResultMode = "chunks"
    preamble: str = ""
    model_version: str = ""
    answer_language_code: str = ""
    include_grounding_supports: bool = False
    ignore_adversarial_query: bool = False
    ignore_non_answer_seeking_query: bool = False
    ignore_low_relevant_content: bool | None = None
    related_questions: bool = False
    session: str | None = None

    def __post_init__(self) -> None:
        check_count("max_return_results", self.max_return_results, minimum=1, maximum=100)
        _check_text("filter", self.filter)
        _check_text("order_by", self.order_by)
        _check_search_mode(self.search_mode)
        _keep_boost_spec(self)
