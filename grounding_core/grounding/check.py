"""checkGrounding: ``GroundingCheck`` checks an answer against its sources and applies what a
component is configured to do with an ungrounded answer and with a failed check.

Empty sources are skipped (citations still point at the source they came from); metadata
become fact attributes (non-strings as JSON). Google's limits are enforced before any call: at
most 200 facts of at most 10,000 characters each, an answer candidate of at most 4,096 tokens.

>>> connection = DiscoveryEngineConnection(project_id="p", emulator_host="localhost:8123")
>>> check = GroundingCheck(connection, on_ungrounded="fallback", min_support_score=0.8)
>>> check.grounding_config
'projects/p/locations/global/groundingConfigs/default_grounding_config'
>>> fact = "Paris is the capital of France."
>>> outcome = check.run("Paris is in France.", [fact], [GroundingSource(fact)])  # doctest: +SKIP
>>> outcome.report.support_score, outcome.fallback_answer  # doctest: +SKIP
(1.0, None)
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar, get_args

from google.cloud import discoveryengine_v1 as de

from grounding_core._checks import (
    check_choice,
    check_fields,
    check_fraction,
    check_request_size,
    check_user_labels,
    check_wire_text,
    jsonable_metadata,
)
from grounding_core._clients import DiscoveryEngineConnection, GivenClient
from grounding_core._convert import Spans, optional, resolve
from grounding_core._errors import (
    ConfigurationError,
    GroundingError,
    InputError,
    UngroundedAnswerError,
    translate_errors,
)
from grounding_core._records import (
    DEFAULT_MIN_SUPPORT_SCORE,
    CitedChunk,
    Claim,
    GroundingResult,
    GroundingSource,
)
from grounding_core._settings import DEFAULT_GROUNDING_CONFIG

from .report import GroundingReport, UngroundedPolicy

logger = logging.getLogger(__name__)

S = TypeVar("S")

DEFAULT_CITATION_THRESHOLD = 0.6
"""checkGrounding's documented default ("GroundingSpec.citation_threshold ... defaults to 0.6")."""

DEFAULT_FALLBACK_ANSWER = "I could not find support for an answer in the retrieved sources."

ErrorPolicy = Literal["record", "raise"]


@dataclass(frozen=True, slots=True)
class GroundingSpec:
    """Options of a grounding check (``CheckGroundingRequest.grounding_spec``, ``user_labels``).

    ``citation_threshold`` (0..1, default 0.6): a fact is cited for a claim when its support
    score reaches it. ``enable_claim_level_score`` fills ``Claim.score``. ``user_labels`` (e.g.
    for billing reports) must follow Google's label rules.
    """

    citation_threshold: float = DEFAULT_CITATION_THRESHOLD
    enable_claim_level_score: bool = False
    user_labels: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # First: its message says the range as well as the type.
        check_fraction("citation_threshold", self.citation_threshold)
        check_fields(self)
        object.__setattr__(self, "user_labels", check_user_labels(self.user_labels))

    def __reduce__(self) -> tuple[Any, ...]:
        # A read-only mapping cannot be pickled or deep-copied: the labels go as a dict.
        labels = dict(self.user_labels)
        return type(self), (self.citation_threshold, self.enable_claim_level_score, labels)


MAX_FACTS = 200
MAX_FACT_CHARS = 10_000
MAX_ANSWER_TOKENS = 4_096
# Google gives no character bound; no model token is longer than 32 characters, so a longer
# answer is over 4,096 tokens even when the estimate below counts a long run as one.
MAX_ANSWER_CHARS = 32 * MAX_ANSWER_TOKENS

# A word, a number, a single CJK/kana/hangul character or one punctuation mark. Model tokenizers
# split at least this finely, so the count is a lower bound: what it refuses is surely too long,
# and what slips through is refused by the service with INVALID_ARGUMENT.
_TOKEN = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|[^\W_]+|[^\w\s]"
)


