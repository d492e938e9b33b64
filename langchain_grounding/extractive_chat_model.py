"""``ExtractiveChatModel``: an offline stand-in chat model answering from its prompt's context."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.documents import Document
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.messages.tool import tool_call, tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

from grounding_core.extractive import DEFAULT_EXTRACTIVE_SENTENCES, extractive_answer

from ._arguments import StrictArguments
from ._serialization import Serialized


class ExtractiveChatModel(Serialized, BaseChatModel, StrictArguments):
    """A deterministic offline chat model for demos and tests: it answers with the sentences of
    the retrieved context in its prompt that best overlap the question
    (``grounding_core.extractive_answer``), so a grounding check grades a real answer.

    Setup:
        ``pip install "grounding-kit[langchain]"``; no model, no network.

    Key init args:
        sentences: how many context sentences to copy.
        invent: a made-up sentence to add, to show a check catching it.
        token_delay: seconds between streamed words (0 by default), to show a stream at a
            model's pace.

    Instantiate:
        .. code-block:: python

            from langchain_grounding import ExtractiveChatModel

            llm = ExtractiveChatModel()  # swap in ChatVertexAI(model="gemini-2.5-flash")

    Usage:
        .. code-block:: python

            prompt = "Context:\\nA generator yields values lazily.\\n\\nQuestion: What yields?"
            llm.invoke(prompt).content  # 'A generator yields values lazily.'

    Use within a chain:
        .. code-block:: python

            inputs = {"context": retriever | format_docs, "question": RunnablePassthrough()}
            rag = inputs | prompt | llm | StrOutputParser()

    Use within an agent (``create_agent``, which calls ``bind_tools``): the bound model first
    calls its first tool with the user's question (the last user message that ends with a
    question mark, else the last one) as ``query``, then answers it from what the tools
    returned since (a tool's ``Document`` artifacts, else its text)::

        agent = create_agent(ExtractiveChatModel(), tools=[DiscoveryEngineSearchTool(...)])

    ``stream`` yields the answer word by word (a tool call as one chunk); ``astream`` too,
    on the event loop (``token_delay`` apart).
    """

    sentences: int = Field(default=DEFAULT_EXTRACTIVE_SENTENCES, ge=1)
    invent: str = ""
    token_delay: float = Field(default=0.0, ge=0.0, le=10.0)

    _tool_names: tuple[str, ...] = PrivateAttr(default=())

    @property
    def _llm_type(self) -> str:
        return "extractive-offline"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"sentences": self.sentences, "invent": self.invent, "tools": self._tool_names}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """A copy that calls the first of ``tools`` with the user's question as ``query``
        before it answers, then answers from what the tools returned (what ``create_agent``
        calls)."""
        bound = self.model_copy()
        bound._tool_names = tuple(convert_to_openai_tool(t)["function"]["name"] for t in tools)
        return bound

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        asked = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
        # The question is the last user message that asks one: a follow-up instruction (a
        # revision request) is answered from the same question and tool results.
        questions = [i for i in asked if messages[i].text.rstrip().endswith(_QUESTION_ENDS)]
        turn_start = (questions or asked or [-1])[-1]
        results = [m for m in messages[turn_start + 1 :] if isinstance(m, ToolMessage)]
        question = messages[turn_start].text if turn_start >= 0 else ""
        if self._tool_names and not results:
            call = tool_call(
                name=self._tool_names[0], args={"query": question}, id=f"call-{len(messages)}"
            )
            return AIMessage(content="", tool_calls=[call])
        if results:
            # The sources themselves (a tool's Documents) when the tool gives them, rather than
            # the text the model reads, whose numbered headings are not sentences.
            context = "\n\n".join(_result_text(m) for m in results)
            prompt = f"{context}\n\nQuestion: {question}"
        else:
            prompt = "\n\n".join(message.text for message in messages)
        answer = extractive_answer(prompt, sentences=self.sentences, invent=self.invent)
        return AIMessage(content=answer)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _chunks(self, messages: list[BaseMessage]) -> Iterator[ChatGenerationChunk]:
        """The reply as stream chunks: a tool call as one, an answer word by word."""
        message = self._reply(messages)
        if message.tool_calls:
            calls = [
                tool_call_chunk(name=c["name"], args=json.dumps(c["args"]), id=c["id"], index=i)
                for i, c in enumerate(message.tool_calls)
            ]
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=calls))
            return
        for number, word in enumerate(message.text.split(" ")):
            yield ChatGenerationChunk(
                message=AIMessageChunk(content=f" {word}" if number else word)
            )

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for number, chunk in enumerate(self._chunks(messages)):
            if number and self.token_delay:
                time.sleep(self.token_delay)
            if run_manager is not None:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for number, chunk in enumerate(self._chunks(messages)):
            if number and self.token_delay:
                await asyncio.sleep(self.token_delay)
            if run_manager is not None:
                await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk


_QUESTION_ENDS = ("?", "？")


def _result_text(message: ToolMessage) -> str:
    artifact = message.artifact
    if isinstance(artifact, list) and artifact and all(isinstance(d, Document) for d in artifact):
        return "\n\n".join(d.page_content for d in artifact)
    return message.text
