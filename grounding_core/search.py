"""Chunk search: Discovery Engine ``Search`` (chunk or document mode) and Developer Knowledge
``SearchDocumentChunks``, sync and async, returning ``SourceChunk`` records.

Pages of up to 100 results are fetched until ``k`` results are collected or the results run
out; only as many pages as needed are requested.

>>> clients = DiscoveryEngineClients(emulator_host="localhost:8123")  # doctest: +SKIP
>>> target = DiscoveryEngineTarget(project="p", data_store="docs")  # doctest: +SKIP
>>> search_chunks(clients, target, "what is a coroutine?", ChunkSearchSpec(k=3))  # doctest: +SKIP
[SourceChunk(name='projects/p/.../chunks/c0', content='Coroutines are ...', ...), ...]
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import types as dk

from .clients import DeveloperKnowledgeClients, DiscoveryEngineClients
from .convert import chunk_from_developer_knowledge, chunk_from_search_result
from .errors import InputError, translate_errors
from .records import SourceChunk
from .settings import CallOptions, DiscoveryEngineTarget
from .specs import (
    MAX_DEVELOPER_KNOWLEDGE_TEXT,
    MAX_PAGE_SIZE,
    ChunkSearchSpec,
    DeveloperKnowledgeSearchSpec,
)

__all__ = [
    "asearch_chunks",
    "asearch_developer_knowledge",
    "search_chunks",
    "search_developer_knowledge",
]

logger = logging.getLogger(__name__)

SEARCH_RESULT_MODES = {
    "chunks": de.SearchRequest.ContentSearchSpec.SearchResultMode.CHUNKS,
    "documents": de.SearchRequest.ContentSearchSpec.SearchResultMode.DOCUMENTS,
}
# How errors name the (resource-less) Developer Knowledge API.
DEVELOPER_KNOWLEDGE = "the Developer Knowledge corpus"


def check_query(query: object, *, maximum: int | None = None) -> str:
    if not isinstance(query, str):
        raise InputError(f"query must be a string, got {type(query).__name__}", field="query")
    if not query.strip():
        raise InputError("query is empty: give the text to search for", field="query")
    if maximum is not None and len(query) > maximum:
        raise InputError(
            f"query has {len(query)} characters; the API accepts at most {maximum}: shorten it",
            field="query",
            limit=maximum,
        )
    return query


def boost_spec_message(value: Any) -> de.SearchRequest.BoostSpec | None:
    """The API's ``BoostSpec`` from its dict form, or a clear ``InputError``."""
    if value is None:
        return None
    try:
        return de.SearchRequest.BoostSpec(value)
    except (ValueError, TypeError, KeyError) as exc:
        raise InputError(
            f"boost_spec is not a valid BoostSpec ({exc}); expected e.g. "
            "{'condition_boost_specs': [{'condition': 'lang: ANY(\"en\")', 'boost': 0.5}]}",
            field="boost_spec",
        ) from exc


_SearchRequest = de.SearchRequest.pb()
_THRESHOLDS = {
    None: _SearchRequest.RELEVANCE_THRESHOLD_UNSPECIFIED,
    "lowest": _SearchRequest.LOWEST,
    "low": _SearchRequest.LOW,
    "medium": _SearchRequest.MEDIUM,
    "high": _SearchRequest.HIGH,
}


def search_request(
    target: DiscoveryEngineTarget, query: str, spec: ChunkSearchSpec
) -> de.SearchRequest:
    """The ``SearchRequest`` for ``query`` (the first page)."""
    # Built as a raw protobuf message and wrapped: proto-plus takes several times longer to
    # build the same message from keyword arguments and dicts, on every search.
    message = _SearchRequest(
        serving_config=target.serving_config_path,
        relevance_threshold=_THRESHOLDS[spec.relevance_threshold],
        query=check_query(query),
        page_size=min(spec.k, MAX_PAGE_SIZE),
        filter=spec.filter,
        order_by=spec.order_by,
    )
    content_search_spec = message.content_search_spec
    content_search_spec.search_result_mode = SEARCH_RESULT_MODES[spec.search_mode]
    if spec.search_mode == "chunks":
        chunk_spec = content_search_spec.chunk_spec
        chunk_spec.SetInParent()
        chunk_spec.num_previous_chunks = spec.num_previous_chunks
        chunk_spec.num_next_chunks = spec.num_next_chunks
    message.relevance_score_spec.return_relevance_score = True
    request: de.SearchRequest = de.SearchRequest.wrap(message)
    boost = boost_spec_message(spec.boost_spec)
    if boost is not None:
        request.boost_spec = boost
    return request


def _first_pages(pager: Any, k: int) -> list[Any]:
    pages: list[Any] = []
    fetched = 0
    for page in pager.pages:
        pages.append(page)
        fetched += len(page.results)
        if fetched >= k:
            break
    return pages


async def _afirst_pages(pager: Any, k: int) -> list[Any]:
    pages: list[Any] = []
    fetched = 0
    generator = pager.pages
    try:
        async for page in generator:
            pages.append(page)
            fetched += len(page.results)
            if fetched >= k:
                break
    finally:
        # Closed here: left open, the event loop would schedule a task to close it.
        await generator.aclose()
    return pages


def _collect(pages: list[Any], k: int, convert: Callable[[Any], SourceChunk]) -> list[SourceChunk]:
    results: list[SourceChunk] = []
    for page in pages:
        for result in type(page).pb(page).results:
            results.append(convert(result))
            if len(results) == k:
                return results
    return results


def search_chunks(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    query: str,
    spec: ChunkSearchSpec = ChunkSearchSpec(),
    options: CallOptions = CallOptions(),
) -> list[SourceChunk]:
    """The top ``spec.k`` results of ``query`` on ``target`` as ``SourceChunk`` records."""
    request = search_request(target, query, spec)
    with translate_errors("Search", target.serving_config_path):
        pager = clients.search().search(request=request, **options.call_kwargs())
        pages = _first_pages(pager, spec.k)
    return _collect(pages, spec.k, chunk_from_search_result)


async def asearch_chunks(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    query: str,
    spec: ChunkSearchSpec = ChunkSearchSpec(),
    options: CallOptions = CallOptions(),
) -> list[SourceChunk]:
    """Async ``search_chunks``, on Google's async client."""
    request = search_request(target, query, spec)
    with translate_errors("Search", target.serving_config_path):
        client = clients.search_async()
        pager = await client.search(request=request, **options.async_call_kwargs())
        pages = await _afirst_pages(pager, spec.k)
    return _collect(pages, spec.k, chunk_from_search_result)


def developer_knowledge_request(
    query: str, spec: DeveloperKnowledgeSearchSpec
) -> dk.SearchDocumentChunksRequest:
    """The ``SearchDocumentChunksRequest`` for ``query`` (the first page)."""
    return dk.SearchDocumentChunksRequest(
        query=check_query(query, maximum=MAX_DEVELOPER_KNOWLEDGE_TEXT),
        page_size=min(spec.k, MAX_PAGE_SIZE),
        filter=spec.filter,
    )


def search_developer_knowledge(
    clients: DeveloperKnowledgeClients,
    query: str,
    spec: DeveloperKnowledgeSearchSpec = DeveloperKnowledgeSearchSpec(),
    options: CallOptions = CallOptions(),
) -> list[SourceChunk]:
    """The top ``spec.k`` Developer Knowledge chunks for ``query``."""
    request = developer_knowledge_request(query, spec)
    with translate_errors("SearchDocumentChunks", DEVELOPER_KNOWLEDGE):
        client = clients.developer_knowledge()
        pager = client.search_document_chunks(request=request, **options.call_kwargs())
        pages = _first_pages(pager, spec.k)
    return _collect(pages, spec.k, chunk_from_developer_knowledge)


async def asearch_developer_knowledge(
    clients: DeveloperKnowledgeClients,
    query: str,
    spec: DeveloperKnowledgeSearchSpec = DeveloperKnowledgeSearchSpec(),
    options: CallOptions = CallOptions(),
) -> list[SourceChunk]:
    """Async ``search_developer_knowledge``, on Google's async client."""
    request = developer_knowledge_request(query, spec)
    with translate_errors("SearchDocumentChunks", DEVELOPER_KNOWLEDGE):
        client = clients.developer_knowledge_async()
        pager = await client.search_document_chunks(request=request, **options.async_call_kwargs())
        pages = await _afirst_pages(pager, spec.k)
    return _collect(pages, spec.k, chunk_from_developer_knowledge)
