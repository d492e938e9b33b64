"""Reranking (issue 20), in one run: quality, latency, and the peers.

Quality: MRR@10 and recall@5 on every split of the retrieval evaluation set
(:mod:`grounding_emulator.search.eval`; a question's ranking is its first 10 distinct
documents), over the first 20 chunks of a BM25 search and (when the ``semantic`` extra is
installed) of a hybrid one, before and after reranking them with the emulator's Rank scorer
(``rank/scorer.py``, as ``RankService.Rank`` scores them: the document's title and the chunk's
content, the default model, the embeddings when the extra is installed). The baseline is the
same 20 chunks in the search's order.

Latency (an emulator in a child process, through gRPC): one rerank of 20, 100 and 200 records
by our LangChain compressor and our LlamaIndex postprocessor, against the thinnest call over the
same records (a ``RankRequest`` built from them and sent by Google's ``RankServiceClient``).

Peers (each in its own virtualenv, ``benchmarks.peer_driver``; same emulator, same 20 records):
``langchain-google-community``'s ``VertexAIRank`` (5.1.1) and
``llama-index-postprocessor-google-rerank``'s ``GoogleRerank`` (0.2.0). One sync call, and the
wall time of ``asyncio.gather`` over 16 async calls against an emulator that delays each Rank by
20 ms (ours on Google's async client; ``VertexAIRank`` on LangChain's thread-pool default;
``GoogleRerank`` on Google's async client), with the order of the results compared.

``quick``: the BM25 quality rows of the ``design`` split, 20 records, ours only (no peer
virtualenv is created).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from functools import cache, partial
from typing import Any

import grpc
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1 as de
from langchain_core.documents import Document
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from benchmarks.common import Row
from benchmarks.emulator_process import EmulatorProcess
from benchmarks.peers import LANGCHAIN_PEER, LLAMAINDEX_RERANK_PEER, PeerProcess
from benchmarks.timing import interleaved, median_ms
from grounding_core import DEFAULT_RANKING_CONFIG
from grounding_emulator import CorpusStore, DataStore
from grounding_emulator.corpus.builtin import (
    BUILTIN_DATA_STORE,
    builtin_documents,
    builtin_fingerprint,
)
from grounding_emulator.corpus.embeddings import Embedder, default_embedder
from grounding_emulator.limits import DEFAULT_RANKING_MODEL
from grounding_emulator.rank.scorer import score_records
from grounding_emulator.search.engine import SearchParams, chunk_hits, search
from grounding_emulator.search.eval import (
    SPLITS,
    distinct_documents,
    load_questions,
    score_rankings,
)
from langchain_grounding import DiscoveryEngineReranker as LangChainReranker
from llamaindex_grounding import DiscoveryEngineReranker as LlamaIndexReranker

NAME = "rerank"
PROJECT = "bench"
TOP = 20
SIZES = (20, 100, 200)
FAN_OUT = 16
DELAY = 0.02
ROUNDS = 10
QUERY = "How do I handle several exceptions in one except clause?"
PEERS = {
    "LangChain": (LANGCHAIN_PEER, "VertexAIRank"),
    "LlamaIndex": (LLAMAINDEX_RERANK_PEER, "GoogleRerank"),
}

Records = list[tuple[str, str]]


def _reranked(
    snapshot: DataStore, question: str, embedder: Embedder | None
) -> tuple[list[str], list[str]]:
    """The first 10 documents of the first ``TOP`` chunks, in the search's order and reranked
    by the Rank scorer (the default model; ``embedder`` as RankService has it)."""
    params = SearchParams(query=question, page_size=TOP, mode="chunks")
    hits = list(chunk_hits(search(snapshot, params)))
    records = [(h.document.title, h.chunk.content) for h in hits]
    scored = score_records(question, records, DEFAULT_RANKING_MODEL, embedder)
    reranked = [hits[s.index] for s in scored]
    return distinct_documents(hits), distinct_documents(reranked)


def _quality_rows(quick: bool) -> list[Row]:
    embedder = None if quick else default_embedder()
    stores: dict[str, DataStore] = {"BM25": _bm25()}
    if embedder is not None:
        stores["hybrid"] = CorpusStore(semantic=embedder).ingest(
            BUILTIN_DATA_STORE, builtin_documents(), fingerprint=builtin_fingerprint()
        )
    scorer = "lexical and embeddings" if embedder is not None else "lexical"
    splits = SPLITS[:1] if quick else ((None, "all"), *SPLITS)
    rows = []
    for split, label in splits:
        questions = load_questions(split=split)
        case = f"{label} ({len(questions)} questions)"
        for search_name, snapshot in stores.items():
            pairs = [_reranked(snapshot, q.question, embedder) for q in questions]
            before = score_rankings(questions, [b for b, _ in pairs])
            after = score_rankings(questions, [a for _, a in pairs])
            baseline = f"{search_name} top {TOP}"
            metric = f"{baseline}, reranked ({scorer})"
            target = ">= 0.85" if search_name == "BM25" and split else ""
            rows += [
                Row(NAME, case, f"MRR@10 ({metric})", after.mrr_at_10, "", before.mrr_at_10,
                    baseline, target),
                Row(NAME, case, f"recall@5 ({metric})", after.recall_at_5, "",
                    before.recall_at_5, baseline),
            ]  # fmt: skip
    return rows


@cache
def _bm25() -> DataStore:
    return CorpusStore(semantic=False).ingest(
        BUILTIN_DATA_STORE, builtin_documents(), fingerprint=builtin_fingerprint()
    )


def _records(count: int) -> Records:
    """``count`` (title, content) pairs of the built-in corpus, in corpus order."""
    snapshot = _bm25()
    return [
        (snapshot.documents[c.document_index].title, c.content) for c in snapshot.chunks[:count]
    ]


def _documents(records: Records) -> list[Document]:
    return [Document(page_content=content, metadata={"title": title}) for title, content in records]


def _nodes(records: Records) -> list[NodeWithScore]:
    return [
        NodeWithScore(node=TextNode(text=content, metadata={"title": title}), score=1.0)
        for title, content in records
    ]


def _raw_client(address: str) -> de.RankServiceClient:
    transport = de.RankServiceClient.get_transport_class("grpc")(
        channel=grpc.insecure_channel(address), credentials=AnonymousCredentials()
    )
    return de.RankServiceClient(transport=transport)


def _raw_call(address: str, records: Records) -> Callable[[], object]:
    """The floor: a ``RankRequest`` built from the records, sent by Google's client."""
    client = _raw_client(address)
    config = f"projects/{PROJECT}/locations/global/rankingConfigs/{DEFAULT_RANKING_CONFIG}"

    def call() -> object:
        request = de.RankRequest(
            ranking_config=config,
            query=QUERY,
            records=[
                de.RankingRecord(id=str(i), title=t, content=c) for i, (t, c) in enumerate(records)
            ],
        )
        return client.rank(request=request)

    return call


