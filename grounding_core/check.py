"""``GroundingCheck``: one configured grounding check, and its policy, for every framework.

It holds what a checking component is configured with (the connection, the grounding config,
the ``GroundingSpec``, the minimum support score, what to do with an ungrounded answer and what
to do when the check itself fails) and runs the check on Google's sync or async client. The
LangChain and LlamaIndex components wrap one each, in a few lines of framework glue.

``check``/``acheck`` return the ``GroundingReport`` (errors propagate, no policy applied);
``run``/``arun`` apply the policies and return a ``GroundingOutcome``: the report, the answer
to give instead (``"fallback"``), and ``enforce()``, which raises for ``"raise"``.

>>> connection = DiscoveryEngineConnection.create(project_id="p", emulator_host="localhost:8123")
>>> check = GroundingCheck.create(connection, on_ungrounded="fallback", min_support_score=0.8)
>>> check.grounding_config
'projects/p/locations/global/groundingConfigs/default_grounding_config'
>>> fact = "Paris is the capital of France."
>>> outcome = check.run("Paris is in France.", [fact], [GroundingSource(fact)])  # doctest: +SKIP
>>> outcome.report.support_score, outcome.fallback_answer  # doctest: +SKIP
(1.0, None)
>>> GroundingCheck.create(connection, min_support_score=2)
Traceback (most recent call last):
...
grounding_core.errors.ConfigurationError: min_support_score must be a number between 0 and 1, got 2
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar, get_args

from .connection import DiscoveryEngineConnection
from .errors import ConfigurationError, GroundingError, InputError, UngroundedAnswerError
from .grounding import acheck_sources, check_sources
from .records import GroundingSource
from .report import DEFAULT_MIN_SUPPORT_SCORE, GroundingReport, UngroundedPolicy
from .settings import DEFAULT_GROUNDING_CONFIG, grounding_config_path
from .specs import DEFAULT_CITATION_THRESHOLD, GroundingSpec, check_fraction

__all__ = [
    "DEFAULT_FALLBACK_ANSWER",
    "ErrorPolicy",
    "GroundingCheck",
    "GroundingOutcome",
]

logger = logging.getLogger(__name__)

S = TypeVar("S")
CheckT = TypeVar("CheckT", bound="GroundingCheck")

ErrorPolicy = Literal["record", "raise"]

DEFAULT_FALLBACK_ANSWER = "I could not find support for an answer in the retrieved sources."

_UNGROUNDED_POLICIES = get_args(UngroundedPolicy)
_ERROR_POLICIES = get_args(ErrorPolicy)


@dataclass(frozen=True, slots=True)
class GroundingOutcome(Generic[S]):
    """A check with the policies applied: what a component gives back.

    ``fallback_answer`` is the answer to give instead of the checked one (policy
    ``"fallback"`` and the answer did not pass), else ``None``. ``error`` is the error that
    made the check fail when it was recorded (``on_error="record"``).
    """

    report: GroundingReport[S]
    on_ungrounded: UngroundedPolicy = "annotate"
    fallback_answer: str | None = None
    error: GroundingError | None = None

    def enforce(self) -> None:
        """Raise ``UngroundedAnswerError`` when the policy is ``"raise"`` and the answer did not
        pass; a failed check's error is chained as its cause."""
        if self.on_ungrounded == "raise":
            self.raise_if_ungrounded()

    def raise_if_ungrounded(self) -> None:
        """Raise ``UngroundedAnswerError`` when the answer did not pass, whatever the policy
        (what an agent's ``"raise"`` does); an empty answer never raises."""
        if self.report.passed:
            return
        if self.error is not None:
            raise UngroundedAnswerError(
                f"the answer could not be checked ({self.report.error})", result=self.report
            ) from self.error
        self.report.enforce("raise")


