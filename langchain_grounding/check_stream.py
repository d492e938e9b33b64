"""What a streaming ``GroundingChecker`` reads from its input stream, and what it emits; and
``TransformStreams``, the streaming methods of the Runnables that stream (the checker,
``GroundedChain``, the answer Runnables).

A RAG chain streams its output as chunks: with ``RunnableParallel(...).assign(answer=...)`` the
documents come in one chunk (``{"context": [...]}``) and the answer in many
(``{"answer": "tok"}``); ``llm | StrOutputParser()`` streams strings, a chat model
``AIMessageChunk``s. ``StreamedInput`` merges them as LangChain does (``AddableDict``), follows
the answer's text and says when documents arrive.

What the checker emits, besides the chunks it passes through:

- ``CLAIM_EVENT`` (``"grounding_claim"``), a custom callback event per claim verdict, its data
  ``ClaimVerdict.to_dict()`` (``astream_events`` shows it as ``on_custom_event``);
- for a dict input, a ``{VERDICTS_KEY: [verdict]}`` chunk per verdict (the merged output lists
  them all), and last ``{"grounding": report}``, with ``fallback_answer`` when the policy
  replaces the answer, and ``STOPPED_KEY`` when an unsupported claim stopped the stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.utils import AddableDict

from grounding_core import ClaimVerdict, InputError

from .documents import ANSWER_KEYS, DOCUMENT_KEYS, answer_text, find_documents

__all__ = [
    "CLAIM_EVENT",
    "FALLBACK_KEY",
    "STOPPED_KEY",
    "VERDICTS_KEY",
    "StreamedInput",
    "TransformStreams",
    "verdict_chunk",
]

CLAIM_EVENT = "grounding_claim"
VERDICTS_KEY = "claim_verdicts"
STOPPED_KEY = "stopped_at_claim"
FALLBACK_KEY = "fallback_answer"


async def _one(value: Any) -> AsyncIterator[Any]:
    yield value


class TransformStreams:
    """A Runnable's ``transform``/``atransform`` over its ``_transform``/``_atransform``
    (through LangChain's run machinery: callbacks, tracing, ``astream_events``), and
    ``stream``/``astream`` of one input through them. Put it first among the bases, so that it
    wins over ``Runnable``'s buffering defaults."""

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """Stream the chunks of ``input`` through ``_transform``."""
        yield from self._transform_stream_with_config(  # type: ignore[attr-defined]
            input,
            self._transform,  # type: ignore[attr-defined]
            config,
            **kwargs,
        )

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """Async ``transform`` (on Google's async client)."""
        async for chunk in self._atransform_stream_with_config(  # type: ignore[attr-defined]
            input,
            self._atransform,  # type: ignore[attr-defined]
            config,
            **kwargs,
        ):
            yield chunk

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """``transform`` of one input."""
        yield from self.transform(iter([input]), config, **kwargs)

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """``atransform`` of one input."""
        async for chunk in self.atransform(_one(input), config, **kwargs):
            yield chunk


def verdict_chunk(verdict: ClaimVerdict) -> AddableDict:
    """The stream chunk of one verdict (lists add up: the merged output has them all)."""
    return AddableDict({VERDICTS_KEY: [verdict]})


class StreamedInput:
    """The input stream so far: the merged input, whether it is an answer alone (a string or a
    message), and the answer's text."""

    def __init__(self) -> None:
        self.merged: Any = None
        self.alone: bool | None = None
        self._key: str | None = None

    def add(self, chunk: Any) -> tuple[str, list[Any] | None]:
        """Merge ``chunk``; its new answer text, and the documents when it brought some."""
        if self.alone is None:
            self.alone = isinstance(chunk, str | BaseMessage)
        if self.alone:
            if not isinstance(chunk, str | BaseMessage):
                raise InputError(
                    "GroundingChecker got an answer stream that mixes strings or messages with "
                    f"{type(chunk).__name__}: stream one kind",
                    field="input",
                )
            self.merged = chunk if self.merged is None else self.merged + chunk
            return answer_text(chunk), None
        if not isinstance(chunk, Mapping):
            raise InputError(
                "GroundingChecker streams dicts with the answer and its documents (or an answer "
                f"alone); got a {type(chunk).__name__} chunk",
                field="input",
            )
        self.merged = AddableDict(chunk) if self.merged is None else self.merged + chunk
        if self._key is None:
            self._key = next((k for k in ANSWER_KEYS if k in chunk), None)
        value = chunk.get(self._key) if self._key is not None else None
        delta = answer_text(value) if value is not None else ""
        documents = find_documents(self.merged) if any(k in chunk for k in DOCUMENT_KEYS) else None
        return delta, documents
