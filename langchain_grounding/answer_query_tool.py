"""``AnswerQueryTool``: Google's grounded answers (answerQuery) as a LangChain tool for agents."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
from langchain_core.documents import Document

from grounding_core.agents import (
    ANSWER_QUERY_DESCRIPTION,
    ANSWER_QUERY_TOOL_DESCRIPTION,
    ANSWER_QUERY_TOOL_NAME,
    answer_tool_text,
)

from ._tools import GroundingTool
from .answers import _Answering

__all__ = ["AnswerQueryTool"]


class AnswerQueryTool(GroundingTool):
    """A grounded answer for an agent: the model reads the answer with its ``[n]`` citation
    markers and numbered sources (``[n] title (url)``), the references are the tool message's
    ``artifact`` as ``Document``s, for the grounding check and the UI.

    Setup:
        As for the answer Runnable it asks: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``).

    Key init args:
        answerer: a ``DiscoveryEngineAnswer``, ``DeveloperKnowledgeAnswer`` or
            ``DiscoveryEngineSummary`` (its options are those of every call).
        name, description: what the model sees.

    Instantiate:
        .. code-block:: python

            from langchain_grounding import AnswerQueryTool, DiscoveryEngineAnswer

            tool = AnswerQueryTool(
                answerer=DiscoveryEngineAnswer(project_id="my-project", engine_id="docs-app")
            )

    Usage:
        .. code-block:: python

            message = tool.invoke(
                {"type": "tool_call", "id": "1", "name": tool.name,
                 "args": {"query": "What does the yield statement do?"}}
            )
            message.content   # "The yield statement ...[1]\\n\\nSources:\\n[1] title (url)"
            message.artifact  # the answer's references, as Documents

    The question goes through the answer Runnable (a child run: callbacks and traces see it;
    ``ainvoke`` is on Google's async client). A question the API refuses before sending
    (empty, too long) comes back to the model as an error tool message; configuration and
    service errors raise. A declined answer is text too ("No answer: " and the reasons).
    """

    name: str = ANSWER_QUERY_TOOL_NAME
    answerer: _Answering

    def _default_description(self) -> str:
        return ANSWER_QUERY_TOOL_DESCRIPTION

    def _schema_options(self) -> dict[str, Any]:
        return {"query_description": ANSWER_QUERY_DESCRIPTION}

    @staticmethod
    def _content(out: dict[str, Any]) -> tuple[str, list[Document]]:
        return answer_tool_text(out["grounded_answer"]), out["documents"]

    def _run(
        self, query: str, run_manager: CallbackManagerForToolRun | None = None
    ) -> tuple[str, list[Document]]:
        callbacks = run_manager.get_child() if run_manager else None
        with self._told_to_the_model():
            out = self.answerer.invoke(query, config={"callbacks": callbacks})
        return self._content(out)

    async def _arun(
        self, query: str, run_manager: AsyncCallbackManagerForToolRun | None = None
    ) -> tuple[str, list[Document]]:
        callbacks = run_manager.get_child() if run_manager else None
        with self._told_to_the_model():
            out = await self.answerer.ainvoke(query, config={"callbacks": callbacks})
        return self._content(out)