def _latency_rows(address: str, sizes: Sequence[int], rounds: int) -> list[Row]:
    langchain = LangChainReranker(project_id=PROJECT, emulator_host=address)
    llamaindex = LlamaIndexReranker(project_id=PROJECT, emulator_host=address, top_n=None)
    rows = []
    for size in sizes:
        records = _records(size)
        times = interleaved(
            {
                "raw": _raw_call(address, records),
                "LangChain": partial(langchain.compress_documents, _documents(records), QUERY),
                "LlamaIndex": partial(
                    llamaindex.postprocess_nodes, _nodes(records), QueryBundle(QUERY)
                ),
            },
            rounds=rounds,
        )
        floor = median_ms(times["raw"])
        for framework in ("LangChain", "LlamaIndex"):
            rows.append(
                Row(NAME, f"{size} records, {framework}", "rerank p50", median_ms(times[framework]),
                    "ms", floor, "RankServiceClient.rank", "<= 1.15x")
            )  # fmt: skip
    return rows


def _ours(framework: str, address: str) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """Our sync call and async call over the peers' 20 records."""
    records = _records(TOP)
    if framework == "LangChain":
        documents = _documents(records)
        compressor = LangChainReranker(project_id=PROJECT, emulator_host=address, top_n=TOP)
        return (
            lambda: compressor.compress_documents(documents, QUERY),
            lambda: compressor.acompress_documents(documents, QUERY),
        )
    nodes = _nodes(records)
    postprocessor = LlamaIndexReranker(project_id=PROJECT, emulator_host=address, top_n=TOP)
    return (
        lambda: postprocessor.postprocess_nodes(nodes, query_str=QUERY),
        lambda: postprocessor.apostprocess_nodes(nodes, query_str=QUERY),
    )


