"""``GroundedQueryEngine``: any query engine, its answers checked with checkGrounding."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Mapping, Sequence
from typing import Any

from llama_index.core import Settings
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import (
    RESPONSE_TYPE,
    AsyncStreamingResponse,
    PydanticResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.callbacks import CallbackManager
from llama_index.core.prompts.mixin import PromptMixinType
from llama_index.core.schema import NodeWithScore, QueryBundle
from typing_extensions import Unpack

from grounding_core import (
    DEFAULT_CITATION_THRESHOLD,
    DEFAULT_FALLBACK_ANSWER,
    DEFAULT_GROUNDING_CONFIG,
    DEFAULT_MIN_SUPPORT_SCORE,
    AsyncClaimStream,
    ClaimStream,
    ClaimVerdict,
    ConfigurationError,
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
    GroundingOutcome,
    InputError,
    report_citations,
)
from grounding_core.grounding.check import ErrorPolicy
from grounding_core.grounding.claim_stream import (
    DEFAULT_CLAIM_MIN_CHARS,
    DEFAULT_MAX_CONCURRENT_CHECKS,
    UnsupportedClaimPolicy,
    check_stream_settings,
)
from grounding_core.grounding.report import UngroundedPolicy
from grounding_core.peers import refuse_unknown_arguments

from ._checking import LlamaIndexGroundingReport, NodeGroundingChecker, checked_nodes, dispatcher
from .citations import CITATION_BLOCKS_KEY, citation_blocks
from .events import ClaimVerdictEvent

__all__ = ["DEFAULT_FALLBACK_ANSWER", "GroundedQueryEngine"]

logger = logging.getLogger(__name__)

_Outcome = GroundingOutcome[NodeWithScore]


class GroundedQueryEngine(BaseQueryEngine):
    """Wraps a query engine: every answer is checked against its own source nodes.

    Setup:
        As for ``DiscoveryEngineRetriever``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``). No data store is needed.

    Key init args:
        query_engine: any ``BaseQueryEngine`` (e.g. a ``RetrieverQueryEngine``).
        citation_threshold (0..1, default 0.6), enable_claim_level_score, user_labels (Google's
            label rules: at most 64, lowercase keys and values of at most 63 characters):
            passed to the API.
        min_support_score (default 1.0, ``DEFAULT_MIN_SUPPORT_SCORE``): the pass mark; the
            answer passes when every checked claim is supported or its support score reaches
            it (lower it, e.g. to 0.6, to let partly grounded answers pass).
        on_ungrounded: ``"annotate"`` (default: return it with the result), ``"raise"``
            (``UngroundedAnswerError``) or ``"fallback"`` (replace the answer by
            ``fallback_answer``; the original goes to ``metadata["original_answer"]``).
        on_error: ``"record"`` (default) or ``"raise"``: what a failed check does (below).
        project_id, location, grounding_config, and the connection (emulator_host,
        credentials, client_options, timeout, retry).

    Instantiate:
        .. code-block:: python

            from llama_index.core.query_engine import RetrieverQueryEngine
            from llamaindex_grounding import DiscoveryEngineRetriever, GroundedQueryEngine

            retriever = DiscoveryEngineRetriever(project_id="my-project", data_store_id="docs")
            query_engine = GroundedQueryEngine(
                RetrieverQueryEngine.from_args(retriever, llm=llm), project_id="my-project"
            )

    Usage:
        .. code-block:: python

            response = query_engine.query("How does a with statement work?")
            grounding = response.metadata["grounding"]   # JSON-safe
            grounding["support_score"], grounding["claims"][0]["source_ids"]  # node ids
            report = response.metadata["grounding_report"]  # GroundingReport[NodeWithScore]
            report.claims[0].sources                       # the cited source nodes
            markdown = report.markdown()                   # answer with [n] markers

    The check takes the response's ``source_nodes`` as facts (the text the LLM was given:
    ``MetadataMode.LLM``, the node's text with the metadata it shows the LLM; their metadata
    as fact attributes) and is merged into ``response.metadata`` (what the
    wrapped engine put there stays): ``grounding`` (``GroundingReport.metadata()``, the
    schema LangChain's checker uses too) holds the support score, ``passed``, ``error``, the
    claims with char (``start``/``end``) and UTF-8 byte spans, status, score, the
    ``source_indices`` and ``source_ids`` (node ids) of the nodes they cite, and the
    ``source_ids`` of all checked nodes; ``grounding_report`` is the ``GroundingReport``
    object (not JSON: drop it before serializing the metadata); ``citation_blocks`` the
    supported claims' citations as LlamaIndex ``CitationBlock``s (one per claim and cited
    node; ``additional_location_info`` holds the claim's ``start_char_idx``/``end_char_idx``
    in the answer; none when the fallback answer replaced it). The settings and policies
    are those of a ``grounding_core.GroundingCheck``.

    Streaming: for a ``StreamingResponse`` (``AsyncStreamingResponse``) the tokens pass
    through as they come and the check runs when the stream is exhausted (on Google's sync
    or async client, as the stream is); only then does ``metadata`` hold ``grounding``. A
    stream left unfinished is never checked. With ``on_ungrounded="raise"`` the error comes
    from the stream's last step; with ``"fallback"`` the stream is held back until the check
    is done and then yields either the original tokens or the fallback answer.

    Claim by claim (``check_while_streaming=True``): while the tokens stream, each sentence of
    the answer is checked as soon as it is complete, against the response's source nodes
    (concurrently, never holding back a token: a thread pool of ``max_concurrent_checks`` on
    Google's sync client, or tasks on its async client; a sentence shorter than
    ``claim_min_chars`` goes with the next), and each verdict is sent as a
    ``ClaimVerdictEvent`` (``grounding_core.ClaimVerdict.to_dict()``, spans in the whole
    answer) the moment it is known (sync: at the next token); ``metadata["claim_verdicts"]``
    lists them all when the stream ends. ``on_unsupported_claim="stop"`` ends the stream at the
    first unsupported claim (``metadata["stopped_at_claim"]``; ``"fallback"`` also sets
    ``metadata["fallback_answer"]``); the final check then covers the answer streamed so far.
    A failed claim check is an ``"error"`` verdict: the stream goes on. The final check of the
    whole answer runs as without streaming.

    Errors: with ``on_error="record"`` (default) a failed check (service unavailable after the
    retries, an answer or sources beyond the API's limits) never loses the answer: it is
    logged as a warning and recorded in ``grounding["error"]`` with ``passed`` false, and
    ``on_ungrounded`` applies as to any ungrounded answer (``"raise"`` raises
    ``UngroundedAnswerError`` chained to the cause). With ``on_error="raise"`` the
    ``GroundingError`` propagates. An empty answer (``""``, blank, no text: a declined one)
    is not sent and is no error: ``grounding`` has every key, no claims, ``passed`` false and
    ``skipped_reason``; ``"fallback"`` gives the fallback answer, ``"raise"`` does not raise
    (nothing was claimed). ``query``/``aquery`` go through LlamaIndex's
    instrumentation (spans and query events fire, for this engine and the wrapped one), and
    the check itself sends ``GroundingCheckStartEvent``/``GroundingCheckEndEvent``.
    """

    @refuse_unknown_arguments
    def __init__(
        self,
        query_engine: BaseQueryEngine,
        *,
        grounding_config: str = DEFAULT_GROUNDING_CONFIG,
        citation_threshold: float = DEFAULT_CITATION_THRESHOLD,
        enable_claim_level_score: bool = False,
        user_labels: Mapping[str, str] | None = None,
        min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE,
        on_ungrounded: UngroundedPolicy = "annotate",
        fallback_answer: str = DEFAULT_FALLBACK_ANSWER,
        on_error: ErrorPolicy = "record",
        check_while_streaming: bool = False,
        on_unsupported_claim: UnsupportedClaimPolicy = "continue",
        max_concurrent_checks: int = DEFAULT_MAX_CONCURRENT_CHECKS,
        claim_min_chars: int = DEFAULT_CLAIM_MIN_CHARS,
        callback_manager: CallbackManager | None = None,
        **connection: Unpack[DiscoveryEngineConnectionArgs],
    ) -> None:
        if not isinstance(query_engine, BaseQueryEngine):
            raise ConfigurationError(
                "query_engine must be a LlamaIndex BaseQueryEngine (e.g. "
                f"index.as_query_engine()), got {type(query_engine).__name__}"
            )
        self._query_engine = query_engine
        self._checker = NodeGroundingChecker(
            DiscoveryEngineConnection(**connection),
            grounding_config=grounding_config,
            citation_threshold=citation_threshold,
            enable_claim_level_score=enable_claim_level_score,
            min_support_score=min_support_score,
            on_ungrounded=on_ungrounded,
            fallback_answer=fallback_answer,
            user_labels=user_labels,
            on_error=on_error,
        )
        check_stream_settings(on_unsupported_claim, max_concurrent_checks, claim_min_chars)
        self._check_while_streaming = check_while_streaming
        self._stream_settings: dict[str, Any] = {
            "on_unsupported_claim": on_unsupported_claim,
            "max_concurrent": max_concurrent_checks,
            "min_chars": claim_min_chars,
        }
        super().__init__(
            callback_manager
            or getattr(query_engine, "callback_manager", None)
            or Settings.callback_manager
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(query_engine={type(self._query_engine).__name__}, "
            f"checker={self._checker!r})"
        )

    @property
    def query_engine(self) -> BaseQueryEngine:
        """The wrapped query engine."""
        return self._query_engine

    @property
    def min_support_score(self) -> float:
        """The support score an answer needs to pass."""
        return self._checker.min_support_score

    @property
    def on_ungrounded(self) -> UngroundedPolicy:
        """What an ungrounded answer does: ``annotate``, ``raise`` or ``fallback``."""
        return self._checker.on_ungrounded

    @property
    def fallback_answer(self) -> str:
        """The answer given instead of an ungrounded one (``on_ungrounded="fallback"``)."""
        return self._checker.fallback_answer

    @property
    def on_error(self) -> ErrorPolicy:
        """What a failed check does: ``record`` or ``raise``."""
        return self._checker.on_error

    def _get_prompt_modules(self) -> PromptMixinType:
        return {"query_engine": self._query_engine}

    def retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """The wrapped engine's retrieval (nothing is checked)."""
        return self._query_engine.retrieve(query_bundle)

    # -- the check -----------------------------------------------------------------------

    def check(self, answer: str, nodes: Sequence[NodeWithScore]) -> LlamaIndexGroundingReport:
        """The grounding report of ``answer`` against ``nodes`` (no policy applied)."""
        return self._checker.check(answer, *checked_nodes(nodes))

    async def acheck(
        self, answer: str, nodes: Sequence[NodeWithScore]
    ) -> LlamaIndexGroundingReport:
        """Async ``check`` on Google's async client."""
        return await self._checker.acheck(answer, *checked_nodes(nodes))

    def _annotate(
        self, response: Any, answer: str | None, outcome: _Outcome, *, replaceable: bool = True
    ) -> str | None:
        """Merge the report into ``response.metadata``, then apply the policy: the answer to
        give instead (the fallback answer), else ``None``."""
        fallback = outcome.fallback_answer if replaceable else None
        # The blocks cite the answer given: none when the fallback answer replaces it.
        spans = () if fallback is not None else report_citations(outcome.report)
        metadata = {
            **(response.metadata or {}),
            "grounding": outcome.report.metadata(),
            "grounding_report": outcome.report,
            CITATION_BLOCKS_KEY: citation_blocks(spans),
        }
        if fallback is not None:
            metadata["original_answer"] = answer
        response.metadata = metadata
        outcome.enforce()
        return fallback

    # -- responses -----------------------------------------------------------------------

    def _ground(self, response: RESPONSE_TYPE) -> RESPONSE_TYPE:
        answer: str | None
        if isinstance(response, AsyncStreamingResponse):
            return self._ground_async_stream(response)
        if isinstance(response, StreamingResponse):
            if response.response_txt is None:
                response.response_gen = self._stream(response, response.response_gen)
                return response
            answer = response.response_txt
        elif isinstance(response, Response):
            answer = response.response
        else:
            return self._refuse(response)
        fallback = self._annotate(
            response, answer, self._checker.run_answer(answer, response.source_nodes)
        )
        if fallback is not None:
            _replace_text(response, fallback)
        return response

    async def _aground(self, response: RESPONSE_TYPE) -> RESPONSE_TYPE:
        if isinstance(response, AsyncStreamingResponse):
            return self._ground_async_stream(response)
        if isinstance(response, StreamingResponse):
            return self._ground(response)
        if not isinstance(response, Response):
            return self._refuse(response)
        outcome = await self._checker.arun_answer(response.response, response.source_nodes)
        fallback = self._annotate(response, response.response, outcome)
        if fallback is not None:
            response.response = fallback
        return response

    def _refuse(self, response: PydanticResponse) -> PydanticResponse:
        error = InputError(
            "GroundedQueryEngine checks text answers; a structured (Pydantic) response has no "
            "prose to check",
            field="response",
        )
        outcome = self._checker.failure(error, *checked_nodes(response.source_nodes))
        self._annotate(response, str(response), outcome, replaceable=False)
        return response

    def _ground_async_stream(self, response: AsyncStreamingResponse) -> AsyncStreamingResponse:
        if response.response_txt is None:
            response.response_gen = self._astream(response, response.response_gen)
        else:
            response.response_gen = self._astream(response, _replay(response.response_txt))
            response.response_txt = None
        return response

    def _finish_stream(
        self, response: Any, answer: str, outcome: _Outcome, claims: ClaimStream | AsyncClaimStream
    ) -> str | None:
        """The report (and the claim verdicts) into the metadata; the fallback answer, if any."""
        fallback = self._annotate(response, answer, outcome)
        if self._check_while_streaming:
            extra: dict[str, Any] = {"claim_verdicts": [v.to_dict() for v in claims.verdicts]}
            if claims.stop_verdict is not None:
                extra["stopped_at_claim"] = claims.stop_verdict.to_dict()
                if claims.on_unsupported_claim == "fallback":
                    extra["fallback_answer"] = self.fallback_answer
            response.metadata = {**response.metadata, **extra}
        return fallback

    def _stream(
        self, response: StreamingResponse, tokens: Iterator[str]
    ) -> Generator[str, None, None]:
        held = self.on_ungrounded == "fallback"
        watching = self._check_while_streaming
        claims = ClaimStream(self._checker.quiet(), **self._stream_settings)
        if watching:
            claims.set_sources(*checked_nodes(response.source_nodes))
        parts: list[str] = []
        try:
            for token in tokens:
                parts.append(token)
                if not held:
                    yield token
                if watching:
                    claims.add_text(token)
                    _announce(claims.ready())
                    if claims.stopped:
                        break
            if watching:
                _announce(claims.finish())
        finally:
            claims.close()
        answer = "".join(parts)
        outcome = self._checker.run_answer(answer, response.source_nodes)
        fallback = self._finish_stream(response, answer, outcome, claims)
        if fallback is not None:
            yield fallback
        elif held:
            yield from parts

    async def _astream(
        self, response: AsyncStreamingResponse, tokens: AsyncIterator[str]
    ) -> AsyncGenerator[str, None]:
        held = self.on_ungrounded == "fallback"
        watching = self._check_while_streaming

        async def announce(verdict: ClaimVerdict) -> None:
            _announce([verdict])  # the moment its check completes

        claims = AsyncClaimStream(
            self._checker.quiet(), on_verdict=announce, **self._stream_settings
        )
        if watching:
            claims.set_sources(*checked_nodes(response.source_nodes))
        parts: list[str] = []
        try:
            async for token in tokens:
                parts.append(token)
                if not held:
                    yield token
                if watching:
                    claims.add_text(token)
                    if claims.stopped:
                        break
            if watching:
                await claims.finish()
        finally:
            claims.close()
        answer = "".join(parts)
        outcome = await self._checker.arun_answer(answer, response.source_nodes)
        fallback = self._finish_stream(response, answer, outcome, claims)
        if fallback is not None:
            yield fallback
        elif held:
            for part in parts:
                yield part

    # -- BaseQueryEngine -----------------------------------------------------------------

    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        return self._ground(self._query_engine.query(query_bundle))

    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        return await self._aground(await self._query_engine.aquery(query_bundle))


def _announce(verdicts: list[ClaimVerdict]) -> None:
    for verdict in verdicts:
        dispatcher.event(ClaimVerdictEvent(verdict=verdict.to_dict()))


def _replace_text(response: Response | StreamingResponse, text: str) -> None:
    if isinstance(response, StreamingResponse):
        response.response_txt = text
    else:
        response.response = text


async def _replay(text: str) -> AsyncGenerator[str, None]:
    yield text
