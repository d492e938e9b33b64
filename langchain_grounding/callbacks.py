"""Grounding as a chain callback: attach a handler to any run and get its grounding report.

``GroundingCallbackHandler`` (sync runs) and ``AsyncGroundingCallbackHandler`` (async runs,
on Google's async client) collect the documents the run's retrievers return (and those a
grounded chat model answered from: its message's ``response_metadata["documents"]``) and the
run's final answer, and check the answer when the outermost run ends. An agent's run
(``create_agent``: its output is ``{"messages": [...]}``) is checked too: its final
``AIMessage`` against its tools' documents (``ToolMessage`` artifacts and retriever runs) and
the state's ``documents``. A failed check never breaks
the chain: it is logged and recorded as a report with ``error`` set.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, LLMResult

from grounding_core import GroundingCheck, GroundingError, GroundingSource

from .agent_messages import agent_answer
from .documents import (
    add_new_documents,
    answer_text,
    find_answer,
    find_documents,
    message_documents,
)
from .grounding_checker import (
    GroundingChecker,
    LangChainGroundingReport,
    checked_documents,
    checker_of,
)

__all__ = ["AsyncGroundingCallbackHandler", "DocumentCollector", "GroundingCallbackHandler"]

logger = logging.getLogger(__name__)

ReportCallback = Callable[[UUID, LangChainGroundingReport], None]


class DocumentCollector:
    """Documents returned by the retrievers of each run tree, grouped by the outermost run.

    Thread-safe: ``batch`` runs several trees at once on a thread pool.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._roots: dict[UUID, UUID] = {}
        self._members: dict[UUID, set[UUID]] = {}
        self._documents: dict[UUID, list[Document]] = {}

    def __getstate__(self) -> dict[str, Any]:
        # The runs in flight are the original's: a pickle or copy starts with none.
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def started(self, run_id: UUID, parent_run_id: UUID | None) -> None:
        """Record a run under the outermost run of its tree."""
        with self._lock:
            root = (
                run_id if parent_run_id is None else self._roots.get(parent_run_id, parent_run_id)
            )
            self._roots[run_id] = root
            self._members.setdefault(root, set()).add(run_id)

    def root_of(self, run_id: UUID) -> UUID:
        """The outermost run of the tree ``run_id`` belongs to."""
        with self._lock:
            return self._roots.get(run_id, run_id)

    def add(self, run_id: UUID, documents: Sequence[Document]) -> None:
        """Keep the documents a retriever run returned (each document once per tree)."""
        with self._lock:
            root = self._roots.get(run_id, run_id)
            add_new_documents(self._documents.setdefault(root, []), documents)

    def finish(self, root: UUID) -> list[Document]:
        """The tree's documents; forget the tree."""
        with self._lock:
            for run_id in self._members.pop(root, ()):
                self._roots.pop(run_id, None)
            return self._documents.pop(root, [])


class _GroundingCollector:
    """The state and bookkeeping shared by the sync and async handlers."""

    def __init__(
        self,
        checker: GroundingChecker | None = None,
        *,
        on_report: ReportCallback | None = None,
        max_reports: int = 1000,
        **checker_kwargs: Any,
    ) -> None:
        own = ("checker", "on_report", "max_reports")
        self.checker = checker_of(type(self).__name__, checker, checker_kwargs, own)
        self.on_report = on_report
        self.max_reports = max_reports
        self.reports: OrderedDict[UUID, LangChainGroundingReport] = OrderedDict()
        self._runs = DocumentCollector()
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        # Settings and reports go into a pickle or copy; a lock belongs to one process.
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @property
    def latest(self) -> LangChainGroundingReport | None:
        """The report of the run that ended last, if any."""
        with self._lock:
            return next(reversed(self.reports.values()), None)

    def _to_check(
        self, outputs: Any, run_id: UUID, parent_run_id: UUID | None
    ) -> tuple[str, Sequence[Document | str], list[GroundingSource], list[str]] | None:
        """What ``GroundingCheck.run`` takes when an outermost run ends with an answer (its
        documents: those in its output, else those its retrievers returned), else ``None``."""
        if parent_run_id is not None:
            return None
        collected = self._runs.finish(run_id)
        try:
            agent = agent_answer(outputs)
            if agent is not None:
                # An agent's state: its final message, against what its tools returned (their
                # artifacts and their retriever runs) and the state's documents.
                message, documents = agent
                add_new_documents(documents, collected)
                return (message.text, *checked_documents(documents))
            answer = find_answer(outputs)
            in_output = find_documents(outputs) if isinstance(outputs, Mapping) else None
        except GroundingError as exc:
            logger.debug("run %s: nothing to check (%s)", run_id, exc)
            return None
        if not isinstance(answer, str | BaseMessage):
            logger.debug("run %s: its output is not an answer (%s)", run_id, type(answer))
            return None
        return (
            answer_text(answer),
            *checked_documents(in_output if in_output is not None else collected),
        )

    def _model_end(self, response: LLMResult, parent_run_id: UUID | None) -> None:
        """Collect the documents a chat model run inside a tree says it answered from."""
        if parent_run_id is None:
            return
        for generations in response.generations:
            for generation in generations:
                if isinstance(generation, ChatGeneration):
                    self._runs.add(parent_run_id, message_documents(generation.message))

    @property
    def _check(self) -> GroundingCheck:
        # A callback reports, it never decides: no policy, and a failed check is recorded.
        return self.checker.grounding_check.replace(on_ungrounded="annotate", on_error="record")

    def _store(self, run_id: UUID, report: LangChainGroundingReport) -> None:
        with self._lock:
            self.reports[run_id] = report
            while len(self.reports) > self.max_reports:
                self.reports.popitem(last=False)
        if self.on_report is not None:
            try:
                self.on_report(run_id, report)
            except Exception:
                logger.exception("the on_report callback failed for run %s", run_id)