def _texts(results: Sequence[Any]) -> list[str]:
    return [r.page_content if isinstance(r, Document) else r.node.get_content() for r in results]


def _peer_rows(framework: str, address: str, rounds: int) -> list[Row]:
    env, peer_name = PEERS[framework]
    call, acall = _ours(framework, address)
    records = [{"title": t, "text": c} for t, c in _records(TOP)]
    ours_texts = _texts(call())
    singles: list[float] = []
    gathers: list[float] = []

    async def one_round() -> None:
        start = time.perf_counter()
        call()
        singles.append(time.perf_counter() - start)
        start = time.perf_counter()
        await asyncio.gather(*(acall() for _ in range(FAN_OUT)))
        gathers.append(time.perf_counter() - start)

    async def ours_rounds(count: int) -> None:
        for _ in range(count):
            await one_round()

    with PeerProcess(env) as peer:
        peer.call(
            "setup_reranker",
            framework=framework.lower(),
            address=address,
            project=PROJECT,
            top_n=TOP,
        )
        peer_singles: list[float] = []
        peer_gathers: list[float] = []
        peer_texts: list[str] = []
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(ours_rounds(1))  # warm-up
            singles.clear()
            gathers.clear()
            for _ in range(rounds):  # turns: a slow spell of the machine hits both alike
                loop.run_until_complete(ours_rounds(1))
                reply = peer.call("rerank", records=records, query=QUERY, repeat=1,
                                  fan_out=FAN_OUT)  # fmt: skip
                peer_singles += reply["singles"]
                peer_gathers += reply["gathers"]
                peer_texts = reply["texts"]
        finally:
            loop.close()
    same = sum(a == b for a, b in zip(ours_texts, peer_texts, strict=False))
    case = f"{framework}, {TOP} records"
    return [
        Row(NAME, case, "rerank p50 (sync)", median_ms(singles), "ms", median_ms(peer_singles),
            peer_name, "<= 1x (no slower)"),
        Row(NAME, f"{case}, {FAN_OUT} concurrent, Rank delayed {DELAY * 1000:.0f} ms",
            "async fan-out p50 (wall)", median_ms(gathers), "ms", median_ms(peer_gathers),
            peer_name, "<= 1x (no slower)"),
        Row(NAME, case, "same position as the peer's result", 100.0 * same / TOP, "%",
            baseline_name=f"{peer_name}'s order"),
    ]  # fmt: skip


def run(quick: bool = False) -> list[Row]:
    """Quality rows, latency rows and (unless ``quick``) the peer rows."""
    rows = _quality_rows(quick)
    with EmulatorProcess() as emulator:
        rows += _latency_rows(emulator.address, SIZES[:1] if quick else SIZES, 2 if quick else 8)
    if quick:
        return rows
    with EmulatorProcess(delays={"Rank": DELAY}) as emulator:
        for framework in PEERS:
            rows += _peer_rows(framework, emulator.address, ROUNDS)
    return rows
