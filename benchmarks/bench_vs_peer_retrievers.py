"""Our retrievers against the existing ones, on the same chunk-mode data store and queries.

Peers: ``langchain-google-community`` 5.1.1 ``VertexAISearchRetriever`` and
``llama-index-retrievers-vertexai-search`` 0.5.0, each in its own virtualenv
(``benchmarks.peer_venvs``), connected to the same emulator process as ours
(``benchmarks.peer_driver`` says exactly how). Neither has a chunk mode: they send a document
search asking for one extractive segment per document and turn each segment into a Document or
node. That is what they offer against a chunk-mode data store, and what is measured.

- Latency: the p50 of one call (k = 10) over the same queries, ours and the peer's taking turns
  (a first round warms both up).
- Fields: which of the chunk's fields (``benchmarks.field_survival.FIELDS``) survive into the
  framework objects returned for the first query; the truth is the chunk-mode search result.

``quick``: ours only (no peer virtualenv is created); the rows say so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.common import Row
from benchmarks.emulator_process import EmulatorProcess
from benchmarks.field_survival import FIELDS, survival
from benchmarks.peer_driver import plain_object
from benchmarks.peers import LANGCHAIN_PEER, LLAMAINDEX_PEER, PeerProcess
from benchmarks.timing import median_ms, time_each
from grounding_core import DiscoveryEngineChunkSearch, DiscoveryEngineConnection, SourceChunk
from grounding_emulator import BUILTIN_DATA_STORE
from langchain_grounding import DiscoveryEngineRetriever as LangChainRetriever
from llamaindex_grounding import DiscoveryEngineRetriever as LlamaIndexRetriever

NAME = "vs_peer_retrievers"
PROJECT = "bench"
DATA_STORE = BUILTIN_DATA_STORE
SERVING_CONFIG = "default_search"
K = 10
ROUNDS = 12
QUERIES = (
    "the statement",
    "how does a for loop iterate",
    "raise an exception with a traceback",
    "with statement context manager exit",
    "lambda expression anonymous function",
    "global and nonlocal names",
    "yield in a generator function",
    "import a module from a package",
)
PEERS = {
    "LangChain": (LANGCHAIN_PEER, "langchain-google-community"),
    "LlamaIndex": (LLAMAINDEX_PEER, "llama-index-retrievers-vertexai-search"),
}


def _truth(address: str) -> list[SourceChunk]:
    """Every chunk the first query matches, as a chunk-mode search returns it."""
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=address)
    search = DiscoveryEngineChunkSearch(connection, data_store_id=DATA_STORE, k=1000)
    try:
        return search.search(QUERIES[0])
    finally:
        connection.close()


def _ours(address: str) -> dict[str, Callable[[str], Sequence[Any]]]:
    """Per framework, our retriever's call."""
    langchain = LangChainRetriever(
        project_id=PROJECT, data_store_id=DATA_STORE, k=K, emulator_host=address
    )
    llamaindex = LlamaIndexRetriever(
        project_id=PROJECT, data_store_id=DATA_STORE, similarity_top_k=K, emulator_host=address
    )
    return {"LangChain": langchain.invoke, "LlamaIndex": llamaindex.retrieve}


def _fields_row(framework: str, who: str, objects: Sequence[Any], truth: list[SourceChunk]) -> Row:
    kept, lost = survival(objects, truth)
    detail = f"lost: {', '.join(lost)}" if lost else "all kept"
    return Row(NAME, f"{framework}: {who} ({detail})", "chunk fields kept", len(kept),
               f"of {len(FIELDS)}")  # fmt: skip


def _ours_fields(
    framework: str, call: Callable[[str], Sequence[Any]], truth: list[SourceChunk]
) -> Row:
    objects = [plain_object(item) for item in call(QUERIES[0])]
    return _fields_row(framework, "ours", objects, truth)


def _quick(address: str) -> list[Row]:
    truth = _truth(address)
    rows = []
    for framework, call in _ours(address).items():
        call(QUERIES[0])
        case = f"{framework}, k={K} (peer skipped: --quick creates no peer virtualenv)"
        rows += [
            Row(NAME, case, "p50 latency", median_ms(time_each(call, QUERIES[:3])), "ms"),
            _ours_fields(framework, call, truth),
        ]
    return rows


def _start_peer(framework: str, address: str) -> PeerProcess:
    peer = PeerProcess(PEERS[framework][0]).start()
    peer.call(
        "setup_retriever",
        framework=framework.lower(),
        address=address,
        project=PROJECT,
        data_store=DATA_STORE,
        serving_config=SERVING_CONFIG,
        k=K,
    )
    return peer


def _compare(
    framework: str, call: Callable[[str], Sequence[Any]], address: str
) -> tuple[list[float], list[float], list[dict[str, Any]]]:
    """Our and the peer's call latencies (taking turns), and the peer's objects."""
    peer = _start_peer(framework, address)
    ours: list[float] = []
    theirs: list[float] = []
    try:
        for round_number in range(ROUNDS + 1):
            samples = time_each(call, QUERIES)
            reply = peer.call("retrieve", queries=list(QUERIES))
            if round_number:
                ours += samples
                theirs += reply["seconds"]
    finally:
        peer.stop()
    return ours, theirs, reply["objects"]


def run(quick: bool = False) -> list[Row]:
    """Latency and field rows per framework (``quick``: ours only)."""
    with EmulatorProcess() as emulator:
        if quick:
            return _quick(emulator.address)
        truth = _truth(emulator.address)
        rows: list[Row] = []
        for framework, call in _ours(emulator.address).items():
            ours, theirs, objects = _compare(framework, call, emulator.address)
            peer_name = PEERS[framework][1]
            rows += [
                Row(NAME, f"{framework}, k={K}, {len(QUERIES)} queries", "p50 latency",
                    median_ms(ours), "ms", median_ms(theirs), peer_name),
                _ours_fields(framework, call, truth),
                _fields_row(framework, peer_name, objects, truth),
            ]  # fmt: skip
    return rows
