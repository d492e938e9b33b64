"""``GroundingChecker``: checkGrounding as a Runnable step of a RAG chain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import Field, PrivateAttr, model_validator

from grounding_core import (
    DEFAULT_MIN_SUPPORT_SCORE,
    GroundingReport,
    GroundingSpec,
    InputError,
    acheck_sources,
    check_sources,
    grounding_config_path,
)
from grounding_core.settings import DEFAULT_GROUNDING_CONFIG

from ._connection import DiscoveryEngineConnection
from .documents import answer_key, answer_text, document_to_source, find_documents

__all__ = ["DEFAULT_FALLBACK_ANSWER", "GroundingChecker", "LangChainGroundingReport"]

LangChainGroundingReport = GroundingReport[Document | str]

DEFAULT_FALLBACK_ANSWER = "I could not find support for an answer in the retrieved sources."


class GroundingChecker(
    DiscoveryEngineConnection, RunnableSerializable[dict[str, Any], dict[str, Any]]
):
    """Checks an answer against its source documents with Google's checkGrounding.

    Setup:
        As for ``DiscoveryEngineRetriever``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``). No data store is needed.

    Key init args:
        citation_threshold (0..1, default 0.6), enable_claim_level_score: passed to the API.
        min_support_score (default 0.6): below it the answer counts as ungrounded.
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
    ``response_metadata["grounding"]``. Runs through LangChain's run machinery (callbacks
    and tracing fire); ``ainvoke``/``abatch`` use Google's async client.
    """

    grounding_config: str = DEFAULT_GROUNDING_CONFIG
    citation_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    enable_claim_level_score: bool = False
    min_support_score: float = Field(default=DEFAULT_MIN_SUPPORT_SCORE, ge=0.0, le=1.0)
    on_ungrounded: Literal["annotate", "raise", "fallback"] = "annotate"
    fallback_answer: str = DEFAULT_FALLBACK_ANSWER

    _grounding_config_path: str = PrivateAttr()

    @model_validator(mode="after")
    def _build_names(self) -> GroundingChecker:
        self._grounding_config_path = grounding_config_path(
            self.connection.project, self.location, self.grounding_config
        )
        return self

    @property
    def spec(self) -> GroundingSpec:
        """The grounding spec sent with every check."""
        return GroundingSpec(
            citation_threshold=self.citation_threshold,
            enable_claim_level_score=self.enable_claim_level_score,
        )

    def check(
        self, answer: str | BaseMessage, documents: Sequence[Document | str]
    ) -> LangChainGroundingReport:
        """The grounding report of ``answer`` against ``documents`` (no run, no policy)."""
        return check_sources(
            self.clients,
            self._grounding_config_path,
            answer_text(answer),
            documents,
            [document_to_source(d) for d in documents],
            self.spec,
            self.call_options,
            min_support_score=self.min_support_score,
        )

    async def acheck(
        self, answer: str | BaseMessage, documents: Sequence[Document | str]
    ) -> LangChainGroundingReport:
        """Async ``check`` on Google's async client."""
        return await acheck_sources(
            self.clients,
            self._grounding_config_path,
            answer_text(answer),
            documents,
            [document_to_source(d) for d in documents],
            self.spec,
            self.call_options,
            min_support_score=self.min_support_score,
        )

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
        self, values: dict[str, Any], key: str, report: LangChainGroundingReport
    ) -> dict[str, Any]:
        report.enforce(self.on_ungrounded)
        answer = values[key]
        if isinstance(answer, BaseMessage):
            metadata = {**answer.response_metadata, "grounding": report.metadata()}
            answer = answer.model_copy(update={"response_metadata": metadata})
        output = {**values, key: answer, "grounding": report}
        if self.on_ungrounded == "fallback" and not report.passed:
            output["original_answer"] = answer
            output[key] = self.fallback_answer
        return output

    def _invoke(self, input: Any) -> dict[str, Any]:
        values, key, documents = self._unpack(input)
        return self._finish(values, key, self.check(values[key], documents))

    async def _ainvoke(self, input: Any) -> dict[str, Any]:
        values, key, documents = self._unpack(input)
        return self._finish(values, key, await self.acheck(values[key], documents))

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
