"""What the LlamaIndex agent tools share: the arguments schema the agent's LLM fills, the call
conventions of LlamaIndex's tools, and the line between the model's errors and the developer's.

A tool is an ``AsyncBaseTool`` (``FunctionAgent``, ``ReActAgent`` and ``AgentWorkflow`` call
``acall(**arguments)``; ``call_tool`` calls ``tool(query)`` when the schema has one argument):
``call`` on Google's sync client, ``acall`` on its async client. The ``ToolOutput``'s ``content``
is the text the LLM reads (numbered sources with their URLs, or a cited answer), its
``raw_output`` the nodes, for the grounding check and the UI.

Errors: what the model can fix (arguments outside the schema, a query the API refuses before
sending, a filter the service rejects) comes back as a ``ToolOutput`` with ``is_error=True`` and
the message, as LlamaIndex's own tools report errors, so the model can call again; what only the
developer can fix (configuration, permissions, an unreachable service) raises.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import MetadataMode, NodeWithScore
from llama_index.core.tools import ToolMetadata, ToolOutput
from llama_index.core.tools.types import AsyncBaseTool
from pydantic import BaseModel, ValidationError

from grounding_core import ConfigurationError, InputError, InvalidRequestError
from grounding_core.agents import (
    check_tool_text,
    is_model_error,
    narrowed_filter,
    numbered_sources,
    tool_arguments_model,
    tool_k_range,
    tool_validation_message,
)

from ._retrieving import ChunkRetriever

__all__ = ["ChunkSearchTool", "GroundingTool", "node_sources_text"]

logger = logging.getLogger(__name__)


def node_sources_text(nodes: Sequence[NodeWithScore]) -> str:
    """The nodes as the LLM reads them: numbered, each with its title and URL over its text
    (``grounding_core.agents.numbered_sources``)."""
    return numbered_sources(
        [
            (node.node.get_content(metadata_mode=MetadataMode.NONE), node.node.metadata)
            for node in nodes
        ]
    )


class GroundingTool(AsyncBaseTool):
    """A tool whose arguments are validated against its schema before ``_run``/``_arun``, and
    whose model-facing errors come back as ``is_error`` outputs."""

    _metadata: ToolMetadata
    _schema: dict[str, Any]

    def _describe(self, name: str, description: str, **schema: Any) -> None:
        """Set the name, description and the arguments schema (``tool_arguments_model``'s
        options ``schema``) the LLM sees; the texts are checked."""
        name = check_tool_text("name", name)
        self._schema = schema
        self._metadata = ToolMetadata(
            name=name,
            description=check_tool_text("description", description),
            fn_schema=tool_arguments_model(name, **schema),
        )

    def __getstate__(self) -> dict[str, Any]:
        # The arguments schema is a class built for this tool (it cannot be pickled by name):
        # a copy builds its own from the same options.
        return {**self.__dict__, "_metadata": dataclasses.replace(self._metadata, fn_schema=None)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._metadata.fn_schema = tool_arguments_model(self._metadata.name, **self._schema)

    @property
    def metadata(self) -> ToolMetadata:
        """The name, description and arguments schema the agent's LLM sees."""
        return self._metadata

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self._metadata.name!r})"

    def _parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The raw input: ``tool("query")`` (how ``call_tool`` calls a one-argument tool),
        ``tool({"query": ...})`` or ``tool(query=..., ...)``."""
        if len(args) > 1 or (args and kwargs):
            raise TypeError(
                f"{self._metadata.name} takes its arguments by name (query=..., ...) or one "
                f"query string, got {len(args)} positional and {len(kwargs)} named arguments"
            )
        if not args:
            return dict(kwargs)
        (value,) = args
        return dict(value) if isinstance(value, Mapping) else {"query": value}

    def _arguments(self, raw_input: dict[str, Any]) -> BaseModel | ToolOutput:
        """The validated arguments, or the error output the model reads when they break the
        schema."""
        schema = self._metadata.fn_schema
        assert schema is not None  # every tool here builds one
        try:
            return schema.model_validate(raw_input)
        except ValidationError as exc:
            message = tool_validation_message(self._metadata.get_name(), exc)
            return self._error(raw_input, exc, message)

    def _error(self, raw_input: dict[str, Any], exc: Exception, message: str) -> ToolOutput:
        logger.info("%s: the model's call failed: %s", self._metadata.name, message)
        return ToolOutput(
            tool_name=self._metadata.get_name(),
            content=message,
            raw_input=raw_input,
            raw_output=message,
            is_error=True,
            exception=exc,
        )

    def _model_error(
        self, raw_input: dict[str, Any], arguments: BaseModel, exc: Exception
    ) -> ToolOutput:
        """The output of a model-facing error, or ``exc`` raised again when it is the
        developer's (``grounding_core.agents.is_model_error``)."""
        if not is_model_error(exc, getattr(arguments, "filter", "")):
            raise exc
        return self._error(raw_input, exc, f"{self._metadata.name} failed: {exc}")

    def call(self, *args: Any, **kwargs: Any) -> ToolOutput:
        """Run the tool on Google's sync client: ``call(query)`` or ``call(query=..., ...)``."""
        raw_input = self._parse(args, kwargs)
        arguments = self._arguments(raw_input)
        if isinstance(arguments, ToolOutput):
            return arguments
        try:
            return self._run(raw_input, arguments)
        except (InputError, InvalidRequestError) as exc:
            return self._model_error(raw_input, arguments, exc)

    async def acall(self, *args: Any, **kwargs: Any) -> ToolOutput:
        """Async ``call`` on Google's async client (what the agent workflows call)."""
        raw_input = self._parse(args, kwargs)
        arguments = self._arguments(raw_input)
        if isinstance(arguments, ToolOutput):
            return arguments
        try:
            return await self._arun(raw_input, arguments)
        except (InputError, InvalidRequestError) as exc:
            return self._model_error(raw_input, arguments, exc)

    @abstractmethod
    def _run(self, raw_input: dict[str, Any], arguments: Any) -> ToolOutput:
        """The tool's work for valid ``arguments``, on the sync client."""

    @abstractmethod
    async def _arun(self, raw_input: dict[str, Any], arguments: Any) -> ToolOutput:
        """The tool's work for valid ``arguments``, on the async client."""


