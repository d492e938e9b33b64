"""What the LangChain agent tools share: the arguments schema the model fills, the tool message
(``content_and_artifact``: the text the model reads, the ``Document``s as the artifact), and the
line between the model's errors and the developer's.

What the model can fix (arguments outside the schema, a query the API refuses before sending, a
filter the service rejects) comes back to it as an error tool message (``handle_tool_error``,
``handle_validation_error``), so that it can call again; what only the developer can fix
(configuration, permissions, an unreachable service) raises.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
from langchain_core.documents import Document
from langchain_core.load.serializable import SerializedConstructor, SerializedNotImplemented
from langchain_core.tools import BaseTool, ToolException
from pydantic import Field, model_validator

from grounding_core import InputError, InvalidRequestError
from grounding_core.agents import (
    DEFAULT_TOOL_MAX_K,
    check_tool_text,
    is_model_error,
    narrowed_filter,
    numbered_sources,
    tool_arguments_model,
    tool_k_range,
    tool_validation_message,
)

from ._arguments import StrictArguments
from ._retrieving import ChunkRetriever
from ._serialization import Serialized

__all__ = ["ChunkSearchTool", "GroundingTool"]


class GroundingTool(Serialized, BaseTool, StrictArguments):
    """A tool whose arguments schema is built from its fields (``_schema_options``), whose
    model-facing errors come back as error tool messages, and whose copies rebuild the schema."""

    description: str = ""
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: bool = True

    def _default_description(self) -> str:
        """The description when none is given."""
        raise NotImplementedError

    def _schema_options(self) -> dict[str, Any]:
        """``tool_arguments_model``'s options for this tool (its fields are checked here)."""
        return {}

    @model_validator(mode="after")
    def _build_schema(self) -> GroundingTool:
        options = self._schema_options()
        check_tool_text("name", self.name)
        if not self.description:
            self.description = self._default_description()
        check_tool_text("description", self.description)
        self.args_schema = tool_arguments_model(self.name, **options)
        # A partial, not a bound method: the tool's repr shows this field, and a bound method's
        # repr shows the tool again.
        self.handle_validation_error = partial(tool_validation_message, self.name)
        return self

    def to_json(self) -> SerializedConstructor | SerializedNotImplemented:
        """LangChain's serialized form, without what the tool builds from its fields (its
        arguments schema, its validation message): a load builds them again."""
        dumped = super().to_json()
        if dumped["type"] == "constructor":
            built = ("args_schema", "handle_validation_error")
            dumped["kwargs"] = {k: v for k, v in dumped["kwargs"].items() if k not in built}
        return dumped

    def __getstate__(self) -> dict[Any, Any]:
        # The arguments schema is a class built for this tool (it cannot be pickled by name):
        # a copy builds its own from the same fields.
        state = super().__getstate__()
        return {**state, "__dict__": {**state["__dict__"], "args_schema": None}}

    def __setstate__(self, state: dict[Any, Any]) -> None:
        super().__setstate__(state)
        self._build_schema()

    @contextmanager
    def _told_to_the_model(self, model_filter: str = "") -> Iterator[None]:
        """Errors the model can fix become a ``ToolException`` (the agent gets the message as
        an error tool message, ``handle_tool_error``); the developer's are raised as they are."""
        try:
            yield
        except (InputError, InvalidRequestError) as exc:
            if is_model_error(exc, model_filter):
                raise ToolException(f"{self.name} failed: {exc}") from exc
            raise


class ChunkSearchTool(GroundingTool):
    """A search tool over one of our retrievers: the model reads numbered sources
    (``[n] title (url)`` over each chunk's text), the ``Document``s are the artifact.

    The model's ``k`` and ``filter`` apply to its call only, and its filter narrows the
    retriever's own (``(own) AND (model's)``), never widens it.
    """

    retriever: ChunkRetriever[Any]
    allow_k: bool = False
    max_k: int = Field(default=DEFAULT_TOOL_MAX_K)

    def _filter_description(self) -> str | None:
        """The ``filter`` argument's description, ``None`` for no filter argument."""
        return None

    def _schema_options(self) -> dict[str, Any]:
        k_range = tool_k_range(self.allow_k, self.max_k, self.retriever.k)
        return {"filter_description": self._filter_description(), "k": k_range}

    def _options(self, filter: str, k: int | None) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if k is not None:
            options["k"] = k
        if filter.strip():
            options["filter"] = narrowed_filter(self.retriever.filter, filter)
        return options

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
