"""Chunk search: Discovery Engine ``Search`` (chunk or document mode) and Developer Knowledge
``SearchDocumentChunks``, sync and async, returning ``SourceChunk`` records.

Pages of up to 100 results are fetched until ``k`` results are collected or the results run
out; only as many pages as needed are requested. ``search_results`` also gives what the first
page's response says of the search as a whole (``SearchResults``: total size, corrected query,
query expansion, facets).

>>> clients = DiscoveryEngineClients(emulator_host="localhost:8123")  # doctest: +SKIP
>>> target = DiscoveryEngineTarget(project="p", data_store="docs")  # doctest: +SKIP
>>> search_chunks(clients, target, "what is a coroutine?", ChunkSearchSpec(k=3))  # doctest: +SKIP
[SourceChunk(name='projects/p/.../chunks/c0', content='Coroutines are ...', ...), ...]
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterator
from typing import Any

from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import types as dk

from .clients import DeveloperKnowledgeClients, DiscoveryEngineClients
from .convert import (
    chunk_from_developer_knowledge,
    chunks_from_search_results,
    search_results_from_response,
)
from .errors import InputError, translate_errors
from .records import SearchResults, SourceChunk
from .settings import CallOptions, DiscoveryEngineTarget
from .specs import (
    MAX_DEVELOPER_KNOWLEDGE_TEXT,
    MAX_PAGE_SIZE,
    ChunkSearchSpec,
    DeveloperKnowledgeSearchSpec,
)
from .validation import check_request_size, check_wire_text

__all__ = [
    "asearch_chunks",
    "asearch_developer_knowledge",
    "asearch_results",
    "data_store_name",
    "search_chunks",
    "search_developer_knowledge",
    "search_results",
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
    return check_wire_text("query", query)


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


def data_store_name(target: DiscoveryEngineTarget, data_store: str) -> str:
    """``data_store`` as a full resource name: as given when it is one, else the data store of
    that id in the target's project, location and collection."""
    if data_store.startswith("projects/"):
        return data_store
    collection = f"/collections/{target.collection}" if target.collection is not None else ""
    return f"{target.location_path}{collection}/dataStores/{data_store}"


def _api_message(message_type: Any, value: Any, field: str, example: str) -> Any:
    """The raw pb of an API message given in dict form, or a clear ``InputError``."""
    try:
        return message_type.pb(message_type(value))
    except (ValueError, TypeError, KeyError) as exc:
        raise InputError(
            f"{field} is not a valid {message_type.__name__} ({exc}); expected e.g. {example}",
            field=field,
        ) from exc


_SearchRequest = de.SearchRequest.pb()
_SPELL_CORRECTION = {
    "auto": _SearchRequest.SpellCorrectionSpec.AUTO,
    "suggestion_only": _SearchRequest.SpellCorrectionSpec.SUGGESTION_ONLY,
}
_QUERY_EXPANSION = {
    "auto": _SearchRequest.QueryExpansionSpec.AUTO,
    "disabled": _SearchRequest.QueryExpansionSpec.DISABLED,
}
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
        canonical_filter=spec.canonical_filter,
        order_by=spec.order_by,
    )
    content_search_spec = message.content_search_spec
    content_search_spec.search_result_mode = SEARCH_RESULT_MODES[spec.search_mode]
    if spec.search_mode == "chunks":
        chunk_spec = content_search_spec.chunk_spec
        chunk_spec.SetInParent()
        chunk_spec.num_previous_chunks = spec.num_previous_chunks
        chunk_spec.num_next_chunks = spec.num_next_chunks
    else:
        _document_content(content_search_spec, spec)
    message.relevance_score_spec.return_relevance_score = True
    _query_options(message, target, spec)
    request: de.SearchRequest = de.SearchRequest.wrap(message)
    boost = boost_spec_message(spec.boost_spec)
    if boost is not None:
        request.boost_spec = boost
    check_request_size("Search", message)
    return request


def _document_content(content_search_spec: Any, spec: ChunkSearchSpec) -> None:
    """What a documents-mode result carries: snippets unless ``return_snippet=False`` (a result
    has no text otherwise: Google sends snippets only when asked), extractive content when
    asked."""
    if spec.return_snippet is not False:
        content_search_spec.snippet_spec.return_snippet = True
    if spec.max_extractive_answer_count or spec.max_extractive_segment_count:
        extractive = content_search_spec.extractive_content_spec
        extractive.max_extractive_answer_count = spec.max_extractive_answer_count
        extractive.max_extractive_segment_count = spec.max_extractive_segment_count
        extractive.return_extractive_segment_score = spec.return_extractive_segment_score
        extractive.num_previous_segments = spec.num_previous_segments
        extractive.num_next_segments = spec.num_next_segments


