"""Plain, typed, frozen records: what the framework adapters receive instead of protos. Spans
are string indices (``start``/``end``) and the UTF-8 byte offsets the APIs use (``byte_*``)."""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast


def to_jsonable(value: Any) -> Any:
    """``value`` with records, tuples, mappings and datetimes turned into JSON types."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, _dt.datetime):
        return value.isoformat()
    return str(value)


class _Record:
    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The record as a dict of JSON-safe values."""
        return cast("dict[str, Any]", to_jsonable(self))


@dataclass(frozen=True, slots=True)
class PageSpan(_Record):
    """First and last page of a chunk (1-based, inclusive)."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class RankSignals(_Record):
    """Ranking signals of a search result; ``None`` where the service sent none."""

    keyword_similarity_score: float | None = None
    relevance_score: float | None = None
    semantic_similarity_score: float | None = None
    pctr_rank: float | None = None
    topicality_rank: float | None = None
    document_age: float | None = None
    boosting_factor: float | None = None
    default_rank: float | None = None
    custom_signals: Mapping[str, float] = field(default_factory=dict)
    precomputed_expression_values: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class AnnotationMetadata(_Record):
    """Structured content (a table, a signature, a checkbox) annotated in a chunk."""

    structure_type: str = ""
    content: str = ""
    image_id: str = ""


@dataclass(frozen=True, slots=True)
class SourceChunk(_Record):
    """A retrieved chunk (a search result, a ``DocumentChunk``, an answer's reference) with every
    field the service returned; ``name`` is unique (the chunk's resource name)."""

    name: str
    content: str
    id: str = ""
    document_id: str = ""
    document_name: str = ""
    uri: str = ""
    title: str = ""
    mime_type: str = ""
    description: str = ""
    data_source: str = ""
    update_time: _dt.datetime | None = None
    struct_data: Mapping[str, Any] = field(default_factory=dict)
    derived_struct_data: Mapping[str, Any] = field(default_factory=dict)
    page_span: PageSpan | None = None
    page_identifier: str = ""
    previous_chunks: tuple[SourceChunk, ...] = ()
    next_chunks: tuple[SourceChunk, ...] = ()
    relevance_score: float | None = None
    rank_signals: RankSignals | None = None
    model_scores: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    annotation_contents: tuple[str, ...] = ()
    annotation_metadata: tuple[AnnotationMetadata, ...] = ()
    data_urls: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FacetValue(_Record):
    """A facet value and how many matching documents have it: ``value`` (text) or ``interval``
    (numbers: its set bounds of ``minimum``, ``maximum`` and their ``exclusive_`` forms)."""

    count: int
    value: str = ""
    interval: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SearchFacet(_Record):
    """A facet of a search response: the struct data key and its values."""

    key: str
    values: tuple[FacetValue, ...] = ()
    dynamic_facet: bool = False


@dataclass(frozen=True, slots=True)
class SearchResults(_Record):
    """A Discovery Engine search: its results, and what its first page says of the whole
    (``corrected_query``: the spell correction, searched with under ``spell_correction="auto"``;
    ``expanded_query``, ``pinned_result_count``: the query expansion)."""

    chunks: tuple[SourceChunk, ...]
    total_size: int = 0
    corrected_query: str = ""
    expanded_query: bool = False
    pinned_result_count: int = 0
    facets: tuple[SearchFacet, ...] = ()
    attribution_token: str = ""


@dataclass(frozen=True, slots=True)
class GroundingSource(_Record):
    """One source for a grounding check: its text becomes a fact, its metadata the fact's
    attributes (strings as they are, other values as JSON)."""

    text: str
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CitedChunk(_Record):
    """A fact cited for a claim, by position among the sources given to the check
    (``source_index``) and among the facts sent (``fact_index``: empty sources are not sent)."""

    text: str
    source_index: int | None
    fact_index: int | None
    attributes: Mapping[str, str] = field(default_factory=dict)
    uri: str = ""
    title: str = ""
    domain: str = ""


ClaimStatus = Literal["supported", "unsupported", "not_checked"]

DEFAULT_MIN_SUPPORT_SCORE = 1.0
"""The support score at which an answer passes (``GroundingResult.verdict``)."""


@dataclass(frozen=True, slots=True)
class Claim(_Record):
    """One claim (a sentence) of a checked answer (``answer[start:end] == text``), cited by
    ``GroundingResult.cited_chunks[i]`` for each of ``citation_indices``."""

    text: str
    start: int | None = None
    end: int | None = None
    byte_start: int | None = None
    byte_end: int | None = None
    citation_indices: tuple[int, ...] = ()
    citations: tuple[CitedChunk, ...] = ()
    score: float | None = None
    grounding_check_required: bool = True

    @property
    def status(self) -> ClaimStatus:
        """``supported`` when cited, ``unsupported`` when checked and uncited, ``not_checked``
        when the service did no check (``grounding_check_required=False``: greetings...)."""
        if not self.grounding_check_required:
            return "not_checked"
        return "supported" if self.citation_indices else "unsupported"

    @property
    def source_indices(self) -> tuple[int, ...]:
        """Positions of the cited sources in the list given to the check, without repeats."""
        seen = dict.fromkeys(c.source_index for c in self.citations if c.source_index is not None)
        return tuple(seen)


@dataclass(frozen=True, slots=True)
class GroundingResult(_Record):
    """A grounding check of ``answer``: ``support_score`` (0..1, ``None`` when the service sent
    none) estimates how much of it the sources support."""

    answer: str
    support_score: float | None
    claims: tuple[Claim, ...] = ()
    cited_chunks: tuple[CitedChunk, ...] = ()
    cited_facts: tuple[str, ...] = ()

    @property
    def unsupported_claims(self) -> tuple[Claim, ...]:
        """Claims that were checked and found no support."""
        return tuple(c for c in self.claims if c.status == "unsupported")

    @property
    def checked_claims(self) -> tuple[Claim, ...]:
        """Claims that needed (and got) a grounding check."""
        return tuple(c for c in self.claims if c.grounding_check_required)

    def verdict(self, min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE) -> tuple[bool, str]:
        """The pass mark, and why: the support score reaches ``min_support_score``, or every
        claim that needed a check (at least one) is supported: Google's score comes from a model
        ("higher the score, higher is the fraction of claims that are supported").

        >>> fact = CitedChunk("Paris is the capital of France.", 0, 0)
        >>> cited = Claim("Paris is the capital.", citation_indices=(0,), citations=(fact,))
        >>> result = GroundingResult("...", 0.5, (cited, Claim("It has 90 million people.")))
        >>> result.verdict(), result.verdict(0.5)[0]
        ((False, 'below the minimum 1.00'), True)
        """
        score = self.support_score
        if score is not None and score >= min_support_score:
            return True, f"passed (minimum {min_support_score:.2f})"
        checked = self.checked_claims
        if checked and all(claim.status == "supported" for claim in checked):
            return True, "passed (every checked claim is supported)"
        return False, f"below the minimum {min_support_score:.2f}"

    def _repr_html_(self) -> str:
        from .views import grounding_html

        return grounding_html(self, full_document=False)

    def __rich__(self) -> Any:
        from .views import grounding_rich

        return grounding_rich(self)


@dataclass(frozen=True, slots=True)
class AnswerCitation(_Record):
    """A cited segment of a grounded answer: ``answer_text[start:end] == text``."""

    start: int
    end: int
    byte_start: int
    byte_end: int
    text: str
    reference_indices: tuple[int, ...] = ()
    references: tuple[SourceChunk, ...] = ()


@dataclass(frozen=True, slots=True)
class GroundingSupport(_Record):
    """A Discovery Engine grounding support: a segment, its score and its sources."""

    start: int
    end: int
    byte_start: int
    byte_end: int
    text: str
    score: float | None = None
    grounding_check_required: bool | None = None
    reference_indices: tuple[int, ...] = ()
    references: tuple[SourceChunk, ...] = ()


EMPTY_ANSWER = "EMPTY_ANSWER"
"""The skip reason of an answer without text or reason (Developer Knowledge sends no reason)."""


@dataclass(frozen=True, slots=True)
class GroundedAnswer(_Record):
    """An answer from ``answerQuery`` (Discovery Engine or Developer Knowledge): each of
    ``references`` has a name of its own; ``skipped_reasons`` says why the service declined to
    answer (``EMPTY_ANSWER``: no text, no reason); ``session`` names the session asked in."""

    answer_text: str
    citations: tuple[AnswerCitation, ...] = ()
    references: tuple[SourceChunk, ...] = ()
    grounding_score: float | None = None
    grounding_supports: tuple[GroundingSupport, ...] = ()
    state: str = ""
    skipped_reasons: tuple[str, ...] = ()
    related_questions: tuple[str, ...] = ()
    name: str = ""
    session: str = ""
    turns: tuple[Turn, ...] = ()

    @property
    def skipped(self) -> bool:
        """True when the service gave no answer (see ``skipped_reasons``)."""
        return bool(self.skipped_reasons)

    def stream(self) -> Iterator[str | GroundedAnswer]:
        """This answer in the shape of an answer stream: its text, then the record."""
        if self.answer_text:
            yield self.answer_text
        yield self

    def _repr_html_(self) -> str:
        from .views import answer_html

        return answer_html(self, full_document=False)

    def __rich__(self) -> Any:
        from .views import answer_rich

        return answer_rich(self)


@dataclass(frozen=True, slots=True)
class Turn(_Record):
    """A session's turn: the query, its answer's name, the answer when read with details."""

    query: str = ""
    query_id: str = ""
    answer: str = ""
    detailed_answer: GroundedAnswer | None = None


@dataclass(frozen=True, slots=True)
class Session(_Record):
    """A Discovery Engine conversation session (``SessionService``): its turns, oldest first."""

    name: str
    display_name: str = ""
    state: str = ""
    user_pseudo_id: str = ""
    turns: tuple[Turn, ...] = ()
    labels: tuple[str, ...] = ()
    start_time: _dt.datetime | None = None
    end_time: _dt.datetime | None = None
    is_pinned: bool = False

    @property
    def id(self) -> str:
        """The session id: the last segment of ``name``."""
        return self.name.rpartition("/")[2]
