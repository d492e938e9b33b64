"""The search engine (Search and SearchDocumentChunks semantics), pure: plain values in, records
out, no gRPC.

Ranking: the relevance in [0, 1], times the boost factor ``1 + sum(boost of each matching
condition)`` (a boost is in [-1, 1]: -1 buries, +1 doubles). The relevance is BM25's (see
``index.py``; raised for title matches, ``fusion.keyword_relevance``) on a BM25-only data
store; on a data store with vectors it is BM25 fused with the query's semantic similarity, mixed
with the relevance of the chunk's document, the best chunks raised by their best sentence
(``fusion.hybrid``), and a chunk also matches by meaning alone. An
empty query lists every chunk (or document) that passes the filter, in corpus order, ranked by the
boosts alone; on a BM25-only data store a query none of whose words is in the corpus finds
nothing.

Paging as documented by Google: ``page_size`` 0 means the default (50 for Discovery Engine, 5 for
Developer Knowledge), above 100 is coerced to 100, negative is ``INVALID_ARGUMENT``; ``offset``
skips results; ``next_page_token`` is opaque and bound to the query, filter, ordering and boosts
it was issued for (reusing it with another query is ``INVALID_ARGUMENT``).

Relevance thresholds: ``LOWEST`` keeps any match, ``LOW`` >= 0.1, ``MEDIUM`` >= 0.2,
``HIGH`` >= 0.35 of the relevance scale.

Search options (``SearchRequest`` v1 field docs):

- ``spell_correction_spec`` (``spelling.py``): ``AUTO`` searches with the corrected query,
  ``SUGGESTION_ONLY`` only reports it (``SearchPage.corrected_query``).
- ``query_expansion_spec.condition`` ``AUTO`` ("Automatic query expansion built by the Search
  API"; ``DISABLED``: "Only the exact search query is used, even if total_size is zero"). Google
  does not document its rule; the emulator's: when the exact query matches fewer results (chunks,
  or documents in DOCUMENTS mode) than the page asks for, each query token of at least four
  characters is widened to up to ``EXPANSIONS_PER_TOKEN`` indexed tokens that share its beginning
  (all of it but at most its last two characters, at least four), and the search runs again with
  them; ``expanded`` says whether that found more. With ``pin_unexpanded_results`` the exact
  query's results come first ("unexpanded products are always at the top of the search results,
  followed by the expanded results") and ``pinned_result_count`` counts them.
- ``canonical_filter`` ("In the case a query does not have a sufficient amount of results this
  filter will be used to determine whether or not to enable the query expansion flow. The
  original filter will still be used for the query expanded search"): under ``AUTO``, the exact
  query's matches are counted under the canonical filter in place of ``filter`` (the data store
  specs' filters still apply: they scope the data stores, not the user's choice); the results,
  expanded or not, pass ``filter``. Google's field doc gives it no other effect: without query
  expansion it is parsed and checked (``INVALID_ARGUMENT`` naming ``canonical_filter``) and
  changes nothing.
- ``data_store_specs`` (checked by the servicer): each spec's ``filter`` applies with the
  request's (both must match), its boosts add to the request's.
- ``facet_specs`` (``facets.py``): counted over every matching document.
- ``boost_spec`` (Google's "Boost search results" page and the ``ConditionBoostSpec`` field
  docs): a document matching a spec's ``condition`` gets its ``boost`` or, when the spec has a
  ``boost_control_spec`` ("If both are set then the global boost is ignored and the more
  fine-grained boost_control_spec is applied"), the piecewise linear curve through its control
  points at the document's attribute value: the number in ``field_name`` (``NUMERICAL``) or the
  time from that datetime to now (``FRESHNESS``), "equal to the boost amount of the first
  control point" below the first and of the last above the last. A document without the
  attribute gets no boost ("When these date values are missing, these fields become
  nullable"). The condition ``true`` matches every document: the page's freshness examples
  write ``"condition": true``, which the filter grammar does not define. ``datePublished`` and
  ``dateModified``, the dates Google infers for website data ("You can directly use these date
  properties ... without adding them to your schema"), may be named without being struct data
  fields; any other ``field_name`` must be one of the data store's, of the type its attribute
  type reads (``INVALID_ARGUMENT`` otherwise, as a filter's fields are checked).

``rerank_top`` (not a request field: the emulator's ``rerank_search`` option, 0 = off) reranks
the first results with the Rank scorer (``reranking.py``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from grounding_emulator.call_state import check_call, checked
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.records import Chunk, Document, data_source_of
from grounding_emulator.corpus.schema import parse_moment
from grounding_emulator.corpus.tokens import tokenize
from grounding_emulator.errors import InvalidArgument, excerpt
from grounding_emulator.limits import (
    DEFAULT_PAGE_SIZE,
    MAX_CHUNK_NEIGHBOURS,
    MAX_EXTRACTIVE_SEGMENTS,
    MAX_PAGE_SIZE,
)
from grounding_emulator.page_tokens import decode_page_token, encode_page_token, fingerprint
from grounding_emulator.search.facets import FacetCount, FacetRequest, check_facets, count_facets
from grounding_emulator.search.filters import (
    Expression,
    bind_filter,
    evaluate,
    parse_developer_knowledge_filter,
    parse_filter,
)
from grounding_emulator.search.fusion import fuse, hybrid, keyword_relevance
from grounding_emulator.search.heap import keep_freed_memory
from grounding_emulator.search.reranking import rerank
from grounding_emulator.search.spelling import correct_query

__all__ = [
    "INFERRED_DATES",
    "RELEVANCE_THRESHOLDS",
    "AttributeType",
    "BoostControl",
    "ChunkHit",
    "ConditionBoost",
    "Dialect",
    "DocumentHit",
    "Mode",
    "SearchPage",
    "SearchParams",
    "chunk_hits",
    "page_size_of",
    "search",
]

RELEVANCE_THRESHOLDS = {"LOWEST": 0.0, "LOW": 0.1, "MEDIUM": 0.2, "HIGH": 0.35}
# Documents mode: the best chunks of a document kept as its extractive segments.
SEGMENTS_PER_DOCUMENT = MAX_EXTRACTIVE_SEGMENTS
# Query expansion: indexed tokens added per query token, the shortest prefix compared.
EXPANSIONS_PER_TOKEN = 5
_MIN_EXPANDED_PREFIX = 4
SpellCorrection = Literal["", "AUTO", "SUGGESTION_ONLY"]

Dialect = Literal["discovery_engine", "developer_knowledge"]
Mode = Literal["chunks", "documents"]
AttributeType = Literal["NUMERICAL", "FRESHNESS"]
# The page dates Google infers for website data, usable without a schema ("Boost search results").
INFERRED_DATES = frozenset({"datePublished", "dateModified"})
# The boost condition of the page's freshness examples ("condition": true): every document.
_EVERY_DOCUMENT = "true"
_FIELD_TYPE: dict[AttributeType, str] = {"NUMERICAL": "number", "FRESHNESS": "datetime"}


@dataclass(frozen=True, slots=True)
class BoostControl:
    """A ``ConditionBoostSpec.BoostControlSpec``: the boost is the piecewise linear curve
    through ``points`` (attribute value, boost amount; attribute values increasing: numbers, or
    ages in seconds for ``FRESHNESS``) at a document's attribute value of ``field_name``.
    ``field`` is the request field it came from, for errors."""

    field_name: str
    attribute_type: AttributeType
    points: tuple[tuple[float, float], ...]
    field: str = "boost_spec.condition_boost_specs[0].boost_control_spec"


@dataclass(frozen=True, slots=True)
class ConditionBoost:
    """A ``BoostSpec.ConditionBoostSpec``: documents matching ``condition`` get ``boost``, or
    the amount ``control`` gives them when it is set (module docstring)."""

    condition: str
    boost: float
    control: BoostControl | None = None


@dataclass(frozen=True, slots=True)
class SearchParams:
    """What a search asks for, as plain values.

    ``chunk_spec_given`` says whether the request set a chunk spec at all (it is refused outside
    CHUNKS mode). ``scope`` (e.g. the data store or engine name) is bound into page tokens.
    ``filter_field`` names the filter in error messages. ``spell_correction`` "" is none (the
    servicer maps Google's unspecified mode to ``AUTO``); ``data_store_filters`` are
    ``(field, filter)`` pairs of the data store specs; ``canonical_filter`` decides query
    expansion (see the module docstring); ``num_previous_segments`` /
    ``num_next_segments`` give each DOCUMENTS-mode segment its neighbours.
    """

    query: str = ""
    page_size: int = 0
    page_token: str = ""
    offset: int = 0
    filter: str = ""
    order_by: str = ""
    boosts: tuple[ConditionBoost, ...] = ()
    mode: Mode = "chunks"
    num_previous_chunks: int = 0
    num_next_chunks: int = 0
    chunk_spec_given: bool = False
    relevance_threshold: str = ""
    dialect: Dialect = "discovery_engine"
    default_page_size: int = DEFAULT_PAGE_SIZE
    scope: str = ""
    filter_field: str = "filter"
    spell_correction: SpellCorrection = ""
    query_expansion: bool = False
    pin_unexpanded_results: bool = False
    canonical_filter: str = ""
    data_store_filters: tuple[tuple[str, str], ...] = ()
    facets: tuple[FacetRequest, ...] = ()
    num_previous_segments: int = 0
    num_next_segments: int = 0
    rerank_top: int = 0


@dataclass(frozen=True, slots=True)
class ChunkHit:
    """A chunk found by a search, with its scores and its neighbours (``semantic_score``: the
    cosine similarity to the query, ``None`` on a BM25-only data store)."""

    index: int
    chunk: Chunk
    document: Document
    relevance: float
    keyword_score: float
    boost: float
    rank: int
    previous: tuple[Chunk, ...] = ()
    next: tuple[Chunk, ...] = ()
    semantic_score: float | None = None


@dataclass(frozen=True, slots=True)
class DocumentHit:
    """A document found by a search (DOCUMENTS mode), with its best chunks (best first), the
    relevance of each (``chunk_relevances``; the document's ``relevance`` is the best of them)
    and, for each, its previous and next chunks when segment neighbours were asked for."""

    document_index: int
    document: Document
    relevance: float
    keyword_score: float
    boost: float
    rank: int
    chunks: tuple[Chunk, ...] = ()
    chunk_relevances: tuple[float, ...] = ()
    semantic_score: float | None = None
    neighbours: tuple[tuple[tuple[Chunk, ...], tuple[Chunk, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class SearchPage:
    """One page of results; ``total_size`` counts every match, ``next_page_token`` is empty on
    the last page. ``corrected_query`` is the spell correction found (searched with under
    ``AUTO``), ``query`` the query searched; ``expanded``/``pinned_result_count`` describe query
    expansion; ``facets`` the counts asked for."""

    hits: tuple[ChunkHit, ...] | tuple[DocumentHit, ...]
    total_size: int
    next_page_token: str = ""
    offset: int = 0
    corrected_query: str = ""
    query: str = ""
    expanded: bool = False
    pinned_result_count: int = 0
    facets: tuple[FacetCount, ...] = ()


# -- validation ---------------------------------------------------------------------------------


def page_size_of(value: int, *, default: int, field: str = "page_size") -> int:
    """The effective page size: 0 -> ``default``, > 100 -> 100, < 0 -> ``InvalidArgument``."""
    if value < 0:
        raise InvalidArgument(f"{field} must be >= 0, got {value}", field=field)
    if value == 0:
        return default
    return min(value, MAX_PAGE_SIZE)


def _check_params(params: SearchParams) -> None:
    if params.offset < 0:
        raise InvalidArgument(f"offset must be >= 0, got {params.offset}", field="offset")
    spec = "content_search_spec.chunk_spec"
    if params.chunk_spec_given and params.mode != "chunks":
        raise InvalidArgument(
            f"{spec} is only allowed when content_search_spec.search_result_mode is CHUNKS, "
            f"got {params.mode.upper()}",
            field=spec,
        )
    for name in ("num_previous_chunks", "num_next_chunks"):
        value = getattr(params, name)
        if not 0 <= value <= MAX_CHUNK_NEIGHBOURS:
            raise InvalidArgument(
                f"{spec}.{name} must be between 0 and {MAX_CHUNK_NEIGHBOURS}, got {value}",
                field=f"{spec}.{name}",
            )
    if params.relevance_threshold and params.relevance_threshold not in RELEVANCE_THRESHOLDS:
        raise InvalidArgument(
            f"relevance_threshold must be one of {', '.join(RELEVANCE_THRESHOLDS)}, "
            f"got {params.relevance_threshold}",
            field="relevance_threshold",
        )
    for name in ("num_previous_segments", "num_next_segments"):
        if getattr(params, name) < 0:
            field = f"content_search_spec.extractive_content_spec.{name}"
            raise InvalidArgument(f"{field} must be >= 0, got {getattr(params, name)}", field=field)
    check_facets(params.facets)
    for number, boost in enumerate(params.boosts):
        if not -1.0 <= boost.boost <= 1.0:
            field = f"boost_spec.condition_boost_specs[{number}].boost"
            raise InvalidArgument(
                f"{field} must be between -1 and 1, got {boost.boost}", field=field
            )


# -- filters ------------------------------------------------------------------------------------


def _developer_knowledge_fields(store: DataStore, index: int) -> dict[str, Any]:
    # Read from the columns: a filter reads every document, whose content need not be decoded.
    documents = store.documents
    uri = documents.uri(index)
    update_time = documents.update_time(index)
    return {
        "data_source": data_source_of(uri),
        "uri": uri,
        "update_time": update_time.timestamp() if update_time else None,
        "content_length_bytes": documents.content_length(index),
    }


def _struct_expression(store: DataStore, text: str, field: str) -> Expression | None:
    expression = parse_filter(text, field)
    if expression is None:
        return None
    return bind_filter(expression, store.struct_types, field, store.id)


def _filter_mask(
    store: DataStore, params: SearchParams, text: str, field: str
) -> np.ndarray | None:
    """The documents that pass filter ``text`` (the request's ``field``) and every data store
    spec's filter."""
    mask = _document_mask(store, text, field, params.dialect)
    for spec_field, spec_text in params.data_store_filters:
        more = _document_mask(store, spec_text, spec_field, params.dialect)
        if more is not None:
            mask = more if mask is None else mask & more
    return mask


def _document_mask(store: DataStore, text: str, field: str, dialect: Dialect) -> np.ndarray | None:
    if dialect == "developer_knowledge":
        expression = parse_developer_knowledge_filter(text, field)
        if expression is None:
            return None
        return store.document_mask(
            f"dk:{text}",
            lambda i: evaluate(expression, _developer_knowledge_fields(store, i)),
        )
    struct_expression = _struct_expression(store, text, field)
    if struct_expression is None:
        return None
    return store.document_mask(
        f"de:{text}", lambda i: evaluate(struct_expression, store.flat_struct(i))
    )


# -- ordering -----------------------------------------------------------------------------------


def _order_by(store: DataStore, text: str) -> list[tuple[str, bool]]:
    keys: list[tuple[str, bool]] = []
    for part in text.split(","):
        words = part.split()
        if not words:
            continue
        descending = len(words) == 2 and words[1].lower() == "desc"
        if len(words) > 2 or (len(words) == 2 and words[1].lower() not in ("asc", "desc")):
            raise InvalidArgument(
                f"order_by: {excerpt(part.strip())} is not 'field', 'field asc' or 'field desc'",
                field="order_by",
            )
        if words[0] not in store.struct_fields:
            known = ", ".join(sorted(store.struct_fields)) or "none"
            raise InvalidArgument(
                f"order_by: {excerpt(words[0])} is not a struct_data field of data store "
                f"{store.id!r} (fields: {known})",
                field="order_by",
            )
        keys.append((words[0], descending))
    return keys


def _sort_key(value: Any) -> tuple[int, Any]:
    if isinstance(value, bool):
        return (1, int(value))
    if isinstance(value, int | float):
        return (1, float(value))
    if isinstance(value, str):
        return (2, value)
    return (3, json.dumps(value, sort_keys=True, default=str))


def _ordered(
    candidates: np.ndarray,
    ranking: np.ndarray,
    need: int,
    keys: list[tuple[str, bool]],
    value_of: Any,
) -> np.ndarray:
    """The first ``need`` candidates: by ``keys`` (then ranking), else by ranking, then by
    position (so that equal scores page deterministically)."""
    if keys:
        order = sorted(candidates.tolist(), key=lambda i: (-float(ranking[i]), i))
        for name, descending in reversed(keys):
            present = [i for i in order if value_of(i, name) is not None]
            missing = [i for i in order if value_of(i, name) is None]
            present.sort(key=lambda i: _sort_key(value_of(i, name)), reverse=descending)
            order = present + missing  # documents without the field come last
        return np.asarray(order[:need], dtype=np.int64)
    if len(candidates) > need:
        scores = ranking[candidates]
        kth = np.partition(-scores, need - 1)[need - 1]
        candidates = candidates[-scores <= kth]
    scores = ranking[candidates]
    return candidates[np.lexsort((candidates, -scores))][:need]


# -- page tokens --------------------------------------------------------------------------------


def _bound_to(params: SearchParams) -> str:
    """What a page token of ``params`` is bound to: all but the page size and position."""
    key = [
        params.scope,
        params.query,
        params.filter,
        params.order_by,
        [(b.condition, b.boost, repr(b.control)) for b in params.boosts],
        params.mode,
        params.relevance_threshold,
        params.dialect,
        params.spell_correction,
        params.query_expansion,
        params.pin_unexpanded_results,
        params.canonical_filter,
        list(params.data_store_filters),
    ]
    return fingerprint(key)


_TOKEN_FIELDS = "the query, filter, order_by, boost spec and search mode"


# -- search -------------------------------------------------------------------------------------


def _check_control(store: DataStore, control: BoostControl) -> None:
    """``control.field_name`` is a field of the data store whose type its attribute reads."""
    field = f"{control.field}.field_name"
    types = store.struct_types.get(control.field_name)
    if types is None:
        if control.attribute_type == "FRESHNESS" and control.field_name in INFERRED_DATES:
            return
        known = ", ".join(sorted(store.struct_fields)[:30]) or "none"
        raise InvalidArgument(
            f"{field}: {excerpt(control.field_name)} is not a struct_data field of data store "
            f"{store.id!r} (fields: {known})",
            field=field,
        )
    wanted = _FIELD_TYPE[control.attribute_type]
    if types and wanted not in types:
        raise InvalidArgument(
            f"{field}: {excerpt(control.field_name)} holds {', '.join(sorted(types))} values; "
            f"attribute_type {control.attribute_type} reads a {wanted} field",
            field=field,
        )


def _attribute(value: Any, attribute_type: AttributeType, now: float) -> float:
    """A document's attribute value (``nan`` when it has none): its number, or its age in
    seconds."""
    if attribute_type == "NUMERICAL":
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return float(value) if number and math.isfinite(value) else math.nan
    moment = parse_moment(value) if isinstance(value, str) else None
    return now - moment[0] / 1e6 if moment is not None else math.nan


def _control_amounts(store: DataStore, control: BoostControl) -> np.ndarray:
    """Per document, the boost amount ``control`` gives it (0 without an attribute value)."""
    _check_control(store, control)
    now = time.time()
    values = np.fromiter(
        (
            _attribute(store.flat_struct(i).get(control.field_name), control.attribute_type, now)
            for i in range(len(store.documents))
        ),
        np.float64,
        len(store.documents),
    )
    xs, ys = zip(*control.points, strict=True)
    amounts: np.ndarray = np.nan_to_num(np.interp(values, xs, ys), nan=0.0)
    return amounts.astype(np.float32)


def _boost_factors(store: DataStore, params: SearchParams) -> np.ndarray | None:
    if not params.boosts:
        return None
    factors = np.ones(len(store.documents), dtype=np.float32)
    for number, boost in enumerate(params.boosts):
        check_call("boost condition", number + 1, len(params.boosts))
        field = f"boost_spec.condition_boost_specs[{number}].condition"
        if boost.condition.strip() == _EVERY_DOCUMENT:
            mask: np.ndarray | None = np.ones(len(store.documents), dtype=bool)
        else:
            mask = _document_mask(store, boost.condition, field, params.dialect)
        if mask is None:
            continue
        if boost.control is None:
            factors += np.float32(boost.boost) * mask
        else:
            factors += _control_amounts(store, boost.control) * mask
    return np.clip(factors, 0.0, None)


def _hybrid(
    store: DataStore,
    query: str,
    tokens: list[str],
    keyword: np.ndarray,
    eligible: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(cosine, relevance, candidate)`` per chunk on a data store with vectors."""
    semantic = store.semantic
    assert semantic is not None
    vector = semantic.query_vector(query)
    document = None  # vectors attached without the document index: chunk evidence alone
    documents = store.document_vectors
    if documents is not None and len(store.document_text_index) == len(store.documents):
        keyword_of_documents = store.document_text_index.scores(tokens)[1]
        document = fuse(keyword_of_documents, documents @ vector).relevance
    ranked = hybrid(
        keyword,
        semantic.chunk_similarities(vector),
        document,
        store.chunk_document,
        lambda chunks: semantic.sentence_similarities(vector, chunks),
        eligible=eligible,
    )
    return ranked.cosine, ranked.relevance, ranked.candidate


@dataclass(frozen=True, slots=True)
class _Scores:
    """Per chunk: raw BM25, relevance, whether it matches (filters and threshold applied), the
    cosine similarity (``None`` on a BM25-only data store)."""

    raw: np.ndarray
    relevance: np.ndarray
    candidate: np.ndarray
    semantic: np.ndarray | None


def _scores(
    store: DataStore,
    query: str,
    tokens: list[str],
    eligible: np.ndarray | None,
    threshold: float,
) -> _Scores:
    size = len(store.chunks)
    semantic: np.ndarray | None = None
    if query.strip():
        raw, body = store.index.scores(tokens)
        keyword = keyword_relevance(body, store.heading_index.scores(tokens)[1])
        if store.semantic is not None and size:
            semantic, relevance, candidate = _hybrid(store, query, tokens, keyword, eligible)
        else:
            relevance, candidate = keyword, keyword > 0
    else:
        raw = relevance = np.zeros(size, dtype=np.float32)
        candidate = np.ones(size, dtype=bool)
    if eligible is not None:
        candidate = candidate & eligible
    if threshold > 0:
        candidate = candidate & (relevance >= threshold)
    return _Scores(raw, relevance, candidate, semantic)


def _expansion(store: DataStore, tokens: list[str]) -> list[str]:
    """The tokens query expansion adds (see the module docstring). A repeated query token is
    widened once: its second pass could add nothing the first did not."""
    added: list[str] = []
    seen = set(tokens)
    for token in checked(dict.fromkeys(tokens), "query term widened"):
        if len(token) < _MIN_EXPANDED_PREFIX:
            continue
        prefix = token[: max(_MIN_EXPANDED_PREFIX, len(token) - 2)]
        for found in store.index.tokens_with_prefix(prefix, EXPANSIONS_PER_TOKEN + 1):
            if found not in seen and len(added) < EXPANSIONS_PER_TOKEN * len(tokens):
                seen.add(found)
                added.append(found)
    return added


def _match_count(store: DataStore, candidate: np.ndarray, documents_mode: bool) -> int:
    if documents_mode:
        return int(np.unique(store.chunk_document[candidate]).size)
    return int(candidate.sum())


def search(store: DataStore, params: SearchParams) -> SearchPage:
    """One page of results for ``params`` on ``store``."""
    keep_freed_memory()  # a search's temporaries are reused, not faulted in again (heap.py)
    _check_params(params)
    page_size = page_size_of(params.page_size, default=params.default_page_size)
    start = (
        decode_page_token(params.page_token, _bound_to(params), _TOKEN_FIELDS)
        if params.page_token
        else params.offset
    )
    documents_mode = params.mode == "documents"
    document_mask = _filter_mask(store, params, params.filter, params.filter_field)
    # Parsed and bound even when unused: a malformed canonical filter is refused either way.
    canonical_mask = (
        _filter_mask(store, params, params.canonical_filter, "canonical_filter")
        if params.canonical_filter.strip()
        else None
    )
    keys = _order_by(store, params.order_by) if params.order_by.strip() else []
    boosts = _boost_factors(store, params)
    owner = store.chunk_document
    size = len(store.chunks)

    corrected = ""
    if params.spell_correction and params.query.strip():
        corrected = correct_query(store, params.query) or ""
    query = corrected if corrected and params.spell_correction == "AUTO" else params.query
    tokens = tokenize(query)
    eligible = document_mask[owner] if document_mask is not None else None
    threshold = RELEVANCE_THRESHOLDS.get(params.relevance_threshold, 0.0)
    check_call("scoring the query")
    scores = _scores(store, query, tokens, eligible, threshold)
    chunk_boost = boosts[owner] if boosts is not None else np.ones(size, dtype=np.float32)
    ranking = (scores.relevance if query.strip() else np.ones(size, np.float32)) * chunk_boost
    expanded = False
    pinned = 0
    pin_mask = None
    # Whether to expand is decided under the canonical filter when one is given.
    expands = params.query_expansion and bool(query.strip())
    counted = scores
    if expands and canonical_mask is not None:
        counted = _scores(store, query, tokens, canonical_mask[owner], threshold)
    if expands and _match_count(store, counted.candidate, documents_mode) < page_size:
        extra = _expansion(store, tokens)
        check_call("scoring the widened query")
        wider = _scores(store, query, tokens + extra, eligible, threshold) if extra else scores
        if bool((wider.candidate & ~scores.candidate).any()):
            expanded = True
            exact = scores.candidate
            scores = wider
            ranking = scores.relevance * chunk_boost
            if params.pin_unexpanded_results:
                pinned = _match_count(store, exact, documents_mode)
                pin_mask = exact
                # Above every expanded result, in their own order.
                ranking = np.where(exact, ranking + float(ranking.max()) + 1.0, ranking)
    candidate = scores.candidate
    check_call("ranking the results")
    if params.rerank_top and query.strip():
        first = _ordered(np.flatnonzero(candidate), ranking, params.rerank_top, [], None)
        ranking = rerank(store, query, first, ranking, pin_mask)
    facts = {
        "corrected_query": corrected,
        "query": query,
        "expanded": expanded,
        "pinned_result_count": pinned,
    }

    if documents_mode:
        page = _documents_page(
            store,
            params,
            (candidate, scores.raw, scores.relevance, ranking),
            scores.semantic,
            boosts,
            (start, page_size),
            keys,
            document_mask,
        )
        return dataclasses.replace(page, **facts)  # type: ignore[arg-type]

    candidates = np.flatnonzero(candidate)
    total = len(candidates)
    order = _ordered(
        candidates,
        ranking,
        start + page_size,
        keys,
        lambda i, name: store.flat_struct(int(owner[i])).get(name),
    )[start:]
    hits = []
    semantic = scores.semantic
    for rank, index in enumerate(order.tolist(), start=start + 1):
        previous, following = store.neighbours(
            index, params.num_previous_chunks, params.num_next_chunks
        )
        chunk = store.chunks[index]
        hits.append(
            ChunkHit(
                index=index,
                chunk=chunk,
                document=store.documents[chunk.document_index],
                relevance=float(scores.relevance[index]),
                keyword_score=float(scores.raw[index]),
                boost=float(chunk_boost[index]),
                rank=rank,
                previous=previous,
                next=following,
                semantic_score=float(semantic[index]) if semantic is not None else None,
            )
        )
    end = start + len(hits)
    token = encode_page_token(end, _bound_to(params)) if end < total and hits else ""
    facets = (
        count_facets(store, np.unique(owner[candidates]).tolist(), params.facets)
        if params.facets
        else ()
    )
    page = SearchPage(tuple(hits), total, token, start, facets=facets)
    return dataclasses.replace(page, **facts)  # type: ignore[arg-type]


def _documents_page(
    store: DataStore,
    params: SearchParams,
    chunk_arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    semantic: np.ndarray | None,
    boosts: np.ndarray | None,
    window: tuple[int, int],
    keys: list[tuple[str, bool]],
    document_mask: np.ndarray | None,
) -> SearchPage:
    """DOCUMENTS mode: a document ranks as its best chunk."""
    start, page_size = window
    candidate, raw, relevance, ranking = chunk_arrays
    owner = store.chunk_document
    count = len(store.documents)
    best = np.full(count, -1.0, dtype=np.float32)
    chunks = np.flatnonzero(candidate)
    np.maximum.at(best, owner[chunks], ranking[chunks])
    doc_relevance = np.zeros(count, dtype=np.float32)
    doc_raw = np.zeros(count, dtype=np.float32)
    np.maximum.at(doc_relevance, owner[chunks], relevance[chunks])
    np.maximum.at(doc_raw, owner[chunks], raw[chunks])
    doc_semantic = None
    if semantic is not None:
        doc_semantic = np.full(count, -1.0, dtype=np.float32)
        np.maximum.at(doc_semantic, owner[chunks], semantic[chunks])
    candidates = np.flatnonzero(best >= 0)
    if not params.query.strip():
        # Listing documents: every document that passes the filter, chunks or not.
        listed = np.ones(count, dtype=bool) if document_mask is None else document_mask.copy()
        candidates = np.flatnonzero(listed)
        best = np.where(listed, boosts if boosts is not None else 1.0, best)
    total = len(candidates)
    order = _ordered(
        candidates, best, start + page_size, keys, lambda i, name: store.flat_struct(i).get(name)
    )[start:]
    hits = []
    with_neighbours = params.num_previous_segments or params.num_next_segments
    for rank, index in enumerate(order.tolist(), start=start + 1):
        first, end = store.document_chunks[index]
        own = [i for i in range(first, end) if candidate[i]]
        own.sort(key=lambda i: (-float(ranking[i]), i))
        best_own = own[:SEGMENTS_PER_DOCUMENT]
        hits.append(
            DocumentHit(
                document_index=index,
                document=store.documents[index],
                relevance=float(doc_relevance[index]),
                keyword_score=float(doc_raw[index]),
                boost=float(boosts[index]) if boosts is not None else 1.0,
                rank=rank,
                chunks=tuple(store.chunks[i] for i in best_own),
                chunk_relevances=tuple(float(relevance[i]) for i in best_own),
                semantic_score=float(doc_semantic[index]) if doc_semantic is not None else None,
                neighbours=tuple(
                    store.neighbours(i, params.num_previous_segments, params.num_next_segments)
                    for i in best_own
                )
                if with_neighbours
                else (),
            )
        )
    end_offset = start + len(hits)
    token = encode_page_token(end_offset, _bound_to(params)) if end_offset < total and hits else ""
    facets = count_facets(store, candidates.tolist(), params.facets) if params.facets else ()
    return SearchPage(tuple(hits), total, token, start, facets=facets)


def chunk_hits(page: SearchPage) -> Sequence[ChunkHit]:
    """The hits of a CHUNKS-mode page."""
    return [h for h in page.hits if isinstance(h, ChunkHit)]
