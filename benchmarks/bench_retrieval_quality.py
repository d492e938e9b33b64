"""Retrieval quality and cost of the emulator's hybrid search against plain BM25, in one run.

Quality: recall@5 and MRR@10 on the retrieval evaluation set (``retrieval_eval.py``) over the
built-in corpus, for BM25 and for the hybrid (when the ``semantic`` extra is installed), on the
whole set and on its design and held-out parts.

Cost: the model's load time and per-query embedding time; ingest time and index size of the
built-in corpus; search p50 through gRPC (Google's ``SearchServiceClient``, top 10 chunks) at
10k chunks of standard-library docstrings (``bench_emulator_scale``'s corpus) with real chunk
vectors (cached under ``$XDG_CACHE_HOME/grounding-kit/bench`` after the first run: embedding
10k chunks takes minutes), and at 100k chunks with random unit vectors (the search cost does not
depend on the vectors' values; the query is embedded by the real model).
"""

from __future__ import annotations

import dataclasses
import hashlib
import tempfile
import time
from pathlib import Path

import numpy as np
from google.cloud import discoveryengine_v1 as de

from benchmarks.bench_emulator_scale import (
    SERVING_CONFIG,
    _cache_file,
    _documents,
    _folder_bytes,
    _latencies,
    _queries,
    stdlib_pieces,
)
from benchmarks.common import Row, percentile
from benchmarks.retrieval_eval import evaluate, load_questions
from grounding_core.emulator import CorpusStore, DataStore, EmulatorServer
from grounding_core.emulator.builtin import builtin_documents, builtin_fingerprint
from grounding_core.emulator.embeddings import (
    Embedder,
    MiniLmEmbedder,
    default_embedder,
    passage_text,
)
from grounding_core.emulator.semantic_index import SemanticIndex

NAME = "retrieval_quality"
LATENCY_SIZES = (10_000, 100_000)
QUICK_LATENCY_SIZES = (200,)
QUERIES = 200
QUICK_QUERIES = 20
MS = 1000.0


def _quality_rows(bm25: DataStore, hybrid: DataStore | None) -> list[Row]:
    rows = []
    for split, label in ((None, "all"), ("design", "design"), ("heldout", "held-out")):
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


def _vectors(embedder: Embedder, snapshot: DataStore) -> np.ndarray:
    """Chunk vectors of ``snapshot`` (cached on disk by model and passage texts)."""
    passages = [passage_text(snapshot.documents[c.document_index], c) for c in snapshot.chunks]
    digest = hashlib.sha256(embedder.model_id.encode())
    for passage in passages:
        digest.update(passage.encode("utf-8", "surrogatepass") + b"\0")
    cache = _cache_file().with_name(f"vectors-{digest.hexdigest()[:20]}.npy")
    if cache.exists():
        return np.load(cache).astype(np.float32)
    vectors = embedder.embed_passages(passages)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors.astype(np.float16))
    return vectors


def _grpc_p50(snapshot: DataStore, queries: list[str]) -> float:
    store = CorpusStore(semantic=False)
    store.put(snapshot)
    with EmulatorServer(store) as server:
        client = server.discovery_engine_clients().search()
        config = SERVING_CONFIG.format(store=snapshot.id)

        def round_trip(query: str) -> None:
            client.search(
                request=de.SearchRequest(
                    serving_config=config,
                    query=query,
                    page_size=10,
                    content_search_spec={"search_result_mode": "CHUNKS"},
                    relevance_score_spec={"return_relevance_score": True},
                ),
                retry=None,
                timeout=30,
            )

        return percentile(_latencies(round_trip, queries), 50) * MS


def _latency_rows(
    embedder: Embedder, size: int, pieces: list[dict[str, str]], queries: list[str]
) -> list[Row]:
    case = f"{size:,} chunks"
    bm25 = DataStore.build(f"bench{size}", _documents(pieces, size))
    if size <= 10_000:
        vectors, note = _vectors(embedder, bm25), ""
    else:
        rng = np.random.default_rng(7)
        vectors = rng.standard_normal((len(bm25.chunks), 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        note = ", random vectors"
    hybrid = dataclasses.replace(bm25, semantic=SemanticIndex(embedder, vectors))
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


def _cost_rows(embedder: Embedder) -> list[Row]:
    rows = []
    started = time.perf_counter()
    fresh = MiniLmEmbedder()  # uncached: measures the model's real work below
    rows.append(Row(NAME, "model", "load time", (time.perf_counter() - started) * MS, "ms"))
    questions = [q.question for q in load_questions()]
    times = _latencies(embedder.embed_query, questions)
    rows.append(Row(NAME, "model", "query embedding p50", percentile(times, 50) * MS, "ms"))

    sources = list(builtin_documents())
    started = time.perf_counter()
    bm25 = DataStore.build("python-docs", sources)
    bm25_seconds = time.perf_counter() - started
    started = time.perf_counter()
    hybrid = DataStore.build("python-docs", sources, embedder=fresh)
    hybrid_seconds = time.perf_counter() - started
    case = f"built-in corpus ({len(bm25.chunks)} chunks)"
    rows.append(Row(NAME, case, "ingest time (hybrid)", hybrid_seconds, "s", bm25_seconds, "BM25"))
    with tempfile.TemporaryDirectory() as folder:
        bm25.save(Path(folder) / "bm25")
        hybrid.save(Path(folder) / "hybrid")
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
    return rows


def run(quick: bool = False) -> list[Row]:
    """Quality rows for BM25 and (when installed) the hybrid; cost rows for the hybrid."""
    embedder = default_embedder()
    bm25 = CorpusStore(semantic=False).ingest(
        "python-docs", builtin_documents(), fingerprint=builtin_fingerprint()
    )
    hybrid = None
    if embedder is not None:
        hybrid = CorpusStore(semantic=embedder).ingest(
            "python-docs", builtin_documents(), fingerprint=builtin_fingerprint()
        )
    rows = _quality_rows(bm25, hybrid)
    if embedder is None:
        return rows
    if not quick:
        rows.extend(_cost_rows(embedder))
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
