"""The options of a search, checked against Google's documented limits: ``ChunkSearchSpec``
(Discovery Engine), ``DataStoreSpec``, ``DeveloperKnowledgeSearchSpec``, ``SearchOptions``. A
value the service would refuse raises an ``InputError`` (field, limit, what to do) before
anything is sent."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict, TypeVar, get_args

from grounding_core._checks import (
    MAX_USER_PSEUDO_ID,
    check_choice,
    check_count,
    check_fields,
    check_text,
    jsonable_metadata,
)
from grounding_core._errors import InputError

MAX_PAGE_SIZE = 100
MAX_CHUNK_NEIGHBOURS = 3
# SearchDocumentChunksRequest.query and .filter, AnswerQueryRequest.query: at most 500 characters.
MAX_DEVELOPER_KNOWLEDGE_TEXT = 500
# How many chunks a search returns unless told: the retrievers', the CLI's and the spec's.
DEFAULT_SEARCH_K = 4
DEFAULT_DEVELOPER_KNOWLEDGE_K = 5
# ExtractiveContentSpec: "At most five answers are returned for each SearchResult"; segments at
# most 10 ("Get snippets and extracted content"); SearchRequest.facet_specs: "A maximum of 100".
MAX_EXTRACTIVE_ANSWERS = 5
MAX_EXTRACTIVE_SEGMENTS = 10
MAX_FACET_SPECS = 100

RelevanceThreshold = Literal["lowest", "low", "medium", "high"]
THRESHOLDS: tuple[RelevanceThreshold, ...] = get_args(RelevanceThreshold)
SearchResultMode = Literal["chunks", "documents"]
SEARCH_MODES: tuple[SearchResultMode, ...] = get_args(SearchResultMode)
QueryExpansion = Literal["auto", "disabled"]
SpellCorrection = Literal["auto", "suggestion_only"]
# Which content of a DOCUMENTS-mode result becomes its text ("auto": the first there is).
DocumentText = Literal[
    "auto", "extractive_segments", "extractive_answers", "snippets", "struct_data", "struct_json"
]
DOCUMENT_TEXTS: tuple[DocumentText, ...] = get_args(DocumentText)

# The API's messages in dict form, as errors show them.
BOOST_SPEC_EXAMPLE = "{'condition_boost_specs': [{'condition': 'lang: ANY(\"en\")', 'boost': 0.5}]}"
FACET_SPEC_EXAMPLE = "{'facet_key': {'key': 'lang'}, 'limit': 10}"
RELEVANCE_FILTER_SPEC_EXAMPLE = "{'keyword_search_threshold': {'relevance_threshold': 'LOW'}}"

# The counts of DOCUMENTS mode and their upper limits (None: none).
_COUNTS = {
    "max_extractive_answer_count": MAX_EXTRACTIVE_ANSWERS,
    "max_extractive_segment_count": MAX_EXTRACTIVE_SEGMENTS,
    "num_previous_segments": None,
    "num_next_segments": None,
}
_SEGMENT_OPTIONS = ("return_extractive_segment_score", "num_previous_segments", "num_next_segments")
# What each content needs asked for: the option, and its value that asks for none.
_DOCUMENT_TEXT_NEEDS = {
    "extractive_segments": ("max_extractive_segment_count", 0),
    "extractive_answers": ("max_extractive_answer_count", 0),
    "snippets": ("return_snippet", False),
}


def _dict_copy(value: Any, name: str, form: str, example: str) -> dict[str, Any]:
    """``value``, an API message in dict form, as a private copy (the caller's may change, a
    frozen spec may not); an ``InputError`` naming ``name`` if it is not a dict."""
    if not isinstance(value, Mapping):
        raise InputError(
            f"{name} must be a dict in the API's {form} form, e.g. {example}, "
            f"got {type(value).__name__}",
            field=name,
        )
    jsonable_metadata(value, name)  # no lone surrogate, no cycle
    return copy.deepcopy(dict(value))


def keep_boost_spec(spec: Any) -> None:
    """Check ``spec.boost_spec`` (``None``: none) and keep a private copy of it."""
    if spec.boost_spec is not None:
        kept = _dict_copy(spec.boost_spec, "boost_spec", "BoostSpec", BOOST_SPEC_EXAMPLE)
        object.__setattr__(spec, "boost_spec", kept)


@dataclasses.dataclass(frozen=True, slots=True)
class ChunkSearchSpec:
    """Options of a Discovery Engine search, each named after its ``SearchRequest`` field.

    ``k`` results are returned (pages of up to 100 fetched until ``k`` are collected or the
    results run out). ``boost_spec`` takes the API's ``BoostSpec`` as a dict
    (``BOOST_SPEC_EXAMPLE``). Neighbouring chunks (``num_previous_chunks``/``num_next_chunks``,
    at most 3) exist only in chunk mode (``search_mode="chunks"``, the default; ``"documents"``
    for structured and website data stores).

    Documents mode only ("Get snippets and extracted content"): ``return_snippet`` (``None``
    asks for snippets, which every edition has), ``max_extractive_answer_count`` (0..5),
    ``max_extractive_segment_count`` (0..10; Enterprise edition),
    ``return_extractive_segment_score``, ``num_previous_segments``/``num_next_segments``.
    ``document_text`` chooses a result's text: ``"auto"`` its extractive segments, else answers,
    else snippets, else struct data; or only ``"extractive_segments"``, ``"extractive_answers"``,
    ``"snippets"`` (without the ``<b>`` highlighting), ``"struct_data"`` (sorted ``key: value``
    lines) or ``"struct_json"`` (the struct data as JSON, numbers as floats: the peers' text
    of a structured result), which must be asked for (a result without it keeps an empty text; its
    ``derived_struct_data`` has all).

    Query: ``spell_correction`` (``"auto"``, Google's default, or ``"suggestion_only"``),
    ``query_expansion`` (``"auto"`` or ``"disabled"``, Google's default) with
    ``pin_unexpanded_results``; ``canonical_filter`` (the filter under which Google decides
    whether a query needs expanding); ``language_code``, ``user_pseudo_id`` (at most 128
    characters), ``session``; ``relevance_filter_spec``; ``data_store_specs`` (an engine over
    several data stores); ``facet_specs`` (at most 100; counts in ``SearchResults.facets``).

    >>> ChunkSearchSpec(k=5, filter='lang: ANY("en")', num_next_chunks=1).k
    5
    >>> ChunkSearchSpec(search_mode="documents", max_extractive_segment_count=3).return_snippet
    """

    k: int = DEFAULT_SEARCH_K
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
        check_fields(self)
        check_count("k", self.k, minimum=1)
        for name in ("num_previous_chunks", "num_next_chunks"):
            check_count(name, getattr(self, name), minimum=0, maximum=MAX_CHUNK_NEIGHBOURS)
        check_choice("search_mode", self.search_mode, SEARCH_MODES)
        if self.search_mode != "chunks" and (self.num_previous_chunks or self.num_next_chunks):
            raise InputError(
                "num_previous_chunks/num_next_chunks need search_mode='chunks': documents have no "
                "neighbouring chunks",
                field="chunk_spec",
            )
        check_choice("relevance_threshold", self.relevance_threshold, (None, *THRESHOLDS))
        keep_boost_spec(self)
        self._check_content()
        self._check_query_options()

    def _check_content(self) -> None:
        for name, maximum in _COUNTS.items():
            check_count(name, getattr(self, name), minimum=0, maximum=maximum)
        if self.search_mode == "chunks":  # a chunk has no derived struct data to carry them
            counts = ("max_extractive_answer_count", "max_extractive_segment_count")
            self._refuse_given(
                ("return_snippet", *counts, *_SEGMENT_OPTIONS),
                "search_mode='documents': chunk results carry no snippets or extractive content "
                "(a chunk's text is its content)",
            )
        elif not self.max_extractive_segment_count:  # (chunk mode refused them all)
            self._refuse_given(
                _SEGMENT_OPTIONS,
                "max_extractive_segment_count > 0: they shape the extractive segments",
            )
        choice = self.document_text
        check_choice("document_text", choice, DOCUMENT_TEXTS)
        if choice == "auto":
            return
        if self.search_mode == "chunks":
            raise InputError(
                f"document_text={choice!r} needs search_mode='documents': a chunk result's "
                "text is its content (leave document_text 'auto' in chunk mode)",
                field="document_text",
            )
        if choice in _DOCUMENT_TEXT_NEEDS:
            option, none = _DOCUMENT_TEXT_NEEDS[choice]
            if getattr(self, option) == none:
                remedy = "leave it None or set it True"
                if option in _COUNTS:
                    remedy = f"set it to 1..{_COUNTS[option]}"
                raise InputError(
                    f"document_text={choice!r} needs {choice.replace('_', ' ')}, but "
                    f"{option}={none!r} asks for none: {remedy}",
                    field="document_text",
                )

    def _refuse_given(self, names: tuple[str, ...], need: str) -> None:
        given = [name for name in names if getattr(self, name)]
        if given:
            raise InputError(f"{', '.join(given)} need {need}", field=given[0])

    def _check_query_options(self) -> None:
        if self.spell_correction is not None:
            check_choice("spell_correction", self.spell_correction, ("auto", "suggestion_only"))
        if self.query_expansion is not None:
            check_choice("query_expansion", self.query_expansion, ("auto", "disabled"))
        if self.pin_unexpanded_results and self.query_expansion != "auto":
            raise InputError(
                "pin_unexpanded_results needs query_expansion='auto': only an expanded query "
                "has unexpanded results to pin",
                field="pin_unexpanded_results",
            )
        check_text("user_pseudo_id", self.user_pseudo_id, maximum=MAX_USER_PSEUDO_ID)
        if self.relevance_filter_spec is not None:
            name = "relevance_filter_spec"
            kept = _dict_copy(
                self.relevance_filter_spec,
                name,
                "RelevanceFilterSpec",
                RELEVANCE_FILTER_SPEC_EXAMPLE,
            )
            object.__setattr__(self, name, kept)
        keep_data_store_specs(self)
        facets = self.facet_specs
        if isinstance(facets, str | bytes | Mapping) or not isinstance(facets, Sequence):
            raise InputError(
                f"facet_specs must be a list of dicts, e.g. [{FACET_SPEC_EXAMPLE}]",
                field="facet_specs",
            )
        if len(facets) > MAX_FACET_SPECS:
            raise InputError(
                f"facet_specs has {len(facets)} specs; the API accepts at most {MAX_FACET_SPECS}",
                field="facet_specs",
                limit=MAX_FACET_SPECS,
            )
        kept_facets = tuple(
            _dict_copy(facet, f"facet_specs[{n}]", "FacetSpec", FACET_SPEC_EXAMPLE)
            for n, facet in enumerate(facets)
        )
        object.__setattr__(self, "facet_specs", kept_facets)


class SearchOptions(TypedDict, total=False):
    """The fields of ``ChunkSearchSpec`` as keyword arguments (``**options``; any may be left
    out; a sequence option may be any sequence)."""

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


@dataclasses.dataclass(frozen=True, slots=True)
class DeveloperKnowledgeSearchSpec:
    """Options of a Developer Knowledge ``SearchDocumentChunks`` call (filter: AIP-160 on
    ``data_source``, ``uri``, ``update_time``, ``content_length_bytes``; at most 500 characters).

    >>> DeveloperKnowledgeSearchSpec(k=3, filter='data_source = "firebase.google.com"').k
    3
    """

    k: int = DEFAULT_DEVELOPER_KNOWLEDGE_K
    filter: str = ""

    def __post_init__(self) -> None:
        check_fields(self)
        check_count("k", self.k, minimum=1)
        check_text("filter", self.filter, maximum=MAX_DEVELOPER_KNOWLEDGE_TEXT)


@dataclasses.dataclass(frozen=True, slots=True)
class DataStoreSpec:
    """One data store of a multi-data-store engine (``SearchRequest.data_store_specs``, an
    answer's ``search_params.data_store_specs``; Google: "only considered for engines with
    multiple dataStores"), the filter for its documents and (Search only) its ``boost_spec``.
    ``data_store``: an id (in the target's project, location and collection) or a full resource
    name, with the project *number* (``projects/123456/locations/global/collections/...``).

    >>> DataStoreSpec("manuals", filter='lang: ANY("en")').filter
    'lang: ANY("en")'
    """

    data_store: str
    filter: str = ""
    boost_spec: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        check_fields(self)
        if not self.data_store.strip():
            raise InputError(
                "data_store is empty: give a data store id or its full resource name",
                field="data_store_specs.data_store",
            )
        keep_boost_spec(self)


_Spec = TypeVar("_Spec", ChunkSearchSpec, DeveloperKnowledgeSearchSpec)


def per_call(spec: _Spec, k: int | None, filter: str | None) -> _Spec:
    """``spec`` with the ``k`` and ``filter`` given to one call (``None``: the spec's)."""
    if k is None and filter is None:
        return spec
    k, filter = spec.k if k is None else k, spec.filter if filter is None else filter
    return dataclasses.replace(spec, k=k, filter=filter)


def keep_tuple(spec: Any, name: str) -> tuple[Any, ...]:
    """``spec.name`` kept as a tuple (the caller's list may change, a frozen spec may not)."""
    value = getattr(spec, name)
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise InputError(f"{name} must be a list or tuple, got {type(value).__name__}", field=name)
    object.__setattr__(spec, name, tuple(value))
    return tuple(value)


def keep_data_store_specs(spec: Any) -> None:
    """``spec.data_store_specs`` kept as a tuple of ``DataStoreSpec`` records."""
    for item in keep_tuple(spec, "data_store_specs"):
        if not isinstance(item, DataStoreSpec):
            raise InputError(
                f"data_store_specs must hold DataStoreSpec records, got {type(item).__name__}",
                field="data_store_specs",
            )
