"""Drives a peer integration inside its own virtualenv; standalone (imports nothing of ours).

Run by ``benchmarks.peers.PeerProcess`` as ``{venv}/bin/python benchmarks/peer_driver.py``;
reads one JSON command per line on stdin, answers one JSON line on stdout. Timing happens here,
around the peer's own calls, so that the pipe and JSON costs are not measured.

How the peers reach the emulator (their code is not modified): each gets a Google client whose
transport is built on ``grpc.insecure_channel(address)`` with anonymous credentials:

- ``langchain_google_community.VertexAISearchRetriever``: built with
  ``credentials=AnonymousCredentials()`` (so that its constructor needs no Google login; the
  secure channel it opens to Google is never used), then its ``_client`` attribute is replaced by
  a ``discoveryengine_v1.SearchServiceClient`` (the version it uses by default) on the
  insecure channel;
- ``langchain_google_community.VertexAICheckGroundingWrapper``: given
  ``client=discoveryengine_v1alpha.GroundedGenerationServiceClient(...)`` on the insecure
  channel (its constructor takes a client);
- ``llama_index.retrievers.vertexai_search.VertexAISearchRetriever``: built with
  ``credentials=AnonymousCredentials()``, then its ``_client`` attribute is replaced by a
  ``discoveryengine_v1beta.SearchServiceClient`` (the version it imports) on the insecure
  channel;
- ``langchain_google_community.VertexAIRank``: given
  ``client=discoveryengine_v1alpha.RankServiceClient(...)`` on the insecure channel, and
  ``ranking_config="default_ranking_config"`` (its default, ``default_config``, is not the
  config Google documents);
- ``llama_index.postprocessor.google_rerank.GoogleRerank``: built with
  ``credentials=AnonymousCredentials()``, then its ``_client`` is replaced by a
  ``discoveryengine_v1.RankServiceClient`` on the insecure channel and, inside the event loop
  that uses it, its ``_async_client`` by a ``RankServiceAsyncClient`` on an ``aio`` channel.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import grpc
from google.auth.credentials import AnonymousCredentials


def _anonymous() -> Any:
    return AnonymousCredentials()  # type: ignore[no-untyped-call]


def _transport(transport_cls: Any, address: str) -> Any:
    return transport_cls(channel=grpc.insecure_channel(address), credentials=_anonymous())


def _peer_retriever(retriever_cls: Any, api: Any, setup: dict[str, Any]) -> Any:
    """A peer's retriever whose Google client (of API version ``api``) talks to the emulator."""
    retriever = retriever_cls(
        project_id=setup["project"],
        data_store_id=setup["data_store"],
        serving_config_id=setup["serving_config"],
        max_documents=setup["k"],
        credentials=_anonymous(),
    )
    client_cls = api.SearchServiceClient
    transport = _transport(client_cls.get_transport_class("grpc"), setup["address"])
    retriever._client = client_cls(transport=transport)
    return retriever


def _langchain_retriever(setup: dict[str, Any]) -> Any:
    from google.cloud import discoveryengine_v1
    from langchain_google_community.vertex_ai_search import (  # type: ignore[import-not-found, import-untyped, unused-ignore]
        VertexAISearchRetriever,
    )

    return _peer_retriever(VertexAISearchRetriever, discoveryengine_v1, setup)


def _llamaindex_retriever(setup: dict[str, Any]) -> Any:
    from google.cloud import discoveryengine_v1beta
    from llama_index.retrievers.vertexai_search import (  # type: ignore[import-not-found, import-untyped, unused-ignore]
        VertexAISearchRetriever,
    )

    return _peer_retriever(VertexAISearchRetriever, discoveryengine_v1beta, setup)


def _langchain_checker(setup: dict[str, Any]) -> Any:
    from google.cloud import discoveryengine_v1alpha
    from google.cloud.discoveryengine_v1alpha.services.grounded_generation_service.transports import (  # noqa: E501
        GroundedGenerationServiceGrpcTransport,
    )
    from langchain_google_community.vertex_check_grounding import (  # type: ignore[import-not-found, import-untyped, unused-ignore]
        VertexAICheckGroundingWrapper,
    )

    transport = _transport(GroundedGenerationServiceGrpcTransport, setup["address"])
    client = discoveryengine_v1alpha.GroundedGenerationServiceClient(transport=transport)
    return VertexAICheckGroundingWrapper(project_id=setup["project"], client=client)


