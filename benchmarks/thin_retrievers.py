"""The floor of each framework: the thinnest retriever one can write around Google's raw
``SearchServiceClient.search``, returning the chunks' content only (no metadata, no ids).

They send the same ``SearchRequest`` as our retrievers (``bench_overhead`` checks that) on a
client built the way Google documents for a local server: a transport on
``grpc.insecure_channel``, anonymous credentials, the client's own defaults (no retry, no
timeout). Given an ``async_client`` (``raw_async_search_client``, built inside the running event
loop), their async path (``ainvoke`` / ``aretrieve``) makes the same call on Google's
``SearchServiceAsyncClient``: the framework's own async floor (``bench_fanout``).
"""

from __future__ import annotations

from typing import Any

import grpc
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1 as de
from google.cloud.discoveryengine_v1.services.search_service.transports import (
    SearchServiceGrpcAsyncIOTransport,
    SearchServiceGrpcTransport,
)
from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever as LangChainRetriever
from llama_index.core.retrievers import BaseRetriever as LlamaIndexRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from pydantic import ConfigDict

__all__ = [
    "ThinLangChainRetriever",
    "ThinLlamaIndexRetriever",
    "raw_async_search_client",
    "raw_search_client",
    "raw_search_request",
]

_CHUNKS = de.SearchRequest.ContentSearchSpec.SearchResultMode.CHUNKS


def raw_search_client(address: str) -> de.SearchServiceClient:
    """Google's sync ``SearchServiceClient`` on an insecure channel to ``address``."""
    transport = SearchServiceGrpcTransport(
        channel=grpc.insecure_channel(address),
        credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
    )
    return de.SearchServiceClient(transport=transport)


def raw_async_search_client(address: str) -> de.SearchServiceAsyncClient:
    """Google's ``SearchServiceAsyncClient`` on a ``grpc.aio`` insecure channel to ``address``
    (call it inside the event loop that will use it: the channel belongs to that loop)."""
    transport = SearchServiceGrpcAsyncIOTransport(
        channel=grpc.aio.insecure_channel(address),
        credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
    )
    return de.SearchServiceAsyncClient(transport=transport)


def raw_search_request(serving_config: str, query: str, k: int) -> de.SearchRequest:
    """A chunk-mode search for ``k`` chunks with relevance scores, written out by hand."""
    return de.SearchRequest(
        serving_config=serving_config,
        query=query,
        page_size=k,
        content_search_spec=de.SearchRequest.ContentSearchSpec(
            search_result_mode=_CHUNKS,
            chunk_spec=de.SearchRequest.ContentSearchSpec.ChunkSpec(),
        ),
        relevance_score_spec=de.SearchRequest.RelevanceScoreSpec(return_relevance_score=True),
    )


class ThinLangChainRetriever(LangChainRetriever):
    """``raw client.search`` -> ``Document(page_content=chunk.content)``; async, the same on
    ``async_client``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Any
    serving_config: str
    k: int
    async_client: Any = None

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        response = self.client.search(
            request=raw_search_request(self.serving_config, query, self.k)
        )
        return [Document(page_content=result.chunk.content) for result in response.results]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        response = await self.async_client.search(
            request=raw_search_request(self.serving_config, query, self.k)
        )
        return [Document(page_content=result.chunk.content) for result in response.results]


class ThinLlamaIndexRetriever(LlamaIndexRetriever):
    """``raw client.search`` -> ``NodeWithScore(TextNode(text=chunk.content), score)``; async,
    the same on ``async_client``."""

    def __init__(
        self,
        client: de.SearchServiceClient,
        serving_config: str,
        k: int,
        async_client: de.SearchServiceAsyncClient | None = None,
    ) -> None:
        self.client = client
        self.async_client = async_client
        self.serving_config = serving_config
        self.k = k
        super().__init__()

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        response = self.client.search(
            request=raw_search_request(self.serving_config, query_bundle.query_str, self.k)
        )
        return [
            NodeWithScore(node=TextNode(text=r.chunk.content), score=r.chunk.relevance_score)
            for r in response.results
        ]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        assert self.async_client is not None, "give async_client for the async path"
        response = await self.async_client.search(
            request=raw_search_request(self.serving_config, query_bundle.query_str, self.k)
        )
        return [
            NodeWithScore(node=TextNode(text=r.chunk.content), score=r.chunk.relevance_score)
            for r in response.results
        ]
