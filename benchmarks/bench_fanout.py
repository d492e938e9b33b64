"""Async fan-out: 64 concurrent queries against an emulator that delays every Search by 20 ms.

Ours: ``asyncio.gather`` over ``DiscoveryEngineRetriever.ainvoke`` (LangChain) and ``.aretrieve``
(LlamaIndex), which run on Google's ``grpc.aio`` client: the 64 calls wait together. Peers (in
their virtualenvs, ``benchmarks.peer_driver``): the same gather over their async paths, which
are LangChain's default thread-pool wrapper (``VertexAISearchRetriever``) and a coroutine that
runs the blocking call (``llama-index-retrievers-vertexai-search``). Baselines: one call (the
p50 of sequential sync calls, about the 20 ms delay) and, for ours, the plain sequential loop.

Each fan-out runs several times inside one event loop (as an application would: the channel
stays open); the first round warms up and is not counted. Target: ours within 3x one call.

Two floors take turns with ours: Google's raw ``SearchServiceAsyncClient`` alone, and the
thinnest async retriever of each framework around it (``benchmarks.thin_retrievers``: the
framework's run machinery, which ours cannot shed). Target (issue 21): our ratio (fan-out / one
call) within 1.2x the raw client's ratio, the "ratio of ratios" row.
``quick``: 8 queries, 5 ms delay, ours only (no peer virtualenv is created).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from benchmarks.common import Row
from benchmarks.emulator_process import EmulatorProcess
from benchmarks.peers import LANGCHAIN_PEER, LLAMAINDEX_PEER, PeerProcess
from benchmarks.thin_retrievers import (
    ThinLangChainRetriever,
    ThinLlamaIndexRetriever,
    raw_async_search_client,
    raw_search_client,
    raw_search_request,
)
from benchmarks.timing import median_ms, time_each
from grounding_emulator import BUILTIN_DATA_STORE
from langchain_grounding import DiscoveryEngineRetriever as LangChainRetriever
from llamaindex_grounding import DiscoveryEngineRetriever as LlamaIndexRetriever

NAME = "async_fanout"
PROJECT = "bench"
DATA_STORE = BUILTIN_DATA_STORE
K = 4
ROUNDS = 15
RATIO_TARGET = "<= 1.2x"
WORDS = ("for", "while", "yield", "lambda", "import", "raise", "with", "global")
PEERS = {
    "LangChain": (LANGCHAIN_PEER, "langchain-google-community"),
    "LlamaIndex": (LLAMAINDEX_PEER, "llama-index-retrievers-vertexai-search"),
}


def _queries(count: int) -> list[str]:
    return [f"{WORDS[i % len(WORDS)]} statement {i}" for i in range(count)]


AsyncCall = Callable[[str], Awaitable[Any]]
# A contender: its sync call (for the one-call baseline) and a factory of its async call, made
# inside the event loop (a grpc.aio channel belongs to the loop that made it).
Contender = tuple[Callable[[str], Any], Callable[[], AsyncCall]]


def _fanouts(
    contenders: dict[str, Contender], queries: Sequence[str], rounds: int
) -> dict[str, tuple[list[float], list[float]]]:
    """Per contender ``(singles, gathers)``. In each round every contender in turn (the order
    rotates) makes three single sync calls (the baseline, measured between the fan-outs), then
    one ``gather`` of its async call over ``queries``; one event loop throughout, the first
    round dropped."""

    async def main() -> dict[str, tuple[list[float], list[float]]]:
        acalls = {name: make() for name, (_, make) in contenders.items()}
        results: dict[str, tuple[list[float], list[float]]] = {n: ([], []) for n in contenders}
        names = list(contenders)
        for number in range(rounds + 1):
            shift = number % len(names)  # the order rotates: no one is always first
            for name in names[shift:] + names[:shift]:
                call = contenders[name][0]
                single = time_each(call, queries[:3])
                start = time.perf_counter()
                await asyncio.gather(*(acalls[name](query) for query in queries))
                if number:
                    results[name][0].extend(single)
                    results[name][1].append(time.perf_counter() - start)
        return results

    return asyncio.run(main())


def _raw(address: str, queries: list[str]) -> Contender:
    """The floor: Google's clients alone on the same requests (the results not even read)."""
    config = LangChainRetriever(project_id=PROJECT, data_store_id=DATA_STORE).target
    requests = {q: raw_search_request(config.serving_config_path, q, K) for q in queries}
    client = raw_search_client(address)

    def make_acall() -> AsyncCall:
        async_client = raw_async_search_client(address)
        return lambda q: async_client.search(request=requests[q])

    return (lambda q: client.search(request=requests[q]), make_acall)


