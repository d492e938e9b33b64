"""``GroundingChecker``: checkGrounding as a Runnable step of a RAG chain.

Framework glue over ``grounding_core.GroundingCheck``, which holds the settings and the
policies: this module turns chain outputs into an answer and documents, and back.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import Field, PrivateAttr, model_validator

from grounding_core import (
    DEFAULT_CITATION_THRESHOLD,
    DEFAULT_FALLBACK_ANSWER,
    DEFAULT_GROUNDING_CONFIG,
    DEFAULT_MIN_SUPPORT_SCORE,
    GroundingCheck,
    GroundingOutcome,
    GroundingReport,
    GroundingSource,
    GroundingSpec,
    InputError,
    UngroundedPolicy,
    unknown_arguments_message,
)

from ._arguments import StrictArguments, known_arguments
from ._connection import DiscoveryEngineSettings
from .documents import answer_key, answer_text, document_to_source, find_documents

__all__ = [
    "DEFAULT_FALLBACK_ANSWER",
    "GroundingChecker",
    "LangChainGroundingReport",
    "checked_documents",
    "checker_of",
]

LangChainGroundingReport = GroundingReport[Document | str]


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
    if fields:
        raise TypeError(
            f"{component}: give either checker= or the checker's fields "
            f"({', '.join(sorted(fields))}), not both"
        )
    return checker


class GroundingChecker(
    DiscoveryEngineSettings, RunnableSerializable[dict[str, Any], dict[str, Any]], StrictArguments
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
    ``response_metadata["grounding"]``. The facts are the documents' ``page_content`` (what
    LangChain's prompts show the model), their metadata the fact attributes. An empty answer
    (a declined one) is a report, not an error: nothing sent, no claims, ``skipped_reason``
    set. Runs through LangChain's run machinery (callbacks and tracing fire);
    ``ainvoke``/``abatch`` use Google's async client.
    """

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

    def _unpack(self, input: Any) -> tuple[dict[str, Any], str, list[Document | str]]:
        if isinstance(input, str | BaseMessage):
            # `prompt | llm | StrOutputParser() | checker`: the answer came without its
            # documents (StrOutputParser gives a str subclass, langchain_core's TextAccessor).
            kind = "a string" if isinstance(input, str) else f"a message, {type(input).__name__}"
            raise InputError(
                f"GroundingChecker got the answer alone ({kind}), without the documents to "
                "check it against: pass a dict with both, e.g. RunnableParallel(documents="
                "retriever, question=RunnablePassthrough()).assign(answer=prompt | llm | "
                "StrOutputParser()) | checker, or wrap the whole chain: with_grounding(chain, "
                "checker) checks its answer against what its retrievers returned",
                field="input",
            )
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
            metadata = {**answer.response_metadata, "grounding": outcome.report.metadata()}
            answer = answer.model_copy(update={"response_metadata": metadata})
        output = {**values, key: answer, "grounding": outcome.report}
        if outcome.fallback_answer is not None:
            output["original_answer"] = answer
            output[key] = outcome.fallback_answer
        outcome.enforce()
        return output

    def _invoke(self, input: Any) -> dict[str, Any]:
        values, key, documents = self._unpack(input)
        answer = answer_text(values[key])
        return self._finish(values, key, self._check.run(answer, *checked_documents(documents)))

    async def _ainvoke(self, input: Any) -> dict[str, Any]:
        values, key, documents = self._unpack(input)
        answer = answer_text(values[key])
        outcome = await self._check.arun(answer, *checked_documents(documents))
        return self._finish(values, key, outcome)

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Check the answer in ``input`` against its documents."""
        return self._call_with_config(self._invoke, input, config, **kwargs)

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Async ``invoke`` on Google's async client."""
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)
