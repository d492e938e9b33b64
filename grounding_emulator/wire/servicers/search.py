"""``google.cloud.discoveryengine.{v}.SearchService``: Search."""

from __future__ import annotations

from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.errors import InvalidArgument
from grounding_emulator.search.engine import ConditionBoost, Mode, SearchParams, search
from grounding_emulator.wire.messages import ChunkNames, search_response
from grounding_emulator.wire.names import data_store_path, parse_serving_config
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc

__all__ = ["SearchServicer", "boosts"]

_SearchRequest = de.SearchRequest.pb()
_Mode = _SearchRequest.ContentSearchSpec.SearchResultMode
_Threshold = _SearchRequest.RelevanceThreshold


def boosts(boost_spec: Any) -> tuple[ConditionBoost, ...]:
    """A ``SearchRequest.BoostSpec``'s condition boosts (AnswerQuery's search params use it
    too)."""
    return tuple(
        ConditionBoost(spec.condition, spec.boost) for spec in boost_spec.condition_boost_specs
    )


def _mode(value: int, field: str) -> Mode:
    if value in (_Mode.SEARCH_RESULT_MODE_UNSPECIFIED, _Mode.DOCUMENTS):
        return "documents"
    if value == _Mode.CHUNKS:
        return "chunks"
    raise InvalidArgument(f"{field} {value} is not a search result mode", field=field)


class SearchServicer(Servicer):
    """``google.cloud.discoveryengine.v1.SearchService``.

    ``Chunk.relevance_score`` (in [0, 1], see ``index.py``) is set only when the request asks
    for it (``relevance_score_spec.return_relevance_score``), as the API documents it; the rank
    signals (``keyword_similarity_score`` = raw BM25, ``relevance_score``, ``default_rank``,
    ``boosting_factor`` when boosted) are always set.
    """

    services = discovery_engine("SearchService")

    @rpc("Search", de.SearchRequest.pb())
    def search(self, request: Any) -> Any:
        """``Search``: chunks or documents of the serving config's data store."""
        name = parse_serving_config(request.serving_config)
        data_store = self.backend.data_store(name)
        spec = request.content_search_spec
        chunk_spec_given = spec.HasField("chunk_spec")
        extractive = spec.extractive_content_spec.max_extractive_segment_count
        threshold = _Threshold.Name(request.relevance_threshold)
        params = SearchParams(
            query=request.query,
            page_size=request.page_size,
            page_token=request.page_token,
            offset=request.offset,
            filter=request.filter,
            order_by=request.order_by,
            boosts=boosts(request.boost_spec),
            mode=_mode(spec.search_result_mode, "content_search_spec.search_result_mode"),
            num_previous_chunks=spec.chunk_spec.num_previous_chunks,
            num_next_chunks=spec.chunk_spec.num_next_chunks,
            chunk_spec_given=chunk_spec_given,
            relevance_threshold="" if threshold == "RELEVANCE_THRESHOLD_UNSPECIFIED" else threshold,
            scope=name.parent_path,
        )
        page = search(data_store, params)
        return search_response(
            page,
            ChunkNames(data_store_path(name, data_store.id)),
            return_relevance_score=request.relevance_score_spec.return_relevance_score,
            boosted=bool(params.boosts),
            extractive_segments=max(0, extractive),
        )