def _thin(address: str) -> dict[str, Contender]:
    """The framework floors: the thinnest retriever of each around Google's raw clients."""
    config = LangChainRetriever(project_id=PROJECT, data_store_id=DATA_STORE).target
    serving_config = config.serving_config_path
    client = raw_search_client(address)
    langchain = ThinLangChainRetriever(client=client, serving_config=serving_config, k=K)
    llamaindex = ThinLlamaIndexRetriever(client, serving_config, K)

    def make_langchain() -> AsyncCall:
        async_client = raw_async_search_client(address)
        thin = ThinLangChainRetriever(
            client=client, serving_config=serving_config, k=K, async_client=async_client
        )
        return thin.ainvoke

    def make_llamaindex() -> AsyncCall:
        async_client = raw_async_search_client(address)
        thin = ThinLlamaIndexRetriever(client, serving_config, K, async_client)
        return thin.aretrieve

    return {
        "thin LangChain": (langchain.invoke, make_langchain),
        "thin LlamaIndex": (llamaindex.retrieve, make_llamaindex),
    }


def _peer_rows(framework: str, address: str, queries: list[str], rounds: int) -> list[Row]:
    env, peer_name = PEERS[framework]
    with PeerProcess(env) as peer:
        peer.call(
            "setup_retriever",
            framework=framework.lower(),
            address=address,
            project=PROJECT,
            data_store=DATA_STORE,
            serving_config="default_search",
            k=K,
        )
        reply = peer.call("fanout", queries=queries, repeat=rounds + 1)
    singles, gathers = reply["singles"][3:], reply["seconds"][1:]
    case = f"{framework}: {peer_name}, {len(queries)} concurrent"
    return [
        Row(NAME, case, "async gather wall", median_ms(gathers), "ms", median_ms(singles),
            "one call")
    ]  # fmt: skip


def _ours_rows(address: str, queries: list[str], rounds: int, label: str) -> list[Row]:
    langchain = LangChainRetriever(
        project_id=PROJECT, data_store_id=DATA_STORE, k=K, emulator_host=address
    )
    llamaindex = LlamaIndexRetriever(
        project_id=PROJECT, data_store_id=DATA_STORE, similarity_top_k=K, emulator_host=address
    )
    contenders: dict[str, Contender] = {
        "LangChain": (langchain.invoke, lambda: langchain.ainvoke),
        "LlamaIndex": (llamaindex.retrieve, lambda: llamaindex.aretrieve),
        "raw": _raw(address, queries),
        **_thin(address),
    }
    results = _fanouts(contenders, queries, rounds)
    # Each contender's fan-out as a multiple of its own single call.
    ratio = {name: median_ms(pair[1]) / median_ms(pair[0]) for name, pair in results.items()}
    singles, gathers = results["raw"]
    rows = [
        Row(NAME, f"raw SearchServiceAsyncClient (the floor), {label}", "async gather wall",
            median_ms(gathers), "ms", median_ms(singles), "one raw call"),
    ]  # fmt: skip
    for name in ("LangChain", "LlamaIndex"):
        singles, gathers = results[name]
        one = median_ms(singles)
        start = time.perf_counter()
        time_each(contenders[name][0], queries)
        sequential = (time.perf_counter() - start) * 1000
        case = f"{name}: ours, {label}"
        thin_singles, thin_gathers = results[f"thin {name}"]
        rows += [
            Row(NAME, case, "async gather wall", median_ms(gathers), "ms", one, "one call",
                "<= 3x"),
            Row(NAME, case, "sequential loop wall", sequential, "ms", one, "one call"),
            Row(NAME, f"{name}: thin async retriever (the framework floor), {label}",
                "async gather wall", median_ms(thin_gathers), "ms", median_ms(thin_singles),
                "one thin call"),
            Row(NAME, case, "ratio of ratios (gather / one call)", ratio[name], "x",
                ratio["raw"], "raw client's ratio", RATIO_TARGET),
            Row(NAME, case, "ratio of ratios (gather / one call)", ratio[name], "x",
                ratio[f"thin {name}"], "thin async retriever's ratio"),
        ]  # fmt: skip
    return rows


def run(quick: bool = False) -> list[Row]:
    """Fan-out rows for ours and the raw async client, taking turns (and the peers, unless
    ``quick``)."""
    count, delay, rounds = (8, 0.005, 1) if quick else (64, 0.02, ROUNDS)
    queries = _queries(count)
    label = f"{count} concurrent, {delay * 1000:.0f} ms delay"
    with EmulatorProcess(delays={"Search": delay}) as emulator:
        address = emulator.address
        rows = _ours_rows(address, queries, rounds, label)
        if quick:
            rows.append(Row(NAME, "peers skipped: --quick creates no peer virtualenv",
                            "async gather wall", 0.0, "ms"))  # fmt: skip
        else:
            for framework in PEERS:
                rows += _peer_rows(framework, address, queries, rounds)
    return rows