def estimate_tokens(text: str) -> int:
    """A lower-bound estimate of the model tokens in ``text``."""
    return sum(1 for _ in _TOKEN.finditer(text))


def check_answer_candidate(answer: object) -> str:
    """``answer`` if it can be checked: a non-empty string within 4,096 tokens."""
    parts = "check the answer in parts (for example paragraph by paragraph)"
    limit: int | None = None
    if not isinstance(answer, str):
        problem = f"must be a string, got {type(answer).__name__}"
    elif not answer.strip():
        problem = "is empty: there is nothing to check; generate an answer first"
    elif len(answer) > MAX_ANSWER_CHARS:
        problem = (
            f"has {len(answer)} characters; CheckGrounding accepts at most {MAX_ANSWER_TOKENS} "
            f"tokens, which no text over {MAX_ANSWER_CHARS} characters is within: {parts}"
        )
        limit = MAX_ANSWER_CHARS
    # Every token is at least one character: a short answer needs no count.
    elif (
        len(answer) > MAX_ANSWER_TOKENS and (tokens := estimate_tokens(answer)) > MAX_ANSWER_TOKENS
    ):
        problem = (
            f"is about {tokens} tokens; CheckGrounding accepts at most {MAX_ANSWER_TOKENS}: {parts}"
        )
        limit = MAX_ANSWER_TOKENS
    else:
        return check_wire_text("answer_candidate", answer)
    raise InputError(f"answer_candidate {problem}", field="answer_candidate", limit=limit)


