"""``ChatDiscoveryEngineGrounded``: Discovery Engine's grounded generation as a LangChain chat
model, its answers cited (``Citation`` annotations) and graded (the grounding metadata)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.documents import Document
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import Field, PrivateAttr, model_validator

from grounding_core import DEFAULT_COLLECTION, DEFAULT_SERVING_CONFIG, InputError
from grounding_core.grounding.generation import (
    MAX_SEARCH_SOURCE_RESULTS,
    DiscoveryEngineGroundedGeneration,
    GroundedGeneration,
)

from ._arguments import StrictArguments
from ._connection import DiscoveryEngineSettings
from .citations import cited_message
from .documents import MESSAGE_DOCUMENTS_KEY, document_to_source

__all__ = ["DOCUMENTS_KEY", "ChatDiscoveryEngineGrounded"]

DOCUMENTS_KEY = MESSAGE_DOCUMENTS_KEY
"""The ``response_metadata`` key of the supporting sources, as ``Document``s (the grounding
callbacks and ``GroundingMiddleware`` check the answer against them)."""

NO_TOOLS = (
    "ChatDiscoveryEngineGrounded does not support tool calling: Discovery Engine's grounded "
    "generation answers from its grounding sources only (documents, a data store or an engine) "
    "and never calls tools; use a Gemini chat model with a retrieval tool for an agent"
)


def _contents(messages: Sequence[BaseMessage]) -> tuple[list[tuple[str, str]], str | None]:
    """The conversation as ``(role, text)`` turns and the system instruction."""
    turns: list[tuple[str, str]] = []
    system: list[str] = []
    for number, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            system.append(message.text)
        elif isinstance(message, HumanMessage):
            turns.append(("user", message.text))
        elif isinstance(message, AIMessage):
            if message.tool_calls:
                raise InputError(f"messages[{number}] calls tools. {NO_TOOLS}", field="messages")
            turns.append(("model", message.text))
        else:
            raise InputError(
                f"messages[{number}] is a {type(message).__name__}: only system, human and AI "
                f"messages are sent. {NO_TOOLS}",
                field=f"messages[{number}]",
            )
    return turns, "\n\n".join(system) or None


class ChatDiscoveryEngineGrounded(DiscoveryEngineSettings, BaseChatModel, StrictArguments):
    """Discovery Engine's grounded generation (``GenerateGroundedContent``,
    ``StreamGenerateGroundedContent``) as a chat model: Gemini answers from grounding sources
    only, and the answer comes with its grounding.

    Setup:
        ``pip install "grounding-kit[langchain]"``; Google Cloud credentials, or the emulator
        (``grounding serve``, ``emulator_host=``).

    Key init args:
        documents: ``Document``s sent as inline facts with every call (a call's
            ``documents=`` replaces them). data_store_id or engine_id: a Vertex AI Search
            source (its serving config: collection, serving_config_id), max_result_count
            (1..10; None: Google's 10) and filter. model_id (e.g. ``gemini-2.5-flash``; empty:
            Google's default), temperature, language_code; the connection fields (project_id,
            location, emulator_host, credentials, timeout, retry...).

    Usage:
        .. code-block:: python

            from langchain_core.documents import Document
            from langchain_grounding import ChatDiscoveryEngineGrounded

            llm = ChatDiscoveryEngineGrounded(project_id="my-project")
            docs = [Document("Rockets launch from Cape Canaveral.", id="rockets")]
            answer = llm.invoke("Where do rockets launch from?", documents=docs)
            answer.response_metadata["grounding"]["claims"][0]["start"]

    Messages: system messages become the ``system_instruction``, human messages ``user``
    turns and AI messages ``model`` turns (multi-turn); the last must be the user's.

    The answer: an ``AIMessage`` whose text block carries LangChain's standard ``Citation``
    annotations (``start_index``/``end_index`` slice the answer in any script) and whose
    ``response_metadata`` holds ``"grounding"`` (the project's grounding metadata: claims with
    char and byte spans and support scores, ``support_score`` and ``grounding_score``,
    ``source_ids``, ``citation_annotations``) and ``"documents"`` (the supporting sources:
    the documents given, then the search chunks cited). Streaming yields the text as it
    arrives, then a last chunk with the ``Citation`` annotations and that
    ``response_metadata``: the chunks added up (``+``) are ``invoke``'s message (its one text
    block also has LangChain's streaming key ``index``).

    **Tool calling is not supported**: grounded generation never calls tools (``bind_tools``
    raises ``NotImplementedError``), and a conversation with tool messages is refused.
    """

    documents: Sequence[Document] = Field(
        default=(), description="Documents sent as inline grounding facts with every call"
    )
    data_store_id: str | None = None
    engine_id: str | None = None
    collection: str | None = DEFAULT_COLLECTION
    serving_config_id: str = DEFAULT_SERVING_CONFIG
    max_result_count: int | None = Field(
        default=None,
        description=f"search chunks to ground on (1..{MAX_SEARCH_SOURCE_RESULTS}; None: Google's)",
    )
    filter: str = Field(default="", description='the search source\'s filter, e.g. lang: ANY("en")')
    model_id: str = Field(default="", description="the Gemini model (empty: Google's default)")
    temperature: float | None = Field(default=None, description="0..2 (None: Google's default)")
    language_code: str = Field(default="", description="the answer's language, e.g. en")

    _generating: DiscoveryEngineGroundedGeneration = PrivateAttr()

    @model_validator(mode="after")
    def _build(self) -> ChatDiscoveryEngineGrounded:
        self._generating = DiscoveryEngineGroundedGeneration(
            self.connection,
            data_store_id=self.data_store_id,
            engine_id=self.engine_id,
            collection=self.collection,
            serving_config_id=self.serving_config_id,
            max_result_count=self.max_result_count,
            filter=self.filter,
            model_id=self.model_id,
            temperature=self.temperature,
            language_code=self.language_code,
        )
        return self

    @property
    def generating(self) -> DiscoveryEngineGroundedGeneration:
        """The core component this chat model wraps."""
        return self._generating

    @property
    def _llm_type(self) -> str:
        return "discovery-engine-grounded-generation"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "serving_config": self._generating.serving_config,
            "location": self._generating.location,
        }

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Not supported: grounded generation never calls tools."""
        raise NotImplementedError(NO_TOOLS)

    def _call(
        self, messages: list[BaseMessage], kwargs: dict[str, Any]
    ) -> tuple[dict[str, Any], list[Document]]:
        """The core call's arguments and the documents sent."""
        documents = kwargs.pop(DOCUMENTS_KEY, None)
        unknown = sorted(set(kwargs) - {"stop"})
        if unknown:
            raise TypeError(
                f"ChatDiscoveryEngineGrounded got unexpected call arguments: {', '.join(unknown)}"
            )
        if kwargs.get("stop"):
            raise InputError(
                "stop sequences are not supported by grounded generation", field="stop"
            )
        docs = list(self.documents if documents is None else documents)
        for index, doc in enumerate(docs):
            if not isinstance(doc, Document):
                raise InputError(
                    f"documents[{index}] must be a Document, got {type(doc).__name__}",
                    field=f"documents[{index}]",
                )
        contents, system = _contents(messages)
        call = {
            "sources": [document_to_source(d) for d in docs],
            "source_ids": [d.id or "" for d in docs],
            "system_instruction": system,
        }
        return {"contents": contents, **call}, docs

    @staticmethod
    def _metadata(generation: GroundedGeneration, docs: list[Document]) -> dict[str, Any]:
        documents = list(docs)
        for source, source_id in zip(
            generation.sources[len(docs) :],
            generation.report.source_ids[len(docs) :],
            strict=True,
        ):
            documents.append(Document(source.text, metadata=dict(source.metadata), id=source_id))
        return {"grounding": generation.metadata(), DOCUMENTS_KEY: documents}

    def _message(self, generation: GroundedGeneration, docs: list[Document]) -> AIMessage:
        metadata = self._metadata(generation, docs)
        message = AIMessage(
            generation.answer, response_metadata={DOCUMENTS_KEY: metadata[DOCUMENTS_KEY]}
        )
        cited = cited_message(message, generation.citations(), metadata["grounding"])
        assert isinstance(cited, AIMessage)
        return cited

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        call, docs = self._call(messages, {"stop": stop, **kwargs})
        generation = self._generating.generate(**call)
        return ChatResult(generations=[ChatGeneration(message=self._message(generation, docs))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        call, docs = self._call(messages, {"stop": stop, **kwargs})
        generation = await self._generating.agenerate(**call)
        return ChatResult(generations=[ChatGeneration(message=self._message(generation, docs))])

    def _chunk(self, item: str | GroundedGeneration, docs: list[Document]) -> ChatGenerationChunk:
        # One text block (``index`` 0, LangChain's key for merging a stream's blocks): the
        # text chunks fill it, the last adds the citations (spans of the whole answer, known
        # once the grounding has come) and the metadata, so the chunks add up to ``invoke``'s.
        if isinstance(item, str):
            block = {"type": "text", "text": item, "index": 0}
            return ChatGenerationChunk(message=AIMessageChunk(content=[block]))
        message = self._message(item, docs)
        [cited] = message.content
        assert isinstance(cited, dict)
        last = AIMessageChunk(
            content=[{**cited, "text": "", "index": 0}],
            response_metadata=message.response_metadata,
            chunk_position="last",
        )
        return ChatGenerationChunk(message=last)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        call, docs = self._call(messages, {"stop": stop, **kwargs})
        for item in self._generating.stream(**call):
            chunk = self._chunk(item, docs)
            if run_manager is not None and isinstance(item, str):
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        call, docs = self._call(messages, {"stop": stop, **kwargs})
        async for item in self._generating.astream(**call):
            chunk = self._chunk(item, docs)
            if run_manager is not None and isinstance(item, str):
                await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk
