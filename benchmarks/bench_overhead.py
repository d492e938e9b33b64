"""Overhead over the physical floor: our retrievers against Google's raw client.

On one emulator (a child process, BM25 search over the built-in ``python-docs`` store), for
k = 10 and k = 100 chunks, the same ``SearchRequest`` sent five ways, taking turns
(``benchmarks.timing.interleaved``):

- ``raw``: ``SearchServiceClient.search`` alone (the physical floor: gRPC, parsing);
- ``thin LangChain`` / ``thin LlamaIndex``: the thinnest retriever of each framework around that
  raw call, content only (``benchmarks.thin_retrievers``): the framework's own floor;
- ``ours``: ``langchain_grounding.DiscoveryEngineRetriever.invoke`` and
  ``llamaindex_grounding.DiscoveryEngineRetriever.retrieve``, which also keep every chunk field
  as metadata (ids, URI, title, struct data, scores, rank signals) and send a retry policy and
  a timeout.

Target (issue 7): ours at most 1.15x the framework's floor.
"""

from __future__ import annotations

from collections.abc import Callable

from benchmarks.common import Row
from benchmarks.emulator_process import EmulatorProcess
from benchmarks.thin_retrievers import (
    ThinLangChainRetriever,
    ThinLlamaIndexRetriever,
    raw_search_client,
    raw_search_request,
)
from benchmarks.timing import interleaved, median_ms
from grounding_core import ChunkSearchSpec, DiscoveryEngineTarget
from grounding_core.search.discovery_engine import search_request
from grounding_emulator import BUILTIN_DATA_STORE
from langchain_grounding import DiscoveryEngineRetriever as LangChainRetriever
from llamaindex_grounding import DiscoveryEngineRetriever as LlamaIndexRetriever

NAME = "overhead"
PROJECT = "bench"
DATA_STORE = BUILTIN_DATA_STORE
# Matches well over 100 chunks of the built-in store, so that k = 100 returns 100.
QUERY = "the statement"
SIZES = (10, 100)
TARGET = "<= 1.15x"


def _contenders(address: str, k: int) -> dict[str, Callable[[], object]]:
    target = DiscoveryEngineTarget(project=PROJECT, data_store=DATA_STORE)
    config = target.serving_config_path
    client = raw_search_client(address)
    request = raw_search_request(config, QUERY, k)
    langchain = LangChainRetriever(
        project_id=PROJECT, data_store_id=DATA_STORE, k=k, emulator_host=address
    )
    llamaindex = LlamaIndexRetriever(
        project_id=PROJECT, data_store_id=DATA_STORE, similarity_top_k=k, emulator_host=address
    )
    for spec in (ChunkSearchSpec(k=k), llamaindex.spec):
        ours = search_request(langchain.target, QUERY, spec)
        if ours.SerializeToString() != type(request).serialize(request):
            raise AssertionError(f"not the same request:\n{ours}\n!=\n{request}")
    thin_langchain = ThinLangChainRetriever(client=client, serving_config=config, k=k)
    thin_llamaindex = ThinLlamaIndexRetriever(client, config, k)
    if len(langchain.invoke(QUERY)) != k or len(thin_llamaindex.retrieve(QUERY)) != k:
        raise AssertionError(f"the query {QUERY!r} returns fewer than {k} chunks")
    return {
        "raw": lambda: client.search(request=request),
        "thin LangChain": lambda: thin_langchain.invoke(QUERY),
        "LangChain": lambda: langchain.invoke(QUERY),
        "thin LlamaIndex": lambda: thin_llamaindex.retrieve(QUERY),
        "LlamaIndex": lambda: llamaindex.retrieve(QUERY),
    }


def _rows(k: int, times: dict[str, list[float]]) -> list[Row]:
    case = f"k={k} chunks"
    p50 = {name: median_ms(samples) for name, samples in times.items()}
    rows = [Row(NAME, case, "raw client.search p50", p50["raw"], "ms")]
    for framework, call in (("LangChain", "invoke"), ("LlamaIndex", "retrieve")):
        rows += [
            Row(NAME, case, f"{framework} {call} p50", p50[framework], "ms",
                p50[f"thin {framework}"], f"thin {framework}", TARGET),
            Row(NAME, case, f"{framework} {call} p50", p50[framework], "ms", p50["raw"],
                "raw search"),
        ]  # fmt: skip
    return rows


def run(quick: bool = False) -> list[Row]:
    """Rows for k = 10 and k = 100 (``quick``: a few calls each)."""
    rounds, block = (2, 2) if quick else (60, 5)
    rows: list[Row] = []
    with EmulatorProcess() as emulator:
        for k in SIZES:
            times = interleaved(_contenders(emulator.address, k), rounds=rounds, block=block)
            rows += _rows(k, times)
    return rows
