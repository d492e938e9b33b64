"""``ExtractiveLLM``: an offline stand-in LLM that answers from its prompt's context."""

from __future__ import annotations

from typing import Any

from llama_index.core.llms import CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
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

    def _answer(self, prompt: str) -> str:
        return extractive_answer(prompt, sentences=self.sentences, invent=self.invent)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        """The answer, at once."""
        return CompletionResponse(text=self._answer(prompt))

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        """The answer, word by word."""
        answer = self._answer(prompt)

        def tokens() -> CompletionResponseGen:
            text = ""
            for word in answer.split(" "):
                delta = f" {word}" if text else word
                text += delta
                yield CompletionResponse(text=text, delta=delta)

        return tokens()