@dataclass(frozen=True, slots=True, repr=False)
class GroundingCheck:
    """A grounding check as a component is configured: connection, grounding config (its
    resource name), spec, minimum support score and the two policies.

    ``on_ungrounded``: ``"annotate"`` (keep the answer, with its report), ``"raise"``
    (``UngroundedAnswerError``) or ``"fallback"`` (give ``fallback_answer`` instead).
    ``on_error``: ``"raise"`` (the ``GroundingError`` propagates) or ``"record"`` (it is logged
    and becomes a failed report, whose answer counts as ungrounded). Build one with ``create``;
    ``dataclasses.replace`` gives a variant (checked again).
    """

    connection: DiscoveryEngineConnection
    grounding_config: str
    spec: GroundingSpec = GroundingSpec()
    min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE
    on_ungrounded: UngroundedPolicy = "annotate"
    fallback_answer: str = DEFAULT_FALLBACK_ANSWER
    on_error: ErrorPolicy = "raise"

    def __post_init__(self) -> None:
        try:
            check_fraction("min_support_score", self.min_support_score)
        except InputError as exc:  # a setting, not a request: a configuration error here
            raise ConfigurationError(str(exc)) from exc
        if self.on_ungrounded not in _UNGROUNDED_POLICIES:
            raise ConfigurationError(
                "on_ungrounded must be 'annotate', 'raise' or 'fallback', "
                f"got {self.on_ungrounded!r}"
            )
        if self.on_error not in _ERROR_POLICIES:
            raise ConfigurationError(f"on_error must be 'record' or 'raise', got {self.on_error!r}")
        if not isinstance(self.fallback_answer, str):
            raise ConfigurationError(
                f"fallback_answer must be a string, got {type(self.fallback_answer).__name__}"
            )
        if not isinstance(self.spec, GroundingSpec):
            raise ConfigurationError(
                f"spec must be a GroundingSpec, got {type(self.spec).__name__}"
            )

    @classmethod
    def create(
        cls: type[CheckT],
        connection: DiscoveryEngineConnection,
        *,
        grounding_config: str = DEFAULT_GROUNDING_CONFIG,
        citation_threshold: float = DEFAULT_CITATION_THRESHOLD,
        enable_claim_level_score: bool = False,
        min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE,
        on_ungrounded: UngroundedPolicy = "annotate",
        fallback_answer: str = DEFAULT_FALLBACK_ANSWER,
        on_error: ErrorPolicy = "raise",
        user_labels: Mapping[str, str] | None = None,
    ) -> CheckT:
        """The check from plain settings (``grounding_config`` is an id in the connection's
        project and location; ``user_labels`` go with every request); a bad value raises
        ``ConfigurationError`` naming it."""
        path = grounding_config_path(connection.project, connection.location, grounding_config)
        try:
            spec = GroundingSpec(
                citation_threshold=citation_threshold,
                enable_claim_level_score=enable_claim_level_score,
                user_labels=user_labels if user_labels is not None else {},
            )
        except InputError as exc:
            raise ConfigurationError(str(exc)) from exc
        return cls(
            connection,
            path,
            spec,
            min_support_score,
            on_ungrounded,
            fallback_answer,
            on_error,
        )

    def __repr__(self) -> str:
        # The connection's clients never show credentials; only the endpoint is worth showing.
        return (
            f"{type(self).__name__}(grounding_config={self.grounding_config!r}, "
            f"citation_threshold={self.spec.citation_threshold}, "
            f"min_support_score={self.min_support_score}, "
            f"on_ungrounded={self.on_ungrounded!r}, on_error={self.on_error!r}, "
            f"endpoint={self.connection.clients.endpoint!r})"
        )

    # -- the check ---------------------------------------------------------------------------

    def check(
        self,
        answer: str,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str] = (),
    ) -> GroundingReport[S]:
        """Check ``answer`` against ``sources`` (the caller's objects), sent as
        ``grounding_sources`` (one each, same order) and named by ``source_ids`` (default:
        their positions). No policy: a failed check raises its ``GroundingError``."""
        report: GroundingReport[S] = check_sources(
            self.connection.clients,
            self.grounding_config,
            answer,
            sources,
            grounding_sources,
            self.spec,
            self.connection.call_options,
            min_support_score=self.min_support_score,
            source_ids=source_ids,
        )
        logger.debug("support score %s for %d sources", report.support_score, len(sources))
        return report

    async def acheck(
        self,
        answer: str,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str] = (),
    ) -> GroundingReport[S]:
        """Async ``check``, on Google's async client."""
        report: GroundingReport[S] = await acheck_sources(
            self.connection.clients,
            self.grounding_config,
            answer,
            sources,
            grounding_sources,
            self.spec,
            self.connection.call_options,
            min_support_score=self.min_support_score,
            source_ids=source_ids,
        )
        logger.debug("support score %s for %d sources", report.support_score, len(sources))
        return report

    # -- the policies ------------------------------------------------------------------------

    def run(
        self,
        answer: str,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str] = (),
    ) -> GroundingOutcome[S]:
        """``check``, then the policies (``decide``; a ``GroundingError`` goes to
        ``failure``)."""
        try:
            report = self.check(answer, sources, grounding_sources, source_ids)
        except GroundingError as exc:
            return self.failure(exc, sources, grounding_sources, source_ids)
        return self.decide(report)

    async def arun(
        self,
        answer: str,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str] = (),
    ) -> GroundingOutcome[S]:
        """Async ``run``, on Google's async client."""
        try:
            report = await self.acheck(answer, sources, grounding_sources, source_ids)
        except GroundingError as exc:
            return self.failure(exc, sources, grounding_sources, source_ids)
        return self.decide(report)

    def decide(
        self, report: GroundingReport[S], error: GroundingError | None = None
    ) -> GroundingOutcome[S]:
        """The ``on_ungrounded`` policy applied to ``report`` (``enforce()`` does the raising,
        so that a component can attach the report to its answer first)."""
        replace = self.on_ungrounded == "fallback" and not report.passed
        return GroundingOutcome(
            report,
            self.on_ungrounded,
            self.fallback_answer if replace else None,
            error,
        )

    def failure(
        self,
        error: GroundingError,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str] = (),
    ) -> GroundingOutcome[S]:
        """The ``on_error`` policy for a check that failed with ``error`` (also before any call,
        e.g. an answer with no text): raise it, or log it and decide on a failed report."""
        if self.on_error == "raise":
            raise error
        logger.warning("the grounding check failed; the answer is kept: %s", error, exc_info=error)
        report: GroundingReport[S] = GroundingReport.failed(
            sources, grounding_sources, error, self.min_support_score, source_ids
        )
        return self.decide(report, error)
