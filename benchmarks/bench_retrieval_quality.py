"""Retrieval quality and cost of the emulator's hybrid search against plain BM25, in one run.

Quality: recall@5 and MRR@10 on the retrieval evaluation set (:mod:`grounding_emulator.search.eval`)
over the built-in corpus, for BM25 and for the hybrid (when the ``semantic`` extra is installed),
on the whole set and on each of its splits.

Cost (hybrid only):

- the model's load time and per-query embedding time;
- ingest of the built-in corpus: BM25 alone, hybrid with no vector cached (every chunk and
  sentence embedded: the first run on a machine) and hybrid with every vector cached;
- start-up of a fresh process that serves the built-in corpus (``EmulatorServer()``), with an
  empty and with a warm embedding cache;
- an answer (``AnswerQuery``'s engine, in process) per question of the evaluation set;
- search p50 through gRPC (Google's ``SearchServiceClient``, top 10 chunks) at 10k chunks of
  standard-library docstrings (``bench_emulator_scale``'s corpus) with real vectors (embedded
  once, then read from the embedding cache: the first run takes minutes), and at 100k chunks
  with random unit vectors (the search cost does not depend on the vectors' values; the query
  is embedded by the real model).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_emulator_scale import (
    _documents,
    _folder_bytes,
    _latencies,
    _queries,
    grpc_search_latencies,
    stdlib_pieces,
)
from benchmarks.common import Row, percentile
from grounding_emulator import CorpusStore, DataStore, LexicalJudge
from grounding_emulator.answer.engine import AnswerParams, generate_answer
from grounding_emulator.corpus.builtin import (
    BUILTIN_DATA_STORE,
    builtin_documents,
    builtin_fingerprint,
)
from grounding_emulator.corpus.embedding_cache import CACHE_ENV, EmbeddingCache
from grounding_emulator.corpus.embeddings import (
    CachingEmbedder,
    Embedder,
    MiniLmEmbedder,
    default_embedder,
    sentence_texts,
)
from grounding_emulator.corpus.semantic_index import SemanticIndex
from grounding_emulator.search.eval import SPLITS, evaluate, load_questions

NAME = "retrieval_quality"
LATENCY_SIZES = (10_000, 100_000)
QUICK_LATENCY_SIZES = (200,)
QUERIES = 200
QUICK_QUERIES = 20
MS = 1000.0
_STARTUP = (
    "import time; started = time.perf_counter()\n"
    "from grounding_emulator import EmulatorServer\n"
    "with EmulatorServer() as server:\n"
    f"    assert server.store.get({BUILTIN_DATA_STORE!r}).semantic is not None\n"
    "    print(time.perf_counter() - started)\n"
)


def _quality_rows(bm25: DataStore, hybrid: DataStore | None) -> list[Row]:
    rows = []
    for split, label in ((None, "all"), *SPLITS):
        questions = load_questions(split=split)
        case = f"{label} ({len(questions)} questions)"
        plain = evaluate(bm25, questions)
        if hybrid is None:
            rows.append(Row(NAME, case, "recall@5 (BM25)", plain.recall_at_5, ""))
            rows.append(Row(NAME, case, "MRR@10 (BM25)", plain.mrr_at_10, ""))
            continue
        mixed = evaluate(hybrid, questions)
        rows.append(
            Row(
                NAME,
                case,
                "recall@5 (hybrid)",
                mixed.recall_at_5,
                "",
                plain.recall_at_5,
                "BM25",
                ">= 0.95",
            )
        )
        rows.append(
            Row(
                NAME,
                case,
                "MRR@10 (hybrid)",
                mixed.mrr_at_10,
                "",
                plain.mrr_at_10,
                "BM25",
                ">= 0.85",
            )
        )
    return rows


def _grpc_p50(snapshot: DataStore, queries: list[str]) -> float:
    latencies = grpc_search_latencies(CorpusStore(semantic=False), snapshot, queries)
    return percentile(latencies, 50) * MS


def _random_semantic(embedder: Embedder, snapshot: DataStore) -> SemanticIndex:
    """Random unit vectors, one per chunk and one per sentence of a chunk."""
    rng = np.random.default_rng(7)

    def unit(count: int) -> np.ndarray:
        rows = rng.standard_normal((count, 384)).astype(np.float32)
        normalized: np.ndarray = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        return normalized

    counts = [len(sentence_texts(c)) for c in snapshot.chunks]
    owners = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
    keys = [i.to_bytes(16, "little") for i in range(len(owners))]
    return SemanticIndex(
        embedder, unit(len(counts)), unit(len(owners)).astype(np.float16), owners, keys
    )


def _latency_rows(
    embedder: Embedder, size: int, pieces: list[dict[str, str]], queries: list[str]
) -> list[Row]:
    case = f"{size:,} chunks"
    bm25 = DataStore.build(f"bench{size}", _documents(pieces, size))
    if size <= 10_000:
        hybrid, note = (
            DataStore.build(f"bench{size}", _documents(pieces, size), embedder=embedder),
            "",
        )
    else:
        hybrid, note = bm25.with_semantic(_random_semantic(embedder, bm25)), ", random vectors"
    plain_p50 = _grpc_p50(bm25, queries)
    hybrid_p50 = _grpc_p50(hybrid, queries)
    target = "< 20 ms" if size >= 10_000 else ""
    return [
        Row(
            NAME,
            case,
            f"search p50 (gRPC, hybrid{note})",
            hybrid_p50,
            "ms",
            plain_p50,
            "BM25",
            target,
        )
    ]


def _startup_seconds(cache: Path) -> float:
    """Seconds for a fresh process to import the emulator and serve the built-in corpus."""
    environment = {**os.environ, CACHE_ENV: str(cache)}
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parents[1]), environment.get("PYTHONPATH", "")]
    )
    done = subprocess.run(
        [sys.executable, "-c", _STARTUP],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return float(done.stdout.strip().splitlines()[-1])


def _answer_p50(snapshot: DataStore) -> float:
    questions = [q.question for q in load_questions()]
    times = []
    for question in questions:
        started = time.perf_counter()
        generate_answer(snapshot, AnswerParams(query=question), LexicalJudge())
        times.append(time.perf_counter() - started)
    return percentile(times, 50) * MS


def _cost_rows(bm25_store: DataStore) -> list[Row]:
    rows = []
    started = time.perf_counter()
    model = MiniLmEmbedder()  # uncached: measures the model's real work below
    rows.append(Row(NAME, "model", "load time", (time.perf_counter() - started) * MS, "ms"))
    questions = [q.question for q in load_questions()]
    times = _latencies(model.embed_query, questions)
    rows.append(Row(NAME, "model", "query embedding p50", percentile(times, 50) * MS, "ms"))

    sources = list(builtin_documents())
    started = time.perf_counter()
    bm25 = DataStore.build(BUILTIN_DATA_STORE, sources)
    bm25_seconds = time.perf_counter() - started
    case = f"built-in corpus ({len(bm25.chunks)} chunks)"
    with tempfile.TemporaryDirectory() as folder:
        cache = EmbeddingCache(Path(folder) / "cache", model.model_id, model.dimension)
        started = time.perf_counter()
        cold = DataStore.build(
            BUILTIN_DATA_STORE, sources, embedder=CachingEmbedder(model, cache=cache)
        )
        cold_seconds = time.perf_counter() - started
        cache.flush()
        warm_cache = EmbeddingCache(Path(folder) / "cache", model.model_id, model.dimension)
        started = time.perf_counter()
        warm = DataStore.build(
            BUILTIN_DATA_STORE, sources, embedder=CachingEmbedder(model, cache=warm_cache)
        )
        warm_seconds = time.perf_counter() - started
        assert cold.semantic is not None
        texts = len(cold.chunks) + cold.semantic.sentence_count
        rows.append(
            Row(
                NAME,
                case,
                f"ingest (hybrid, nothing cached: {texts} texts embedded)",
                cold_seconds,
                "s",
                bm25_seconds,
                "BM25",
            )
        )
        rows.append(Row(NAME, case, "ingest (hybrid, every vector cached)", warm_seconds, "s"))
        # Questions this embedder has not seen: each answer embeds its query.
        rows.append(
            Row(
                NAME,
                case,
                "answer p50 (hybrid, new queries)",
                _answer_p50(warm),
                "ms",
                _answer_p50(bm25_store),
                "BM25",
            )
        )
        bm25.save(Path(folder) / "bm25")
        cold.save(Path(folder) / "hybrid")
        rows.append(
            Row(
                NAME,
                case,
                "index on disk (hybrid)",
                _folder_bytes(Path(folder) / "hybrid") / 2**20,
                "MiB",
                _folder_bytes(Path(folder) / "bm25") / 2**20,
                "BM25",
            )
        )
        startup = Path(folder) / "startup-cache"
        cold_start = _startup_seconds(startup)
        warm_start = _startup_seconds(startup)
        rows.append(
            Row(
                NAME,
                "new process, EmulatorServer()",
                "start-up (warm vector cache)",
                warm_start,
                "s",
                cold_start,
                "empty cache",
                "about 1 s",
            )
        )
    return rows


def run(quick: bool = False) -> list[Row]:
    """Quality rows for BM25 and (when installed) the hybrid; cost rows for the hybrid."""
    embedder = default_embedder()
    bm25 = CorpusStore(semantic=False).ingest(
        BUILTIN_DATA_STORE, builtin_documents(), fingerprint=builtin_fingerprint()
    )
    hybrid = None
    if embedder is not None:
        hybrid = CorpusStore(semantic=embedder).ingest(
            BUILTIN_DATA_STORE, builtin_documents(), fingerprint=builtin_fingerprint()
        )
    rows = _quality_rows(bm25, hybrid)
    if embedder is None or hybrid is None:
        return rows
    if not quick:
        rows.extend(_cost_rows(bm25))
    if quick:
        pieces = [
            {"module": s.document.id, "name": s.document.title, "text": b.text}
            for s in builtin_documents()
            for b in s.blocks
            if b.kind == "paragraph" and len(b.text) > 40
        ]
    else:
        pieces = stdlib_pieces()
    queries = _queries(pieces, QUICK_QUERIES if quick else QUERIES)
    for size in QUICK_LATENCY_SIZES if quick else LATENCY_SIZES:
        rows.extend(_latency_rows(embedder, size, pieces, queries))
    return rows
