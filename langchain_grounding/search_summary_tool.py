"""``DiscoveryEngineSummaryTool``: a search summary as a LangChain tool, langchain-google-
community's ``VertexAISearchSummaryTool`` in our names."""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document
from pydantic import model_validator

from grounding_core.agents import cited_text
from grounding_core.peers import (
    PEER_SUMMARY_ARGUMENTS,
    PEER_SUMMARY_RESULT_COUNT,
    PEER_SUMMARY_TOOL_SEARCH,
)
from grounding_core.search.specs import SearchOptions

from ._arguments import known_arguments
from .answer_query_tool import AnswerQueryTool
from .search_summary import DiscoveryEngineSummary

__all__ = ["DiscoveryEngineSummaryTool"]


class DiscoveryEngineSummaryTool(AnswerQueryTool):
    """The summary of a Discovery Engine search as a tool, built as
    langchain-google-community's ``VertexAISearchSummaryTool`` is: its ``name`` and
    ``description``, ``DiscoveryEngineSummary``'s arguments (the peer's names too:
    ``summary_prompt``, ``summary_result_count``, ...) and the search's options (a
    ``ChunkSearchSpec`` field, ``filter=...``, as the peer's retriever options), from which it
    builds its ``answerer`` (or give ``answerer=`` a ``DiscoveryEngineSummary`` of yours).

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

    The model (and ``run``) reads the summary text with ``[n]`` after each cited segment (``n``
    numbers the cited results from 1), as the peer's tool returns Google's ``summary_text``;
    the cited search results are the tool message's ``artifact``, as ``Document``s. Its
    defaults are the peer's search: documents mode, one extractive segment with its
    neighbours, 3 results summarized. Everything else is ``AnswerQueryTool``'s: a child run of
    the summary, real async, a query the API refuses before sending comes back to the model as
    an error.
    """

    name: str = "discovery_engine_summary"

    @model_validator(mode="before")
    @classmethod
    def _summary_of_the_arguments(cls, data: Any) -> Any:
        # The peer's tool takes its search's arguments flat: ours build the answerer, with the
        # peer's search and result count for what is not given.
        if not isinstance(data, dict) or "answerer" in data:
            return data
        own, options = known_arguments(cls), SearchOptions.__optional_keys__
        summary = {k: v for k, v in data.items() if k not in own and k not in options}
        search = {**PEER_SUMMARY_TOOL_SEARCH, **{k: v for k, v in data.items() if k in options}}
        peers = PEER_SUMMARY_ARGUMENTS.names & summary.keys()  # they bring the peer's count
        count = {} if peers else {"result_count": PEER_SUMMARY_RESULT_COUNT}
        summary = {**count, "search": search} | summary
        return {k: v for k, v in data.items() if k in own} | {
            "answerer": DiscoveryEngineSummary(**summary)
        }

    @staticmethod
    def _content(out: dict[str, Any]) -> tuple[str, list[Document]]:
        return cited_text(out["grounded_answer"]), out["documents"]
