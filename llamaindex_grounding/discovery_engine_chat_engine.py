"""``DiscoveryEngineChatEngine``: a conversation over Discovery Engine's ``answerQuery``
sessions, as a LlamaIndex chat engine."""

from __future__ import annotations

import logging

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.callbacks import CallbackManager
from typing_extensions import Unpack

from grounding_core import (
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineTarget,
    GroundedAnswer,
    InputError,
)
from grounding_core.answers.answer_query import DiscoveryEngineAnswerQueryArgs
from grounding_core.peers import refuse_unknown_arguments

from ._chatting import AnswerChatEngine
from ._core import connected

__all__ = ["DiscoveryEngineChatEngine"]

logger = logging.getLogger(__name__)

NEW_SESSION = "-"


class DiscoveryEngineChatEngine(AnswerChatEngine):
    """A multi-turn conversation with Discovery Engine's ``answerQuery``: the first message
    starts a session (``session="-"``), every later one is asked in it, so the service reads
    the follow-up with the earlier turns; ``reset()`` starts a new session.

    Setup:
        As for ``DiscoveryEngineAnswerQueryEngine``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``).

    Key init args:
        Those of ``DiscoveryEngineAnswerQueryEngine`` (the target, every
        ``grounding_core.AnswerSpec`` field, the connection); ``session`` continues an
        existing session instead of starting one.

    Instantiate:
        .. code-block:: python

            from llamaindex_grounding import DiscoveryEngineChatEngine

            chat_engine = DiscoveryEngineChatEngine(project_id="my-project", engine_id="docs-app")

    Usage:
        .. code-block:: python

            first = chat_engine.chat("What does the with statement do?")
            follow_up = chat_engine.chat("And how does it handle exceptions?")
            follow_up.response, follow_up.source_nodes[0].node.metadata["source"]
            follow_up.metadata["session"] == chat_engine.session
            chat_engine.reset()  # the next message starts a new session

    ``response``, ``source_nodes`` and ``metadata`` as ``AnswerChatEngine`` describes them;
    ``achat`` runs on Google's async client; ``stream_chat``/``astream_chat`` give the answer
    as one chunk. The session keeps the conversation, so ``chat_history`` cannot be handed in.
    """

    @refuse_unknown_arguments
    def __init__(
        self,
        *,
        callback_manager: CallbackManager | None = None,
        **arguments: Unpack[DiscoveryEngineAnswerQueryArgs],
    ) -> None:
        self._answering = connected(DiscoveryEngineAnswerQuery, arguments)
        self._session: str | None = self._answering.spec.session
        super().__init__(callback_manager)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(serving_config={self.target.serving_config_path!r}, "
            f"session={self._session!r})"
        )

    @property
    def answering(self) -> DiscoveryEngineAnswerQuery:
        """The core answerQuery component this chat engine wraps."""
        return self._answering

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The engine or data store asked."""
        return self._answering.target

    @property
    def session(self) -> str | None:
        """The session's resource name (``None`` until the first answer names it)."""
        return self._session

    def reset(self) -> None:
        """Forget the conversation: the next message starts a new session."""
        super().reset()
        self._session = None

    def _check(self, history: list[ChatMessage]) -> str:
        if history is not self._history and history != self._history:
            raise InputError(
                "DiscoveryEngineChatEngine keeps the conversation in its answerQuery session: "
                "chat_history cannot be given (call reset() to start a new conversation)",
                field="chat_history",
            )
        return self._session if self._session is not None else NEW_SESSION

    def _keep(self, answer: GroundedAnswer) -> GroundedAnswer:
        if answer.session:
            self._session = answer.session
        else:
            logger.warning("the answer names no session: the next message starts a new one")
        return answer

    def _answer(self, message: str, history: list[ChatMessage]) -> tuple[str, GroundedAnswer]:
        answer = self._answering.answer(message, session=self._check(history))
        return message, self._keep(answer)

    async def _aanswer(
        self, message: str, history: list[ChatMessage]
    ) -> tuple[str, GroundedAnswer]:
        answer = await self._answering.aanswer(message, session=self._check(history))
        return message, self._keep(answer)
