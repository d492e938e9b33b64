"""``with_grounding``: any RAG chain, its output checked against what its retrievers found."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForChainRun,
    BaseCallbackHandler,
    CallbackManagerForChainRun,
)
from langchain_core.documents import Document
from langchain_core.runnables import Runnable, RunnableConfig, RunnableSerializable
from langchain_core.runnables.config import patch_config
from pydantic import ConfigDict

from ._arguments import StrictArguments
from .documents import add_new_documents, find_documents
from .grounding_checker import GroundingChecker, checker_of

__all__ = ["GroundedChain", "with_grounding"]


class _RetrievedDocuments(BaseCallbackHandler):
    """Collects what the retrievers of one invocation return."""

    run_inline = True

    def __init__(self) -> None:
        self.documents: list[Document] = []

    def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:
        """Keep the documents (each once)."""
        add_new_documents(self.documents, documents)


class GroundedChain(RunnableSerializable[Any, dict[str, Any]], StrictArguments):
    """A chain whose answer is checked against the documents its retrievers returned.

    Output: the chain's output dict (or ``{"answer": output}`` when it returns a string or a
    message) plus ``documents`` (when the output had none) and ``grounding``, the
    ``GroundingReport``. The chain and the check run as child runs: callbacks and traces
    see both.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    chain: Runnable[Any, Any]
    checker: GroundingChecker

    def _child(
        self,
        config: RunnableConfig,
        run_manager: Any,
        tag: str,
        collector: _RetrievedDocuments | None = None,
    ) -> RunnableConfig:
        callbacks = run_manager.get_child(tag)
        if collector is not None:
            callbacks.add_handler(collector, inherit=True)
        return patch_config(config, callbacks=callbacks)

    def _check_input(self, output: Any, collected: list[Document]) -> dict[str, Any]:
        values = dict(output) if isinstance(output, Mapping) else {"answer": output}
        if find_documents(values) is None:
            values["documents"] = collected
        return values

    def _invoke(
        self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> dict[str, Any]:
        collector = _RetrievedDocuments()
        output = self.chain.invoke(input, self._child(config, run_manager, "chain", collector))
        return self.checker.invoke(
            self._check_input(output, collector.documents),
            self._child(config, run_manager, "grounding"),
        )

    async def _ainvoke(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> dict[str, Any]:
        collector = _RetrievedDocuments()
        output = await self.chain.ainvoke(
            input, self._child(config, run_manager, "chain", collector)
        )
        return await self.checker.ainvoke(
            self._check_input(output, collector.documents),
            self._child(config, run_manager, "grounding"),
        )

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Run the chain, then check its answer."""
        return self._call_with_config(self._invoke, input, config, **kwargs)

    async def ainvoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Async ``invoke``: the chain's async path, then the check on the async client."""
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)


def with_grounding(
    chain: Runnable[Any, Any], checker: GroundingChecker | None = None, **checker_kwargs: Any
) -> GroundedChain:
    """``chain`` with its answer checked against the documents its retrievers returned.

    .. code-block:: python

        rag = {"context": retriever, "question": RunnablePassthrough()} | prompt | llm | parser
        grounded = with_grounding(rag, project_id="my-project")
        out = grounded.invoke("What does yield do?")
        out["answer"], out["grounding"].support_score, out["grounding"].claims[0].sources

    Give a ``GroundingChecker`` or its fields as keyword arguments.
    """
    checker = checker_of("with_grounding", checker, checker_kwargs, ("chain", "checker"))
    return GroundedChain(chain=chain, checker=checker)
