"""``DeveloperKnowledgeSearchTool``: a search of Google's developer documentation as a
LangChain tool for agents."""

from __future__ import annotations

from grounding_core.agents import (
    DEVELOPER_KNOWLEDGE_FILTER_HELP,
    DEVELOPER_KNOWLEDGE_SEARCH_TOOL_NAME,
    DEVELOPER_KNOWLEDGE_TOOL_DESCRIPTION,
)

from ._tools import ChunkSearchTool
from .developer_knowledge_retriever import DeveloperKnowledgeRetriever

__all__ = ["DeveloperKnowledgeSearchTool"]


class DeveloperKnowledgeSearchTool(ChunkSearchTool):
    """Searches Google's developer documentation (Developer Knowledge ``SearchDocumentChunks``)
    for an agent: the model reads numbered sources, the ``Document``s are the tool message's
    ``artifact``.

    Setup:
        As for ``DeveloperKnowledgeRetriever``: an API key or credentials, or the emulator
        (``emulator_host`` / ``DEVELOPERKNOWLEDGE_EMULATOR_HOST``).

    Key init args:
        retriever: a ``DeveloperKnowledgeRetriever`` (its ``k`` and ``filter`` are the
            defaults of every call).
        allow_filter: give the schema a ``filter`` argument (AIP-160 on ``data_source``,
            ``uri``, ``update_time``, ``content_length_bytes``, as
            ``grounding_core.agents.DEVELOPER_KNOWLEDGE_FILTER_HELP`` describes it); default
            ``False``.
        allow_k, max_k: a ``k`` argument, 1..``max_k`` (default 20), as on
            ``DiscoveryEngineSearchTool``.
        name, description: what the model sees.

    Instantiate:
        .. code-block:: python

            from langchain_grounding import (
                DeveloperKnowledgeRetriever,
                DeveloperKnowledgeSearchTool,
            )

            tool = DeveloperKnowledgeSearchTool(retriever=DeveloperKnowledgeRetriever())

    Usage:
        .. code-block:: python

            agent = create_agent(model, tools=[tool])

    Calls, per-call options and errors as on ``DiscoveryEngineSearchTool``.
    """

    name: str = DEVELOPER_KNOWLEDGE_SEARCH_TOOL_NAME
    retriever: DeveloperKnowledgeRetriever
    allow_filter: bool = False

    def _default_description(self) -> str:
        return DEVELOPER_KNOWLEDGE_TOOL_DESCRIPTION

    def _filter_description(self) -> str | None:
        return DEVELOPER_KNOWLEDGE_FILTER_HELP if self.allow_filter else None
