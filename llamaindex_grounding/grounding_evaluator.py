"""``GroundingEvaluator``: checkGrounding as a LlamaIndex evaluator."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.evaluation import BaseEvaluator
from llama_index.core.prompts.mixin import PromptDictType
from llama_index.core.schema import NodeWithScore
from typing_extensions import Unpack

from grounding_core import (
    DEFAULT_CITATION_THRESHOLD,
    DEFAULT_GROUNDING_CONFIG,
    DEFAULT_MIN_SUPPORT_SCORE,
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
    GroundingReport,
    InputError,
)
from grounding_core.peers import refuse_unknown_arguments
from grounding_core.views import format_score

from ._agent_outputs import CheckedResponse, given_nodes
from ._checking import NodeGroundingChecker, checked_nodes
from .grounding_evaluation_result import GroundingEvaluationResult

__all__ = ["GroundingEvaluator", "grounding_feedback"]


def grounding_feedback(report: GroundingReport[Any]) -> str:
    """A short verdict: the support score against the minimum, and the unsupported claims.

    Written for people and for ``RetryQueryEngine``, which hands it to the next attempt.
    """
    if report.result is None:
        return f"The grounding check failed: {report.error}"
    if report.skipped_reason is not None:
        return f"Nothing was checked: {report.skipped_reason}."
    head = (
        f"Support score {format_score(report.support_score)}, "
        f"{report.result.verdict(report.min_support_score)[1]}"
        if report.support_score is not None
        else "The service returned no support score"
    )
    unsupported = report.unsupported_claims
    if not unsupported:
        return f"{head}: every checked claim is supported by the sources."
    checked = len(report.result.checked_claims)
    lines = [f"{head}: {len(unsupported)} of {checked} checked claims have no support:"]
    lines.extend(f"- {claim.text}" for claim in unsupported)
    return "\n".join(lines)


class GroundingEvaluator(BaseEvaluator):
    """Evaluates a response by checking it against its sources with checkGrounding.

    Setup:
        As for ``GroundedQueryEngine``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``).

    Key init args:
        citation_threshold (0..1, default 0.6), enable_claim_level_score, user_labels (Google's
            label rules: at most 64, lowercase keys and values of at most 63 characters):
            passed to the API.
        min_support_score (default 1.0, ``DEFAULT_MIN_SUPPORT_SCORE``): ``passing`` is
            the pass mark: every checked claim supported, or the support score reaches it
            (lower it, e.g. to 0.6, to let partly grounded responses pass).
        project_id, location, grounding_config, and the connection (emulator_host,
        credentials, client_options, timeout, retry).

    Instantiate:
        .. code-block:: python

            from llamaindex_grounding import GroundingEvaluator

            evaluator = GroundingEvaluator(project_id="my-project", min_support_score=0.8)

    Usage:
        .. code-block:: python

            result = evaluator.evaluate_response(query=question, response=response)
            result.passing, result.score, result.feedback
            result.report.unsupported_claims        # GroundingEvaluationResult extras

            result = evaluator.evaluate(response="Paris is in France.", contexts=[...])

    Use with LlamaIndex's evaluation tools:
        .. code-block:: python

            from llama_index.core.evaluation import BatchEvalRunner
            from llama_index.core.query_engine import RetryQueryEngine

            runner = BatchEvalRunner({"grounding": evaluator}, workers=4)
            results = await runner.aevaluate_queries(query_engine, queries=questions)

            retrying = RetryQueryEngine(query_engine, evaluator, max_retries=2)

    ``evaluate_response`` checks ``response.response`` against ``response.source_nodes``
    (text as facts, metadata as fact attributes; claims cite the nodes); ``evaluate`` checks
    ``response`` against ``contexts`` (strings). Both return a ``GroundingEvaluationResult``:
    ``passing``, ``score`` (the support score), ``feedback`` (the score and every unsupported
    claim), ``grounding`` (JSON-safe details) and ``report``. The sync methods use Google's
    sync client, the async ones its async client. A node's fact is the text the LLM was
    given (``MetadataMode.LLM``: its text with the metadata it shows the LLM). An empty
    response (``""``, blank, or a ``Response`` without text: a declined answer) is a result,
    not an error: ``passing`` false, ``score`` ``None``, no claims, ``grounding["skipped_reason"]``
    and the feedback say there was nothing to check, so a ``BatchEvalRunner`` run goes on. A
    missing response or contexts raises ``InputError``; a failed check raises its
    ``ServiceError`` (an evaluation with no verdict is not a verdict).
    """

    @refuse_unknown_arguments
    def __init__(
        self,
        *,
        grounding_config: str = DEFAULT_GROUNDING_CONFIG,
        citation_threshold: float = DEFAULT_CITATION_THRESHOLD,
        enable_claim_level_score: bool = False,
        user_labels: Mapping[str, str] | None = None,
        min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE,
        **connection: Unpack[DiscoveryEngineConnectionArgs],
    ) -> None:
        # An evaluation without a verdict is not a verdict: a failed check raises.
        self._checker = NodeGroundingChecker(
            DiscoveryEngineConnection(**connection),
            grounding_config=grounding_config,
            citation_threshold=citation_threshold,
            enable_claim_level_score=enable_claim_level_score,
            min_support_score=min_support_score,
            user_labels=user_labels,
            on_error="raise",
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(checker={self._checker!r})"

    @property
    def min_support_score(self) -> float:
        """The support score a response needs to pass."""
        return self._checker.min_support_score

    def _get_prompts(self) -> PromptDictType:
        return {}

    def _update_prompts(self, prompts_dict: PromptDictType) -> None:
        """No prompts: the check is a service call."""

    # -- evaluate: a response string and its context strings -------------------------------

    def evaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> GroundingEvaluationResult:
        """Check ``response`` against ``contexts`` (on Google's sync client)."""
        answer, texts = _inputs(response, contexts)
        return _result(query, self._checker.check(answer, *checked_nodes(texts)))

    async def aevaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> GroundingEvaluationResult:
        """Async ``evaluate`` on Google's async client."""
        answer, texts = _inputs(response, contexts)
        return _result(query, await self._checker.acheck(answer, *checked_nodes(texts)))

    # -- evaluate_response: a Response and its source nodes --------------------------------

    def evaluate_response(
        self,
        query: str | None = None,
        response: CheckedResponse | None = None,
        *,
        nodes: Sequence[NodeWithScore] | None = None,
        **kwargs: Any,
    ) -> GroundingEvaluationResult:
        """Check the text of ``response`` (a ``Response``, ``StreamingResponse``, a chat
        engine's ``AgentChatResponse`` or an agent workflow's ``AgentOutput``) against
        ``nodes``, by default the nodes it carries: its ``source_nodes`` (a chat engine's
        response: and its tools' nodes; a run's final ``AgentOutput``, ``await handler``: the
        nodes of the ``ToolCallResult``s it holds). The output of one agent step carries none:
        pass ``nodes=tool_nodes(results)``, the nodes of the run's ``ToolCallResult`` events."""
        return _result(query, self._checker.check_response(response, given_nodes(nodes)))

    async def aevaluate_response(
        self,
        query: str | None = None,
        response: CheckedResponse | None = None,
        *,
        nodes: Sequence[NodeWithScore] | None = None,
        **kwargs: Any,
    ) -> GroundingEvaluationResult:
        """Async ``evaluate_response`` on Google's async client (an ``AsyncStreamingResponse``
        is consumed first)."""
        report = await self._checker.acheck_response(response, given_nodes(nodes))
        return _result(query, report)


def _inputs(response: object, contexts: object) -> tuple[str, list[str]]:
    if not isinstance(response, str):
        raise InputError(
            f"response must be the answer text, got {type(response).__name__}", field="response"
        )
    if contexts is None or isinstance(contexts, str) or not isinstance(contexts, Sequence):
        raise InputError(
            "contexts must be a list of source texts to check the response against, got "
            f"{type(contexts).__name__}",
            field="contexts",
        )
    texts = list(contexts)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise InputError(
                f"contexts[{index}] must be a string, got {type(text).__name__}",
                field="contexts",
            )
    return response, texts


def _result(query: str | None, report: GroundingReport[Any]) -> GroundingEvaluationResult:
    # The contexts as they were checked: what the LLM was given (node_to_source).
    contexts = [source.text for source in report.grounding_sources]
    return GroundingEvaluationResult(
        query=query,
        contexts=contexts,
        response=report.result.answer if report.result else None,
        passing=report.passed,
        score=report.support_score,
        feedback=grounding_feedback(report),
        grounding=report.metadata(),
        report=report,
    )
