"""``GroundingChecker``: checkGrounding as a Runnable step of a RAG chain.

Framework glue over ``grounding_core.GroundingCheck``, which holds the settings and the
policies: this module turns chain outputs into an answer and documents, and back.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar, overload

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import Field, PrivateAttr, model_validator

from grounding_core import (
    DEFAULT_CITATION_THRESHOLD,
    DEFAULT_FALLBACK_ANSWER,
    DEFAULT_GROUNDING_CONFIG,
    DEFAULT_MIN_SUPPORT_SCORE,
    PEER_CHECKER_ARGUMENTS,
    ConfigurationError,
    GroundingCheck,
    GroundingOutcome,
    GroundingReport,
    GroundingSource,
    GroundingSpec,
    InputError,
    PeerTable,
    UngroundedPolicy,
    report_citations,
    unknown_arguments_message,
)

from ._arguments import StrictArguments, known_arguments
from ._connection import DiscoveryEngineSettings
from .citations import cited_message
from .documents import answer_key, answer_text, document_to_source, find_documents

__all__ = [
    "DEFAULT_FALLBACK_ANSWER",
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
    "langchain-google-community's VertexAICheckGroundingWrapper, which returns the "
    "GroundingReport"
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


class GroundingChecker(
    DiscoveryEngineSettings,
    RunnableSerializable[
        dict[str, Any] | str | BaseMessage, dict[str, Any] | LangChainGroundingReport
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
            passed to the API.
        min_support_score (default 1.0, ``DEFAULT_MIN_SUPPORT_SCORE``): the pass mark; the
            answer passes when every checked claim is supported or its support score reaches
            it (lower it, e.g. to 0.6, to let partly grounded answers pass).
        on_ungrounded: ``"annotate"`` (default: return it with the report), ``"raise"``
            (``UngroundedAnswerError``) or ``"fallback"`` (replace the answer by
            ``fallback_answer``; the original stays under ``"original_answer"``).
        project_id, location, grounding_config, and the connection fields.

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

    The call shape of langchain-google-community's ``VertexAICheckGroundingWrapper`` works
    too: the answer alone (``str`` or ``AIMessage``) with the documents (a list of
    ``Document``s or strings) in ``config["configurable"]["documents"]``; the output is then
    the ``GroundingReport`` itself (``.support_score``, ``.claims``,
    ``.answer_with_citations`` with the peer's 0-based ``[i]`` markers)::

        report = checker.with_config(configurable={"documents": docs}).invoke(answer)
        chain = prompt | llm | StrOutputParser() | checker.with_config(
            configurable={"documents": docs}
        )

    Only ``"documents"`` is read from ``configurable`` (LangChain puts other keys there), and
    only for an answer given alone: a dict input takes its documents from the dict. With
    ``on_ungrounded="fallback"`` this shape is refused before any call
    (``ConfigurationError``): a report has no answer to replace; pass a dict to get the
    fallback answer, or use ``"annotate"`` or ``"raise"``, which raises as for a dict.
    """

    # The peer's names (its VertexAICheckGroundingWrapper), translated with a warning.
    _peer_arguments: ClassVar[PeerTable] = PEER_CHECKER_ARGUMENTS

    grounding_config: str = DEFAULT_GROUNDING_CONFIG
    citation_threshold: float = Field(default=DEFAULT_CITATION_THRESHOLD, ge=0.0, le=1.0)
    enable_claim_level_score: bool = False
    user_labels: dict[str, str] = Field(default_factory=dict)
    min_support_score: float = Field(default=DEFAULT_MIN_SUPPORT_SCORE, ge=0.0, le=1.0)
    on_ungrounded: UngroundedPolicy = "annotate"
    fallback_answer: str = DEFAULT_FALLBACK_ANSWER

    _check: GroundingCheck = PrivateAttr()

    @model_validator(mode="after")
    def _build_check(self) -> GroundingChecker:
        self._check = GroundingCheck.create(
            self.connection,
            grounding_config=self.grounding_config,
            citation_threshold=self.citation_threshold,
            enable_claim_level_score=self.enable_claim_level_score,
            min_support_score=self.min_support_score,
            on_ungrounded=self.on_ungrounded,
            fallback_answer=self.fallback_answer,
            user_labels=self.user_labels,
        )
        return self

    def model_copy(
        self, *, update: Mapping[str, Any] | None = None, deep: bool = False
    ) -> GroundingChecker:
        """A copy with ``update`` assigned field by field, so that it is validated and the
        check (and its connection) follow the new fields; pydantic's own copy skips both."""
        copied = super().model_copy(deep=deep)
        for name, value in (update or {}).items():
            setattr(copied, name, value)
        return copied

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
                "alone with its documents in configurable gets the GroundingReport back, which "
                "has no answer to replace: pass a dict, checker.invoke({'answer': answer, "
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
    def _report(outcome: GroundingOutcome[Document | str]) -> LangChainGroundingReport:
        outcome.enforce()
        return outcome.report

    def _invoke(
        self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> dict[str, Any] | LangChainGroundingReport:
        if isinstance(input, str | BaseMessage):
            documents = self._configured_documents(input, config)
            return self._report(self._check.run(answer_text(input), *checked_documents(documents)))
        values, key, documents = self._unpack(input)
        answer = answer_text(values[key])
        return self._finish(values, key, self._check.run(answer, *checked_documents(documents)))

    async def _ainvoke(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> dict[str, Any] | LangChainGroundingReport:
        if isinstance(input, str | BaseMessage):
            documents = self._configured_documents(input, config)
            return self._report(
                await self._check.arun(answer_text(input), *checked_documents(documents))
            )
        values, key, documents = self._unpack(input)
        answer = answer_text(values[key])
        outcome = await self._check.arun(answer, *checked_documents(documents))
        return self._finish(values, key, outcome)

    @overload
    def invoke(
        self, input: str | BaseMessage, config: RunnableConfig | None = None, **kwargs: Any
    ) -> LangChainGroundingReport: ...

    @overload
    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]: ...

    def invoke(
        self,
        input: dict[str, Any] | str | BaseMessage,
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> dict[str, Any] | LangChainGroundingReport:
        """Check the answer in ``input`` against its documents (a dict: the dict plus
        ``grounding``; the answer alone, documents in ``configurable``: the report)."""
        return self._call_with_config(self._invoke, input, config, **kwargs)

    @overload
    async def ainvoke(
        self, input: str | BaseMessage, config: RunnableConfig | None = None, **kwargs: Any
    ) -> LangChainGroundingReport: ...

    @overload
    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]: ...

    async def ainvoke(
        self,
        input: dict[str, Any] | str | BaseMessage,
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> dict[str, Any] | LangChainGroundingReport:
        """Async ``invoke`` on Google's async client."""
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)
