"""``GroundingChecker``: checkGrounding as a Runnable step of a RAG chain.

Framework glue over ``grounding_core.GroundingCheck``, which holds the settings and the
policies: this module turns chain outputs into an answer and documents, and back.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Iterator, Mapping, Sequence
from typing import Any, ClassVar, overload

from langchain_core.callbacks import (
    AsyncCallbackManagerForChainRun,
    CallbackManagerForChainRun,
    adispatch_custom_event,
    dispatch_custom_event,
)
from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from langchain_core.runnables.config import patch_config
from langchain_core.runnables.utils import AddableDict
from pydantic import BaseModel, Field, PrivateAttr, model_validator

from grounding_core import (
    DEFAULT_CITATION_THRESHOLD,
    DEFAULT_FALLBACK_ANSWER,
    DEFAULT_GROUNDING_CONFIG,
    DEFAULT_MIN_SUPPORT_SCORE,
    AsyncClaimStream,
    ClaimStream,
    ClaimVerdict,
    ConfigurationError,
    GroundingCheck,
    GroundingOutcome,
    GroundingReport,
    GroundingSource,
    GroundingSpec,
    InputError,
    report_citations,
)
from grounding_core.grounding.claim_stream import (
    DEFAULT_CLAIM_MIN_CHARS,
    DEFAULT_MAX_CONCURRENT_CHECKS,
    UnsupportedClaimPolicy,
    check_stream_settings,
)
from grounding_core.grounding.report import UngroundedPolicy
from grounding_core.peers import PEER_CHECKER_ARGUMENTS, PeerTable, unknown_arguments_message

from ._arguments import StrictArguments, known_arguments
from ._connection import DiscoveryEngineSettings
from .check_stream import (
    CLAIM_EVENT,
    FALLBACK_KEY,
    STOPPED_KEY,
    StreamedInput,
    TransformStreams,
    verdict_chunk,
)
from .citations import cited_message
from .documents import answer_key, answer_text, document_to_source, find_documents

__all__ = [
    "DEFAULT_FALLBACK_ANSWER",
    "CheckGroundingResponse",
    "GroundingChecker",
    "LangChainGroundingReport",
    "checked_documents",
    "checker_of",
]

LangChainGroundingReport = GroundingReport[Document | str]

# Where langchain-google-community's VertexAICheckGroundingWrapper reads the documents of an
# answer given alone: config["configurable"]["documents"].
CONFIGURABLE_DOCUMENTS = "documents"
_PEER_SHAPE = (
    "checker.with_config(configurable={'documents': docs}).invoke(answer), the call shape of "
    "langchain-google-community's VertexAICheckGroundingWrapper, which returns its "
    "CheckGroundingResponse"
)


def checked_documents(
    documents: Sequence[Document | str],
) -> tuple[Sequence[Document | str], list[GroundingSource], list[str]]:
    """The documents, their grounding sources and their ids (``Document.id``; the report names a
    source without one by its position), as ``GroundingCheck.check``/``run`` take them."""
    return (
        documents,
        [document_to_source(d) for d in documents],
        [(d.id or "") if isinstance(d, Document) else "" for d in documents],
    )


def checker_of(
    component: str,
    checker: GroundingChecker | None,
    fields: Mapping[str, Any],
    own: Collection[str] = (),
) -> GroundingChecker:
    """``checker``, or a ``GroundingChecker`` of ``fields`` (what ``with_grounding`` and the
    callback handlers take): a name that is neither a checker field nor one of ``own`` (the
    component's other arguments) raises ``TypeError`` naming ``component``."""
    message = unknown_arguments_message(
        component, fields, known_arguments(GroundingChecker) | set(own)
    )
    if message is not None:
        raise TypeError(message)
    if checker is None:
        return GroundingChecker(**fields)
    if not isinstance(checker, GroundingChecker):
        raise ConfigurationError(
            f"{component}: checker must be a GroundingChecker, got {type(checker).__name__} "
            "(or give the checker's fields as keyword arguments)"
        )
    if fields:
        raise TypeError(
            f"{component}: give either checker= or the checker's fields "
            f"({', '.join(sorted(fields))}), not both"
        )
    return checker


class CheckGroundingResponse(BaseModel):
    """langchain-google-community's ``CheckGroundingResponse``, what ``GroundingChecker`` gives
    for an answer checked the peer's way: ``support_score``; ``cited_chunks``, one
    ``{"chunk_text", "source"}`` per fact cited, ``source`` the document given (a citation
    points at the right one when an empty document was skipped, where the peer's is shifted);
    ``claims``, one ``{"start_pos", "end_pos", "claim_text", "citation_indices"}`` per claim,
    the positions UTF-8 byte offsets as Google sends them, the indices into ``cited_chunks``;
    ``answer_with_citations``, the answer with the peer's ``[i]`` markers after each claim
    (``i`` in its ``citation_indices``), its line breaks kept.
    ``support_score`` is ``None`` when nothing was checked (an empty answer)."""

    support_score: float | None = 0.0
    cited_chunks: list[dict[str, Any]] = []
    claims: list[dict[str, Any]] = []
    answer_with_citations: str = ""

    @classmethod
    def of(cls, report: LangChainGroundingReport) -> CheckGroundingResponse:
        """The peer's response made of our ``report``."""
        result = report.result
        if result is None:
            return cls(support_score=None)
        sources = report.sources
        return cls(
            support_score=result.support_score,
            cited_chunks=[
                {
                    "chunk_text": chunk.text,
                    "source": None if chunk.source_index is None else sources[chunk.source_index],
                }
                for chunk in result.cited_chunks
            ],
            claims=[
                {
                    "start_pos": claim.byte_start or 0,
                    "end_pos": claim.byte_end or 0,
                    "claim_text": claim.text,
                    "citation_indices": list(claim.citation_indices),
                }
                for claim in result.claims
            ],
            answer_with_citations=report.answer_with_citation_indices,
        )


class GroundingChecker(
    TransformStreams,
    DiscoveryEngineSettings,
    RunnableSerializable[
        dict[str, Any] | str | BaseMessage, dict[str, Any] | CheckGroundingResponse
    ],
    StrictArguments,
):
    """Checks an answer against its source documents with Google's checkGrounding.

    Setup:
        As for ``DiscoveryEngineRetriever``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``). No data store is needed.

    Key init args:
        citation_threshold (0..1, default 0.6), enable_claim_level_score, user_labels (Google's
            label rules: at most 64, lowercase keys and values of at most 63 characters):
            passed to the API (``citation_threshold=None``: the default, as the peer takes it).
        min_support_score (default 1.0, ``DEFAULT_MIN_SUPPORT_SCORE``): the pass mark; the
            answer passes when every checked claim is supported or its support score reaches
            it (lower it, e.g. to 0.6, to let partly grounded answers pass).
        on_ungrounded: ``"annotate"`` (default: return it with the report), ``"raise"``
            (``UngroundedAnswerError``) or ``"fallback"`` (replace the answer by
            ``fallback_answer``; the original stays under ``"original_answer"``).
        project_id, location, grounding_config, and the connection fields; ``client``: a Google
            ``GroundedGenerationServiceClient`` of yours (any API version, e.g.
            ``discoveryengine_v1alpha``'s, as langchain-google-community's ``client=``) called
            instead of the one the connection builds (a sync client: async calls run it in a
            worker thread).

    Instantiate:
        .. code-block:: python

            from langchain_grounding import GroundingChecker

            checker = GroundingChecker(project_id="my-project", emulator_host="localhost:8123")

    Usage:
        .. code-block:: python

            out = checker.invoke({"answer": "Paris is in France.", "documents": docs})
            report = out["grounding"]
            report.support_score, report.claims[0].sources   # cited Documents
            markdown = report.markdown()                    # answer with [n] markers

    Use within a chain:
        .. code-block:: python

            rag = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
                answer=prompt | llm | StrOutputParser()
            )
            chain = rag | checker   # output: the dict plus "grounding"

    Input: a dict with the answer (``str`` or ``AIMessage``) under ``answer`` (or ``output``,
    ``result``, ``response``, ``text``) and the documents under ``documents`` (or ``context``,
    ``source_documents``, ``docs``). Output: the same dict plus ``grounding``, a
    ``GroundingReport`` whose claims carry char and byte spans, scores and the cited
    ``Document``s; an ``AIMessage`` answer also gets the report's metadata in
    ``response_metadata["grounding"]`` and, on its text content block, one standard
    ``Citation`` annotation per supported claim and cited source (``message.content_blocks``;
    ``message.text`` is unchanged). The facts are the documents' ``page_content`` (what
    LangChain's prompts show the model), their metadata the fact attributes. An empty answer
    (a declined one) is a report, not an error: nothing sent, no claims, ``skipped_reason``
    set. Runs through LangChain's run machinery (callbacks and tracing fire);
    ``ainvoke``/``abatch`` use Google's async client.

    Streaming: ``stream``/``astream``, and ``transform``/``atransform`` so that
    ``rag | checker`` streams. A dict input's chunks pass through as they arrive; the last chunk
    is ``{"grounding": report}`` (with ``fallback_answer`` when the policy replaces the answer:
    the streamed answer cannot be taken back). With ``check_while_streaming=True`` each
    sentence of the answer is checked as soon as it is complete, against the documents known so
    far (concurrently, never holding back a chunk; at most ``max_concurrent_checks`` at once; a
    sentence shorter than ``claim_min_chars`` goes with the next): each verdict
    (``grounding_core.ClaimVerdict``, spans in the whole answer) comes as a
    ``{"claim_verdicts": [verdict]}`` chunk and as the custom event ``"grounding_claim"``
    (``astream_events``: ``on_custom_event``). ``on_unsupported_claim="stop"`` ends the stream
    at the first unsupported claim (``"fallback"`` also gives ``fallback_answer``); the final
    report then covers the answer streamed so far, under ``stopped_at_claim``. A failed claim
    check is an ``"error"`` verdict and the stream goes on. The final report is one full check
    of the whole answer, as without streaming. See docs/langchain.md, "Streaming".

    The call shape of langchain-google-community's ``VertexAICheckGroundingWrapper`` works
    too: the answer alone (``str`` or ``AIMessage``) with the documents (a list of
    ``Document``s or strings) in ``config["configurable"]["documents"]``; the output is then
    the peer's response, ``GroundingChecker.CheckGroundingResponse`` (``.support_score``,
    ``.cited_chunks``, ``.claims`` with ``start_pos``/``end_pos`` in UTF-8 bytes,
    ``.answer_with_citations`` with the peer's 0-based ``[i]`` markers); ``check(answer,
    docs)`` gives our ``GroundingReport`` of the same check::

        result = checker.with_config(configurable={"documents": docs}).invoke(answer)
        chain = prompt | llm | StrOutputParser() | checker.with_config(
            configurable={"documents": docs}
        )

    Only ``"documents"`` is read from ``configurable`` (LangChain puts other keys there), and
    only for an answer given alone: a dict input takes its documents from the dict. With
    ``on_ungrounded="fallback"`` this shape is refused before any call
    (``ConfigurationError``): the response has no answer to replace; pass a dict to get the
    fallback answer, or use ``"annotate"`` or ``"raise"``, which raises as for a dict.
    """

    # The peer's names (its VertexAICheckGroundingWrapper), translated with a warning.
    _peer_arguments: ClassVar[PeerTable] = PEER_CHECKER_ARGUMENTS
    CheckGroundingResponse: ClassVar[type[CheckGroundingResponse]] = CheckGroundingResponse

    grounding_config: str = DEFAULT_GROUNDING_CONFIG
    citation_threshold: float = DEFAULT_CITATION_THRESHOLD
    enable_claim_level_score: bool = False
    user_labels: dict[str, str] = Field(default_factory=dict)
    min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE
    on_ungrounded: UngroundedPolicy = "annotate"
    fallback_answer: str = DEFAULT_FALLBACK_ANSWER
    check_while_streaming: bool = False
    on_unsupported_claim: UnsupportedClaimPolicy = "continue"
    max_concurrent_checks: int = DEFAULT_MAX_CONCURRENT_CHECKS
    claim_min_chars: int = DEFAULT_CLAIM_MIN_CHARS
    client: Any = Field(default=None, exclude=True, repr=False)

    _check: GroundingCheck = PrivateAttr()

    @model_validator(mode="after")
    def _build_check(self) -> GroundingChecker:
        self._check = GroundingCheck(
            self.connection,
            grounding_config=self.grounding_config,
            citation_threshold=self.citation_threshold,
            enable_claim_level_score=self.enable_claim_level_score,
            min_support_score=self.min_support_score,
            on_ungrounded=self.on_ungrounded,
            fallback_answer=self.fallback_answer,
            user_labels=self.user_labels,
            client=self.client,
        )
        check_stream_settings(
            self.on_unsupported_claim, self.max_concurrent_checks, self.claim_min_chars
        )
        return self

    @property
    def grounding_check(self) -> GroundingCheck:
        """The core check these fields configure (connection, spec, policy)."""
        return self._check

    @property
    def spec(self) -> GroundingSpec:
        """The grounding spec sent with every check."""
        return self._check.spec

    def check(
        self, answer: str | BaseMessage, documents: Sequence[Document | str]
    ) -> LangChainGroundingReport:
        """The grounding report of ``answer`` against ``documents`` (no run, no policy)."""
        return self._check.check(answer_text(answer), *checked_documents(documents))

    async def acheck(
        self, answer: str | BaseMessage, documents: Sequence[Document | str]
    ) -> LangChainGroundingReport:
        """Async ``check`` on Google's async client."""
        return await self._check.acheck(answer_text(answer), *checked_documents(documents))

    def _configured_documents(
        self, input: str | BaseMessage, config: RunnableConfig
    ) -> list[Document | str]:
        """The documents of an answer given alone: ``config["configurable"]["documents"]``."""
        configurable = config.get("configurable") or {}
        if CONFIGURABLE_DOCUMENTS not in configurable:
            # `prompt | llm | StrOutputParser() | checker`: the answer came without its
            # documents (StrOutputParser gives a str subclass, langchain_core's TextAccessor).
            kind = "a string" if isinstance(input, str) else f"a message, {type(input).__name__}"
            raise InputError(
                f"GroundingChecker got the answer alone ({kind}), without the documents to "
                "check it against: pass a dict with both, e.g. RunnableParallel(documents="
                "retriever, question=RunnablePassthrough()).assign(answer=prompt | llm | "
                "StrOutputParser()) | checker, or wrap the whole chain: with_grounding(chain, "
                "checker) checks its answer against what its retrievers returned; or give "
                f"them in the config's configurable: {_PEER_SHAPE}",
                field="input",
            )
        field = "configurable['documents']"
        documents = configurable[CONFIGURABLE_DOCUMENTS]
        if not isinstance(documents, list | tuple):
            raise InputError(
                f"{field} must be a list of Documents (or strings), got "
                f"{type(documents).__name__}: {_PEER_SHAPE}",
                field=field,
            )
        if not documents:
            raise InputError(
                f"{field} is empty: give the documents the answer is to be checked against "
                "(the retrieved ones), at least one",
                field=field,
            )
        for index, document in enumerate(documents):
            if not isinstance(document, Document | str):
                raise InputError(
                    f"{field}[{index}] must be a Document or str, got {type(document).__name__}",
                    field=field,
                )
        if self.on_ungrounded == "fallback":
            raise ConfigurationError(
                "on_ungrounded='fallback' replaces an ungrounded answer, but an answer given "
                "alone with its documents in configurable gets a CheckGroundingResponse back, "
                "which has no answer to replace: pass a dict, checker.invoke({'answer': answer, "
                "'documents': docs}), to get the fallback answer under 'answer', or use "
                "on_ungrounded='annotate' (the default) or 'raise'"
            )
        return list(documents)

    def _unpack(self, input: Any) -> tuple[dict[str, Any], str, list[Document | str]]:
        if not isinstance(input, Mapping):
            raise InputError(
                "GroundingChecker takes a dict with the answer and its documents, e.g. "
                f'{{"answer": ..., "documents": [...]}}; got {type(input).__name__}',
                field="input",
            )
        documents = find_documents(input)
        if documents is None:
            raise InputError(
                "no documents to check the answer against: put them under 'documents' "
                "(or 'context', 'source_documents', 'docs')",
                field="documents",
            )
        return dict(input), answer_key(input), documents

    def _finish(
        self,
        values: dict[str, Any],
        key: str,
        outcome: GroundingOutcome[Document | str],
    ) -> dict[str, Any]:
        answer = values[key]
        if isinstance(answer, BaseMessage):
            report = outcome.report
            answer = cited_message(answer, report_citations(report), report.metadata())
        output = {**values, key: answer, "grounding": outcome.report}
        if outcome.fallback_answer is not None:
            output["original_answer"] = answer
            output[key] = outcome.fallback_answer
        outcome.enforce()
        return output

    @staticmethod
    def _response(outcome: GroundingOutcome[Document | str]) -> CheckGroundingResponse:
        outcome.enforce()
        return CheckGroundingResponse.of(outcome.report)

    def _invoke(
        self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> dict[str, Any] | CheckGroundingResponse:
        if isinstance(input, str | BaseMessage):
            documents = self._configured_documents(input, config)
            outcome = self._check.run(answer_text(input), *checked_documents(documents))
            return self._response(outcome)
        values, key, documents = self._unpack(input)
        answer = answer_text(values[key])
        return self._finish(values, key, self._check.run(answer, *checked_documents(documents)))

    async def _ainvoke(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> dict[str, Any] | CheckGroundingResponse:
        if isinstance(input, str | BaseMessage):
            documents = self._configured_documents(input, config)
            outcome = await self._check.arun(answer_text(input), *checked_documents(documents))
            return self._response(outcome)
        values, key, documents = self._unpack(input)
        answer = answer_text(values[key])
        outcome = await self._check.arun(answer, *checked_documents(documents))
        return self._finish(values, key, outcome)

    @overload
    def invoke(
        self, input: str | BaseMessage, config: RunnableConfig | None = None, **kwargs: Any
    ) -> CheckGroundingResponse: ...

    @overload
    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]: ...

    def invoke(
        self,
        input: dict[str, Any] | str | BaseMessage,
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> dict[str, Any] | CheckGroundingResponse:
        """Check the answer in ``input`` against its documents (a dict: the dict plus
        ``grounding``; the answer alone, documents in ``configurable``: the peer's
        ``CheckGroundingResponse``)."""
        return self._call_with_config(self._invoke, input, config, **kwargs)

    @overload
    async def ainvoke(
        self, input: str | BaseMessage, config: RunnableConfig | None = None, **kwargs: Any
    ) -> CheckGroundingResponse: ...

    @overload
    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]: ...

    async def ainvoke(
        self,
        input: dict[str, Any] | str | BaseMessage,
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> dict[str, Any] | CheckGroundingResponse:
        """Async ``invoke`` on Google's async client."""
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)

    # -- streaming ---------------------------------------------------------------------------

    def claim_stream_settings(self) -> dict[str, Any]:
        """The settings of the claim checks while streaming, as ``ClaimStream`` takes them."""
        return {
            "on_unsupported_claim": self.on_unsupported_claim,
            "max_concurrent": self.max_concurrent_checks,
            "min_chars": self.claim_min_chars,
        }

    def _streamed_check(
        self, streamed: StreamedInput, config: RunnableConfig
    ) -> tuple[str, Sequence[Document | str], list[GroundingSource], list[str]]:
        """What the final check takes: the answer and documents of the merged input."""
        if streamed.merged is None:
            raise InputError(
                "GroundingChecker got an empty stream: nothing to check", field="input"
            )
        if streamed.alone:
            documents = self._configured_documents(streamed.merged, config)
            return answer_text(streamed.merged), *checked_documents(documents)
        _values, key, documents = self._unpack(streamed.merged)
        return answer_text(streamed.merged[key]), *checked_documents(documents)

    def _feed(
        self,
        chunk: Any,
        streamed: StreamedInput,
        claims: ClaimStream | AsyncClaimStream,
        config: RunnableConfig,
    ) -> list[ClaimVerdict]:
        """Take one input chunk: the claim checks get its text (and documents, when it has
        some); the verdicts completed since the last chunk."""
        first = streamed.alone is None
        delta, documents = streamed.add(chunk)
        if not self.check_while_streaming:
            return []
        if first and streamed.alone:
            claims.set_sources(*checked_documents(self._configured_documents(chunk, config)))
        if documents is not None:
            claims.set_sources(*checked_documents(documents))
        claims.add_text(delta)
        return claims.ready()

    def _last(
        self,
        streamed: StreamedInput,
        claims: ClaimStream | AsyncClaimStream,
        outcome: GroundingOutcome[Any],
    ) -> Any:
        """The stream's last chunk: the response of an answer alone (raising for
        ``"raise"``), else ``{"grounding": report}`` and what the policies add."""
        if streamed.alone:
            return self._response(outcome)
        chunk = AddableDict({"grounding": outcome.report})
        if outcome.fallback_answer is not None:
            chunk[FALLBACK_KEY] = outcome.fallback_answer
        if claims.stop_verdict is not None:
            chunk[STOPPED_KEY] = claims.stop_verdict
            if self.on_unsupported_claim == "fallback":
                chunk[FALLBACK_KEY] = self.fallback_answer
        return chunk

    @staticmethod
    def _verdict_chunks(verdicts: list[ClaimVerdict], streamed: StreamedInput) -> list[Any]:
        return [] if streamed.alone else [verdict_chunk(v) for v in verdicts]

    def _transform(
        self,
        chunks: Iterator[Any],
        run_manager: CallbackManagerForChainRun,
        config: RunnableConfig,
    ) -> Iterator[Any]:
        streamed = StreamedInput()
        events = patch_config(config, callbacks=run_manager.get_child())  # events of this run
        claims = ClaimStream(self._check, **self.claim_stream_settings())

        def announced(verdicts: list[ClaimVerdict]) -> list[Any]:
            for verdict in verdicts:  # sync: from this thread, as the chunks are
                dispatch_custom_event(CLAIM_EVENT, verdict.to_dict(), config=events)
            return self._verdict_chunks(verdicts, streamed)

        try:
            for chunk in chunks:
                verdicts = self._feed(chunk, streamed, claims, config)
                if not streamed.alone:
                    yield chunk
                yield from announced(verdicts)
                if claims.stopped:
                    break
            if self.check_while_streaming:
                yield from announced(claims.finish())
        finally:
            claims.close()
            close = getattr(chunks, "close", None)
            if close is not None:
                close()  # an unsupported claim stopped the stream: stop its source too
        outcome = self._check.run(*self._streamed_check(streamed, config))
        yield self._last(streamed, claims, outcome)
        outcome.enforce()

    async def _atransform(
        self,
        chunks: AsyncIterator[Any],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
    ) -> AsyncIterator[Any]:
        streamed = StreamedInput()
        events = patch_config(config, callbacks=run_manager.get_child())  # events of this run

        async def announce(verdict: ClaimVerdict) -> None:
            # the moment its check completes, not at the next chunk
            await adispatch_custom_event(CLAIM_EVENT, verdict.to_dict(), config=events)

        claims = AsyncClaimStream(self._check, on_verdict=announce, **self.claim_stream_settings())
        try:
            async for chunk in chunks:
                verdicts = self._feed(chunk, streamed, claims, config)
                if not streamed.alone:
                    yield chunk
                for out in self._verdict_chunks(verdicts, streamed):
                    yield out
                if claims.stopped:
                    break
            if self.check_while_streaming:
                for out in self._verdict_chunks(await claims.finish(), streamed):
                    yield out
        finally:
            claims.close()
            aclose = getattr(chunks, "aclose", None)
            if aclose is not None:
                await aclose()
        outcome = await self._check.arun(*self._streamed_check(streamed, config))
        yield self._last(streamed, claims, outcome)
        outcome.enforce()
