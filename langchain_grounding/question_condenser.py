"""``QuestionCondenser``: a follow-up question and the earlier turns as one standalone question,
for the Developer Knowledge API, which has no sessions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.messages import BaseMessage, convert_to_messages
from langchain_core.prompts import BasePromptTemplate, ChatPromptTemplate
from langchain_core.runnables import Runnable, RunnableConfig, RunnableSerializable
from pydantic import ConfigDict, Field

from grounding_core import InputError
from grounding_core.answers.follow_ups import (
    CONDENSE_QUESTION_TEMPLATE,
    DEFAULT_CONDENSE_QUESTIONS,
    condense_question,
    history_text,
)

from ._arguments import StrictArguments
from ._serialization import Serialized

__all__ = ["HISTORY_KEY", "QUERY_KEYS", "QuestionCondenser", "query_of"]

QUERY_KEYS = ("query", "question", "input")
# Where the earlier turns are, as in LangChain's history-aware chains (and what
# ``RunnableWithMessageHistory(..., history_messages_key="chat_history")`` fills).
HISTORY_KEY = "chat_history"


def query_of(input: Any) -> str:
    """The query of a Runnable's input: a str, or a dict's ``query``/``question``/``input``."""
    if isinstance(input, str):
        return input
    if isinstance(input, Mapping):
        for key in QUERY_KEYS:
            if isinstance(input.get(key), str):
                return str(input[key])
    raise InputError(
        f"expected the query as a str or under 'query'/'question'/'input', got {input!r:.80}",
        field="query",
    )


def _history(input: Any) -> list[BaseMessage]:
    history = input.get(HISTORY_KEY) if isinstance(input, Mapping) else None
    if not history:
        return []
    if isinstance(history, str) or not isinstance(history, Sequence):
        raise InputError(
            f"{HISTORY_KEY} must be a list of messages (or of (role, text) pairs), got "
            f"{type(history).__name__}",
            field=HISTORY_KEY,
        )
    try:
        return list(convert_to_messages(history))
    except (ValueError, TypeError, NotImplementedError) as exc:
        raise InputError(
            f"{HISTORY_KEY} holds something that is not a message ({exc})", field=HISTORY_KEY
        ) from exc


def _text(output: Any) -> str:
    return (output.text if isinstance(output, BaseMessage) else str(output)).strip()


class QuestionCondenser(
    Serialized, RunnableSerializable[str | dict[str, Any], str], StrictArguments
):
    """A follow-up and the earlier turns (``chat_history``) as one standalone question.

    Without ``llm`` the follow-up is joined with the earlier user questions
    (``grounding_core.condense_question``: the most recent ``max_questions`` that fit the
    Developer Knowledge query limit of 500 characters); with ``llm`` (a chat model, an LLM or
    any Runnable) ``prompt`` (``{chat_history}``, ``{question}``) asks it for the question.
    With no history the follow-up is returned as it is.

    Usage:
        .. code-block:: python

            from langchain_grounding import DeveloperKnowledgeRetriever, QuestionCondenser

            retriever = QuestionCondenser() | DeveloperKnowledgeRetriever()
            retriever.invoke({
                "query": "And what about its rate limits?",
                "chat_history": [("human", "How do I create a Cloud Storage bucket?"),
                                 ("ai", "Use gcloud storage buckets create ...")],
            })

    Input: a dict with the follow-up under ``query``/``question``/``input`` and the earlier
    turns under ``chat_history`` (messages, or ``(role, text)`` pairs), or a plain str.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    llm: Runnable[Any, Any] | None = None
    prompt: BasePromptTemplate = Field(
        default_factory=lambda: ChatPromptTemplate.from_template(CONDENSE_QUESTION_TEMPLATE)
    )
    max_questions: int = Field(default=DEFAULT_CONDENSE_QUESTIONS, ge=0)

    def _plan(self, input: Any) -> tuple[str, dict[str, str] | None]:
        """The question when no model is needed, else the follow-up and the prompt's input."""
        follow_up, history = query_of(input), _history(input)
        if not history:
            return follow_up, None
        if self.llm is None:
            questions = [m.text for m in history if m.type == "human"]
            return condense_question(questions, follow_up, max_questions=self.max_questions), None
        turns = ((message.type, message.text) for message in history)
        return follow_up, {"chat_history": history_text(turns), "question": follow_up}

    def _chain(self) -> Runnable[Any, Any]:
        return self.prompt | self.llm  # _plan asks for a prompt only when there is an llm

    def _condense(
        self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> str:
        question, prompt_input = self._plan(input)
        if prompt_input is None:
            return question
        return _text(self._chain().invoke(prompt_input, {"callbacks": run_manager.get_child()}))

    async def _acondense(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> str:
        question, prompt_input = self._plan(input)
        if prompt_input is None:
            return question
        chain = self._chain()
        return _text(await chain.ainvoke(prompt_input, {"callbacks": run_manager.get_child()}))

    def invoke(
        self, input: str | dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> str:
        """The standalone question."""
        return self._call_with_config(self._condense, input, config, **kwargs)

    async def ainvoke(
        self, input: str | dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> str:
        """Async ``invoke`` (the LLM's async call)."""
        return await self._acall_with_config(self._acondense, input, config, **kwargs)
