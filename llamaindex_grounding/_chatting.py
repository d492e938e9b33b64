"""What both LlamaIndex chat engines share: the chat calls around one answer per message, the
chat history, and single-chunk streams (answerQuery returns the whole answer at once)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator

from llama_index.core import Settings
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.core.callbacks import CallbackManager, trace_method
from llama_index.core.chat_engine.types import (
    AgentChatResponse,
    BaseChatEngine,
    StreamingAgentChatResponse,
)
from llama_index.core.tools import ToolOutput

from grounding_core import GroundedAnswer

from ._answering import cited_answer_response

__all__ = ["AnswerChatEngine"]


class AnswerChatEngine(BaseChatEngine):
    """A chat engine whose every message is one grounded answer: ``_answer``/``_aanswer``
    (the subclass's) turn a message and the earlier turns into the query asked and its answer.

    ``chat``/``achat`` return an ``AgentChatResponse``: ``response`` the answer text,
    ``source_nodes`` its references, ``metadata`` ``grounding_core.answer_metadata`` (as the
    answer query engines' ``Response.metadata``), ``grounded_answer`` and ``citation_blocks``
    (the citations as ``CitationBlock``s); ``sources[0]`` is a
    ``ToolOutput`` whose ``raw_input["query"]`` is the query asked. ``stream_chat`` and
    ``astream_chat`` stream the answer as one chunk.
    """

    tool_name = "answer_query"

    def __init__(self, callback_manager: CallbackManager | None) -> None:
        self.callback_manager = callback_manager or Settings.callback_manager
        self._history: list[ChatMessage] = []

    @property
    def chat_history(self) -> list[ChatMessage]:
        """The user's messages and the answers so far, oldest first."""
        return list(self._history)

    def reset(self) -> None:
        """Forget the conversation: the next message starts a new one."""
        self._history = []

    def _answer(
        self, message: str, history: list[ChatMessage]
    ) -> tuple[str, GroundedAnswer]:  # pragma: no cover - abstract
        raise NotImplementedError

    async def _aanswer(
        self, message: str, history: list[ChatMessage]
    ) -> tuple[str, GroundedAnswer]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _turn(self, message: str, query: str, answer: GroundedAnswer) -> AgentChatResponse:
        self._history += [
            ChatMessage(role=MessageRole.USER, content=message),
            ChatMessage(role=MessageRole.ASSISTANT, content=answer.answer_text),
        ]
        response = cited_answer_response(answer)
        output = ToolOutput(
            content=answer.answer_text,
            tool_name=self.tool_name,
            raw_input={"query": query},
            raw_output=response,
        )
        return AgentChatResponse(
            response=answer.answer_text,
            sources=[output],
            source_nodes=response.source_nodes,
            metadata=response.metadata,
        )

    @trace_method("chat")
    def chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> AgentChatResponse:
        """Answer ``message`` in the conversation."""
        query, answer = self._answer(
            message, self._history if chat_history is None else chat_history
        )
        return self._turn(message, query, answer)

    @trace_method("chat")
    async def achat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> AgentChatResponse:
        """Async ``chat``, on Google's async client."""
        history = self._history if chat_history is None else chat_history
        query, answer = await self._aanswer(message, history)
        return self._turn(message, query, answer)

    def stream_chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> StreamingAgentChatResponse:
        """``chat`` as a stream of one chunk (the API answers at once)."""
        return _stream(self.chat(message, chat_history))

    async def astream_chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> StreamingAgentChatResponse:
        """``achat`` as a stream of one chunk."""
        return _stream(await self.achat(message, chat_history), asynchronous=True)


def _chunk(text: str) -> ChatResponse:
    return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text), delta=text)


def _stream(
    response: AgentChatResponse, *, asynchronous: bool = False
) -> StreamingAgentChatResponse:
    text = response.response

    def chunks() -> Generator[ChatResponse, None, None]:
        yield _chunk(text)

    async def achunks() -> AsyncGenerator[ChatResponse, None]:
        yield _chunk(text)

    return StreamingAgentChatResponse(
        response=text,
        sources=response.sources,
        source_nodes=response.source_nodes,
        chat_stream=None if asynchronous else chunks(),
        achat_stream=achunks() if asynchronous else None,
        is_writing_to_memory=False,  # the engine keeps its own history
    )
