"""``DiscoveryEngineChunkSearch``: Discovery Engine (Vertex AI Search) ``Search`` of a data store
or an engine, in chunk mode (or documents mode), as ``SourceChunk`` records.

Only as many pages (of up to 100 results) are requested as ``k`` needs. ``search_results`` also
gives what the response says of the search as a whole (``SearchResults``: total size, corrected
query, query expansion, facets).

>>> connection = DiscoveryEngineConnection(project_id="p", emulator_host="localhost:8123")
>>> search = DiscoveryEngineChunkSearch(connection, data_store_id="docs", k=5)
>>> search.target.serving_config_path  # doctest: +ELLIPSIS
'projects/p/locations/global/collections/default_collection/dataStores/docs/servingConfigs/...'
>>> search.spec.k, search.replace(k=2).spec.k
(5, 2)
>>> search.search("what is a generator?", k=2)  # doctest: +SKIP
[SourceChunk(name='projects/p/.../chunks/c0', content='Generators are ...', ...), ...]
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, TypedDict, get_args

from google.cloud import discoveryengine_v1 as de

from grounding_core._checks import check_query, check_request_size
from grounding_core._clients import DiscoveryEngineConnection, DiscoveryEngineConnectionArgs
from grounding_core._errors import InputError, translate_errors
from grounding_core._records import SearchResults, SourceChunk
from grounding_core._settings import (
    DEFAULT_COLLECTION,
    DEFAULT_SERVING_CONFIG,
    DiscoveryEngineTarget,
)

from .results import afirst_pages, chunks_from_results, first_pages, first_results, search_results
from .specs import (
    BOOST_SPEC_EXAMPLE,
    FACET_SPEC_EXAMPLE,
    MAX_PAGE_SIZE,
    RELEVANCE_FILTER_SPEC_EXAMPLE,
    SEARCH_MODES,
    THRESHOLDS,
    ChunkSearchSpec,
    QueryExpansion,
    SearchOptions,
    SpellCorrection,
    per_call,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

_SearchRequest = de.SearchRequest.pb()


def _enum(holder: Any, names: tuple[str, ...]) -> dict[str | None, int]:
    return {name: getattr(holder, name.upper()) for name in names}


_MODES = _enum(_SearchRequest.ContentSearchSpec.SearchResultMode, SEARCH_MODES)
_SPELL_CORRECTION = _enum(_SearchRequest.SpellCorrectionSpec, get_args(SpellCorrection))
_QUERY_EXPANSION = _enum(_SearchRequest.QueryExpansionSpec, get_args(QueryExpansion))
_THRESHOLDS = {
    None: _SearchRequest.RELEVANCE_THRESHOLD_UNSPECIFIED,
    **_enum(_SearchRequest, THRESHOLDS),
}


def api_message(message_type: Any, value: Any, field: str, example: str) -> Any:
    """The raw pb of an API message given in dict form (``BoostSpec``, ``FacetSpec``, ...), or
    an ``InputError`` naming ``field`` and showing ``example``."""
    try:
        return message_type.pb(message_type(value))
    except (ValueError, TypeError, KeyError) as exc:
        raise InputError(
            f"{field} is not a valid {message_type.__name__} ({exc}); expected e.g. {example}",
            field=field,
        ) from exc


def boost_spec(value: Any, field: str = "boost_spec") -> Any:
    """The raw ``BoostSpec`` of its dict form (``None``: none)."""
    if value is None:
        return None
    return api_message(de.SearchRequest.BoostSpec, value, field, BOOST_SPEC_EXAMPLE)


def search_request(target: DiscoveryEngineTarget, query: str, spec: ChunkSearchSpec) -> Any:
    """The raw ``SearchRequest`` for ``query`` (the first page). Built as a raw protobuf message:
    proto-plus takes several times longer to build it from keyword arguments and dicts."""
    message = _SearchRequest(
        serving_config=target.serving_config_path,
        relevance_threshold=_THRESHOLDS[spec.relevance_threshold],
        query=check_query(query),
        page_size=min(spec.k, MAX_PAGE_SIZE),
        filter=spec.filter,
        canonical_filter=spec.canonical_filter,
        order_by=spec.order_by,
        language_code=spec.language_code,
        user_pseudo_id=spec.user_pseudo_id,
        session=spec.session,
    )
    content = message.content_search_spec
    content.search_result_mode = _MODES[spec.search_mode]
    if spec.search_mode == "chunks":
        content.chunk_spec.SetInParent()
        content.chunk_spec.num_previous_chunks = spec.num_previous_chunks
        content.chunk_spec.num_next_chunks = spec.num_next_chunks
    else:
        # Google sends snippets only when asked: a result has no text otherwise.
        content.snippet_spec.return_snippet = spec.return_snippet is not False
        if spec.max_extractive_answer_count or spec.max_extractive_segment_count:
            extractive = content.extractive_content_spec
            extractive.max_extractive_answer_count = spec.max_extractive_answer_count
            extractive.max_extractive_segment_count = spec.max_extractive_segment_count
            extractive.return_extractive_segment_score = spec.return_extractive_segment_score
            extractive.num_previous_segments = spec.num_previous_segments
            extractive.num_next_segments = spec.num_next_segments
    message.relevance_score_spec.return_relevance_score = True
    if spec.spell_correction is not None:
        message.spell_correction_spec.mode = _SPELL_CORRECTION[spec.spell_correction]
    if spec.query_expansion is not None:
        message.query_expansion_spec.condition = _QUERY_EXPANSION[spec.query_expansion]
        message.query_expansion_spec.pin_unexpanded_results = spec.pin_unexpanded_results
    if spec.relevance_filter_spec is not None:
        message.relevance_filter_spec.CopyFrom(
            api_message(
                de.SearchRequest.RelevanceFilterSpec,
                spec.relevance_filter_spec,
                "relevance_filter_spec",
                RELEVANCE_FILTER_SPEC_EXAMPLE,
            )
        )
    if spec.boost_spec is not None:
        message.boost_spec.CopyFrom(boost_spec(spec.boost_spec))
    for data_store in spec.data_store_specs:
        added = message.data_store_specs.add(
            data_store=target.data_store_path(data_store.data_store), filter=data_store.filter
        )
        if data_store.boost_spec is not None:
            added.boost_spec.CopyFrom(boost_spec(data_store.boost_spec))
    for n, facet in enumerate(spec.facet_specs):
        message.facet_specs.append(
            api_message(de.SearchRequest.FacetSpec, facet, f"facet_specs[{n}]", FACET_SPEC_EXAMPLE)
        )
    check_request_size("Search", message)
    return message


class DiscoveryEngineTargetArgs(TypedDict, total=False):
    """The keyword arguments that name what a Discovery Engine component calls (those of
    ``DiscoveryEngineConnection.target``)."""

    engine_id: str | None
    data_store_id: str | None
    collection: str | None
    serving_config_id: str


class DiscoveryEngineChunkSearchArgs(
    DiscoveryEngineConnectionArgs, DiscoveryEngineTargetArgs, SearchOptions, total=False
):
    """Every keyword argument of a Discovery Engine search in one set: the connection's, the
    target's and the search options, as the framework components take them."""


