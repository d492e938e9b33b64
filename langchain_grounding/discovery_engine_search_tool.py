"""``DiscoveryEngineSearchTool``: a Vertex AI Search (Discovery Engine) chunk search as a
LangChain tool for agents (``create_agent``, ``bind_tools``)."""

from __future__ import annotations

from grounding_core.agents import (
    DISCOVERY_ENGINE_SEARCH_TOOL_NAME,
    SEARCH_FILTER_DESCRIPTION,
    check_filter_fields,
    discovery_engine_tool_description,
    filter_help,
)

from ._tools import ChunkSearchTool
from .discovery_engine_retriever import DiscoveryEngineRetriever

__all__ = ["DiscoveryEngineSearchTool"]


class DiscoveryEngineSearchTool(ChunkSearchTool):
    """Searches a Discovery Engine data store or engine for an agent: the model reads numbered
    sources (``[n] title (url)`` over each chunk's text), the ``Document``s are the tool
    message's ``artifact`` (``response_format="content_and_artifact"``), for the grounding
    check and the UI.

    Setup:
        As for ``DiscoveryEngineRetriever`` (the tool runs one): Google Cloud credentials, or
        the emulator (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``).

    Key init args:
        retriever: a ``DiscoveryEngineRetriever`` (its options, ``k`` and ``filter``
            included, are the defaults of every call).
        filter_fields: the filterable fields the agent may filter on, name -> what it holds
            (``{"year": "publication year"}``); the description lists them with Google's
            filter syntax and the schema gets a ``filter`` argument. ``None`` (default): none.
        allow_k: give the schema a ``k`` argument (1..``max_k``, default the retriever's
            ``k``); default ``False``.
        max_k: the most sources a call may ask for (default 20, at most 100).
        name, description: what the model sees (the default description names the data
            store).

    Instantiate:
        .. code-block:: python

            from langchain_grounding import DiscoveryEngineRetriever, DiscoveryEngineSearchTool

            retriever = DiscoveryEngineRetriever(project_id="my-project", data_store_id="docs")
            tool = DiscoveryEngineSearchTool(
                retriever=retriever, filter_fields={"lang": "the document's language"}
            )

    Usage:
        .. code-block:: python

            message = tool.invoke(
                {"type": "tool_call", "id": "1", "name": tool.name,
                 "args": {"query": "with statement"}}
            )
            message.content   # "[1] title (url)\\ntext\\n\\n[2] ..."
            message.artifact  # the Documents, as the retriever returns them

            agent = create_agent(model, tools=[tool])

    ``invoke`` runs on Google's sync client, ``ainvoke`` on its async client; the search is
    the tool run's child retriever run. The model's ``k`` and ``filter`` apply to its call
    only, and its filter narrows the retriever's own (``(own) AND (model's)``). What the model
    can fix (arguments outside the schema, a query the API refuses, a filter the service
    rejects) comes back to it as an error tool message; configuration and service errors raise.
    """

    name: str = DISCOVERY_ENGINE_SEARCH_TOOL_NAME
    retriever: DiscoveryEngineRetriever
    filter_fields: dict[str, str] | None = None

    def _default_description(self) -> str:
        description = discovery_engine_tool_description(self.retriever.target)
        fields = check_filter_fields(self.filter_fields)
        return description if fields is None else f"{description} {filter_help(fields)}"

    def _filter_description(self) -> str | None:
        fields = check_filter_fields(self.filter_fields)
        return None if fields is None else SEARCH_FILTER_DESCRIPTION
