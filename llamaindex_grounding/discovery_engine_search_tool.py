"""``DiscoveryEngineSearchTool``: a Vertex AI Search (Discovery Engine) search as an agent tool."""

from __future__ import annotations

from collections.abc import Mapping

from grounding_core.agents import (
    DEFAULT_TOOL_MAX_K,
    DISCOVERY_ENGINE_SEARCH_TOOL_NAME,
    SEARCH_FILTER_DESCRIPTION,
    check_filter_fields,
    discovery_engine_tool_description,
    filter_help,
)
from grounding_core.peers import refuse_unknown_arguments

from ._tools import ChunkSearchTool
from .discovery_engine_retriever import DiscoveryEngineRetriever

__all__ = ["DiscoveryEngineSearchTool"]


class DiscoveryEngineSearchTool(ChunkSearchTool):
    """Searches a Discovery Engine data store or engine for an agent (``FunctionAgent``,
    ``ReActAgent``, ``AgentWorkflow``): the LLM reads numbered sources, the nodes are kept.

    Setup:
        As for ``DiscoveryEngineRetriever`` (the tool runs one): Google Cloud credentials, or
        the emulator (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``).

    Key init args:
        retriever: a ``DiscoveryEngineRetriever`` (its options, ``similarity_top_k`` and
            ``filter`` included, are the defaults of every call).
        filter_fields: the filterable fields the agent may filter on, name -> what it holds
            (``{"year": "publication year"}``); the tool description lists them with Google's
            filter syntax and the schema gets a ``filter`` argument. ``None`` (default): no
            filter argument.
        allow_k: give the schema a ``k`` argument (1..``max_k``, default the retriever's
            ``similarity_top_k``); default ``False``.
        max_k: the most sources a call may ask for (default 20, at most 100).
        name, description: what the LLM sees (defaults name the searched data store).

    Instantiate:
        .. code-block:: python

            from llamaindex_grounding import DiscoveryEngineRetriever, DiscoveryEngineSearchTool

            retriever = DiscoveryEngineRetriever(project_id="my-project", data_store_id="docs")
            tool = DiscoveryEngineSearchTool(
                retriever=retriever, filter_fields={"lang": "the document's language"}
            )

    Usage:
        .. code-block:: python

            from llama_index.core.agent.workflow import FunctionAgent

            output = tool.call(query="with statement", filter='lang: ANY("en")')
            output.content     # "[1] title (url)\\ntext\\n\\n[2] ..."
            output.raw_output  # the NodeWithScore list, as the retriever returns it
            agent = FunctionAgent(tools=[tool], llm=llm)

    ``call`` runs on Google's sync client, ``acall`` (what agents call) on its async client.
    The model's ``k`` and ``filter`` apply to its call only (a copy of the retriever runs it;
    the shared one never changes) and its filter narrows the retriever's own filter
    (``(own) AND (model's)``). A call the model can fix (arguments outside the schema, a
    query beyond the API's limits, a filter the service rejects) returns a ``ToolOutput``
    with ``is_error=True`` and the message; configuration and service errors raise.
    """

    @refuse_unknown_arguments
    def __init__(
        self,
        retriever: DiscoveryEngineRetriever,
        *,
        filter_fields: Mapping[str, str] | None = None,
        allow_k: bool = False,
        max_k: int = DEFAULT_TOOL_MAX_K,
        name: str = DISCOVERY_ENGINE_SEARCH_TOOL_NAME,
        description: str | None = None,
    ) -> None:
        fields = check_filter_fields(filter_fields)
        if description is None and isinstance(retriever, DiscoveryEngineRetriever):
            description = discovery_engine_tool_description(retriever.target)
        if fields is not None and isinstance(description, str):
            description = f"{description} {filter_help(fields)}"
        super().__init__(
            retriever,
            kind=DiscoveryEngineRetriever,
            name=name,
            description=description,
            filter_description=None if fields is None else SEARCH_FILTER_DESCRIPTION,
            allow_k=allow_k,
            max_k=max_k,
        )
        self._filter_fields = fields

    @property
    def filter_fields(self) -> dict[str, str] | None:
        """The fields the agent may filter on (``None``: no filter argument)."""
        return None if self._filter_fields is None else dict(self._filter_fields)
