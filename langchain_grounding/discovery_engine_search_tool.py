"""``DiscoveryEngineSearchTool``: a Vertex AI Search (Discovery Engine) chunk search as a
LangChain tool for agents (``create_agent``, ``bind_tools``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForToolRun,
    CallbackManagerForToolRun,
)
from langchain_core.documents import Document
from langchain_core.tools import BaseTool, ToolException
from pydantic import Field, ValidationError, model_validator

from grounding_core import (
    DEFAULT_TOOL_MAX_K,
    DISCOVERY_ENGINE_SEARCH_TOOL_NAME,
    SEARCH_FILTER_DESCRIPTION,
    InputError,
    InvalidRequestError,
    check_filter_fields,
    check_tool_text,
    discovery_engine_tool_description,
    filter_help,
    is_model_error,
    narrowed_filter,
    numbered_sources,
    tool_arguments_model,
    tool_k_range,
    tool_validation_message,
)

from ._arguments import StrictArguments
from .discovery_engine_retriever import DiscoveryEngineRetriever

__all__ = ["DiscoveryEngineSearchTool"]


class DiscoveryEngineSearchTool(BaseTool, StrictArguments):
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
    description: str = ""
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: bool = True
    retriever: DiscoveryEngineRetriever
    filter_fields: dict[str, str] | None = None
    allow_k: bool = False
    max_k: int = Field(default=DEFAULT_TOOL_MAX_K)

    @model_validator(mode="after")
    def _build_schema(self) -> DiscoveryEngineSearchTool:
        k_range = tool_k_range(self.allow_k, self.max_k, self.retriever.k)
        fields = check_filter_fields(self.filter_fields)
        check_tool_text("name", self.name)
        if not self.description:
            self.description = discovery_engine_tool_description(self.retriever.target)
            if fields is not None:
                self.description = f"{self.description} {filter_help(fields)}"
        check_tool_text("description", self.description)
        self.args_schema = tool_arguments_model(
            self.name,
            filter_description=None if fields is None else SEARCH_FILTER_DESCRIPTION,
            k=k_range,
        )
        self.handle_validation_error = self._validation_message
        return self

    def _validation_message(self, error: ValidationError) -> str:
        return tool_validation_message(self.name, error)

    def _options(self, filter: str, k: int | None) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if k is not None:
            options["k"] = k
        if filter.strip():
            options["filter"] = narrowed_filter(self.retriever.filter, filter)
        return options

    @contextmanager
    def _told_to_the_model(self, model_filter: str) -> Iterator[None]:
        """Errors the model can fix become a ``ToolException`` (the agent gets the message as
        an error tool message, ``handle_tool_error``); the developer's are raised as they are."""
        try:
            yield
        except (InputError, InvalidRequestError) as exc:
            if is_model_error(exc, model_filter):
                raise ToolException(f"{self.name} failed: {exc}") from exc
            raise

    def _content(self, documents: list[Document]) -> tuple[str, list[Document]]:
        return numbered_sources([(d.page_content, d.metadata) for d in documents]), documents

    def _run(
        self,
        query: str,
        filter: str = "",
        k: int | None = None,
        run_manager: CallbackManagerForToolRun | None = None,
    ) -> tuple[str, list[Document]]:
        callbacks = run_manager.get_child() if run_manager else None
        with self._told_to_the_model(filter):
            documents = self.retriever.invoke(
                query, config={"callbacks": callbacks}, **self._options(filter, k)
            )
        return self._content(documents)

    async def _arun(
        self,
        query: str,
        filter: str = "",
        k: int | None = None,
        run_manager: AsyncCallbackManagerForToolRun | None = None,
    ) -> tuple[str, list[Document]]:
        callbacks = run_manager.get_child() if run_manager else None
        with self._told_to_the_model(filter):
            documents = await self.retriever.ainvoke(
                query, config={"callbacks": callbacks}, **self._options(filter, k)
            )
        return self._content(documents)
