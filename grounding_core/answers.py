"""AnswerQuery of Discovery Engine and of the Developer Knowledge API (sync and async),
returning ``GroundedAnswer`` records whose citations carry string and byte spans.

>>> clients = DiscoveryEngineClients(emulator_host="localhost:8123")  # doctest: +SKIP
>>> target = DiscoveryEngineTarget(project="p", engine="docs-app")  # doctest: +SKIP
>>> answer = answer_query(clients, target, "How do I open a file?")  # doctest: +SKIP
>>> c = answer.citations[0]  # doctest: +SKIP
>>> answer.answer_text[c.start:c.end] == c.text, c.references[0].uri  # doctest: +SKIP
(True, 'https://docs.python.org/3/reference/...')
"""

from __future__ import annotations

import dataclasses
from typing import Any

from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import types as dk

from .clients import DeveloperKnowledgeClients, DiscoveryEngineClients
from .convert import (
    answer_from_developer_knowledge,
    answer_from_discovery_engine,
    session_from_proto,
)
from .errors import InputError, translate_errors
from .records import GroundedAnswer
from .search import (
    DEVELOPER_KNOWLEDGE,
    SEARCH_RESULT_MODES,
    boost_spec_message,
    check_query,
    data_store_name,
)
from .settings import CallOptions, DiscoveryEngineTarget
from .specs import (
    FILTERING_LEVELS,
    MAX_DEVELOPER_KNOWLEDGE_TEXT,
    QUERY_CLASSIFICATION_TYPES,
    AnswerSpec,
    DataStoreSpec,
)
from .validation import check_request_size, check_wire_text

__all__ = [
    "aanswer_developer_query",
    "aanswer_query",
    "answer_developer_query",
    "answer_query",
    "answer_query_request",
    "answer_resource",
    "check_developer_filter",
    "data_store_name",
    "developer_answer_request",
    "discovery_engine_answer",
]


_REQUEST = de.AnswerQueryRequest
_CLASSIFICATION_TYPE = _REQUEST.QueryUnderstandingSpec.QueryClassificationSpec.Type
_CLASSIFICATION_TYPES = {
    kind: getattr(_CLASSIFICATION_TYPE, kind.upper()) for kind in QUERY_CLASSIFICATION_TYPES
}
_FILTERING_LEVELS = {
    level: getattr(_REQUEST.GroundingSpec.FilteringLevel, f"FILTERING_LEVEL_{level.upper()}")
    for level in FILTERING_LEVELS
}


def _data_store_spec(target: DiscoveryEngineTarget, spec: DataStoreSpec) -> dict[str, Any]:
    message: dict[str, Any] = {
        "data_store": data_store_name(target, spec.data_store),
        "filter": spec.filter,
    }
    boost = boost_spec_message(spec.boost_spec)
    if boost is not None:
        message["boost_spec"] = boost
    return message


def _search_params(target: DiscoveryEngineTarget, spec: AnswerSpec) -> dict[str, Any]:
    params: dict[str, Any] = {
        "max_return_results": spec.max_return_results,
        "filter": spec.filter,
        "order_by": spec.order_by,
        "data_store_specs": [_data_store_spec(target, s) for s in spec.data_store_specs],
    }
    # No mode sent: Google's default (documents), as Google's answer sample does.
    if spec.search_mode is not None:
        params["search_result_mode"] = SEARCH_RESULT_MODES[spec.search_mode]
    boost = boost_spec_message(spec.boost_spec)
    if boost is not None:
        params["boost_spec"] = boost
    return params


def _answer_generation(spec: AnswerSpec) -> dict[str, Any]:
    generation: dict[str, Any] = {
        "include_citations": spec.include_citations,
        "answer_language_code": spec.answer_language_code,
        "ignore_adversarial_query": spec.ignore_adversarial_query,
        "ignore_non_answer_seeking_query": spec.ignore_non_answer_seeking_query,
        "ignore_jail_breaking_query": spec.ignore_jail_breaking_query,
        "prompt_spec": {"preamble": spec.preamble},
        "model_spec": {"model_version": spec.model_version},
    }
    if spec.ignore_low_relevant_content is not None:
        generation["ignore_low_relevant_content"] = spec.ignore_low_relevant_content
    return generation


def _query_understanding(spec: AnswerSpec) -> dict[str, Any]:
    return {
        "query_rephraser_spec": {
            "disable": spec.disable_query_rephraser,
            # Unset (0) is Google's default: one step.
            "max_rephrase_steps": spec.max_rephrase_steps or 0,
        },
        "query_classification_spec": {
            "types": [_CLASSIFICATION_TYPES[kind] for kind in spec.query_classification_types]
        },
        "disable_spell_correction": spec.disable_spell_correction,
    }


def answer_query_request(
    target: DiscoveryEngineTarget, query: str, spec: AnswerSpec = AnswerSpec()
) -> de.AnswerQueryRequest:
    """The Discovery Engine ``AnswerQueryRequest`` for ``query``."""
    grounding: dict[str, Any] = {"include_grounding_supports": spec.include_grounding_supports}
    if spec.filtering_level is not None:
        grounding["filtering_level"] = _FILTERING_LEVELS[spec.filtering_level]
    request = de.AnswerQueryRequest(
        serving_config=target.serving_config_path,
        query={"text": check_query(query)},
        session=target.session_path(spec.session) if spec.session is not None else "",
        safety_spec={"enable": spec.safety_filtering},
        related_questions_spec={"enable": spec.related_questions},
        grounding_spec=grounding,
        answer_generation_spec=_answer_generation(spec),
        search_spec={"search_params": _search_params(target, spec)},
        query_understanding_spec=_query_understanding(spec),
        user_pseudo_id=spec.user_pseudo_id,
    )
    check_request_size("AnswerQuery", de.AnswerQueryRequest.pb(request))
    return request


def answer_resource(request: de.AnswerQueryRequest) -> str:
    """What errors name: the serving config, and the session when there is one."""
    if request.session:
        return f"{request.serving_config} (session {request.session})"
    return request.serving_config


def discovery_engine_answer(pb: Any) -> GroundedAnswer:
    """The record of a Discovery Engine ``AnswerQueryResponse`` (raw pb), with its session's
    turns when it carries them."""
    answer = answer_from_discovery_engine(pb.answer, session=pb.session.name)
    if not pb.session.turns:
        return answer
    return dataclasses.replace(answer, turns=session_from_proto(pb.session).turns)


def answer_query(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    query: str,
    spec: AnswerSpec = AnswerSpec(),
    options: CallOptions = CallOptions(),
) -> GroundedAnswer:
    """A grounded answer to ``query`` from ``target`` (an engine or a data store)."""
    request = answer_query_request(target, query, spec)
    with translate_errors("AnswerQuery", answer_resource(request)):
        response = clients.conversational_search().answer_query(
            request=request, **options.call_kwargs()
        )
    return discovery_engine_answer(type(response).pb(response))


async def aanswer_query(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    query: str,
    spec: AnswerSpec = AnswerSpec(),
    options: CallOptions = CallOptions(),
) -> GroundedAnswer:
    """Async ``answer_query``, on Google's async client."""
    request = answer_query_request(target, query, spec)
    with translate_errors("AnswerQuery", answer_resource(request)):
        response = await clients.conversational_search_async().answer_query(
            request=request, **options.async_call_kwargs()
        )
    return discovery_engine_answer(type(response).pb(response))


def check_developer_filter(filter: object) -> str:
    """``filter`` if the Developer Knowledge ``answerQuery`` accepts it (a string of at most
    500 characters), else an ``InputError``."""
    if not isinstance(filter, str) or len(filter) > MAX_DEVELOPER_KNOWLEDGE_TEXT:
        raise InputError(
            f"filter must be a string of at most {MAX_DEVELOPER_KNOWLEDGE_TEXT} characters",
            field="filter",
            limit=MAX_DEVELOPER_KNOWLEDGE_TEXT,
        )
    return check_wire_text("filter", filter)


def developer_answer_request(query: str, filter: str = "") -> dk.AnswerQueryRequest:
    """The Developer Knowledge ``AnswerQueryRequest`` (query and filter: <= 500 characters)."""
    return dk.AnswerQueryRequest(
        query=check_query(query, maximum=MAX_DEVELOPER_KNOWLEDGE_TEXT),
        filter=check_developer_filter(filter),
    )


def _developer_answer(response: Any) -> GroundedAnswer:
    return answer_from_developer_knowledge(type(response).pb(response).answer)


def answer_developer_query(
    clients: DeveloperKnowledgeClients,
    query: str,
    filter: str = "",
    options: CallOptions = CallOptions(),
) -> GroundedAnswer:
    """A grounded answer to ``query`` from the Developer Knowledge corpus."""
    request = developer_answer_request(query, filter)
    with translate_errors("AnswerQuery", DEVELOPER_KNOWLEDGE):
        response = clients.developer_knowledge().answer_query(
            request=request, **options.call_kwargs()
        )
    return _developer_answer(response)


async def aanswer_developer_query(
    clients: DeveloperKnowledgeClients,
    query: str,
    filter: str = "",
    options: CallOptions = CallOptions(),
) -> GroundedAnswer:
    """Async ``answer_developer_query``, on Google's async client."""
    request = developer_answer_request(query, filter)
    with translate_errors("AnswerQuery", DEVELOPER_KNOWLEDGE):
        response = await clients.developer_knowledge_async().answer_query(
            request=request, **options.async_call_kwargs()
        )
    return _developer_answer(response)
