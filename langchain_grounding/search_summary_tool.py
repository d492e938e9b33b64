"""``DiscoveryEngineSummaryTool``: a search summary as a LangChain tool, langchain-google-
community's ``VertexAISearchSummaryTool`` in our names."""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document
from pydantic import model_validator

from ._arguments import known_arguments
from .answer_query_tool import AnswerQueryTool
from .search_summary import DiscoveryEngineSummary

__all__ = ["DiscoveryEngineSummaryTool"]


class DiscoveryEngineSummaryTool(AnswerQueryTool):
    """The summary of a Discovery Engine search as a tool, built as
    langchain-google-community's ``VertexAISearchSummaryTool`` is: its ``name`` and
    ``description``, and ``DiscoveryEngineSummary``'s arguments (the peer's names too:
    ``summary_prompt``, ``summary_result_count``, ...), from which it builds its ``answerer``
    (or give ``answerer=`` a ``DiscoveryEngineSummary`` of yours).

    Instantiate:
        .. code-block:: python

            from langchain_grounding import DiscoveryEngineSummaryTool

            tool = DiscoveryEngineSummaryTool(
                name="vertex-search",
                description="Searches the Python documentation",
                project_id="my-project",
                data_store_id="python-docs",
            )

    Usage:
        .. code-block:: python

            tool.run("How do I open a file?")   # the summary text, as the peer's

    The model (and ``run``) reads the summary text with Google's ``[n]`` markers, as the
    peer's tool returns it; the cited search results are the tool message's ``artifact``, as
    ``Document``s. Everything else is ``AnswerQueryTool``'s: a child run of the summary, real
    async, a query the API refuses before sending comes back to the model as an error.
    """

    name: str = "discovery_engine_summary"

    @model_validator(mode="before")
    @classmethod
    def _summary_of_the_arguments(cls, data: Any) -> Any:
        # The peer's tool takes its search's arguments flat: ours build the answerer.
        if not isinstance(data, dict) or "answerer" in data:
            return data
        own = known_arguments(cls)
        summary = {k: v for k, v in data.items() if k not in own}
        return {k: v for k, v in data.items() if k in own} | {
            "answerer": DiscoveryEngineSummary(**summary)
        }

    @staticmethod
    def _content(out: dict[str, Any]) -> tuple[str, list[Document]]:
        return out["answer"], out["documents"]
