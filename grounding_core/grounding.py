"""CheckGrounding: an answer and its sources in, a ``GroundingResult`` out (sync and async).

Facts are built from the sources (``facts.build_facts``): empty sources are skipped, string
metadata become attributes, other metadata is serialized as JSON, and the API limits (200 facts,
10,000 characters per fact, 4,096 answer tokens) are enforced before anything is sent.

>>> clients = DiscoveryEngineClients(emulator_host="localhost:8123")  # doctest: +SKIP
>>> result = check_grounding(  # doctest: +SKIP
...     clients,
...     grounding_config_path("my-project"),
...     "Paris is the capital of France.",
...     ["Paris is the capital and largest city of France."],
... )
>>> result.support_score, result.claims[0].source_indices  # doctest: +SKIP
(1.0, (0,))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from google.cloud import discoveryengine_v1 as de

from .clients import DiscoveryEngineClients
from .convert import grounding_result_from_response
from .errors import translate_errors
from .facts import FactList, build_facts, check_answer_candidate
from .records import GroundingResult, GroundingSource
from .report import DEFAULT_MIN_SUPPORT_SCORE, GroundingReport
from .settings import CallOptions
from .specs import GroundingSpec
from .validation import check_request_size

__all__ = [
    "acheck_grounding",
    "acheck_sources",
    "check_grounding",
    "check_grounding_request",
    "check_sources",
]

S = TypeVar("S")

_CheckGroundingRequest = de.CheckGroundingRequest.pb()


def check_grounding_request(
    grounding_config: str,
    answer: str,
    sources: Sequence[GroundingSource | str],
    spec: GroundingSpec = GroundingSpec(),
) -> tuple[de.CheckGroundingRequest, FactList]:
    """The ``CheckGroundingRequest`` and the fact -> source index map, limits enforced."""
    answer = check_answer_candidate(answer)
    facts = build_facts(sources)
    # Built as a raw protobuf message and wrapped: proto-plus takes several times longer to
    # build the same message (one GroundingFact wrapper per fact), on every check.
    message = _CheckGroundingRequest(grounding_config=grounding_config, answer_candidate=answer)
    add_fact = message.facts.add
    for text, attributes in zip(facts.texts, facts.attributes, strict=True):
        add_fact(fact_text=text, attributes=attributes)
    message.grounding_spec.citation_threshold = spec.citation_threshold
    message.grounding_spec.enable_claim_level_score = spec.enable_claim_level_score
    message.user_labels.update(spec.user_labels)
    check_request_size("CheckGrounding", message)
    return de.CheckGroundingRequest.wrap(message), facts


def check_grounding(
    clients: DiscoveryEngineClients,
    grounding_config: str,
    answer: str,
    sources: Sequence[GroundingSource | str],
    spec: GroundingSpec = GroundingSpec(),
    options: CallOptions = CallOptions(),
) -> GroundingResult:
    """Check ``answer`` against ``sources``; claims cite the sources by their position."""
    request, facts = check_grounding_request(grounding_config, answer, sources, spec)
    with translate_errors("CheckGrounding", grounding_config):
        response = clients.grounded_generation().check_grounding(
            request=request, **options.call_kwargs()
        )
    return grounding_result_from_response(answer, type(response).pb(response), facts)


async def acheck_grounding(
    clients: DiscoveryEngineClients,
    grounding_config: str,
    answer: str,
    sources: Sequence[GroundingSource | str],
    spec: GroundingSpec = GroundingSpec(),
    options: CallOptions = CallOptions(),
) -> GroundingResult:
    """Async ``check_grounding``, on Google's async client."""
    request, facts = check_grounding_request(grounding_config, answer, sources, spec)
    with translate_errors("CheckGrounding", grounding_config):
        response = await clients.grounded_generation_async().check_grounding(
            request=request, **options.async_call_kwargs()
        )
    return grounding_result_from_response(answer, type(response).pb(response), facts)


def check_sources(
    clients: DiscoveryEngineClients,
    grounding_config: str,
    answer: str,
    sources: Sequence[S],
    grounding_sources: Sequence[GroundingSource],
    spec: GroundingSpec = GroundingSpec(),
    options: CallOptions = CallOptions(),
    *,
    min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE,
    source_ids: Sequence[str] = (),
) -> GroundingReport[S]:
    """Check ``answer`` against the caller's own objects (``sources``, e.g. LangChain documents
    or LlamaIndex nodes) given as ``grounding_sources`` (one each, same order): the report's
    claims cite those very objects, named in its metadata by ``source_ids`` (default: their
    positions). An empty or blank answer is not sent: its report is
    ``GroundingReport.nothing_to_check``."""
    if _nothing_to_check(answer):
        return GroundingReport.nothing_to_check(
            answer, sources, grounding_sources, min_support_score, source_ids
        )
    result = check_grounding(clients, grounding_config, answer, grounding_sources, spec, options)
    return _report(result, sources, grounding_sources, min_support_score, source_ids)


async def acheck_sources(
    clients: DiscoveryEngineClients,
    grounding_config: str,
    answer: str,
    sources: Sequence[S],
    grounding_sources: Sequence[GroundingSource],
    spec: GroundingSpec = GroundingSpec(),
    options: CallOptions = CallOptions(),
    *,
    min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE,
    source_ids: Sequence[str] = (),
) -> GroundingReport[S]:
    """Async ``check_sources``, on Google's async client."""
    if _nothing_to_check(answer):
        return GroundingReport.nothing_to_check(
            answer, sources, grounding_sources, min_support_score, source_ids
        )
    result = await acheck_grounding(
        clients, grounding_config, answer, grounding_sources, spec, options
    )
    return _report(result, sources, grounding_sources, min_support_score, source_ids)


def _nothing_to_check(answer: object) -> bool:
    # Only a string: anything else goes on to check_answer_candidate, which names the type.
    return isinstance(answer, str) and not answer.strip()


def _report(
    result: GroundingResult,
    sources: Sequence[S],
    grounding_sources: Sequence[GroundingSource],
    min_support_score: float,
    source_ids: Sequence[str],
) -> GroundingReport[S]:
    return GroundingReport(
        result,
        tuple(sources),
        tuple(grounding_sources),
        min_support_score=min_support_score,
        source_ids=tuple(source_ids),
    )
