"""``ExtractiveLLM``: an offline stand-in LLM that answers from its prompt's context."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.base.llms.generic_utils import (
    completion_response_to_chat_response,
    stream_completion_response_to_chat_response,
)
from llama_index.core.llms import (
    ChatMessage,
    ChatResponse,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseGen,
    CustomLLM,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from pydantic import ConfigDict, Field

from grounding_core import extractive_answer
from grounding_core.extractive import DEFAULT_EXTRACTIVE_SENTENCES
from grounding_core.peers import init_without_inputs, unknown_arguments_message


class ExtractiveLLM(CustomLLM):
    """A deterministic offline LLM for demos and tests: it answers with the sentences of the
    retrieved context in its prompt that best overlap the query
    (``grounding_core.extractive_answer``), so a grounding check grades a real answer (unlike
    ``MockLLM``, which echoes the prompt).

    Setup:
        ``pip install "grounding-kit[llamaindex]"``; no model, no network.

    Key init args:
        sentences: how many context sentences to copy.
        invent: a made-up sentence to add, to show a check catching it.

    Instantiate:
        .. code-block:: python

            from llamaindex_grounding import ExtractiveLLM

            llm = ExtractiveLLM()  # swap in GoogleGenAI(model="gemini-2.5-flash")

    Usage:
        .. code-block:: python

            RetrieverQueryEngine.from_args(retriever, llm=llm).query("How does with work?")

    ``stream_complete`` (and so ``streaming=True`` query engines) yields the answer word by word.
    """

    # LlamaIndex's LLMs ignore unknown names: a misspelt one is refused here, as by the other
    # components (a TypeError naming it), and a validation error carries no input.
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    sentences: int = Field(default=DEFAULT_EXTRACTIVE_SENTENCES, ge=1)
    invent: str = ""

    def __init__(self, **data: Any) -> None:
        message = unknown_arguments_message(type(self).__name__, data, type(self).model_fields)
        if message is not None:
            raise TypeError(message)
        init_without_inputs(super().__init__, data)

    @classmethod
    def class_name(cls) -> str:
        """The name LlamaIndex serializes the class under."""
        return "ExtractiveLLM"

    @property
    def metadata(self) -> LLMMetadata:
        """A completion model, named for the traces."""
        return LLMMetadata(model_name="extractive-offline")

    def _answer(self, prompt: str, system: str = "") -> str:
        return extractive_answer(
            prompt, sentences=self.sentences, invent=self.invent, system=system
        )

    @staticmethod
    def _tokens(answer: str) -> CompletionResponseGen:
        text = ""
        for word in answer.split(" "):
            delta = f" {word}" if text else word
            text += delta
            yield CompletionResponse(text=text, delta=delta)

    def _reply(self, messages: Sequence[ChatMessage]) -> str:
        # A system message is instruction when the conversation brings the context itself.
        system = "\n\n".join(m.content or "" for m in messages if m.role == MessageRole.SYSTEM)
        rest = "\n\n".join(m.content or "" for m in messages if m.role != MessageRole.SYSTEM)
        return self._answer(rest, system)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        """The answer, at once."""
        return CompletionResponse(text=self._answer(prompt))

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        """The answer, word by word."""
        return self._tokens(self._answer(prompt))

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        """The answer to the conversation (a system instruction is never copied)."""
        return completion_response_to_chat_response(CompletionResponse(text=self._reply(messages)))

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        """``chat``, word by word."""
        return stream_completion_response_to_chat_response(self._tokens(self._reply(messages)))