class GroundingCallbackHandler(_GroundingCollector, BaseCallbackHandler):
    """Checks the final answer of every run it is attached to (sync runs).

    .. code-block:: python

        handler = GroundingCallbackHandler(project_id="my-project")
        answer = chain.invoke("What is a list?", config={"callbacks": [handler]})
        report = handler.latest            # or handler.reports[run_id]
        report.support_score, report.unsupported_claims

    Give ``checker=GroundingChecker(...)`` or the checker's fields as keyword arguments;
    ``on_report(run_id, report)`` is called for every report. Reports are kept per outermost
    run id (the last ``max_reports``). In async code use ``AsyncGroundingCallbackHandler``.
    """

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: dict[str, Any],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Remember where the run sits in its tree."""
        self._runs.started(run_id, parent_run_id)

    def on_retriever_start(
        self,
        serialized: dict[str, Any] | None,
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Remember where the retriever run sits in its tree."""
        self._runs.started(run_id, parent_run_id)

    def on_retriever_end(
        self,
        documents: Sequence[Document],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Collect the retrieved documents for the tree's final check."""
        self._runs.add(run_id, documents)

    def on_llm_end(
        self,
        response: LLMResult,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Collect the documents a grounded chat model answered from."""
        self._model_end(response, parent_run_id)

    def on_chain_end(
        self,
        outputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """When the outermost run ends, check its answer against the collected documents."""
        found = self._to_check(outputs, run_id, parent_run_id)
        if found is not None:
            self._store(run_id, self._check.run(*found).report)

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Forget a failed tree."""
        if parent_run_id is None:
            self._runs.finish(run_id)


class AsyncGroundingCallbackHandler(_GroundingCollector, AsyncCallbackHandler):
    """``GroundingCallbackHandler`` for async runs: the check runs on Google's async client.

    .. code-block:: python

        handler = AsyncGroundingCallbackHandler(project_id="my-project")
        answer = await chain.ainvoke("What is a list?", config={"callbacks": [handler]})
        handler.latest.support_score
    """

    async def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: dict[str, Any],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Remember where the run sits in its tree."""
        self._runs.started(run_id, parent_run_id)

    async def on_retriever_start(
        self,
        serialized: dict[str, Any] | None,
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Remember where the retriever run sits in its tree."""
        self._runs.started(run_id, parent_run_id)

    async def on_retriever_end(
        self,
        documents: Sequence[Document],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Collect the retrieved documents for the tree's final check."""
        self._runs.add(run_id, documents)

    async def on_llm_end(
        self,
        response: LLMResult,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Collect the documents a grounded chat model answered from."""
        self._model_end(response, parent_run_id)

    async def on_chain_end(
        self,
        outputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """When the outermost run ends, check its answer against the collected documents."""
        found = self._to_check(outputs, run_id, parent_run_id)
        if found is not None:
            self._store(run_id, (await self._check.arun(*found)).report)

    async def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Forget a failed tree."""
        if parent_run_id is None:
            self._runs.finish(run_id)
