"""``AnswerQueryTool``: Google's grounded answers (answerQuery) as an agent tool."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.response.schema import Response
from llama_index.core.schema import NodeWithScore
from llama_index.core.tools import ToolOutput

from grounding_core import ConfigurationError, GroundedAnswer
from grounding_core.agents import (
    ANSWER_QUERY_DESCRIPTION,
    ANSWER_QUERY_TOOL_DESCRIPTION,
    ANSWER_QUERY_TOOL_NAME,
    answer_tool_text,
)
from grounding_core.peers import refuse_unknown_arguments

from ._answering import AnswerQueryEngine
from ._tools import GroundingTool

__all__ = ["AnswerQueryTool"]


class AnswerQueryTool(GroundingTool):
    """A grounded-answer query engine as an agent tool: the LLM reads the answer with its
    ``[n]`` citation markers and numbered sources, instead of the bare answer text a
    ``QueryEngineTool`` would give it.

    Setup:
        As for the query engine it asks: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``).

    Key init args:
        query_engine: a ``DiscoveryEngineAnswerQueryEngine`` or
            ``DeveloperKnowledgeAnswerQueryEngine`` (a
            ``DiscoveryEngineSearchSummaryQueryEngine`` too).
        name, description: what the LLM sees.

    Instantiate:
        .. code-block:: python

            from llamaindex_grounding import AnswerQueryTool, DiscoveryEngineAnswerQueryEngine

            tool = AnswerQueryTool(
                query_engine=DiscoveryEngineAnswerQueryEngine(engine_id="python-docs-app")
            )

    Usage:
        .. code-block:: python

            output = tool.call(query="What does the yield statement do?")
            output.content     # "The yield statement ...[1]\\n\\nSources:\\n[1] title (url)"
            output.raw_output  # the answer's references, as NodeWithScore

    The question goes through the query engine's ``query`` / ``aquery`` (LlamaIndex's spans
    and query events fire; ``aquery`` is on Google's async client). ``raw_output`` is the
    answer's reference nodes (none when the service declined to answer: then the content
    says "No answer: " and its reasons). A question the API refuses before sending (empty,
    too long) returns an ``is_error`` output; configuration and service errors raise.
    """

    @refuse_unknown_arguments
    def __init__(
        self,
        query_engine: AnswerQueryEngine[Any],
        *,
        name: str = ANSWER_QUERY_TOOL_NAME,
        description: str = ANSWER_QUERY_TOOL_DESCRIPTION,
    ) -> None:
        if not isinstance(query_engine, AnswerQueryEngine):
            raise ConfigurationError(
                "query_engine must be one of our answer query engines "
                "(DiscoveryEngineAnswerQueryEngine, DeveloperKnowledgeAnswerQueryEngine), got "
                f"{type(query_engine).__name__}"
            )
        self._query_engine = query_engine
        self._describe(name, description, query_description=ANSWER_QUERY_DESCRIPTION)

    @property
    def query_engine(self) -> AnswerQueryEngine[Any]:
        """The answer query engine the tool asks."""
        return self._query_engine

    def _output(self, raw_input: dict[str, Any], response: Any) -> ToolOutput:
        # Our answer engines always give a Response holding the record under grounded_answer.
        assert isinstance(response, Response)
        answer: GroundedAnswer = response.metadata["grounded_answer"]  # type: ignore[index]
        nodes: list[NodeWithScore] = list(response.source_nodes)
        return ToolOutput(
            tool_name=self._metadata.get_name(),
            content=answer_tool_text(answer),
            raw_input=raw_input,
            raw_output=nodes,
        )

    def _run(self, raw_input: dict[str, Any], arguments: Any) -> ToolOutput:
        return self._output(raw_input, self._query_engine.query(arguments.query))

    async def _arun(self, raw_input: dict[str, Any], arguments: Any) -> ToolOutput:
        return self._output(raw_input, await self._query_engine.aquery(arguments.query))
