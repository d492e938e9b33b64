"""What both LlamaIndex answer query engines share: the core answerQuery component they wrap
and the calls, whose answers become ``Response``s (with the answer's citations as
``CitationBlock``s in ``metadata["citation_blocks"]``).

With ``streaming=True`` a query gives a ``StreamingResponse`` (``aquery``: an
``AsyncStreamingResponse``) whose tokens are the answer's text as it arrives
(``DiscoveryEngineAnswerQuery.stream``: StreamAnswerQuery; the whole text at once where Google
has no streaming method); its ``source_nodes`` and ``metadata`` are filled in when the stream
ends, as a ``Response``'s would be."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from typing import Generic, TypeVar

from llama_index.core import Settings
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.callbacks import CallbackManager
from llama_index.core.prompts.mixin import PromptMixinType
from llama_index.core.schema import QueryBundle

from grounding_core import (
    DeveloperKnowledgeAnswerQuery,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineSearchSummary,
    DiscoveryEngineTarget,
    GroundedAnswer,
    answer_citations,
)

from .citations import CITATION_BLOCKS_KEY, citation_blocks
from .nodes import answer_response

__all__ = ["AnswerQueryEngine", "ServingConfigQueryEngine", "cited_answer_response"]

logger = logging.getLogger(__name__)

AnsweringT = TypeVar(
    "AnsweringT",
    DiscoveryEngineAnswerQuery,
    DeveloperKnowledgeAnswerQuery,
    DiscoveryEngineSearchSummary,
)


class AnswerQueryEngine(BaseQueryEngine, Generic[AnsweringT]):
    """A query engine over a core answerQuery component; ``aquery`` on Google's async client;
    ``streaming``: stream the answer (module docstring)."""

    _answering: AnsweringT

    def __init__(
        self,
        answering: AnsweringT,
        callback_manager: CallbackManager | None,
        *,
        streaming: bool = False,
    ) -> None:
        self._answering = answering
        self._streaming = streaming
        super().__init__(callback_manager or Settings.callback_manager)

    @property
    def streaming(self) -> bool:
        """Whether queries give a streaming response."""
        return self._streaming

    @property
    def answering(self) -> AnsweringT:
        """The core answerQuery component this query engine wraps."""
        return self._answering

    def _get_prompt_modules(self) -> PromptMixinType:
        return {}

    def _query(self, query_bundle: QueryBundle) -> Response | StreamingResponse:
        if self._streaming:
            return self._stream(query_bundle.query_str)
        return _response(self._answering.answer(query_bundle.query_str))

    async def _aquery(self, query_bundle: QueryBundle) -> Response | AsyncStreamingResponse:
        if self._streaming:
            return self._astream(query_bundle.query_str)
        return _response(await self._answering.aanswer(query_bundle.query_str))

    def _stream(self, query: str) -> StreamingResponse:
        items = self._answering.stream(query)
        response = StreamingResponse(response_gen=iter(()))

        def tokens() -> Iterator[str]:
            for item in items:
                if isinstance(item, str):
                    yield item
                else:
                    _filled(response, _response(item))

        response.response_gen = tokens()
        return response

    def _astream(self, query: str) -> AsyncStreamingResponse:
        items = self._answering.astream(query)

        async def tokens() -> AsyncIterator[str]:
            async for item in items:
                if isinstance(item, str):
                    yield item
                else:
                    _filled(response, _response(item))

        response = AsyncStreamingResponse(response_gen=tokens())
        return response


ServingConfigT = TypeVar("ServingConfigT", DiscoveryEngineAnswerQuery, DiscoveryEngineSearchSummary)


class ServingConfigQueryEngine(AnswerQueryEngine[ServingConfigT]):
    """An answer query engine over a Discovery Engine serving config (answers or summaries)."""

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(serving_config={self.target.serving_config_path!r}, "
            f"endpoint={self._answering.connection.endpoint!r})"
        )

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The engine or data store asked."""
        return self._answering.target


def cited_answer_response(answer: GroundedAnswer) -> Response:
    """``answer_response(answer)`` whose metadata also holds the answer's citations as
    LlamaIndex ``CitationBlock``s under ``citation_blocks`` (one per citation and reference it
    cites; ``additional_location_info`` spans index ``response.response``)."""
    response = answer_response(answer)
    metadata = response.metadata if response.metadata is not None else {}
    metadata[CITATION_BLOCKS_KEY] = citation_blocks(answer_citations(answer))
    response.metadata = metadata
    return response


def _filled(streaming: StreamingResponse | AsyncStreamingResponse, response: Response) -> None:
    """A finished stream's response gets the nodes and metadata of the whole answer."""
    streaming.source_nodes = response.source_nodes
    streaming.metadata = response.metadata


def _response(answer: GroundedAnswer) -> Response:
    logger.debug("answer with %d citations", len(answer.citations))
    return cited_answer_response(answer)