def _query_options(message: Any, target: DiscoveryEngineTarget, spec: ChunkSearchSpec) -> None:
    if spec.spell_correction is not None:
        message.spell_correction_spec.mode = _SPELL_CORRECTION[spec.spell_correction]
    if spec.query_expansion is not None:
        message.query_expansion_spec.condition = _QUERY_EXPANSION[spec.query_expansion]
        message.query_expansion_spec.pin_unexpanded_results = spec.pin_unexpanded_results
    message.language_code = spec.language_code
    message.user_pseudo_id = spec.user_pseudo_id
    message.session = spec.session
    if spec.relevance_filter_spec is not None:
        message.relevance_filter_spec.CopyFrom(
            _api_message(
                de.SearchRequest.RelevanceFilterSpec,
                spec.relevance_filter_spec,
                "relevance_filter_spec",
                "{'keyword_search_threshold': {'relevance_threshold': 'LOW'}}",
            )
        )
    for data_store in spec.data_store_specs:
        added = message.data_store_specs.add(
            data_store=data_store_name(target, data_store.data_store), filter=data_store.filter
        )
        boost = boost_spec_message(data_store.boost_spec)
        if boost is not None:
            added.boost_spec.CopyFrom(de.SearchRequest.BoostSpec.pb(boost))
    for number, facet in enumerate(spec.facet_specs):
        message.facet_specs.append(
            _api_message(
                de.SearchRequest.FacetSpec,
                facet,
                f"facet_specs[{number}]",
                "{'facet_key': {'key': 'lang'}, 'limit': 10}",
            )
        )


def _first_pages(pager: Any, k: int) -> list[Any]:
    pages: list[Any] = []
    fetched = 0
    for page in pager.pages:
        pages.append(page)
        fetched += len(type(page).pb(page).results)
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
            fetched += len(type(page).pb(page).results)
            if fetched >= k:
                break
    finally:
        # Closed here: left open, the event loop would schedule a task to close it.
        await generator.aclose()
    return pages


def _first_results(pages: list[Any], k: int) -> Iterator[Any]:
    """The first ``k`` results (raw pb) of ``pages``."""
    results = (result for page in pages for result in type(page).pb(page).results)
    return itertools.islice(results, k)


def _collect(pages: list[Any], k: int, convert: Callable[[Any], SourceChunk]) -> list[SourceChunk]:
    return [convert(result) for result in _first_results(pages, k)]


def _results(pages: list[Any], spec: ChunkSearchSpec) -> SearchResults:
    chunks = chunks_from_search_results(_first_results(pages, spec.k), spec.document_text)
    if not pages:
        return SearchResults(tuple(chunks))
    return search_results_from_response(type(pages[0]).pb(pages[0]), chunks)


def search_results(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    query: str,
    spec: ChunkSearchSpec = ChunkSearchSpec(),
    options: CallOptions = CallOptions(),
) -> SearchResults:
    """The top ``spec.k`` results of ``query`` on ``target`` with what the response says of the
    search as a whole (total size, spell correction, query expansion, facets)."""
    request = search_request(target, query, spec)
    with translate_errors("Search", target.serving_config_path):
        pager = clients.search().search(request=request, **options.call_kwargs())
        pages = _first_pages(pager, spec.k)
    return _results(pages, spec)


async def asearch_results(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    query: str,
    spec: ChunkSearchSpec = ChunkSearchSpec(),
    options: CallOptions = CallOptions(),
) -> SearchResults:
    """Async ``search_results``, on Google's async client."""
    request = search_request(target, query, spec)
    with translate_errors("Search", target.serving_config_path):
        client = clients.search_async()
        pager = await client.search(request=request, **options.async_call_kwargs())
        pages = await _afirst_pages(pager, spec.k)
    return _results(pages, spec)


def search_chunks(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    query: str,
    spec: ChunkSearchSpec = ChunkSearchSpec(),
    options: CallOptions = CallOptions(),
) -> list[SourceChunk]:
    """The top ``spec.k`` results of ``query`` on ``target`` as ``SourceChunk`` records."""
    return list(search_results(clients, target, query, spec, options).chunks)


async def asearch_chunks(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    query: str,
    spec: ChunkSearchSpec = ChunkSearchSpec(),
    options: CallOptions = CallOptions(),
) -> list[SourceChunk]:
    """Async ``search_chunks``, on Google's async client."""
    return list((await asearch_results(clients, target, query, spec, options)).chunks)


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
