"""The options of a search, each named after its ``SearchRequest`` field and checked against
Google's documented limits: ``ChunkSearchSpec`` (Discovery Engine), ``DataStoreSpec`` (one data
store of an engine), ``DeveloperKnowledgeSearchSpec``; their ``SearchOptions`` as keyword
arguments. A value the service would refuse raises an ``InputError`` naming the field, the limit
and what to do, before anything is sent.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, get_args

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

RelevanceThreshold = Literal["lowest", "low", "medium", "high"]
THRESHOLDS: tuple[RelevanceThreshold, ...] = get_args(RelevanceThreshold)
SearchResultMode = Literal["chunks", "documents"]


SEARCH_MODES: tuple[SearchResultMode, ...] = get_args(SearchResultMode)


def keep_boost_spec(spec: Any) -> None:
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
            option, none, remedy = _DOCUMENT_TEXT_NEEDS[choice]
            if getattr(self, option) == none:
                raise InputError(
                    f"document_text={choice!r} needs {choice.replace('_', ' ')}, but "
                    f"{option}={none!r} asks for none: {remedy}",
                    field="document_text",
                )

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
        keep_data_store_specs(self)
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
        check_fields(self)
        check_count("k", self.k, minimum=1)
        check_text("filter", self.filter, maximum=MAX_DEVELOPER_KNOWLEDGE_TEXT)


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
        check_fields(self)
        if not self.data_store.strip():
            raise InputError(
                "data_store is empty: give a data store id or its full resource name",
                field="data_store_specs.data_store",
            )
        keep_boost_spec(self)


def keep_tuple(spec: Any, name: str) -> tuple[Any, ...]:
    """``spec.name`` as a tuple (a list given by the caller may change later; a frozen spec may
    not)."""
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
