"""``DeveloperKnowledgeSearchTool``: a search of Google's developer documentation as an agent
tool."""

from __future__ import annotations

from grounding_core import DEFAULT_TOOL_MAX_K, ConfigurationError, refuse_unknown_arguments

from ._tools import ChunkSearchTool
from .developer_knowledge_retriever import DeveloperKnowledgeRetriever

__all__ = ["DEFAULT_NAME", "FILTER_HELP", "DeveloperKnowledgeSearchTool"]

DEFAULT_NAME = "developer_knowledge_search"

DEFAULT_DESCRIPTION = (
    "Search Google's developer documentation (Google Cloud, Android, Firebase, web.dev and "
    "more) for passages relevant to a query. Use it before answering questions about Google's "
    "developer products. Returns numbered sources, each with its title, URL and text: answer "
    "only from them and cite them as [n]."
)

FILTER_HELP = (
    "An AIP-160 filter expression to narrow the search; leave it empty to search everything. "
    "Fields: data_source and uri (text, in double quotes; = and !=, e.g. data_source = "
    '"firebase.google.com"), update_time (an RFC 3339 time in double quotes) and '
    "content_length_bytes (an integer), both with =, <, <=, >, >=; combine with AND, OR, NOT "
    "and parentheses."
)
"""The filter argument's description: Developer Knowledge filters are AIP-160 expressions on
``data_source``, ``uri``, ``update_time`` and ``content_length_bytes``."""


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
            ``uri``, ``update_time``, ``content_length_bytes``; ``FILTER_HELP`` describes it);
            default ``False``.
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
        name: str = DEFAULT_NAME,
        description: str = DEFAULT_DESCRIPTION,
    ) -> None:
        if not isinstance(allow_filter, bool):
            raise ConfigurationError(f"allow_filter must be True or False, got {allow_filter!r}")
        super().__init__(
            retriever,
            kind=DeveloperKnowledgeRetriever,
            name=name,
            description=description,
            filter_description=FILTER_HELP if allow_filter else None,
            allow_k=allow_k,
            max_k=max_k,
        )
