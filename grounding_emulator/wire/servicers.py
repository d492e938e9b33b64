"""One servicer per Google service: read the request, call one engine, build the response.

Requests and responses are raw protobuf messages (the ``.pb()`` classes of Google's types).
Servicers raise the engines' ``EmulatorError``s; ``handlers.py`` turns them into gRPC statuses.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from typing import Any

from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import types as dk

from grounding_emulator.answer.engine import AnswerParams, generate_answer
from grounding_emulator.corpus.builtin import BUILTIN_DATA_STORE
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.store import CorpusStore
from grounding_emulator.errors import InvalidArgument, NotFound
from grounding_emulator.grounding.check import run_check
from grounding_emulator.grounding.lexical.engine import Fact
from grounding_emulator.limits import (
    DEFAULT_DEVELOPER_KNOWLEDGE_PAGE_SIZE,
    MAX_BATCH_DOCUMENTS,
    MAX_DEVELOPER_KNOWLEDGE_TEXT,
)
from grounding_emulator.search.engine import ConditionBoost, Mode, SearchParams, search
from grounding_emulator.wire.messages import (
    ChunkNames,
    check_grounding_response,
    developer_answer_response,
    developer_batch_response,
    developer_document,
    developer_search_response,
    discovery_answer_response,
    search_response,
)
from grounding_emulator.wire.names import (
    ServingConfigName,
    check_document_name,
    data_store_path,
    parse_grounding_config,
    parse_serving_config,
)

__all__ = [
    "ConversationalSearchServicer",
    "DeveloperKnowledgeServicer",
    "GroundedGenerationServicer",
    "SearchServicer",
]


_SearchRequest = de.SearchRequest.pb()
_Mode = _SearchRequest.ContentSearchSpec.SearchResultMode
_Threshold = _SearchRequest.RelevanceThreshold
_AnswerQueryRequest = de.AnswerQueryRequest.pb()
_FilteringLevel = _AnswerQueryRequest.GroundingSpec.FilteringLevel
_ClassificationType = _AnswerQueryRequest.QueryUnderstandingSpec.QueryClassificationSpec.Type
_VIEW_NAMES = {
    dk.DocumentView.DOCUMENT_VIEW_UNSPECIFIED: "CONTENT",
    dk.DocumentView.DOCUMENT_VIEW_BASIC: "BASIC",
    dk.DocumentView.DOCUMENT_VIEW_FULL: "FULL",
    dk.DocumentView.DOCUMENT_VIEW_CONTENT: "CONTENT",
}


def _resolve(store: CorpusStore, name: ServingConfigName) -> DataStore:
    if name.engine is not None:
        return store.engine(name.engine)
    return store.get(str(name.data_store))


def _boosts(boost_spec: Any) -> tuple[ConditionBoost, ...]:
    return tuple(
        ConditionBoost(spec.condition, spec.boost) for spec in boost_spec.condition_boost_specs
    )


def _mode(value: int, field: str) -> Mode:
    if value in (_Mode.SEARCH_RESULT_MODE_UNSPECIFIED, _Mode.DOCUMENTS):
        return "documents"
    if value == _Mode.CHUNKS:
        return "chunks"
    raise InvalidArgument(f"{field} {value} is not a search result mode", field=field)


class SearchServicer:
    """``google.cloud.discoveryengine.v1.SearchService``.

    ``Chunk.relevance_score`` (in [0, 1], see ``index.py``) is set only when the request asks
    for it (``relevance_score_spec.return_relevance_score``), as the API documents it; the rank
    signals (``keyword_similarity_score`` = raw BM25, ``relevance_score``, ``default_rank``,
    ``boosting_factor`` when boosted) are always set.
    """

    def __init__(self, store: CorpusStore) -> None:
        self.store = store

    def search(self, request: Any) -> Any:
        """``Search``: chunks or documents of the serving config's data store."""
        name = parse_serving_config(request.serving_config)
        data_store = _resolve(self.store, name)
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
            boosts=_boosts(request.boost_spec),
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


class GroundedGenerationServicer:
    """``google.cloud.discoveryengine.v1.GroundedGenerationService``."""

    def check_grounding(self, request: Any) -> Any:
        """``CheckGrounding``: the grounding engine's verdict on the answer candidate."""
        parse_grounding_config(request.grounding_config)
        facts = [Fact(f.fact_text, dict(f.attributes)) for f in request.facts]
        spec = request.grounding_spec
        threshold = spec.citation_threshold if spec.HasField("citation_threshold") else None
        outcome = run_check(request.answer_candidate, facts, threshold)
        return check_grounding_response(
            request.answer_candidate,
            facts,
            outcome,
            claim_scores=spec.HasField("enable_claim_level_score")
            and spec.enable_claim_level_score,
        )


def _filtering_level(value: int) -> str:
    """ "LOW"/"HIGH" for a ``GroundingSpec.FilteringLevel``, "" when unspecified."""
    name = _FilteringLevel.Name(value)
    return "" if name == "FILTERING_LEVEL_UNSPECIFIED" else name.removeprefix("FILTERING_LEVEL_")


def _classification_types(values: Any) -> tuple[str, ...]:
    """The query classes asked about (``QueryClassificationSpec.Type`` names, without
    ``TYPE_UNSPECIFIED``), in request order."""
    names = (_ClassificationType.Name(v) for v in values)
    return tuple(dict.fromkeys(n for n in names if n != "TYPE_UNSPECIFIED"))


class ConversationalSearchServicer:
    """``google.cloud.discoveryengine.v1.ConversationalSearchService`` (AnswerQuery only)."""

    def __init__(self, store: CorpusStore) -> None:
        self.store = store

    def answer_query(self, request: Any) -> Any:
        """``AnswerQuery``: an extractive answer from the serving config's data store."""
        name = parse_serving_config(request.serving_config)
        data_store = _resolve(self.store, name)
        if request.search_spec.HasField("search_result_list"):
            raise InvalidArgument(
                "search_spec.search_result_list is not supported by the emulator: let it search "
                "(search_spec.search_params)",
                field="search_spec.search_result_list",
            )
        search_params = request.search_spec.search_params
        generation = request.answer_generation_spec
        answer = generate_answer(
            data_store,
            AnswerParams(
                query=request.query.text,
                max_return_results=search_params.max_return_results,
                filter=search_params.filter,
                order_by=search_params.order_by,
                boosts=_boosts(search_params.boost_spec),
                include_citations=generation.include_citations,
                ignore_non_answer_seeking_query=generation.ignore_non_answer_seeking_query,
                ignore_jail_breaking_query=generation.ignore_jail_breaking_query,
                ignore_low_relevant_content=(
                    generation.ignore_low_relevant_content
                    if generation.HasField("ignore_low_relevant_content")
                    else None
                ),
                filtering_level=_filtering_level(request.grounding_spec.filtering_level),
                classification_types=_classification_types(
                    request.query_understanding_spec.query_classification_spec.types
                ),
            ),
        )
        now = _dt.datetime.now(_dt.timezone.utc)
        digest = hashlib.sha256(f"{request.query.text}|{now.isoformat()}".encode()).hexdigest()
        return discovery_answer_response(
            answer,
            ChunkNames(data_store_path(name, data_store.id)),
            answer_name=f"{name.parent_path}/sessions/-/answers/{digest[:16]}",
            include_grounding_supports=request.grounding_spec.include_grounding_supports,
            now=now,
        )


def _developer_text(value: str, field: str, *, required: bool) -> str:
    if required and not value.strip():
        raise InvalidArgument(f"{field} is required", field=field)
    if len(value) > MAX_DEVELOPER_KNOWLEDGE_TEXT:
        raise InvalidArgument(
            f"{field} has {len(value)} characters; at most {MAX_DEVELOPER_KNOWLEDGE_TEXT} are "
            "allowed",
            field=field,
        )
    return value


class DeveloperKnowledgeServicer:
    """``google.developers.knowledge.v1.DeveloperKnowledge`` over one data store."""

    def __init__(self, store: CorpusStore, data_store_id: str = BUILTIN_DATA_STORE) -> None:
        self.store = store
        self.data_store_id = data_store_id

    def _data_store(self) -> DataStore:
        return self.store.get(self.data_store_id)

    def _document(self, data_store: DataStore, name: str, field: str) -> Any:
        document = data_store.document_by_name(check_document_name(name, field))
        if document is None:
            raise NotFound(f"document {name!r} not found")
        return document

    def search_document_chunks(self, request: Any) -> Any:
        """``SearchDocumentChunks``."""
        page = search(
            self._data_store(),
            SearchParams(
                query=_developer_text(request.query, "query", required=True),
                page_size=request.page_size,
                page_token=request.page_token,
                filter=_developer_text(request.filter, "filter", required=False),
                mode="chunks",
                dialect="developer_knowledge",
                default_page_size=DEFAULT_DEVELOPER_KNOWLEDGE_PAGE_SIZE,
                scope=self.data_store_id,
            ),
        )
        return developer_search_response(page)

    def get_document(self, request: Any) -> Any:
        """``GetDocument`` (default view: CONTENT)."""
        document = self._document(self._data_store(), request.name, "name")
        return developer_document(document, _VIEW_NAMES.get(request.view, "CONTENT"))

    def batch_get_documents(self, request: Any) -> Any:
        """``BatchGetDocuments``: at most 20, in request order."""
        names = list(request.names)
        if not names:
            raise InvalidArgument("names is required: give 1 to 20 document names", field="names")
        if len(names) > MAX_BATCH_DOCUMENTS:
            raise InvalidArgument(
                f"names has {len(names)} entries; at most {MAX_BATCH_DOCUMENTS} are allowed",
                field="names",
            )
        data_store = self._data_store()
        documents = [
            self._document(data_store, name, f"names[{i}]") for i, name in enumerate(names)
        ]
        return developer_batch_response(documents, _VIEW_NAMES.get(request.view, "CONTENT"))

    def answer_query(self, request: Any) -> Any:
        """``AnswerQuery``: an extractive answer; empty when nothing relevant is found."""
        answer = generate_answer(
            self._data_store(),
            AnswerParams(
                query=_developer_text(request.query, "query", required=True),
                filter=_developer_text(request.filter, "filter", required=False),
                dialect="developer_knowledge",
                query_field="query",
                filter_field="filter",
            ),
        )
        return developer_answer_response(answer)