class DiscoveryEngineChunkSearch:
    """Search of a Discovery Engine (Vertex AI Search) data store or engine: ``data_store_id``
    or ``engine_id`` (exactly one; neither: ``$GROUNDING_DATA_STORE``) and ``ChunkSearchSpec``'s
    fields as options (a bad one raises ``ConfigurationError`` or ``InputError`` here)."""

    def __init__(
        self,
        connection: DiscoveryEngineConnection,
        *,
        data_store_id: str | None = None,
        engine_id: str | None = None,
        collection: str | None = DEFAULT_COLLECTION,
        serving_config_id: str = DEFAULT_SERVING_CONFIG,
        **options: Unpack[SearchOptions],
    ) -> None:
        self.connection = connection
        self.target = connection.target(
            data_store_id=data_store_id,
            engine_id=engine_id,
            collection=collection,
            serving_config_id=serving_config_id,
        )
        self.spec = ChunkSearchSpec(**options)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(serving_config={self.target.serving_config_path!r}, "
            f"k={self.spec.k}, endpoint={self.connection.endpoint!r})"
        )

    def replace(self, **changes: Any) -> DiscoveryEngineChunkSearch:
        """A copy whose spec has some options changed (validated again)."""
        copy = object.__new__(type(self))
        copy.connection, copy.target = self.connection, self.target
        copy.spec = dataclasses.replace(self.spec, **changes)
        return copy

    def _request(self, query: str, k: int | None, filter: str | None) -> tuple[Any, int]:
        spec = per_call(self.spec, k, filter)
        return de.SearchRequest.wrap(search_request(self.target, query, spec)), spec.k

    def _results(self, pages: list[Any], k: int) -> SearchResults:
        # Google's pagers always give a first page, which carries the response's own values.
        chunks = chunks_from_results(first_results(pages, k), self.spec.document_text)
        return search_results(type(pages[0]).pb(pages[0]), chunks)

    def search(
        self, query: str, *, k: int | None = None, filter: str | None = None
    ) -> list[SourceChunk]:
        """The top ``k`` chunks for ``query`` (``k`` and ``filter`` default to the spec's)."""
        return list(self.search_results(query, k=k, filter=filter).chunks)

    async def asearch(
        self, query: str, *, k: int | None = None, filter: str | None = None
    ) -> list[SourceChunk]:
        """Async ``search``, on Google's async client."""
        return list((await self.asearch_results(query, k=k, filter=filter)).chunks)

    def search_results(
        self, query: str, *, k: int | None = None, filter: str | None = None
    ) -> SearchResults:
        """The top ``k`` chunks for ``query`` and the response-level values."""
        request, k = self._request(query, k, filter)
        with translate_errors("Search", self.target.serving_config_path):
            client = self.connection.client(de.SearchServiceClient)
            pager = client.search(request=request, **self.connection.call_options.call_kwargs())
            pages = first_pages(pager.pages, k)
        return self._results(pages, k)

    async def asearch_results(
        self, query: str, *, k: int | None = None, filter: str | None = None
    ) -> SearchResults:
        """Async ``search_results``, on Google's async client."""
        request, k = self._request(query, k, filter)
        with translate_errors("Search", self.target.serving_config_path):
            client = self.connection.async_client(de.SearchServiceAsyncClient)
            pager = await client.search(
                request=request, **self.connection.call_options.async_call_kwargs()
            )
            pages = await afirst_pages(pager.pages, k)
        return self._results(pages, k)
