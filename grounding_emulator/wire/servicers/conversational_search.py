"""``google.cloud.discoveryengine.{v}.ConversationalSearchService``: AnswerQuery."""

from __future__ import annotations

import datetime as _dt
import hashlib
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.answer.engine import AnswerParams, generate_answer
from grounding_emulator.errors import InvalidArgument
from grounding_emulator.wire.messages import ChunkNames, discovery_answer_response
from grounding_emulator.wire.names import data_store_path, parse_serving_config
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc
from grounding_emulator.wire.servicers.search import boosts

__all__ = ["ConversationalSearchServicer"]

_AnswerQueryRequest = de.AnswerQueryRequest.pb()
_FilteringLevel = _AnswerQueryRequest.GroundingSpec.FilteringLevel
_ClassificationType = _AnswerQueryRequest.QueryUnderstandingSpec.QueryClassificationSpec.Type


def _filtering_level(value: int) -> str:
    """ "LOW"/"HIGH" for a ``GroundingSpec.FilteringLevel``, "" when unspecified."""
    name = _FilteringLevel.Name(value)
    return "" if name == "FILTERING_LEVEL_UNSPECIFIED" else name.removeprefix("FILTERING_LEVEL_")


def _classification_types(values: Any) -> tuple[str, ...]:
    """The query classes asked about (``QueryClassificationSpec.Type`` names, without
    ``TYPE_UNSPECIFIED``), in request order."""
    names = (_ClassificationType.Name(v) for v in values)
    return tuple(dict.fromkeys(n for n in names if n != "TYPE_UNSPECIFIED"))


class ConversationalSearchServicer(Servicer):
    """``google.cloud.discoveryengine.v1.ConversationalSearchService`` (AnswerQuery only)."""

    services = discovery_engine("ConversationalSearchService")

    @rpc("AnswerQuery", de.AnswerQueryRequest.pb())
    def answer_query(self, request: Any) -> Any:
        """``AnswerQuery``: an extractive answer from the serving config's data store."""
        name = parse_serving_config(request.serving_config)
        data_store = self.backend.data_store(name)
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
                boosts=boosts(search_params.boost_spec),
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
            self.backend.judge,
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
