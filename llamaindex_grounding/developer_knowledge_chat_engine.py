"""``DeveloperKnowledgeChatEngine``: a conversation over the Developer Knowledge API's
``answerQuery``, which has no sessions: each follow-up is condensed with the earlier turns."""

from __future__ import annotations

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.callbacks import CallbackManager
from llama_index.core.llms.llm import LLM
from llama_index.core.prompts.base import BasePromptTemplate, PromptTemplate
from typing_extensions import Unpack

from grounding_core import (
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeConnection,
    DeveloperKnowledgeConnectionArgs,
    GroundedAnswer,
    condense_question,
)
from grounding_core.answers.follow_ups import (
    CONDENSE_QUESTION_TEMPLATE,
    DEFAULT_CONDENSE_QUESTIONS,
    history_text,
)
from grounding_core.peers import check_count, refuse_unknown_arguments

from ._chatting import AnswerChatEngine

__all__ = ["DeveloperKnowledgeChatEngine"]

DEFAULT_CONDENSE_PROMPT = PromptTemplate(CONDENSE_QUESTION_TEMPLATE)


class DeveloperKnowledgeChatEngine(AnswerChatEngine):
    """A multi-turn conversation with the Developer Knowledge API's ``answerQuery``.

    The API keeps no sessions, so each message is first made a standalone question from the
    earlier turns: by default the earlier user questions (the most recent ``max_questions``
    that fit the 500-character query limit) are joined with it
    (``grounding_core.condense_question``); with ``llm`` the model rewrites it with
    ``condense_question_prompt`` (``{chat_history}``, ``{question}``), as LlamaIndex's
    ``CondenseQuestionChatEngine`` does. ``reset()`` forgets the turns.

    Setup:
        As for ``DeveloperKnowledgeAnswerQueryEngine``: credentials with the cloud-platform
        scope (or an API key in ``client_options``), or the emulator (``emulator_host`` /
        ``DEVELOPERKNOWLEDGE_EMULATOR_HOST``).

    Key init args:
        filter: AIP-160 (at most 500 characters), narrows the documents the answers may use.
        llm, condense_question_prompt, max_questions: how a follow-up is condensed.
        emulator_host, credentials, client_options, timeout, retry: the connection.

    Instantiate:
        .. code-block:: python

            from llamaindex_grounding import DeveloperKnowledgeChatEngine

            chat_engine = DeveloperKnowledgeChatEngine()  # or llm=your_llm

    Usage:
        .. code-block:: python

            chat_engine.chat("How do I create a Cloud Storage bucket?")
            follow_up = chat_engine.chat("And what about its rate limits?")
            follow_up.sources[0].raw_input["query"]  # the standalone question asked

    ``chat_history`` given to ``chat`` replaces the engine's own for that message.
    """

    tool_name = "developer_knowledge_answer_query"

    @refuse_unknown_arguments
    def __init__(
        self,
        *,
        filter: str = "",
        llm: LLM | None = None,
        condense_question_prompt: BasePromptTemplate | None = None,
        max_questions: int = DEFAULT_CONDENSE_QUESTIONS,
        callback_manager: CallbackManager | None = None,
        **connection: Unpack[DeveloperKnowledgeConnectionArgs],
    ) -> None:
        self._answering = DeveloperKnowledgeAnswerQuery(
            DeveloperKnowledgeConnection(**connection), filter=filter
        )
        self._llm = llm
        self._prompt = condense_question_prompt or DEFAULT_CONDENSE_PROMPT
        self._max_questions = check_count("max_questions", max_questions, minimum=0)
        super().__init__(callback_manager)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(filter={self._answering.filter!r}, "
            f"endpoint={self._answering.connection.endpoint!r})"
        )

    @property
    def answering(self) -> DeveloperKnowledgeAnswerQuery:
        """The core answerQuery component this chat engine wraps."""
        return self._answering

    def _baseline(self, message: str, history: list[ChatMessage]) -> str:
        questions = [m.content or "" for m in history if m.role == MessageRole.USER]
        return condense_question(questions, message, max_questions=self._max_questions)

    def _prompt_history(self, history: list[ChatMessage]) -> str:
        return history_text((m.role.value, m.content or "") for m in history)

    def _answer(self, message: str, history: list[ChatMessage]) -> tuple[str, GroundedAnswer]:
        if not history:
            query = message
        elif self._llm is None:
            query = self._baseline(message, history)
        else:
            query = self._llm.predict(
                self._prompt, question=message, chat_history=self._prompt_history(history)
            ).strip()
        return query, self._answering.answer(query)

    async def _aanswer(
        self, message: str, history: list[ChatMessage]
    ) -> tuple[str, GroundedAnswer]:
        if not history:
            query = message
        elif self._llm is None:
            query = self._baseline(message, history)
        else:
            predicted = await self._llm.apredict(
                self._prompt, question=message, chat_history=self._prompt_history(history)
            )
            query = predicted.strip()
        return query, await self._answering.aanswer(query)
