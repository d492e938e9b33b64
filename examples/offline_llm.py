"""A stand-in for an LLM so the examples run offline: it answers with sentences copied from
the context in its prompt (and, if asked, one invented sentence, to show a caught claim).

Replace it with your model, e.g. ``ChatVertexAI(model="gemini-2.5-flash")`` or
``ChatGoogleGenerativeAI(...)`` in LangChain, ``GoogleGenAI(model="gemini-2.5-flash")`` in
LlamaIndex: the rest of each example stays the same.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from llama_index.core.llms import (
    CompletionResponse,
    CompletionResponseGen,
    CustomLLM,
    LLMMetadata,
)
from llama_index.core.llms.callbacks import llm_completion_callback

from grounding_emulator.grounding.claims import split_claims

CONTEXT_START = "Context:\n"
CONTEXT_END = "\n\nQuestion:"
SEPARATOR = "\n---\n"

# Where LlamaIndex's default question-answering prompt puts its context, and where one node
# ends and the next begins: nodes are joined by a blank line and the text of each of this
# project's nodes starts with its metadata, ``source`` first.
LLAMAINDEX_CONTEXT_START = "---------------------\n"
LLAMAINDEX_CONTEXT_END = "\n---------------------\n"
LLAMAINDEX_SEPARATOR = "\n\nsource: "


def extract_answer(
    prompt: str,
    *,
    sentences: int = 2,
    invent: str = "",
    context_start: str = CONTEXT_START,
    context_end: str = CONTEXT_END,
    separator: str = SEPARATOR,
) -> str:
    """The first ``sentences`` full sentences of the prompt's context (at most one from each
    block between ``separator``s), then ``invent``."""
    context = prompt.split(context_start, 1)[-1].split(context_end, 1)[0]
    picked: list[str] = []
    for block in context.split(separator):
        for start, end in split_claims(block):
            sentence = " ".join(block[start:end].split())
            if sentence.endswith((".", "!", "?", "。")) and len(sentence) > 20:
                if sentence not in picked:
                    picked.append(sentence)
                break
        if len(picked) == sentences:
            break
    return " ".join([*picked, invent] if invent else picked)


class ExtractiveChatModel(BaseChatModel):
    """A deterministic offline chat model for the examples (see the module docstring)."""

    sentences: int = 2
    invent: str = ""

    @property
    def _llm_type(self) -> str:
        return "extractive-offline"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        answer = extract_answer(messages[-1].text, sentences=self.sentences, invent=self.invent)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


class ExtractiveLLM(CustomLLM):
    """The same offline stand-in as a LlamaIndex LLM: it reads the context of LlamaIndex's
    default question-answering prompt (see the module docstring)."""

    sentences: int = 2
    invent: str = ""

    @property
    def metadata(self) -> LLMMetadata:
        """A completion model, named for the traces."""
        return LLMMetadata(model_name="extractive-offline")

    def _answer(self, prompt: str) -> str:
        return extract_answer(
            prompt,
            sentences=self.sentences,
            invent=self.invent,
            context_start=LLAMAINDEX_CONTEXT_START,
            context_end=LLAMAINDEX_CONTEXT_END,
            separator=LLAMAINDEX_SEPARATOR,
        )

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
                delta = word if not text else f" {word}"
                text += delta
                yield CompletionResponse(text=text, delta=delta)

        return tokens()
