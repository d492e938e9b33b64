"""``DiscoveryEngineGroundedLLM``: Discovery Engine's grounded generation as a LlamaIndex LLM,
its answers cited (``CitationBlock``s) and graded (the grounding metadata)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseAsyncGen,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseAsyncGen,
    CompletionResponseGen,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.callbacks import CallbackManager
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.prompts import BasePromptTemplate
from llama_index.core.schema import BaseNode, NodeWithScore, TextNode
from pydantic import ConfigDict, PrivateAttr
from typing_extensions import Unpack

from grounding_core import GroundingSource, InputError
from grounding_core.grounding.generation import (
    DiscoveryEngineGroundedGeneration,
    DiscoveryEngineGroundedGenerationArgs,
    GroundedGeneration,
)
from grounding_core.peers import refuse_unknown_arguments

from ._core import connected
from .citations import GROUNDING_KEY, cited_chat_message
from .nodes import node_to_source

__all__ = ["CONTEXT_SOURCE_ID", "SOURCE_NODES_KEY", "DiscoveryEngineGroundedLLM"]

SOURCE_NODES_KEY = "source_nodes"
"""The ``additional_kwargs`` key of a response's supporting sources, as ``NodeWithScore``s."""

CONTEXT_SOURCE_ID = "context"
"""The source id of the retrieved context a query or chat engine's prompt carried."""

# The prompt arguments under which LlamaIndex's response synthesizers (query engines, and the
# chat engines built on them) pass the retrieved context: QA and tree-summarize templates, and
# refine templates.
_CONTEXT_ARGUMENTS = ("context_str", "context_msg")
# Where ``_get_messages`` leaves that context for ``chat`` (on the prompt's last message).
_CONTEXT_KEY = "grounding_context"

NO_TOOLS = (
    "DiscoveryEngineGroundedLLM does not support tool calling: Discovery Engine's grounded "
    "generation answers from its grounding sources only (nodes, a data store or an engine) and "
    "never calls tools"
)

_ROLES = {MessageRole.USER: "user", MessageRole.ASSISTANT: "model"}


def _contents(
    messages: Sequence[ChatMessage],
) -> tuple[list[tuple[str, str]], str | None, list[str]]:
    """The turns, the system instruction, and the engine's retrieved context if any."""
    turns: list[tuple[str, str]] = []
    system: list[str] = []
    contexts: list[str] = []
    for number, message in enumerate(messages):
        text = message.content or ""
        context = message.additional_kwargs.get(_CONTEXT_KEY)
        if isinstance(context, str):
            contexts.append(context)
        if message.role == MessageRole.SYSTEM:
            system.append(text)
        elif message.role in _ROLES:
            turns.append((_ROLES[message.role], text))
        else:
            raise InputError(
                f"messages[{number}] has role {message.role.value!r}: only system, user and "
                f"assistant messages are sent. {NO_TOOLS}",
                field=f"messages[{number}].role",
            )
    return turns, "\n\n".join(system) or None, contexts


class DiscoveryEngineGroundedLLM(CustomLLM):
    """Discovery Engine's grounded generation (``GenerateGroundedContent``,
    ``StreamGenerateGroundedContent``) as a LlamaIndex LLM: Gemini answers from grounding
    sources only, and every response comes with its grounding.

    Key init args:
        nodes: nodes (or ``NodeWithScore``s) sent as inline facts with every call (a call's
            ``nodes=`` replaces them). data_store_id or engine_id: a Vertex AI Search source
            (collection, serving_config_id, max_result_count 1..10, filter). model_id,
            temperature, language_code; the connection's arguments (project_id, location,
            emulator_host, credentials, timeout, retry...).

    Usage:
        .. code-block:: python

            from llama_index.core.schema import TextNode
            from llamaindex_grounding import DiscoveryEngineGroundedLLM

            llm = DiscoveryEngineGroundedLLM(project_id="my-project", engine_id="docs-app")
            response = llm.complete("How do I open a file?")
            response.additional_kwargs["grounding"]["claims"]

    Chat messages: system messages become the ``system_instruction``, user messages ``user``
    turns, assistant messages ``model`` turns. A chat response's ``message`` holds the answer
    and ends with ``CitationBlock``s (char spans that slice the answer in any script); its
    ``additional_kwargs["grounding"]`` (and the response's ``additional_kwargs`` too) is the
    project's grounding metadata (claims with char and byte spans and support scores,
    ``grounding_score``, ``source_ids``); the response's ``additional_kwargs["source_nodes"]``
    the supporting sources (the nodes given, then the search chunks cited) and ``raw`` the
    core's ``GroundedGeneration``. A completion has the same ``additional_kwargs`` and ``raw``.
    Streams yield the text as it arrives; the last response carries all of that.

    In a query engine (``index.as_query_engine(llm=llm)``, ``RetrieverQueryEngine``) and the
    chat engines built on a response synthesizer (``ContextChatEngine``,
    ``CondensePlusContextChatEngine``), the retrieved context the prompt carries
    (``context_str``, ``context_msg``) is sent as an inline grounding fact (source id
    ``"context"``) and taken out of the prompt's text, and the question (``query_str``) is the
    user's turn, the template's other words going with the system instruction: the answer is
    grounded on what the engine retrieved. The engine keeps only the answer's text: wrap it
    in ``GroundedQueryEngine`` for claims and ``CitationBlock``s of the retrieved nodes. A
    call without a context (a chat engine condensing a follow-up question) needs the LLM's own
    ``nodes`` or search source.

    **Tool calling is not supported**: grounded generation never calls tools, and a conversation
    with tool messages is refused.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    _generating: DiscoveryEngineGroundedGeneration = PrivateAttr()
    _nodes: tuple[NodeWithScore | BaseNode, ...] = PrivateAttr(default=())

    @refuse_unknown_arguments
    def __init__(
        self,
        *,
        nodes: Sequence[NodeWithScore | BaseNode] = (),
        callback_manager: CallbackManager | None = None,
        **arguments: Unpack[DiscoveryEngineGroundedGenerationArgs],
    ) -> None:
        generating = connected(DiscoveryEngineGroundedGeneration, arguments)
        super().__init__(callback_manager=callback_manager)
        self._generating = generating
        self._nodes = tuple(nodes)

    @classmethod
    def class_name(cls) -> str:
        """The name LlamaIndex serializes the class under."""
        return "DiscoveryEngineGroundedLLM"

    @property
    def generating(self) -> DiscoveryEngineGroundedGeneration:
        """The core component this LLM wraps."""
        return self._generating

    @property
    def metadata(self) -> LLMMetadata:
        """A chat model (no function calling), named after its Gemini model."""
        model = self._generating.model_id or "discovery-engine-grounded-generation"
        return LLMMetadata(model_name=model, is_chat_model=True, is_function_calling_model=False)

    def _get_messages(self, prompt: BasePromptTemplate, **prompt_args: Any) -> list[ChatMessage]:
        """The prompt as messages (LlamaIndex's ``predict`` and ``stream`` call this), the
        engine's retrieved context taken out of their text and carried to ``chat`` as a
        grounding fact (the class docstring)."""
        messages = super()._get_messages(prompt, **prompt_args)
        values = {**prompt.kwargs, **prompt_args}  # a synthesizer fills query_str in first
        context = next((v for k in _CONTEXT_ARGUMENTS if isinstance(v := values.get(k), str)), "")
        if not context.strip() or not messages:
            return messages
        messages = [
            ChatMessage(
                role=m.role,
                content=(m.content or "").replace(context, ""),
                additional_kwargs=m.additional_kwargs,
            )
            for m in messages
        ]
        *earlier, last = messages
        query = values.get("query_str")
        if isinstance(query, str) and query.strip() and (last.content or "").strip() != query:
            # A template's words around the question ("Given the context information ...,
            # answer the query.") are instruction: the user's turn is the question.
            earlier.append(ChatMessage(role=MessageRole.SYSTEM, content=last.content))
            last = ChatMessage(role=MessageRole.USER, content=query)
        extras = {**last.additional_kwargs, _CONTEXT_KEY: context}
        return [*earlier, last.model_copy(update={"additional_kwargs": extras})]

    # -- the calls' arguments and responses ----------------------------------------------------

    def _call(
        self,
        turns: list[tuple[str, str]],
        system: str | None,
        contexts: list[str],
        kwargs: dict[str, Any],
    ) -> tuple[dict[str, Any], list[BaseNode]]:
        given = kwargs.pop("nodes", None)
        kwargs.pop("formatted", None)
        if kwargs:
            raise TypeError(
                f"DiscoveryEngineGroundedLLM got unexpected call arguments: {', '.join(kwargs)}"
            )
        nodes = []
        for index, node in enumerate(self._nodes if given is None else given):
            base = node.node if isinstance(node, NodeWithScore) else node
            if not isinstance(base, BaseNode):
                raise InputError(
                    f"nodes[{index}] must be a node, got {type(node).__name__}",
                    field=f"nodes[{index}]",
                )
            nodes.append(base)
        call = {
            "contents": turns,
            "sources": [*map(node_to_source, nodes), *map(GroundingSource, contexts)],
            "source_ids": [*(n.node_id for n in nodes), *(CONTEXT_SOURCE_ID for _ in contexts)],
            "system_instruction": system,
        }
        return call, nodes

    @staticmethod
    def _extras(generation: GroundedGeneration, nodes: list[BaseNode]) -> dict[str, Any]:
        scores: dict[int, float] = {}
        for claim in generation.claims:
            if claim.score is not None:
                for i in claim.source_indices:
                    scores[i] = max(scores.get(i, claim.score), claim.score)
        given: list[BaseNode] = list(nodes)
        for source, source_id in zip(
            generation.sources[len(nodes) :],
            generation.report.source_ids[len(nodes) :],
            strict=True,
        ):
            given.append(TextNode(text=source.text, metadata=dict(source.metadata), id_=source_id))
        source_nodes = [NodeWithScore(node=n, score=scores.get(i)) for i, n in enumerate(given)]
        return {GROUNDING_KEY: generation.metadata(), SOURCE_NODES_KEY: source_nodes}

    def _chat_response(self, generation: GroundedGeneration, nodes: list[BaseNode]) -> ChatResponse:
        extras = self._extras(generation, nodes)
        message = ChatMessage(role=MessageRole.ASSISTANT, content=generation.answer)
        message = cited_chat_message(message, generation.citations(), extras[GROUNDING_KEY])
        return ChatResponse(message=message, raw=generation, additional_kwargs=extras)

    def _completion(self, generation: GroundedGeneration, nodes: list[BaseNode]) -> Any:
        extras = self._extras(generation, nodes)
        return CompletionResponse(text=generation.answer, raw=generation, additional_kwargs=extras)

    # -- chat ----------------------------------------------------------------------------------

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        """The grounded answer to the conversation's last user message."""
        call, nodes = self._call(*_contents(messages), kwargs)
        return self._chat_response(self._generating.generate(**call), nodes)

    @llm_chat_callback()
    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        """Async ``chat``, on Google's async client."""
        call, nodes = self._call(*_contents(messages), kwargs)
        return self._chat_response(await self._generating.agenerate(**call), nodes)

    def _chat_stream(self, items: Iterator[Any], nodes: list[BaseNode]) -> ChatResponseGen:
        text = ""
        for item in items:
            if isinstance(item, str):
                text += item
                message = ChatMessage(role=MessageRole.ASSISTANT, content=text)
                yield ChatResponse(message=message, delta=item)
            else:
                yield self._chat_response(item, nodes).model_copy(update={"delta": ""})

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        """``chat`` as it streams: the text as it arrives, the grounding with the last."""
        call, nodes = self._call(*_contents(messages), kwargs)
        return self._chat_stream(self._generating.stream(**call), nodes)

    @llm_chat_callback()
    async def astream_chat(
        self, messages: Sequence[ChatMessage], **kwargs: Any
    ) -> ChatResponseAsyncGen:
        """Async ``stream_chat``, on Google's async client."""
        call, nodes = self._call(*_contents(messages), kwargs)
        items = self._generating.astream(**call)

        async def responses() -> AsyncIterator[ChatResponse]:
            text = ""
            async for item in items:
                if isinstance(item, str):
                    text += item
                    message = ChatMessage(role=MessageRole.ASSISTANT, content=text)
                    yield ChatResponse(message=message, delta=item)
                else:
                    yield self._chat_response(item, nodes).model_copy(update={"delta": ""})

        return responses()

    # -- completion ----------------------------------------------------------------------------

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        """The grounded answer to ``prompt`` (one user turn)."""
        call, nodes = self._call([("user", prompt)], None, [], kwargs)
        return self._completion(self._generating.generate(**call), nodes)  # type: ignore[no-any-return]

    @llm_completion_callback()
    async def acomplete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponse:
        """Async ``complete``, on Google's async client."""
        call, nodes = self._call([("user", prompt)], None, [], kwargs)
        return self._completion(await self._generating.agenerate(**call), nodes)  # type: ignore[no-any-return]

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        """``complete`` as it streams: the text as it arrives, the grounding with the last."""
        call, nodes = self._call([("user", prompt)], None, [], kwargs)
        items = self._generating.stream(**call)

        def responses() -> CompletionResponseGen:
            text = ""
            for item in items:
                if isinstance(item, str):
                    text += item
                    yield CompletionResponse(text=text, delta=item)
                else:
                    yield self._completion(item, nodes).model_copy(update={"delta": ""})

        return responses()

    @llm_completion_callback()
    async def astream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseAsyncGen:
        """Async ``stream_complete``, on Google's async client."""
        call, nodes = self._call([("user", prompt)], None, [], kwargs)
        items = self._generating.astream(**call)

        async def responses() -> AsyncIterator[CompletionResponse]:
            text = ""
            async for item in items:
                if isinstance(item, str):
                    text += item
                    yield CompletionResponse(text=text, delta=item)
                else:
                    yield self._completion(item, nodes).model_copy(update={"delta": ""})

        return responses()
