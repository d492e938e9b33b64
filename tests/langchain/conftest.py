"""LangChain test helpers: a deterministic chat model that answers from the prompt's context, and
the core's error inside a component's ``ValidationError``."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.documents import Document
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.prompts import ChatPromptTemplate
from pydantic import ValidationError

from grounding_emulator.grounding.claims import split_claims

PROMPT = ChatPromptTemplate.from_template(
    "Answer from the context only.\n\nContext:\n{context}\n\nQuestion: {question}"
)
SEPARATOR = "\n---\n"


def core_error(error: ValidationError) -> Exception:
    """The error a component's validator raised (the core's ``InputError`` or
    ``ConfigurationError``), as pydantic's ``ValidationError`` carries it."""
    (line,) = error.errors()
    return line["ctx"]["error"]


def format_docs(documents: list[Document]) -> str:
    """The context block of the prompt."""
    return SEPARATOR.join(d.page_content for d in documents)


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` that is not a Markdown heading line."""
    for start, end in split_claims(text):
        sentence = text[start:end]
        if sentence[-1] in ".!?。！？":
            return sentence
    start, end = split_claims(text)[0]
    return text[start:end]


class ContextEchoChatModel(BaseChatModel):
    """A fake chat model: answers with the first sentence of the first ``documents`` context
    documents, then ``extra`` (an unsupported claim, when a test wants one)."""

    documents: int = 1
    extra: str = ""

    @property
    def _llm_type(self) -> str:
        return "context-echo"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = messages[-1].text
        context = prompt.split("Context:\n", 1)[1].rsplit("\n\nQuestion:", 1)[0]
        parts = [first_sentence(d) for d in context.split(SEPARATOR)[: self.documents] if d]
        answer = " ".join(parts + ([self.extra] if self.extra else []))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


@pytest.fixture
def emulator_env(emulator, monkeypatch):
    """Point the components at the session emulator through the documented variables."""
    monkeypatch.setenv("DISCOVERYENGINE_EMULATOR_HOST", emulator.address)
    monkeypatch.setenv("DEVELOPERKNOWLEDGE_EMULATOR_HOST", emulator.address)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "test-project")
    return emulator