def _langchain_reranker(setup: dict[str, Any]) -> Any:
    from google.cloud import discoveryengine_v1alpha
    from langchain_google_community.vertex_rank import (  # type: ignore[import-not-found, import-untyped, unused-ignore]
        VertexAIRank,
    )

    client_cls = discoveryengine_v1alpha.RankServiceClient
    transport = _transport(client_cls.get_transport_class("grpc"), setup["address"])
    return VertexAIRank(
        project_id=setup["project"],
        ranking_config="default_ranking_config",
        top_n=setup["top_n"],
        title_field="title",
        client=client_cls(transport=transport),
    )


def _llamaindex_reranker(setup: dict[str, Any]) -> Any:
    from google.cloud import discoveryengine_v1
    from llama_index.postprocessor.google_rerank import (  # type: ignore[import-not-found, import-untyped, unused-ignore]
        GoogleRerank,
    )

    reranker = GoogleRerank(
        project_id=setup["project"], top_n=setup["top_n"], credentials=_anonymous()
    )
    client_cls = discoveryengine_v1.RankServiceClient
    transport = _transport(client_cls.get_transport_class("grpc"), setup["address"])
    reranker._client = client_cls(transport=transport)
    return reranker


def _async_rank_client(address: str) -> Any:
    """A v1 ``RankServiceAsyncClient`` on an ``aio`` channel of the running event loop."""
    from google.cloud import discoveryengine_v1

    client_cls = discoveryengine_v1.RankServiceAsyncClient
    transport = client_cls.get_transport_class("grpc_asyncio")(
        channel=grpc.aio.insecure_channel(address), credentials=_anonymous()
    )
    return client_cls(transport=transport)


def plain_object(item: Any) -> dict[str, Any]:
    """A returned Document or NodeWithScore as JSON-safe fields."""
    if hasattr(item, "page_content"):  # LangChain Document
        return {"id": item.id, "text": item.page_content, "metadata": item.metadata}
    node = item.node
    return {
        "id": node.node_id,
        "text": node.get_content(),
        "metadata": node.metadata,
        "score": item.score,
        "relationships": {str(k): v.node_id for k, v in node.relationships.items()},
    }


