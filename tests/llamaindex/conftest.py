"""LlamaIndex test helpers: a deterministic LLM that answers from its prompt's context, and
handlers that record LlamaIndex's instrumentation events and spans."""

from __future__ import annotations

import re
from typing import Any

import pytest
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.span.simple import SimpleSpan
from llama_index.core.instrumentation.span_handlers import SimpleSpanHandler
from llama_index.core.llms import CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from pydantic import Field

PROJECT = "test-project"
UNSUPPORTED = "The lighthouse was painted bright purple in 1850."

# LlamaIndex's default question-answering prompt puts the context between two dashed lines;
# each node's text starts with a paragraph of its prose metadata ("source: ...", "title: ...").
_RULE = "---------------------\n"
_METADATA_LINE = re.compile(r"^(source|title|description): ")
_SENTENCE = re.compile(r"[^.!?。]+[.!?。]")


def context_nodes(prompt: str) -> list[str]:
    """The node texts in the context of a default question-answering prompt."""
    context = prompt.split(_RULE, 1)[1].rsplit("\n" + _RULE, 1)[0]
    nodes: list[list[str]] = []
    for paragraph in context.split("\n\n"):
        lines = paragraph.splitlines()
        if lines and all(_METADATA_LINE.match(line) for line in lines):
            nodes.append([])
        elif nodes:
            nodes[-1].append(paragraph)
    return ["\n\n".join(paragraphs) for paragraphs in nodes]


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` that ends with a full stop (headings have none)."""
    for paragraph in text.split("\n\n"):
        match = _SENTENCE.search(paragraph)
        if match:
            return match.group(0).strip()
    return ""


class ContextEchoLLM(CustomLLM):
    """A fake LLM: answers with the first sentence of each of the first ``documents`` context
    nodes, then ``extra`` (an unsupported claim, when a test wants one). Streams word by word.
    """

    documents: int = 1
    extra: str = ""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="context-echo")

    def answer(self, prompt: str) -> str:
        parts = [first_sentence(n) for n in context_nodes(prompt)[: self.documents]]
        return " ".join([p for p in parts if p] + ([self.extra] if self.extra else []))

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.answer(prompt))

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        words = self.answer(prompt).split(" ")

        def gen() -> CompletionResponseGen:
            text = ""
            for i, word in enumerate(words):
                delta = word if i == 0 else " " + word
                text += delta
                yield CompletionResponse(text=text, delta=delta)

        return gen()


class EventRecorder(BaseEventHandler):
    """Keeps every instrumentation event it sees."""

    events: list[Any] = Field(default_factory=list)

    @classmethod
    def class_name(cls) -> str:
        return "EventRecorder"

    def handle(self, event: Any, **kwargs: Any) -> None:
        self.events.append(event)

    def names(self) -> list[str]:
        return [e.class_name() for e in self.events]


@pytest.fixture
def instrumentation():
    """Records the root dispatcher's events and spans during a test, then detaches."""
    root = get_dispatcher()
    events = EventRecorder()
    spans = SimpleSpanHandler()
    root.add_event_handler(events)
    root.add_span_handler(spans)
    try:
        yield events, spans
    finally:
        root.event_handlers.remove(events)
        root.span_handlers.remove(spans)


def span_names(spans: SimpleSpanHandler) -> list[str]:
    """The completed spans' names (``Class.method``), in completion order."""
    completed: list[SimpleSpan] = spans.completed_spans
    return [s.id_.rsplit("-", 5)[0] for s in completed]
