"""Per-call options of search, grounding check and answer, validated against the API limits.

Each spec refuses a value the service would refuse, with an ``InputError`` that names the
field, the limit and what to do, before anything is sent.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import partial
from types import MappingProxyType
from typing import Any, Literal, TypedDict, get_args

from .errors import InputError
from .validation import check_field_types, check_wire_text, jsonable_metadata

__all__ = [
    "DEFAULT_CITATION_THRESHOLD",
    "DEFAULT_DEVELOPER_KNOWLEDGE_K",
    "DEFAULT_MAX_RETURN_RESULTS",
    "DEFAULT_SEARCH_K",
    "MAX_CHUNK_NEIGHBOURS",
    "MAX_EXTRACTIVE_ANSWERS",
    "MAX_EXTRACTIVE_SEGMENTS",
    "MAX_FACET_SPECS",
    "MAX_LABEL_CHARS",
    "MAX_PAGE_SIZE",
    "MAX_REPHRASE_STEPS",
    "MAX_USER_LABELS",
    "MAX_USER_PSEUDO_ID",
    "AnswerOptions",
    "AnswerSpec",
    "ChunkSearchSpec",
    "DataStoreSpec",
    "DeveloperKnowledgeSearchSpec",
    "DocumentText",
    "FilteringLevel",
    "GroundingSpec",
    "QueryClassificationType",
    "QueryExpansion",
    "RelevanceThreshold",
    "SearchOptions",
    "SearchResultMode",
    "SpellCorrection",
    "check_count",
    "check_fraction",
    "check_user_labels",
    "check_user_pseudo_id",
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


def _keep_boost_spec(spec: ChunkSearchSpec | AnswerSpec | DataStoreSpec) -> None:
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
    jsonable_metadata(spec.boost_spec, "boost_spec")  # no lone surrogate, no cycle
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
    return check_wire_text(name, value)


QueryExpansion = Literal["auto", "disabled"]
SpellCorrection = Literal["auto", "suggestion_only"]
# ExtractiveContentSpec: "At most five answers are returned for each SearchResult"; segments at
# most 10 ("Get snippets and extracted content"); SearchRequest.facet_specs: "A maximum of 100".
MAX_EXTRACTIVE_ANSWERS = 5
MAX_EXTRACTIVE_SEGMENTS = 10
MAX_FACET_SPECS = 100
# Options that only DOCUMENTS mode has (a chunk result has no derived struct data to carry them).
_DOCUMENT_OPTIONS = (
    "max_extractive_answer_count",
    "max_extractive_segment_count",
    "return_extractive_segment_score",
    "num_previous_segments",
    "num_next_segments",
)
# Which content of a DOCUMENTS-mode result becomes its text ("auto": the first there is).
DocumentText = Literal[
    "auto", "extractive_segments", "extractive_answers", "snippets", "struct_data"
]
DOCUMENT_TEXTS: tuple[DocumentText, ...] = get_args(DocumentText)
# What each content needs asked for: (the option, its value that asks for none, how to ask).
_DOCUMENT_TEXT_NEEDS = {
    "extractive_segments": (
        "max_extractive_segment_count",
        0,
        f"set it to 1..{MAX_EXTRACTIVE_SEGMENTS}",
    ),
    "extractive_answers": (
        "max_extractive_answer_count",
        0,
        f"set it to 1..{MAX_EXTRACTIVE_ANSWERS}",
    ),
    "snippets": ("return_snippet", False, "leave it None or set it True"),
}


def _keep_mappings(spec: ChunkSearchSpec, name: str, example: str) -> None:
    """``spec.name`` as a tuple of copied dicts (the API's message in dict form)."""
    value = getattr(spec, name)
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise InputError(
            f"{name} must be a list of dicts in the API's form, e.g. [{example}]", field=name
        )
    kept = []
    for number, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise InputError(
                f"{name}[{number}] must be a dict in the API's form, e.g. {example}, "
                f"got {type(item).__name__}",
                field=f"{name}[{number}]",
            )
        jsonable_metadata(item, f"{name}[{number}]")  # no lone surrogate, no cycle
        kept.append(copy.deepcopy(dict(item)))
    object.__setattr__(spec, name, tuple(kept))


@dataclass(frozen=True, slots=True)
class ChunkSearchSpec:
    """Options of a Discovery Engine search (Google's ``SearchRequest`` field docs; each option
    is named after its field).

    ``k`` results are returned (pages of up to 100 are fetched until ``k`` are collected or the
    results run out). ``boost_spec`` takes the API's ``BoostSpec`` as a dict, e.g.
    ``{"condition_boost_specs": [{"condition": 'lang: ANY("en")', "boost": 0.5}]}``.
    Neighbouring chunks (``num_previous_chunks``/``num_next_chunks``, at most 3) exist only in
    chunk mode (``search_mode="chunks"``, the default; ``"documents"`` for structured and
    website data stores).

    Documents mode only ("Get snippets and extracted content"): ``return_snippet`` (``None``,
    the default, asks for snippets in documents mode: they exist on every edition),
    ``max_extractive_answer_count`` (0..5), ``max_extractive_segment_count`` (0..10; extractive
    content needs the Enterprise edition on Google), ``return_extractive_segment_score``,
    ``num_previous_segments``/``num_next_segments`` (with segments). ``document_text``: which
    content becomes a result's text (``SourceChunk.content``: ``page_content`` / node text):
    ``"auto"`` (the default) its extractive segments, else its extractive answers, else its
    snippets, else its struct data; ``"extractive_segments"``, ``"extractive_answers"`` (each
    part joined by a blank line), ``"snippets"`` (without the ``<b>`` highlighting; "No
    snippet is available" ones left out) or ``"struct_data"`` (``key: value`` lines, sorted)
    only that content. The content must be asked for (an ``InputError`` says which option to
    set). A result without the chosen content is still returned, with an empty text: one
    record per search result, in the search's order, whatever the choice (its metadata, all
    the content included in ``derived_struct_data``, is kept).

    Query: ``spell_correction`` (``"auto"``, Google's default, or ``"suggestion_only"``),
    ``query_expansion`` (``"auto"`` or ``"disabled"``, Google's default) with
    ``pin_unexpanded_results``; ``canonical_filter`` (``SearchRequest.canonical_filter``, in
    ``filter``'s syntax: the filter under which Google decides whether a query has too few
    results and needs expanding; the results still pass ``filter``); ``language_code``,
    ``user_pseudo_id`` (at most 128 characters), ``session`` (a session resource name);
    ``relevance_filter_spec`` (a ``RelevanceFilterSpec`` dict). ``data_store_specs``:
    ``DataStoreSpec`` records (an engine over several data stores; each with its filter and
    boost). ``facet_specs``: ``FacetSpec`` dicts (at most 100), e.g.
    ``{"facet_key": {"key": "lang"}, "limit": 10}``; the counts come back in
    ``SearchResults.facets``.

    >>> ChunkSearchSpec(k=5, filter='lang: ANY("en")', num_next_chunks=1).k
    5
    >>> ChunkSearchSpec(search_mode="documents", max_extractive_segment_count=3).return_snippet
    """

    k: int = 10
    filter: str = ""
    boost_spec: Mapping[str, Any] | None = None
    order_by: str = ""
    num_previous_chunks: int = 0
    num_next_chunks: int = 0
    relevance_threshold: RelevanceThreshold | None = None
    search_mode: SearchResultMode = "chunks"
    return_snippet: bool | None = None
    max_extractive_answer_count: int = 0
    max_extractive_segment_count: int = 0
    return_extractive_segment_score: bool = False
    num_previous_segments: int = 0
    num_next_segments: int = 0
    document_text: DocumentText = "auto"
    spell_correction: SpellCorrection | None = None
    query_expansion: QueryExpansion | None = None
    pin_unexpanded_results: bool = False
    canonical_filter: str = ""
    language_code: str = ""
    user_pseudo_id: str = ""
    session: str = ""
    relevance_filter_spec: Mapping[str, Any] | None = None
    data_store_specs: tuple[DataStoreSpec, ...] = ()
    facet_specs: tuple[Mapping[str, Any], ...] = ()

    def __post_init__(self) -> None:
        check_field_types(self)
        check_count("k", self.k, minimum=1)
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
        self._check_content()
        self._check_query_options()

    def _check_content(self) -> None:
        check_count(
            "max_extractive_answer_count",
            self.max_extractive_answer_count,
            minimum=0,
            maximum=MAX_EXTRACTIVE_ANSWERS,
        )
        check_count(
            "max_extractive_segment_count",
            self.max_extractive_segment_count,
            minimum=0,
            maximum=MAX_EXTRACTIVE_SEGMENTS,
        )
        for name in ("num_previous_segments", "num_next_segments"):
            check_count(name, getattr(self, name), minimum=0)
        if self.search_mode == "chunks":
            given = [n for n in ("return_snippet", *_DOCUMENT_OPTIONS) if getattr(self, n)]
            if given:
                raise InputError(
                    f"{', '.join(given)} need search_mode='documents': chunk results carry no "
                    "snippets or extractive content (a chunk's text is its content)",
                    field=given[0],
                )
        if not self.max_extractive_segment_count:
            given = [n for n in _DOCUMENT_OPTIONS[2:] if getattr(self, n)]
            if given:
                raise InputError(
                    f"{', '.join(given)} need max_extractive_segment_count > 0: they shape the "
                    "extractive segments",
                    field=given[0],
                )
        self._check_document_text()

    def _check_document_text(self) -> None:
        choice = self.document_text
        _check_choice("document_text", choice, DOCUMENT_TEXTS)
        if choice == "auto":
            return
        if self.search_mode == "chunks":
            raise InputError(
                f"document_text={choice!r} needs search_mode='documents': a chunk result's "
                "text is its content (leave document_text 'auto' in chunk mode)",
                field="document_text",
            )
        if choice in _DOCUMENT_TEXT_NEEDS:
            option, none, remedy = _DOCUMENT_TEXT_NEEDS[choice]
            if getattr(self, option) == none:
                raise InputError(
                    f"document_text={choice!r} needs {choice.replace('_', ' ')}, but "
                    f"{option}={none!r} asks for none: {remedy}",
                    field="document_text",
                )

    def _check_query_options(self) -> None:
        if self.spell_correction is not None:
            _check_choice("spell_correction", self.spell_correction, ("auto", "suggestion_only"))
        if self.query_expansion is not None:
            _check_choice("query_expansion", self.query_expansion, ("auto", "disabled"))
        if self.pin_unexpanded_results and self.query_expansion != "auto":
            raise InputError(
                "pin_unexpanded_results needs query_expansion='auto': only an expanded query "
                "has unexpanded results to pin",
                field="pin_unexpanded_results",
            )
        check_user_pseudo_id(self.user_pseudo_id)
        if self.relevance_filter_spec is not None:
            if not isinstance(self.relevance_filter_spec, Mapping):
                raise InputError(
                    "relevance_filter_spec must be a dict in the API's RelevanceFilterSpec form, "
                    "e.g. {'keyword_search_threshold': {'relevance_threshold': 'LOW'}}",
                    field="relevance_filter_spec",
                )
            jsonable_metadata(self.relevance_filter_spec, "relevance_filter_spec")
            object.__setattr__(
                self, "relevance_filter_spec", copy.deepcopy(dict(self.relevance_filter_spec))
            )
        for spec in _keep_tuple(self, "data_store_specs"):
            if not isinstance(spec, DataStoreSpec):
                raise InputError(
                    f"data_store_specs must hold DataStoreSpec records, got {type(spec).__name__}",
                    field="data_store_specs",
                )
        _keep_mappings(self, "facet_specs", "{'facet_key': {'key': 'lang'}, 'limit': 10}")
        if len(self.facet_specs) > MAX_FACET_SPECS:
            raise InputError(
                f"facet_specs has {len(self.facet_specs)} specs; the API accepts at most "
                f"{MAX_FACET_SPECS}",
                field="facet_specs",
                limit=MAX_FACET_SPECS,
            )


class SearchOptions(TypedDict, total=False):
    """The fields of ``ChunkSearchSpec`` as keyword arguments (any may be left out:
    ``ChunkSearchSpec``'s defaults apply), for components that take them as ``**options``.
    A sequence option may be any sequence (the spec keeps a tuple)."""

    k: int
    filter: str
    boost_spec: Mapping[str, Any] | None
    order_by: str
    num_previous_chunks: int
    num_next_chunks: int
    relevance_threshold: RelevanceThreshold | None
    search_mode: SearchResultMode
    return_snippet: bool | None
    max_extractive_answer_count: int
    max_extractive_segment_count: int
    return_extractive_segment_score: bool
    num_previous_segments: int
    num_next_segments: int
    document_text: DocumentText
    spell_correction: SpellCorrection | None
    query_expansion: QueryExpansion | None
    pin_unexpanded_results: bool
    canonical_filter: str
    language_code: str
    user_pseudo_id: str
    session: str
    relevance_filter_spec: Mapping[str, Any] | None
    data_store_specs: Sequence[DataStoreSpec]
    facet_specs: Sequence[Mapping[str, Any]]


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
        check_field_types(self)
        check_count("k", self.k, minimum=1)
        _check_text("filter", self.filter, maximum=MAX_DEVELOPER_KNOWLEDGE_TEXT)


# CheckGroundingRequest.user_labels: "up to a maximum of 64" labels; keys of 1 to 63 characters,
# values of at most 63 ("Keys and values can contain only lowercase letters, numeric
# characters, underscores, and dashes ... international characters are allowed"; "Keys must
# start with a lowercase letter or international character").
MAX_USER_LABELS = 64
MAX_LABEL_CHARS = 63


def _label_char(char: str) -> bool:
    return char in "_-" or char.isdigit() or (char.isalpha() and not char.isupper())


def check_user_labels(labels: object) -> Mapping[str, str]:
    """A read-only copy of ``labels`` if they meet Google's label requirements, else an
    ``InputError`` naming ``user_labels``, the label and the rule it breaks.

    >>> dict(check_user_labels({"env": "prod", "équipe": ""}))
    {'env': 'prod', 'équipe': ''}
    """
    if not isinstance(labels, Mapping):
        raise InputError(
            f"user_labels must be a mapping of str to str, got {type(labels).__name__}",
            field="user_labels",
        )
    if len(labels) > MAX_USER_LABELS:
        raise InputError(
            f"user_labels has {len(labels)} labels; at most {MAX_USER_LABELS} are allowed",
            field="user_labels",
            limit=MAX_USER_LABELS,
        )
    rule = "use lowercase letters, digits, '_' and '-' (international characters are allowed)"
    for key, value in labels.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise InputError(
                f"user_labels[{key!r}]: keys and values must be strings, got "
                f"{type(key).__name__} -> {type(value).__name__}",
                field="user_labels",
            )
        if not 1 <= len(key) <= MAX_LABEL_CHARS:
            raise InputError(
                f"user_labels: the key {key!r} has {len(key)} characters; a key has 1 to "
                f"{MAX_LABEL_CHARS}",
                field="user_labels",
                limit=MAX_LABEL_CHARS,
            )
        if len(value) > MAX_LABEL_CHARS:
            raise InputError(
                f"user_labels[{key!r}] has {len(value)} characters; a value has at most "
                f"{MAX_LABEL_CHARS}",
                field="user_labels",
                limit=MAX_LABEL_CHARS,
            )
        if not (key[0].isalpha() and not key[0].isupper()):
            raise InputError(
                f"user_labels: the key {key!r} must start with a lowercase letter or an "
                "international character",
                field="user_labels",
            )
        for part, text in (("key", key), ("value", value)):
            bad = next((c for c in text if not _label_char(c)), None)
            if bad is not None:
                raise InputError(
                    f"user_labels: the {part} {text!r} has {bad!r}: {rule}",
                    field="user_labels",
                )
    return MappingProxyType(dict(labels))


@dataclass(frozen=True, slots=True)
class GroundingSpec:
    """Options of a grounding check.

    ``citation_threshold`` (0..1, default ``DEFAULT_CITATION_THRESHOLD``, 0.6): a fact is
    cited for a claim when its support score reaches it; higher means fewer, stronger
    citations. ``enable_claim_level_score`` fills ``Claim.score``. ``user_labels``
    (``CheckGroundingRequest.user_labels``, e.g. for billing reports) are checked as Google
    documents labels (``check_user_labels``) and kept as a read-only copy.

    >>> GroundingSpec(user_labels={"team": "docs"}).user_labels["team"]
    'docs'
    """

    citation_threshold: float = DEFAULT_CITATION_THRESHOLD
    enable_claim_level_score: bool = False
    user_labels: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # First: its message says the range as well as the type.
        check_fraction("citation_threshold", self.citation_threshold)
        check_field_types(self)
        object.__setattr__(self, "user_labels", check_user_labels(self.user_labels))

    def __reduce__(self) -> tuple[Any, ...]:
        # A read-only mapping cannot be pickled or deep-copied: the labels go as a dict and
        # are checked again when the spec is rebuilt.
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["user_labels"] = dict(self.user_labels)
        return (partial(type(self), **values), ())


@dataclass(frozen=True, slots=True)
class DataStoreSpec:
    """One data store of a multi-data-store engine in an answer's search, and the filter for
    its documents (``search_params.data_store_specs``, and ``SearchRequest.data_store_specs``;
    Google: "only considered for engines with multiple dataStores"); ``boost_spec`` (a
    ``BoostSpec`` dict) boosts in that data store (Search). ``data_store`` is a data store id
    (named in the target's project, location and collection) or a full resource name: Google
    wants the project *number* in it
    (``projects/123456/locations/global/collections/default_collection/dataStores/docs``).

    >>> DataStoreSpec("manuals", filter='lang: ANY("en")').filter
    'lang: ANY("en")'
    """

    data_store: str
    filter: str = ""
    boost_spec: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        check_field_types(self)
        if not self.data_store.strip():
            raise InputError(
                "data_store is empty: give a data store id or its full resource name",
                field="data_store_specs.data_store",
            )
        _keep_boost_spec(self)


QueryClassificationType = Literal[
    "adversarial_query",
    "non_answer_seeking_query",
    "jail_breaking_query",
    "non_answer_seeking_query_v2",
    "user_defined_classification_query",
]
FilteringLevel = Literal["low", "high"]
QUERY_CLASSIFICATION_TYPES: tuple[QueryClassificationType, ...] = get_args(QueryClassificationType)
FILTERING_LEVELS: tuple[FilteringLevel, ...] = get_args(FilteringLevel)
# QueryRephraserSpec.max_rephrase_steps: "The max number is 5 steps."
MAX_REPHRASE_STEPS = 5
# AnswerQueryRequest.user_pseudo_id: "a length limit of 128 characters".
MAX_USER_PSEUDO_ID = 128


def check_user_pseudo_id(value: object) -> str:
    """``value`` if it is a valid ``user_pseudo_id`` (a string of at most 128 characters), else
    an ``InputError``."""
    return _check_text("user_pseudo_id", value, maximum=MAX_USER_PSEUDO_ID)


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise InputError(
            f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}",
            field=name,
        )


def _keep_tuple(spec: AnswerSpec | ChunkSearchSpec, name: str) -> tuple[Any, ...]:
    """``spec.name`` as a tuple (a list given by the caller may change later; a frozen spec may
    not)."""
    value = getattr(spec, name)
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise InputError(f"{name} must be a list or tuple, got {type(value).__name__}", field=name)
    object.__setattr__(spec, name, tuple(value))
    return tuple(value)


@dataclass(frozen=True, slots=True)
class AnswerSpec:
    """Options of a Discovery Engine ``answerQuery`` (Google's ``AnswerQueryRequest`` field
    docs; each option is named after its field).

    Search: ``max_return_results`` (1..100), ``filter``, ``boost_spec`` (a ``BoostSpec`` as a
    dict), ``order_by``, ``data_store_specs`` (``DataStoreSpec``s, for engines over several
    data stores) and ``search_mode``: ``"chunks"`` by default (this project grounds on chunks),
    ``"documents"``, or ``None`` to send no mode (Google's default, documents, as Google's
    answer sample does).
    Query understanding: ``disable_query_rephraser``, ``max_rephrase_steps`` (1..5),
    ``query_classification_types``, ``disable_spell_correction``.
    Answer generation: ``include_citations``, ``preamble``, ``model_version``,
    ``answer_language_code``, the ``ignore_*`` flags, ``safety_filtering``
    (``safety_spec.enable``), ``related_questions``; grounding: ``include_grounding_supports``
    (also fills ``grounding_score``), ``filtering_level`` (``"low"``/``"high"``).
    ``user_pseudo_id`` (at most 128 characters) identifies the visitor; ``session``: ``None``
    (sessionless), ``"-"`` (start a session) or a session id or resource name (continue it).

    >>> AnswerSpec(max_return_results=5, include_citations=True).max_return_results
    5
    """

    include_citations: bool = True
    max_return_results: int = DEFAULT_MAX_RETURN_RESULTS
    filter: str = ""
    boost_spec: Mapping[str, Any] | None = None
    order_by: str = ""
    search_mode: SearchResultMode | None = "chunks"
    data_store_specs: tuple[DataStoreSpec, ...] = ()
    preamble: str = ""
    model_version: str = ""
    answer_language_code: str = ""
    include_grounding_supports: bool = False
    filtering_level: FilteringLevel | None = None
    ignore_adversarial_query: bool = False
    ignore_non_answer_seeking_query: bool = False
    ignore_jail_breaking_query: bool = False
    ignore_low_relevant_content: bool | None = None
    safety_filtering: bool = False
    related_questions: bool = False
    disable_query_rephraser: bool = False
    max_rephrase_steps: int | None = None
    query_classification_types: tuple[QueryClassificationType, ...] = ()
    disable_spell_correction: bool = False
    user_pseudo_id: str = ""
    session: str | None = None

    def __post_init__(self) -> None:
        check_field_types(self)
        check_count("max_return_results", self.max_return_results, minimum=1, maximum=100)
        if self.search_mode is not None:
            _check_search_mode(self.search_mode)
        _keep_boost_spec(self)
        for spec in _keep_tuple(self, "data_store_specs"):
            if not isinstance(spec, DataStoreSpec):
                raise InputError(
                    f"data_store_specs must hold DataStoreSpec records, got {type(spec).__name__}",
                    field="data_store_specs",
                )
        if self.filtering_level is not None:
            _check_choice("filtering_level", self.filtering_level, FILTERING_LEVELS)
        if self.max_rephrase_steps is not None:
            check_count(
                "max_rephrase_steps", self.max_rephrase_steps, minimum=1, maximum=MAX_REPHRASE_STEPS
            )
        for kind in _keep_tuple(self, "query_classification_types"):
            _check_choice("query_classification_types", kind, QUERY_CLASSIFICATION_TYPES)
        check_user_pseudo_id(self.user_pseudo_id)
        if self.session is not None and not self.session.strip():
            raise InputError(
                "session is empty: give None (no session), '-' (start one) or a session id",
                field="session",
            )


class AnswerOptions(TypedDict, total=False):
    """The fields of ``AnswerSpec`` as keyword arguments (any may be left out: ``AnswerSpec``'s
    defaults apply), for components that take them as ``**options`` and hand them on. A
    sequence option may be any sequence (the spec keeps a tuple)."""

    include_citations: bool
    max_return_results: int
    filter: str
    boost_spec: Mapping[str, Any] | None
    order_by: str
    search_mode: SearchResultMode | None
    data_store_specs: Sequence[DataStoreSpec]
    preamble: str
    model_version: str
    answer_language_code: str
    include_grounding_supports: bool
    filtering_level: FilteringLevel | None
    ignore_adversarial_query: bool
    ignore_non_answer_seeking_query: bool
    ignore_jail_breaking_query: bool
    ignore_low_relevant_content: bool | None
    safety_filtering: bool
    related_questions: bool
    disable_query_rephraser: bool
    max_rephrase_steps: int | None
    query_classification_types: Sequence[QueryClassificationType]
    disable_spell_correction: bool
    user_pseudo_id: str
    session: str | None