class Driver:
    """The peer objects of this process and the commands run on them."""

    def __init__(self) -> None:
        self.retriever: Any = None
        self.framework = ""
        self.checker: Any = None
        self.reranker: Any = None
        self.address = ""

    def setup_retriever(self, command: dict[str, Any]) -> dict[str, Any]:
        self.framework = command["framework"]
        build = _langchain_retriever if self.framework == "langchain" else _llamaindex_retriever
        self.retriever = build(command)
        return {}

    def _retrieve_call(self) -> Callable[[str], Any]:
        if self.framework == "langchain":
            return self.retriever.invoke  # type: ignore[no-any-return]
        return self.retriever.retrieve  # type: ignore[no-any-return]

    def retrieve(self, command: dict[str, Any]) -> dict[str, Any]:
        """Time each call; return the objects of the first query."""
        call = self._retrieve_call()
        first = [plain_object(item) for item in call(command["queries"][0])]
        seconds = []
        for query in command["queries"]:
            start = time.perf_counter()
            call(query)
            seconds.append(time.perf_counter() - start)
        return {"seconds": seconds, "objects": first}

    def fanout(self, command: dict[str, Any]) -> dict[str, Any]:
        """Per round: three single sync calls, then the wall time of ``asyncio.gather`` over
        the peer's async path, all in one event loop."""
        queries = command["queries"]
        call = self._retrieve_call()
        acall = (
            self.retriever.ainvoke if self.framework == "langchain" else self.retriever.aretrieve
        )

        async def rounds() -> dict[str, list[float]]:
            singles: list[float] = []
            gathers: list[float] = []
            for _ in range(command["repeat"]):
                for query in queries[:3]:
                    start = time.perf_counter()
                    call(query)
                    singles.append(time.perf_counter() - start)
                start = time.perf_counter()
                await asyncio.gather(*(acall(q) for q in queries))
                gathers.append(time.perf_counter() - start)
            return {"singles": singles, "seconds": gathers}

        return asyncio.run(rounds())

    def setup_reranker(self, command: dict[str, Any]) -> dict[str, Any]:
        self.framework = command["framework"]
        self.address = command["address"]
        build = _langchain_reranker if self.framework == "langchain" else _llamaindex_reranker
        self.reranker = build(command)
        return {}

    def _rerank_inputs(self, records: list[dict[str, str]]) -> Any:
        if self.framework == "langchain":
            from langchain_core.documents import Document

            return [
                Document(page_content=r["text"], metadata={"title": r["title"]}) for r in records
            ]
        from llama_index.core.schema import NodeWithScore, TextNode

        return [
            NodeWithScore(node=TextNode(text=r["text"], metadata={"title": r["title"]}), score=1.0)
            for r in records
        ]

    def _rerank_calls(self) -> tuple[Callable[[Any, str], Any], Callable[[Any, str], Any]]:
        reranker = self.reranker
        if self.framework == "langchain":
            return reranker.compress_documents, reranker.acompress_documents
        return (
            lambda nodes, query: reranker.postprocess_nodes(nodes, query_str=query),
            lambda nodes, query: reranker.apostprocess_nodes(nodes, query_str=query),
        )

    def rerank(self, command: dict[str, Any]) -> dict[str, Any]:
        """Per round: the seconds of one sync call, then the wall time of ``asyncio.gather``
        over ``fan_out`` async calls; the texts of the first call's results, in order."""
        inputs = self._rerank_inputs(command["records"])
        call, acall = self._rerank_calls()
        query = command["query"]
        first = call(inputs, query)
        texts = [
            item.page_content if hasattr(item, "page_content") else item.node.get_content()
            for item in first
        ]

        async def rounds() -> dict[str, Any]:
            if self.framework == "llamaindex":
                self.reranker._async_client = _async_rank_client(self.address)
            await acall(inputs, query)  # warms the channel up
            singles: list[float] = []
            gathers: list[float] = []
            for _ in range(command["repeat"]):
                start = time.perf_counter()
                call(inputs, query)
                singles.append(time.perf_counter() - start)
                start = time.perf_counter()
                await asyncio.gather(*(acall(inputs, query) for _ in range(command["fan_out"])))
                gathers.append(time.perf_counter() - start)
            return {"singles": singles, "gathers": gathers, "texts": texts}

        return asyncio.run(rounds())

    def setup_checker(self, command: dict[str, Any]) -> dict[str, Any]:
        self.checker = _langchain_checker(command)
        return {}

    def check(self, command: dict[str, Any]) -> dict[str, Any]:
        """Seconds of each check; the claims of the last pass over the cases."""
        from langchain_core.documents import Document

        cases = [
            (case["answer"], [Document(page_content=fact) for fact in case["facts"]])
            for case in command["cases"]
        ]
        seconds = []
        claims: list[list[dict[str, Any]]] = []
        for _ in range(command["passes"]):
            claims = []
            for answer, documents in cases:
                config = {"configurable": {"documents": documents}}
                start = time.perf_counter()
                response = self.checker.invoke(answer, config=config)
                seconds.append(time.perf_counter() - start)
                claims.append(response.claims)
        return {"seconds": seconds, "claims": claims}


def main() -> int:
    # stdout carries the replies; whatever the peers print goes to stderr.
    replies, sys.stdout = sys.stdout, sys.stderr
    driver = Driver()

    def reply(message: dict[str, Any]) -> None:
        replies.write(json.dumps(message, default=str) + "\n")
        replies.flush()

    reply({"ready": True})
    for line in sys.stdin:
        command = json.loads(line)
        op = command.pop("op")
        try:
            reply(getattr(driver, op)(command))
        except Exception as exc:  # reported to the parent, which raises it
            reply({"error": f"{type(exc).__name__}: {exc}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