class ChunkSearchTool(GroundingTool):
    """A search tool over one of our retrievers: the nodes it finds are the output's
    ``raw_output``, numbered with their titles and URLs in its ``content``.

    A model's ``k`` and ``filter`` apply to this call alone: the search runs on a copy of the
    retriever with those options (the shared retriever is never changed, so concurrent calls
    do not mix), and the model's filter narrows the retriever's own (``(own) AND (model's)``),
    never widens it.
    """

    _retriever: ChunkRetriever[Any]

    def __init__(
        self,
        retriever: ChunkRetriever[Any],
        *,
        kind: type[ChunkRetriever[Any]],
        name: str,
        description: str,
        filter_description: str | None,
        allow_k: bool,
        max_k: int,
    ) -> None:
        if not isinstance(retriever, kind):
            raise ConfigurationError(
                f"retriever must be a {kind.__name__}, got {type(retriever).__name__}"
            )
        k_range = tool_k_range(allow_k, max_k, retriever.similarity_top_k)
        self._retriever = retriever
        self._allow_k = allow_k
        self._max_k = max_k
        self._describe(name, description, filter_description=filter_description, k=k_range)

    @property
    def retriever(self) -> BaseRetriever:
        """The retriever the tool searches with."""
        return self._retriever

    @property
    def allow_k(self) -> bool:
        """Whether the agent may choose how many sources a call returns."""
        return self._allow_k

    @property
    def max_k(self) -> int:
        """The most sources an agent may ask for (with ``allow_k``)."""
        return self._max_k

    def _for_call(self, arguments: Any) -> ChunkRetriever[Any]:
        """The retriever with this call's ``k`` and ``filter``: the shared one when the model
        gave neither, else a copy (the options are validated as the retriever's are)."""
        changes: dict[str, Any] = {}
        if "k" in arguments.model_fields_set:
            changes["k"] = arguments.k
        narrowing = getattr(arguments, "filter", "").strip()
        if narrowing:
            changes["filter"] = narrowed_filter(self._retriever.search.spec.filter, narrowing)
        if not changes:
            return self._retriever
        retriever = copy.copy(self._retriever)
        # The copy's search is a new frozen record: the shared retriever keeps its own.
        retriever._search = self._retriever.search.replace(**changes)
        return retriever

    def _output(self, raw_input: dict[str, Any], nodes: list[NodeWithScore]) -> ToolOutput:
        return ToolOutput(
            tool_name=self._metadata.get_name(),
            content=node_sources_text(nodes),
            raw_input=raw_input,
            raw_output=nodes,
        )

    def _run(self, raw_input: dict[str, Any], arguments: Any) -> ToolOutput:
        return self._output(raw_input, self._for_call(arguments).retrieve(arguments.query))

    async def _arun(self, raw_input: dict[str, Any], arguments: Any) -> ToolOutput:
        nodes = await self._for_call(arguments).aretrieve(arguments.query)
        return self._output(raw_input, nodes)
