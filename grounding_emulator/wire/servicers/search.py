"""``google.cloud.discoveryengine.{v}.SearchService``: Search, SearchLite."""

from __future__ import annotations

import secrets
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.answer.summary import generate_summary
from grounding_emulator.errors import FailedPrecondition, InvalidArgument
from grounding_emulator.limits import MAX_EXTRACTIVE_ANSWERS, MAX_EXTRACTIVE_SEGMENTS
from grounding_emulator.search.engine import Mode, SearchParams, search
from grounding_emulator.search.facets import FacetRequest, Interval
from grounding_emulator.wire.messages import ChunkNames, search_summary, summary_params
from grounding_emulator.wire.messages.search import ContentOptions, search_response
from grounding_emulator.wire.names import (
    data_store_path,
    parse_serving_config,
    parse_session_name,
)
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc
from grounding_emulator.wire.servicers.request_specs import (
    boosts,
    check_query,
    check_user_pseudo_id,
    data_store_specs,
    search_result_mode,
)

__all__ = ["SearchServicer"]

_SearchRequest = de.SearchRequest.pb()
_Threshold = _SearchRequest.RelevanceThreshold
_Spelling = _SearchRequest.SpellCorrectionSpec.Mode
_Expansion = _SearchRequest.QueryExpansionSpec.Condition


def _count(value: int, field: str, maximum: int) -> int:
    if not 0 <= value <= maximum:
        raise InvalidArgument(f"{field} must be between 0 and {maximum}, got {value}", field=field)
    return value


def _content_options(request: Any, mode: Mode) -> ContentOptions:
    """``ContentSearchSpec`` snippet and extractive options ("Get snippets and extracted
    content"; ExtractiveContentSpec: "At most five answers", segments at most 10). They shape
    DOCUMENTS-mode results; a CHUNKS-mode result has no derived struct data to carry them."""
    spec = request.content_search_spec
    extractive = spec.extractive_content_spec
    where = "content_search_spec.extractive_content_spec"
    answers = _count(
        extractive.max_extractive_answer_count,
        f"{where}.max_extractive_answer_count",
        MAX_EXTRACTIVE_ANSWERS,
    )
    segments = _count(
        extractive.max_extractive_segment_count,
        f"{where}.max_extractive_segment_count",
        MAX_EXTRACTIVE_SEGMENTS,
    )
    if mode == "chunks":
        return ContentOptions()
    snippets = spec.snippet_spec
    return ContentOptions(
        # max_snippet_count is deprecated: "we will return snippet if max_snippet_count > 0".
        snippets=snippets.return_snippet or snippets.max_snippet_count > 0,
        extractive_segments=segments,
        segment_scores=extractive.return_extractive_segment_score,
        extractive_answers=answers,
        query=request.query,
    )


def _facets(request: Any) -> tuple[FacetRequest, ...]:
    def interval(message: Any) -> Interval:
        return Interval(
            **{
                field: getattr(message, field)
                for field in ("minimum", "exclusive_minimum", "maximum", "exclusive_maximum")
                if message.HasField(field)
            }
        )

    return tuple(
        FacetRequest(
            key=spec.facet_key.key,
            limit=spec.limit,
            intervals=tuple(interval(i) for i in spec.facet_key.intervals),
            order_by=spec.facet_key.order_by,
            restricted_values=tuple(spec.facet_key.restricted_values),
            prefixes=tuple(spec.facet_key.prefixes),
            contains=tuple(spec.facet_key.contains),
            case_insensitive=spec.facet_key.case_insensitive,
        )
        for spec in request.facet_specs
    )


def _check_passed_through(request: Any) -> None:
    """Fields the emulator accepts without their effect, checked where Google documents a
    limit: ``user_pseudo_id`` (``check_user_pseudo_id``), ``relevance_filter_spec``'s
    ``semantic_relevance_threshold`` ("must be in [0.0, 1.0]")."""
    check_user_pseudo_id(request.user_pseudo_id)
    spec = request.relevance_filter_spec
    for name in ("keyword_search_threshold", "semantic_search_threshold"):
        threshold = getattr(spec, name)
        if threshold.HasField("semantic_relevance_threshold") and not (
            0.0 <= threshold.semantic_relevance_threshold <= 1.0
        ):
            field = f"relevance_filter_spec.{name}.semantic_relevance_threshold"
            raise InvalidArgument(
                f"{field} must be in [0.0, 1.0], got {threshold.semantic_relevance_threshold}",
                field=field,
            )


class SearchServicer(Servicer):
    """``google.cloud.discoveryengine.v1.SearchService``.

    ``Chunk.relevance_score`` is documented in [-1, 1]; the emulator's is in [0, 1] (a subset,
    see ``index.py``), set only when the request asks for it
    (``relevance_score_spec.return_relevance_score``), as the API documents it; the rank
    signals (``keyword_similarity_score`` = raw BM25, ``relevance_score``, ``default_rank``,
    ``boosting_factor`` when boosted) are always set. Spell correction follows
    ``SpellCorrectionSpec`` (unspecified mode = ``AUTO``), query expansion
    ``QueryExpansionSpec`` (unspecified = ``DISABLED``), decided under ``canonical_filter``
    when one is given (``SearchRequest.canonical_filter``, see ``search/engine.py``);
    ``user_pseudo_id``, ``language_code``, ``relevance_filter_spec`` and ``session`` (which
    must exist, unless ``-``) are accepted and otherwise have no effect. Every response has a new
    ``attribution_token`` ("A unique search token"): random and URL-safe, opaque as the one in
    the example response of Google's "Filter generic search" page.
    """

    services = discovery_engine("SearchService")

    def _check_session(self, request: Any) -> None:
        """``SearchRequest.session`` ("The session resource name. Optional"): a session name, and
        one that exists unless it is ``-``; Search neither creates sessions nor records turns in
        them here (Google's multi-turn search is not emulated)."""
        if not request.session:
            return
        name = parse_session_name(request.session, "session", allow_new=True)
        if name.session != "-":
            self.backend.sessions.get(name.key, request.session)

    @rpc("Search", de.SearchRequest.pb())
    def search(self, request: Any) -> Any:
        """``Search``: chunks or documents of the serving config's data store."""
        name = parse_serving_config(request.serving_config)
        data_store = self.backend.data_store(name)
        spec = request.content_search_spec
        chunk_spec_given = spec.HasField("chunk_spec")
        threshold = _Threshold.Name(request.relevance_threshold)
        mode = search_result_mode(spec.search_result_mode, "content_search_spec.search_result_mode")
        content = _content_options(request, mode)
        _check_passed_through(request)
        self._check_session(request)
        spec_boosts, spec_filters = data_store_specs(
            request.data_store_specs, data_store, "data_store_specs"
        )
        extractive = spec.extractive_content_spec
        expansion = request.query_expansion_spec
        params = SearchParams(
            query=check_query(request.query, "query"),
            page_size=request.page_size,
            page_token=request.page_token,
            offset=request.offset,
            filter=request.filter,
            order_by=request.order_by,
            boosts=boosts(request.boost_spec) + spec_boosts,
            mode=mode,
            num_previous_chunks=spec.chunk_spec.num_previous_chunks,
            num_next_chunks=spec.chunk_spec.num_next_chunks,
            chunk_spec_given=chunk_spec_given,
            relevance_threshold="" if threshold == "RELEVANCE_THRESHOLD_UNSPECIFIED" else threshold,
            scope=name.parent_path,
            spell_correction=(
                "SUGGESTION_ONLY"
                if request.spell_correction_spec.mode == _Spelling.SUGGESTION_ONLY
                else "AUTO"
            ),
            query_expansion=expansion.condition == _Expansion.AUTO,
            pin_unexpanded_results=expansion.pin_unexpanded_results,
            canonical_filter=request.canonical_filter,
            data_store_filters=spec_filters,
            facets=_facets(request),
            num_previous_segments=extractive.num_previous_segments,
            num_next_segments=extractive.num_next_segments,
            rerank_top=self.backend.rerank_search,
        )
        page = search(data_store, params)
        names = ChunkNames(data_store_path(name, data_store.id))
        response = search_response(
            page,
            names,
            return_relevance_score=request.relevance_score_spec.return_relevance_score,
            boosted=bool(params.boosts),
            content=content,
            query_expansion=params.query_expansion,
        )
        response.attribution_token = secrets.token_urlsafe(48)
        if spec.HasField("summary_spec"):
            summary = generate_summary(
                data_store, summary_params(request.query, spec.summary_spec, mode), page
            )
            response.summary.CopyFrom(search_summary(summary, names))
        return response

    @rpc("SearchLite", de.SearchRequest.pb())
    def search_lite(self, request: Any) -> Any:
        """``SearchLite``: Search, "a lite version that allows API key for authentication";
        "Only public website search is supported by this method. If data stores and engines not
        associated with public website search are specified, a FAILED_PRECONDITION error is
        returned." A data store made with ``content_config`` ``PUBLIC_WEBSITE`` (its documents
        put in through DocumentService, as the emulator crawls nothing), or an engine over one,
        is searched as Search searches it; any other is ``FAILED_PRECONDITION``."""
        name = parse_serving_config(request.serving_config)
        config = self.backend.content_config(name)
        if config != "PUBLIC_WEBSITE":
            raise FailedPrecondition(
                f"SearchLite serves public website search only, and {name.parent_path} searches "
                f"a data store of content_config {config}: call Search, or create a data store "
                "with content_config PUBLIC_WEBSITE (and an engine over it)"
            )
        return self.search(request)
