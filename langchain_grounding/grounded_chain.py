"""``with_grounding``: any RAG chain, its output checked against what its retrievers found."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
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
from ._serialization import Serialized
from .check_stream import TransformStreams
from .documents import DOCUMENT_KEYS, add_new_documents, find_documents
from .grounding_checker import GroundingChecker, checker_of

__all__ = ["GroundedChain", "with_grounding"]


class _RetrievedDocuments(BaseCallbackHandler):
    """Collects what the retrievers of one invocation return."""

    run_inline = True

    def __init__(self) -> None:
        self.documents: list[Document] = []
        self._sent = False

    def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:
        """Keep the documents (each once)."""
        add_new_documents(self.documents, documents)

    def before(self, chunk: Any) -> list[Any]:
        """What the checker gets for one chunk of the chain's stream (``None``: its end): the
        documents found so far, once, ahead of the first chunk after they are known (unless the
        chain's output carries documents of its own), then the chunk as a dict."""
        out: list[Any] = []
        if isinstance(chunk, Mapping) and any(k in chunk for k in DOCUMENT_KEYS):
            self._sent = True  # the output has its own documents
        if not self._sent and self.documents:
            self._sent = True
            out.append({"documents": list(self.documents)})
        if chunk is not None:
            out.append(chunk if isinstance(chunk, Mapping) else {"answer": chunk})
        return out


class GroundedChain(
    Serialized, TransformStreams, RunnableSerializable[Any, dict[str, Any]], StrictArguments
):
    """A chain whose answer is checked against the documents its retrievers returned.

    Output: the chain's output dict (or ``{"answer": output}`` when it returns a string or a
    message) plus ``documents`` (when the output had none) and ``grounding``, the
    ``GroundingReport``. The chain and the check run as child runs: callbacks and traces
    see both.

    ``stream``/``astream`` stream the chain through the checker (``GroundingChecker``,
    "Streaming"): its chunks pass through as they come (a string or message chunk as
    ``{"answer": chunk}``), the documents its retrievers returned as one ``{"documents": [...]}``
    chunk as soon as they are known, then the checker's verdicts and report.
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

    def _transform(
        self, inputs: Iterator[Any], run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Iterator[Any]:
        collector = _RetrievedDocuments()
        chunks = self.chain.transform(inputs, self._child(config, run_manager, "chain", collector))

        def checked_chunks() -> Iterator[Any]:
            for chunk in chunks:
                yield from collector.before(chunk)
            yield from collector.before(None)

        yield from self.checker.transform(
            checked_chunks(), self._child(config, run_manager, "grounding")
        )

    async def _atransform(
        self,
        inputs: AsyncIterator[Any],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
    ) -> AsyncIterator[Any]:
        collector = _RetrievedDocuments()
        chunks = self.chain.atransform(inputs, self._child(config, run_manager, "chain", collector))

        async def checked_chunks() -> AsyncIterator[Any]:
            async for chunk in chunks:
                for item in collector.before(chunk):
                    yield item
            for item in collector.before(None):
                yield item

        async for chunk in self.checker.atransform(
            checked_chunks(), self._child(config, run_manager, "grounding")
        ):
            yield chunk

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
