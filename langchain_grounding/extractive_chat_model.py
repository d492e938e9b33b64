"""``ExtractiveChatModel``: an offline stand-in chat model answering from its prompt's context."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

from grounding_core import DEFAULT_EXTRACTIVE_SENTENCES, extractive_answer

from ._arguments import StrictArguments


class ExtractiveChatModel(BaseChatModel, StrictArguments):
    """A deterministic offline chat model for demos and tests: it answers with the sentences of
    the retrieved context in its prompt that best overlap the question
    (``grounding_core.extractive_answer``), so a grounding check grades a real answer.

    Setup:
        ``pip install "grounding-kit[langchain]"``; no model, no network.

    Key init args:
        sentences: how many context sentences to copy.
        invent: a made-up sentence to add, to show a check catching it.

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

    ``stream`` yields the answer word by word.
    """

    sentences: int = Field(default=DEFAULT_EXTRACTIVE_SENTENCES, ge=1)
    invent: str = ""

    @property
    def _llm_type(self) -> str:
        return "extractive-offline"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"sentences": self.sentences, "invent": self.invent}

    def _answer(self, messages: list[BaseMessage]) -> str:
        return extractive_answer(
            "\n\n".join(message.text for message in messages),
            sentences=self.sentences,
            invent=self.invent,
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = AIMessage(content=self._answer(messages))
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for number, word in enumerate(self._answer(messages).split(" ")):
            chunk = ChatGenerationChunk(
                message=AIMessageChunk(content=f" {word}" if number else word)
            )
            if run_manager is not None:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk
