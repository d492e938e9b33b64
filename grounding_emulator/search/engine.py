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
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.records import Chunk, Document
from grounding_emulator.corpus.tokens import tokenize
from grounding_emulator.errors import InvalidArgument
from grounding_emulator.limits import DEFAULT_PAGE_SIZE, MAX_CHUNK_NEIGHBOURS, MAX_PAGE_SIZE
from grounding_emulator.search.filters import (
    Expression,
    evaluate,
    fields_of,
    parse_developer_knowledge_filter,
    parse_filter,
)
from grounding_emulator.search.fusion import fuse, hybrid, keyword_relevance

__all__ = [
    "RELEVANCE_THRESHOLDS",
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
SEGMENTS_PER_DOCUMENT = 3

Dialect = Literal["discovery_engine", "developer_knowledge"]
Mode = Literal["chunks", "documents"]


@dataclass(frozen=True, slots=True)
class ConditionBoost:
    """A ``BoostSpec.ConditionBoostSpec``: documents matching ``condition`` get ``boost``."""

    condition: str
    boost: float


@dataclass(frozen=True, slots=True)
class SearchParams:
    """What a search asks for, as plain values.

    ``chunk_spec_given`` says whether the request set a chunk spec at all (it is refused outside
    CHUNKS mode). ``scope`` (e.g. the data store or engine name) is bound into page tokens.
    ``filter_field`` names the filter in error messages.
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
    """A document found by a search (DOCUMENTS mode), with its best chunks."""

    document_index: int
    document: Document
    relevance: float
    keyword_score: float
    boost: float
    rank: int
    chunks: tuple[Chunk, ...] = ()
    semantic_score: float | None = None


@dataclass(frozen=True, slots=True)
class SearchPage:
    """One page of results; ``total_size`` counts every match, ``next_page_token`` is empty on
    the last page."""

    hits: tuple[ChunkHit, ...] | tuple[DocumentHit, ...]
    total_size: int
    next_page_token: str = ""
    offset: int = 0


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
    for number, boost in enumerate(params.boosts):
        if not -1.0 <= boost.boost <= 1.0:
            field = f"boost_spec.condition_boost_specs[{number}].boost"
            raise InvalidArgument(
                f"{field} must be between -1 and 1, got {boost.boost}", field=field
            )


# -- filters ------------------------------------------------------------------------------------


def _developer_knowledge_fields(document: Document) -> dict[str, Any]:
    return {
        "data_source": document.data_source,
        "uri": document.uri,
        "update_time": document.update_time.timestamp() if document.update_time else None,
        "content_length_bytes": document.content_length_bytes,
    }


def _struct_expression(store: DataStore, text: str, field: str) -> Expression | None:
    expression = parse_filter(text, field)
    if expression is None:
        return None
    unknown = sorted(fields_of(expression) - store.struct_fields)
    if unknown:
        known = ", ".join(sorted(store.struct_fields)) or "none"
        raise InvalidArgument(
            f"{field}: {', '.join(repr(u) for u in unknown)} is not a struct_data field of data "
            f"store {store.id!r} (fields: {known})",
            field=field,
        )
    return expression


def _document_mask(store: DataStore, text: str, field: str, dialect: Dialect) -> np.ndarray | None:
    if dialect == "developer_knowledge":
        expression = parse_developer_knowledge_filter(text, field)
        if expression is None:
            return None
        return store.document_mask(
            f"dk:{text}",
            lambda i: evaluate(expression, _developer_knowledge_fields(store.documents[i])),
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
                f"order_by: {part.strip()!r} is not 'field', 'field asc' or 'field desc'",
                field="order_by",
            )
        if words[0] not in store.struct_fields:
            known = ", ".join(sorted(store.struct_fields)) or "none"
            raise InvalidArgument(
                f"order_by: {words[0]!r} is not a struct_data field of data store "
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


def _fingerprint(params: SearchParams) -> str:
    key = [
        params.scope,
        params.query,
        params.filter,
        params.order_by,
        [(b.condition, b.boost) for b in params.boosts],
        params.mode,
        params.relevance_threshold,
        params.dialect,
    ]
    return hashlib.sha256(json.dumps(key).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _encode_token(offset: int, params: SearchParams) -> str:
    raw = json.dumps({"o": offset, "q": _fingerprint(params)}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_token(token: str, params: SearchParams) -> int:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
        offset = data["o"]
        fingerprint = data["q"]
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise InvalidArgument(
            "page_token is malformed: pass the next_page_token of a previous response unchanged",
            field="page_token",
        ) from exc
    if not isinstance(offset, int) or offset < 0 or fingerprint != _fingerprint(params):
        raise InvalidArgument(
            "page_token does not belong to this request: the query, filter, order_by, boost "
            "spec and search mode must stay those of the call that returned it",
            field="page_token",
        )
    return offset


# -- search -------------------------------------------------------------------------------------


def _boost_factors(store: DataStore, params: SearchParams) -> np.ndarray | None:
    if not params.boosts:
        return None
    factors = np.ones(len(store.documents), dtype=np.float32)
    for number, boost in enumerate(params.boosts):
        field = f"boost_spec.condition_boost_specs[{number}].condition"
        mask = _document_mask(store, boost.condition, field, params.dialect)
        if mask is not None:
            factors += np.float32(boost.boost) * mask
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


def search(store: DataStore, params: SearchParams) -> SearchPage:
    """One page of results for ``params`` on ``store``."""
    _check_params(params)
    page_size = page_size_of(params.page_size, default=params.default_page_size)
    start = _decode_token(params.page_token, params) if params.page_token else params.offset
    documents_mode = params.mode == "documents"
    document_mask = _document_mask(store, params.filter, params.filter_field, params.dialect)
    keys = _order_by(store, params.order_by) if params.order_by.strip() else []
    boosts = _boost_factors(store, params)
    owner = store.chunk_document
    size = len(store.chunks)

    tokens = tokenize(params.query)
    semantic: np.ndarray | None = None
    eligible = document_mask[owner] if document_mask is not None else None
    if params.query.strip():
        raw, body = store.index.scores(tokens)
        keyword = keyword_relevance(body, store.heading_index.scores(tokens)[1])
        if store.semantic is not None and size:
            semantic, relevance, candidate = _hybrid(store, params.query, tokens, keyword, eligible)
        else:
            relevance, candidate = keyword, keyword > 0
    else:
        raw = relevance = np.zeros(size, dtype=np.float32)
        candidate = np.ones(size, dtype=bool)
    if eligible is not None:
        candidate = candidate & eligible
    threshold = RELEVANCE_THRESHOLDS.get(params.relevance_threshold, 0.0)
    if threshold > 0:
        candidate &= relevance >= threshold
    chunk_boost = boosts[owner] if boosts is not None else np.ones(size, dtype=np.float32)
    ranking = (relevance if params.query.strip() else np.ones(size, np.float32)) * chunk_boost

    if documents_mode:
        return _documents_page(
            store,
            params,
            (candidate, raw, relevance, ranking),
            semantic,
            boosts,
            start,
            page_size,
            keys,
        )

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
                relevance=float(relevance[index]),
                keyword_score=float(raw[index]),
                boost=float(chunk_boost[index]),
                rank=rank,
                previous=previous,
                next=following,
                semantic_score=float(semantic[index]) if semantic is not None else None,
            )
        )
    end = start + len(hits)
    token = _encode_token(end, params) if end < total and hits else ""
    return SearchPage(tuple(hits), total, token, start)


def _documents_page(
    store: DataStore,
    params: SearchParams,
    chunk_arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    semantic: np.ndarray | None,
    boosts: np.ndarray | None,
    start: int,
    page_size: int,
    keys: list[tuple[str, bool]],
) -> SearchPage:
    """DOCUMENTS mode: a document ranks as its best chunk."""
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
        mask = _document_mask(store, params.filter, params.filter_field, params.dialect)
        listed = np.ones(count, dtype=bool) if mask is None else mask.copy()
        candidates = np.flatnonzero(listed)
        best = np.where(listed, boosts if boosts is not None else 1.0, best)
    total = len(candidates)
    order = _ordered(
        candidates, best, start + page_size, keys, lambda i, name: store.flat_struct(i).get(name)
    )[start:]
    hits = []
    for rank, index in enumerate(order.tolist(), start=start + 1):
        first, end = store.document_chunks[index]
        own = [i for i in range(first, end) if candidate[i]]
        own.sort(key=lambda i: (-float(ranking[i]), i))
        hits.append(
            DocumentHit(
                document_index=index,
                document=store.documents[index],
                relevance=float(doc_relevance[index]),
                keyword_score=float(doc_raw[index]),
                boost=float(boosts[index]) if boosts is not None else 1.0,
                rank=rank,
                chunks=tuple(store.chunks[i] for i in own[:SEGMENTS_PER_DOCUMENT]),
                semantic_score=float(doc_semantic[index]) if doc_semantic is not None else None,
            )
        )
    end_offset = start + len(hits)
    token = _encode_token(end_offset, params) if end_offset < total and hits else ""
    return SearchPage(tuple(hits), total, token, start)


def chunk_hits(page: SearchPage) -> Sequence[ChunkHit]:
    """The hits of a CHUNKS-mode page."""
    return [h for h in page.hits if isinstance(h, ChunkHit)]
