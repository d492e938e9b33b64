"""``DeveloperKnowledgeSearchTool``: a search of Google's developer documentation as an agent
tool."""

from __future__ import annotations

from grounding_core import ConfigurationError
from grounding_core.agents import (
    DEFAULT_TOOL_MAX_K,
    DEVELOPER_KNOWLEDGE_FILTER_HELP,
    DEVELOPER_KNOWLEDGE_SEARCH_TOOL_NAME,
    DEVELOPER_KNOWLEDGE_TOOL_DESCRIPTION,
)
from grounding_core.peers import refuse_unknown_arguments

from ._tools import ChunkSearchTool
from .developer_knowledge_retriever import DeveloperKnowledgeRetriever

__all__ = ["DeveloperKnowledgeSearchTool"]


class DeveloperKnowledgeSearchTool(ChunkSearchTool):
    """Searches Google's developer documentation (Developer Knowledge ``SearchDocumentChunks``)
    for an agent: the LLM reads numbered sources, the nodes are kept as ``raw_output``.

    Setup:
        As for ``DeveloperKnowledgeRetriever``: an API key or credentials, or the emulator
        (``emulator_host``).

    Key init args:
        retriever: a ``DeveloperKnowledgeRetriever`` (its ``similarity_top_k`` and ``filter``
            are the defaults of every call).
        allow_filter: give the schema a ``filter`` argument (AIP-160 on ``data_source``,
            ``uri``, ``update_time``, ``content_length_bytes``, as
            ``grounding_core.agents.DEVELOPER_KNOWLEDGE_FILTER_HELP`` describes it); default
            ``False``.
        allow_k, max_k: a ``k`` argument, 1..``max_k`` (default 20), as on
            ``DiscoveryEngineSearchTool``.
        name, description: what the LLM sees.

    Instantiate:
        .. code-block:: python

            from llamaindex_grounding import (
                DeveloperKnowledgeRetriever,
                DeveloperKnowledgeSearchTool,
            )

            tool = DeveloperKnowledgeSearchTool(retriever=DeveloperKnowledgeRetriever())

    Usage:
        .. code-block:: python

            output = await tool.acall(query="How do I create a Cloud Storage bucket?")
            output.raw_output[0].node.metadata["source"]  # https://docs.cloud.google.com/...

    Calls, per-call options and errors as on ``DiscoveryEngineSearchTool``.
    """

    @refuse_unknown_arguments
    def __init__(
        self,
        retriever: DeveloperKnowledgeRetriever,
        *,
        allow_filter: bool = False,
        allow_k: bool = False,
        max_k: int = DEFAULT_TOOL_MAX_K,
        name: str = DEVELOPER_KNOWLEDGE_SEARCH_TOOL_NAME,
        description: str = DEVELOPER_KNOWLEDGE_TOOL_DESCRIPTION,
    ) -> None:
        if not isinstance(allow_filter, bool):
            raise ConfigurationError(f"allow_filter must be True or False, got {allow_filter!r}")
        super().__init__(
            retriever,
            kind=DeveloperKnowledgeRetriever,
            name=name,
            description=description,
            filter_description=DEVELOPER_KNOWLEDGE_FILTER_HELP if allow_filter else None,
            allow_k=allow_k,
            max_k=max_k,
        )