def attributes_from_metadata(
    metadata: Mapping[str, Any] | None, path: str = "metadata"
) -> dict[str, str]:
    """Fact attributes: strings as they are, ``None`` left out, other values as JSON (made
    JSON-safe, or refused, by ``jsonable_metadata``). ``path`` names the metadata in errors."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InputError(
            f"{path} must be a dict of attributes, got {type(metadata).__name__}", field=path
        )
    values: dict[str, Any] = jsonable_metadata(metadata, path)
    return {
        key: value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        for key, value in values.items()
        if value is not None
    }


@dataclass(frozen=True, slots=True)
class FactList:
    """Facts to send, and for each fact the index of the source it was built from."""

    texts: tuple[str, ...]
    attributes: tuple[dict[str, str], ...]
    source_indices: tuple[int, ...]

    def source_index(self, fact_index: int | None) -> int | None:
        """The source index of fact ``fact_index`` (``None`` if it is out of range)."""
        if fact_index is None or not 0 <= fact_index < len(self.source_indices):
            return None
        return self.source_indices[fact_index]


def build_facts(
    sources: Sequence[GroundingSource | str], *, api: str = "CheckGrounding", field: str = "facts"
) -> FactList:
    """Facts from ``sources``, skipping empty ones, refusing what ``api`` would refuse (the
    whole list's errors name ``field``)."""
    if isinstance(sources, str | bytes) or not isinstance(sources, Sequence):
        raise InputError(
            f"sources must be a list of texts or GroundingSource, got {type(sources).__name__}",
            field=field,
        )
    texts: list[str] = []
    attributes: list[dict[str, str]] = []
    indices: list[int] = []
    for index, source in enumerate(sources):
        if isinstance(source, str):
            source = GroundingSource(source)
        elif not isinstance(source, GroundingSource):
            raise InputError(
                f"sources[{index}] must be a str or GroundingSource, got {type(source).__name__}",
                field=f"facts[{index}]",
            )
        if not isinstance(source.text, str):
            raise InputError(
                f"sources[{index}].text must be a string, got {type(source.text).__name__}",
                field=f"facts[{index}].fact_text",
            )
        if not source.text.strip():
            continue
        if len(source.text) > MAX_FACT_CHARS:
            raise InputError(
                f"sources[{index}] has {len(source.text):,} characters; a fact may have at most "
                f"{MAX_FACT_CHARS:,}: split the source into smaller chunks",
                field=f"facts[{index}].fact_text",
                limit=MAX_FACT_CHARS,
            )
        check_wire_text(f"facts[{index}].fact_text", source.text)
        texts.append(source.text)
        attributes.append(attributes_from_metadata(source.metadata, f"sources[{index}].metadata"))
        indices.append(index)
    if len(texts) > MAX_FACTS:
        raise InputError(
            f"{len(texts)} non-empty sources were given; {api} accepts at most "
            f"{MAX_FACTS} facts: pass the {MAX_FACTS} best-ranked sources",
            field=field,
            limit=MAX_FACTS,
        )
    return FactList(tuple(texts), tuple(attributes), tuple(indices))


def _cited_chunk(chunk: Any, facts: FactList) -> CitedChunk:
    fact = int(chunk.source) if chunk.source.isdigit() else None
    source, attributes = facts.source_index(fact), dict(chunk.source_metadata)
    return CitedChunk(
        chunk.chunk_text, source, fact, attributes, chunk.uri, chunk.title, chunk.domain
    )


def grounding_result(answer: str, response: Any, facts: FactList) -> GroundingResult:
    """A ``CheckGroundingResponse`` (raw pb) for ``answer`` as a record; ``facts`` maps each
    fact back to its source, so that citations point at the caller's sources."""
    cited_chunks = tuple(_cited_chunk(chunk, facts) for chunk in response.cited_chunks)
    spans = Spans(answer)
    claims = []
    for number, claim in enumerate(response.claims):
        text = claim.claim_text
        start = end = byte_start = byte_end = None
        if claim.HasField("start_pos") and claim.HasField("end_pos"):
            what = f"claims[{number}] start_pos/end_pos"
            start, end = spans.span(claim.start_pos, claim.end_pos, what=what, expected=text)
            byte_start, byte_end = spans.bytes_of(start, end)
        indices = tuple(claim.citation_indices)
        citations = resolve(indices, cited_chunks, f"claims[{number}].citation_indices")
        score = optional(claim, "score")
        required = optional(claim, "grounding_check_required") is not False  # unset: required
        claims.append(
            Claim(text, start, end, byte_start, byte_end, indices, citations, score, required)
        )
    return GroundingResult(
        answer=answer,
        support_score=optional(response, "support_score"),
        claims=tuple(claims),
        cited_chunks=cited_chunks,
        cited_facts=tuple(fact.chunk_text for fact in response.cited_facts),
    )


@dataclass(frozen=True, slots=True)
class GroundingOutcome(Generic[S]):
    """A check with the policies applied: ``fallback_answer`` is the answer to give instead
    (policy ``"fallback"``, the answer did not pass), ``error`` a recorded failure's error."""

    report: GroundingReport[S]
    on_ungrounded: UngroundedPolicy = "annotate"
    fallback_answer: str | None = None
    error: GroundingError | None = None

    def enforce(self) -> None:
        """``raise_if_ungrounded`` when the policy is ``"raise"``."""
        if self.on_ungrounded == "raise":
            self.raise_if_ungrounded()

    def raise_if_ungrounded(self) -> None:
        """Raise ``UngroundedAnswerError`` (a failed check's error as its cause) when the answer
        did not pass, whatever the policy; an empty answer never raises."""
        if self.report.passed:
            return
        if self.error is not None:
            raise UngroundedAnswerError(
                f"the answer could not be checked ({self.report.error})", result=self.report
            ) from self.error
        self.report.enforce("raise")


_CheckGroundingRequest, _wrap = de.CheckGroundingRequest.pb(), de.CheckGroundingRequest.wrap
_CheckGroundingResponse, _pb = de.CheckGroundingResponse, de.CheckGroundingResponse.pb


def _nothing_to_check(answer: object) -> bool:
    # Only a string: anything else goes on to check_answer_candidate, which names the type.
    return isinstance(answer, str) and not answer.strip()


class GroundingCheck:
    """A grounding check as a component is configured with it, and its policies:
    ``grounding_config`` is an id (the attribute holds its resource name), ``min_support_score``
    the pass mark (``GroundingResult.verdict``).
    ``on_ungrounded``: ``"annotate"`` (keep the answer, with its report), ``"raise"``
    (``UngroundedAnswerError``) or ``"fallback"`` (give ``fallback_answer`` instead).
    ``on_error``: ``"raise"`` (the ``GroundingError`` propagates) or ``"record"`` (logged; a
    failed report, whose answer counts as ungrounded). ``client``: a Google
    ``GroundedGenerationServiceClient`` of yours (any API version, ``GivenClient``) to call
    instead of the connection's. A bad setting: ``ConfigurationError``.
    """

    def __init__(
        self,
        connection: DiscoveryEngineConnection,
        *,
        grounding_config: str = DEFAULT_GROUNDING_CONFIG,
        citation_threshold: float = DEFAULT_CITATION_THRESHOLD,
        enable_claim_level_score: bool = False,
        user_labels: Mapping[str, str] | None = None,
        min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE,
        on_ungrounded: UngroundedPolicy = "annotate",
        fallback_answer: str = DEFAULT_FALLBACK_ANSWER,
        on_error: ErrorPolicy = "raise",
        client: Any = None,
    ) -> None:
        self.connection = connection
        self.client = None if client is None else GivenClient(client, "check_grounding")
        self.grounding_config = connection.grounding_config_path(grounding_config)
        try:  # settings, not requests: configuration errors here
            self.spec = GroundingSpec(
                citation_threshold, enable_claim_level_score, user_labels or {}
            )
            self.min_support_score = check_fraction("min_support_score", min_support_score)
            check_choice("on_ungrounded", on_ungrounded, get_args(UngroundedPolicy))
            check_choice("on_error", on_error, get_args(ErrorPolicy))
            self.fallback_answer = check_wire_text("fallback_answer", fallback_answer)
        except InputError as exc:
            raise ConfigurationError.of(exc) from exc
        self.on_ungrounded: UngroundedPolicy = on_ungrounded
        self.on_error: ErrorPolicy = on_error

    def replace(self, **changes: Any) -> GroundingCheck:
        """A plain ``GroundingCheck`` (even for a subclass) with these settings and some changed
        (checked again), e.g. ``check.replace(on_error="record")``."""
        settings = {
            "grounding_config": self.grounding_config.rpartition("/")[2],
            "citation_threshold": self.spec.citation_threshold,
            "enable_claim_level_score": self.spec.enable_claim_level_score,
            "user_labels": self.spec.user_labels,
            "min_support_score": self.min_support_score,
            "on_ungrounded": self.on_ungrounded,
            "fallback_answer": self.fallback_answer,
            "on_error": self.on_error,
            "client": self.client.client if self.client is not None else None,
        }
        return GroundingCheck(self.connection, **{**settings, **changes})

    def __repr__(self) -> str:
        # The connection never shows credentials; only the endpoint is worth showing.
        return (
            f"{type(self).__name__}(grounding_config={self.grounding_config!r}, "
            f"citation_threshold={self.spec.citation_threshold}, "
            f"min_support_score={self.min_support_score}, "
            f"on_ungrounded={self.on_ungrounded!r}, on_error={self.on_error!r}, "
            f"endpoint={self.connection.endpoint!r})"
        )

    def request(
        self, answer: str, sources: Sequence[GroundingSource | str]
    ) -> tuple[Any, FactList]:
        """The raw ``CheckGroundingRequest`` and the fact -> source map, limits enforced (raw
        protobuf: proto-plus takes several times longer, one wrapper per fact)."""
        answer = check_answer_candidate(answer)
        facts = build_facts(sources)
        message = _CheckGroundingRequest(
            grounding_config=self.grounding_config, answer_candidate=answer
        )
        for text, attributes in zip(facts.texts, facts.attributes, strict=True):
            message.facts.add(fact_text=text, attributes=attributes)
        message.grounding_spec.citation_threshold = self.spec.citation_threshold
        message.grounding_spec.enable_claim_level_score = self.spec.enable_claim_level_score
        message.user_labels.update(self.spec.user_labels)
        check_request_size("CheckGrounding", message)
        return message, facts

    def _report(
        self,
        result: GroundingResult,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str],
    ) -> GroundingReport[S]:
        logger.debug("support score %s for %d sources", result.support_score, len(sources))
        return GroundingReport(
            result,
            tuple(sources),
            tuple(grounding_sources),
            min_support_score=self.min_support_score,
            source_ids=tuple(source_ids),
        )

    def check(
        self,
        answer: str,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str] = (),
    ) -> GroundingReport[S]:
        """Check ``answer`` against ``sources`` (the caller's objects), sent as
        ``grounding_sources`` (one each, same order) and named in the report by ``source_ids``
        (default: their positions). An empty answer is not sent (``nothing_to_check``). No
        policy: a failed check raises its ``GroundingError``."""
        if _nothing_to_check(answer):
            return GroundingReport.nothing_to_check(
                answer, sources, grounding_sources, self.min_support_score, source_ids
            )
        request, facts = self.request(answer, grounding_sources)
        with translate_errors("CheckGrounding", self.grounding_config):
            kwargs = self.connection.call_options.call_kwargs()
            if self.client is not None:
                response = self.client.call(_wrap(request), _CheckGroundingResponse, **kwargs)
            else:
                client = self.connection.client(de.GroundedGenerationServiceClient)
                response = _pb(client.check_grounding(request=_wrap(request), **kwargs))
        result = grounding_result(answer, response, facts)
        return self._report(result, sources, grounding_sources, source_ids)

    async def acheck(
        self,
        answer: str,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str] = (),
    ) -> GroundingReport[S]:
        """Async ``check``, on Google's async client."""
        if _nothing_to_check(answer):
            return GroundingReport.nothing_to_check(
                answer, sources, grounding_sources, self.min_support_score, source_ids
            )
        request, facts = self.request(answer, grounding_sources)
        with translate_errors("CheckGrounding", self.grounding_config):
            if self.client is not None:
                kwargs = self.connection.call_options.call_kwargs()
                response = await self.client.acall(
                    _wrap(request), _CheckGroundingResponse, **kwargs
                )
            else:
                client = self.connection.async_client(de.GroundedGenerationServiceAsyncClient)
                kwargs = self.connection.call_options.async_call_kwargs()
                response = _pb(await client.check_grounding(request=_wrap(request), **kwargs))
        result = grounding_result(answer, response, facts)
        return self._report(result, sources, grounding_sources, source_ids)

    def run(
        self,
        answer: str,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str] = (),
    ) -> GroundingOutcome[S]:
        """``check``, then the policies (``decide``, or ``failure`` for a ``GroundingError``)."""
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
        """The ``on_ungrounded`` policy applied to ``report`` (``enforce()`` raises: a component
        attaches the report to its answer first)."""
        replace = self.on_ungrounded == "fallback" and not report.passed
        return GroundingOutcome(
            report, self.on_ungrounded, self.fallback_answer if replace else None, error
        )

    def failure(
        self,
        error: GroundingError,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str] = (),
    ) -> GroundingOutcome[S]:
        """The ``on_error`` policy for a check that failed with ``error``: raise it, or log it and
        decide on a failed report."""
        if self.on_error == "raise":
            raise error
        logger.warning("the grounding check failed; the answer is kept: %s", error, exc_info=error)
        report: GroundingReport[S] = GroundingReport.failed(
            sources, grounding_sources, error, self.min_support_score, source_ids
        )
        return self.decide(report, error)
