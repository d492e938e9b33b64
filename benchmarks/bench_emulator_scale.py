"""The emulator at scale: ingest rate, index size, reload time, search latency and peak memory
at 1k, 10k and 100k chunks (and 1M on request: ``GROUNDING_BENCH_SCALE_SIZES=1000,1000000``).

Corpus: every docstring of the installed Python standard library (parsed with ``ast``, cut into
pieces of at most 1,000 characters, one chunk each), cycled with a copy number in the document id
when a size needs more pieces than there are (about 12k): the vocabulary and the posting lists
then grow with the size, as they do in a real corpus. The extraction is cached under
``$XDG_CACHE_HOME/grounding-kit/bench``.

Each size runs in two child processes of its own, so that each peak RSS is that of one size
and one role: the **ingest** process builds the snapshot (chunks per second of
``DataStore.build``: chunking, tokenizing, BM25) and saves it (the on-disk size); a fresh
**serve** process reloads the saved folder (``DataStore.load``, timed against the ingest of the
same run) and measures the search latency (top 10 chunks, relevance scores on) of queries drawn
from the corpus, in process (``search_engine.search``) beside the full gRPC round trip through
Google's ``SearchServiceClient``. A last pair of rows compares the two ways of building and
serializing a response: raw protobuf (what the servicers use) against proto-plus.

Sizes: ``SIZES`` by default, ``QUICK_SIZES`` with ``quick``, else the comma-separated chunk
counts of ``$GROUNDING_BENCH_SCALE_SIZES`` (1M takes minutes and about 3 GiB: not for
``make test``).
"""

from __future__ import annotations

import ast
import json
import os
import random
import resource
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from google.cloud import discoveryengine_v1 as de

from benchmarks.common import Row, percentile
from grounding_core import DiscoveryEngineConnection
from grounding_emulator import CorpusStore, DataStore, EmulatorServer
from grounding_emulator.corpus.builtin import BUILTIN_DATA_STORE, builtin_documents
from grounding_emulator.corpus.chunking import (
    DEFAULT_MAX_CHARS,
    blocks_from_plain_text,
    split_long_text,
)
from grounding_emulator.corpus.reading import SourceDocument
from grounding_emulator.corpus.records import Document
from grounding_emulator.search.engine import SearchParams, search
from grounding_emulator.wire.messages import ChunkNames, search_response

NAME = "emulator_scale"
SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (200,)
SIZES_VARIABLE = "GROUNDING_BENCH_SCALE_SIZES"
QUERIES = 200
QUICK_QUERIES = 20
SERVING_CONFIG = (
    "projects/bench/locations/global/collections/default_collection/dataStores/{store}/"
    "servingConfigs/default_search"
)


def _cache_file() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    version = sysconfig.get_python_version()
    return cache / "grounding-kit" / "bench" / f"stdlib-docstrings-{version}.jsonl"


def _extract() -> list[dict[str, str]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    pieces: list[dict[str, str]] = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith("site-packages"):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(
                node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
            ):
                continue
            docstring = ast.get_docstring(node)
            if not docstring or len(docstring) < 40:
                continue
            name = getattr(node, "name", relative)
            for piece in split_long_text(docstring, DEFAULT_MAX_CHARS - 10):
                pieces.append({"module": relative, "name": name, "text": piece})
    return pieces


def stdlib_pieces() -> list[dict[str, str]]:
    """Docstring pieces of the standard library (cached after the first run)."""
    cache = _cache_file()
    if cache.exists():
        with cache.open(encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]
    pieces = _extract()
    cache.parent.mkdir(parents=True, exist_ok=True)
    temporary = cache.with_suffix(".tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        for piece in pieces:
            handle.write(json.dumps(piece, ensure_ascii=False) + "\n")
    temporary.replace(cache)
    return pieces


def _documents(pieces: list[dict[str, str]], size: int) -> Iterator[SourceDocument]:
    for number in range(size):
        piece = pieces[number % len(pieces)]
        copy = number // len(pieces)
        text = piece["text"]
        document = Document(
            id=f"d{number}",
            uri=f"https://docs.python.org/3/library/{piece['module']}#{piece['name']}",
            title=piece["name"],
            content=text,
            struct_data={"module": piece["module"], "copy": copy},
        )
        yield SourceDocument(document, tuple(blocks_from_plain_text(text)))


def _queries(pieces: list[dict[str, str]], count: int) -> list[str]:
    rng = random.Random(1234)
    queries = []
    while len(queries) < count:
        words = [w for w in rng.choice(pieces)["text"].split() if w.isalpha() and len(w) > 3]
        if len(words) >= 2:
            queries.append(" ".join(rng.sample(words, min(len(words), rng.randint(2, 4)))))
    return queries


def _folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _latencies(func: object, queries: list[str]) -> list[float]:
    assert callable(func)
    for query in queries[:5]:
        func(query)
    times = []
    for query in queries:
        start = time.perf_counter()
        func(query)
        times.append(time.perf_counter() - start)
    return times


def grpc_search_latencies(
    store: CorpusStore, snapshot: DataStore, queries: list[str]
) -> list[float]:
    """Seconds of each ``query`` (10 chunks) from Google's client through a served
    ``snapshot`` (put into ``store``), retries off."""
    store.put(snapshot)
    with EmulatorServer(store) as server:
        connection = DiscoveryEngineConnection(emulator_host=server.address)
        client = connection.client(de.SearchServiceClient)
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

        return _latencies(round_trip, queries)


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _ingest(size: int, folder: Path, quick: bool) -> dict[str, Any]:
    """In the ingest child: build and save ``size`` chunks into ``folder``."""
    pieces = _pieces(quick)
    start = time.perf_counter()
    snapshot = DataStore.build("bench", _documents(pieces, size))
    build = time.perf_counter() - start
    start = time.perf_counter()
    snapshot.save(folder)
    save = time.perf_counter() - start
    return {
        "chunks": len(snapshot.chunks),
        "build": build,
        "save": save,
        "disk": _folder_bytes(folder),
        "peak_mib": _peak_mib(),
    }


def _serve(folder: Path, quick: bool) -> dict[str, Any]:
    """In the serve child: reload ``folder`` and time searches in process and over gRPC."""
    start = time.perf_counter()
    snapshot = DataStore.load(folder)
    load = time.perf_counter() - start
    queries = _queries(_pieces(quick), QUICK_QUERIES if quick else QUERIES)

    def in_process(query: str) -> None:
        search(snapshot, SearchParams(query=query, page_size=10, mode="chunks"))

    local = _latencies(in_process, queries)
    remote = grpc_search_latencies(CorpusStore(), snapshot, queries)
    return {"load": load, "local": local, "remote": remote, "peak_mib": _peak_mib()}


def _child(role: str, size: int, folder: Path, quick: bool) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.bench_emulator_scale", role, str(size)]
    command += [str(folder), *(["--quick"] if quick else [])]
    done = subprocess.run(
        command,
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"the {role} process of {size:,} chunks failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def _scale_rows(size: int, quick: bool) -> list[Row]:
    case = f"{size:,} chunks"
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "index"
        built = _child("ingest", size, folder, quick)
        served = _child("serve", size, folder, quick)
    build, save, load = built["build"], built["save"], served["load"]
    local, remote = served["local"], served["remote"]
    ms = 1000.0
    large = size >= 1_000_000
    return [
        Row(NAME, case, "ingest rate", built["chunks"] / build, "chunks/s"),
        Row(NAME, case, "index on disk", built["disk"] / 2**20, "MiB"),
        Row(NAME, case, "save + reload", (save + load) * ms, "ms", build * ms, "ingest"),
        Row(
            NAME,
            case,
            "reload (fresh process)",
            load * ms,
            "ms",
            build * ms,
            "ingest",
            "< 10 s at 1M" if large else "",
        ),
        Row(
            NAME,
            case,
            "search p50 (gRPC)",
            percentile(remote, 50) * ms,
            "ms",
            percentile(local, 50) * ms,
            "in-process",
            "< 20 ms" if size >= 100_000 else "",
        ),
        Row(
            NAME,
            case,
            "search p99 (gRPC)",
            percentile(remote, 99) * ms,
            "ms",
            percentile(local, 99) * ms,
            "in-process",
        ),
        Row(
            NAME,
            case,
            "peak RSS (ingest + save)",
            built["peak_mib"],
            "MiB",
            target="< 3 GiB at 1M" if large else "",
        ),
        Row(
            NAME,
            case,
            "peak RSS (reload + serve)",
            served["peak_mib"],
            "MiB",
            built["peak_mib"],
            "ingest process",
            "< 3 GiB at 1M" if large else "",
        ),
    ]


def _proto_plus_response(page: object, names: ChunkNames) -> de.SearchResponse:
    results = []
    for hit in page.hits:  # type: ignore[attr-defined]
        results.append(
            de.SearchResponse.SearchResult(
                id=hit.chunk.id,
                chunk=de.Chunk(
                    name=names.chunk(hit.document, hit.chunk),
                    id=hit.chunk.id,
                    content=hit.chunk.content,
                    relevance_score=hit.relevance,
                    document_metadata=de.Chunk.DocumentMetadata(
                        uri=hit.document.uri,
                        title=hit.document.title,
                        struct_data=dict(hit.document.struct_data),
                    ),
                ),
                rank_signals=de.SearchResponse.SearchResult.RankSignals(
                    keyword_similarity_score=hit.keyword_score,
                    relevance_score=hit.relevance,
                    default_rank=float(hit.rank),
                ),
            )
        )
    return de.SearchResponse(
        results=results,
        total_size=page.total_size,
        next_page_token=page.next_page_token,  # type: ignore[attr-defined]
    )


def _serializer_rows(repeat: int) -> list[Row]:
    store = CorpusStore()
    snapshot = store.ingest(BUILTIN_DATA_STORE, builtin_documents(), fingerprint="bench")
    page = search(snapshot, SearchParams(query="statement expression", page_size=10))
    names = ChunkNames("projects/p/locations/global/collections/default_collection/dataStores/d")
    request = de.SearchRequest(serving_config=SERVING_CONFIG.format(store="d"), query="x" * 40)
    raw_request = de.SearchRequest.serialize(request)
    pb_class = de.SearchRequest.pb()

    def raw() -> None:
        pb_class.FromString(raw_request)
        search_response(page, names, return_relevance_score=True, boosted=False).SerializeToString()

    def wrapped() -> None:
        de.SearchRequest.deserialize(raw_request)
        de.SearchResponse.serialize(_proto_plus_response(page, names))

    raw_times = _latencies(lambda _: raw(), ["x"] * repeat)
    plus_times = _latencies(lambda _: wrapped(), ["x"] * repeat)
    us = 1e6
    return [
        Row(
            NAME,
            "serializer (10 chunks)",
            "parse request + build + serialize",
            percentile(raw_times, 50) * us,
            "µs",
            percentile(plus_times, 50) * us,
            "proto-plus",
        )
    ]


def _pieces(quick: bool) -> list[dict[str, str]]:
    if not quick:
        return stdlib_pieces()
    return [
        {"module": s.document.id, "name": s.document.title, "text": b.text}
        for s in builtin_documents()
        for b in s.blocks
        if b.kind == "paragraph" and len(b.text) > 40
    ]


def sizes(quick: bool) -> tuple[int, ...]:
    """The sizes to run: ``QUICK_SIZES``, ``$GROUNDING_BENCH_SCALE_SIZES`` or ``SIZES``."""
    if quick:
        return QUICK_SIZES
    given = os.environ.get(SIZES_VARIABLE, "").strip()
    if not given:
        return SIZES
    try:
        chosen = tuple(int(part.replace("_", "")) for part in given.split(","))
    except ValueError as exc:
        raise ValueError(
            f"{SIZES_VARIABLE}={given!r}: give chunk counts separated by commas, e.g. 1000,1000000"
        ) from exc
    if any(size <= 0 for size in chosen):
        raise ValueError(f"{SIZES_VARIABLE}={given!r}: every chunk count must be positive")
    return chosen


def run(quick: bool = False) -> list[Row]:
    """Rows for every size (``quick``: one tiny size, few queries), each size in child
    processes of its own."""
    rows: list[Row] = []
    for size in sizes(quick):
        rows.extend(_scale_rows(size, quick))
    rows.extend(_serializer_rows(20 if quick else 300))
    return rows


def _main(argv: list[str]) -> None:
    """The child processes: ``ingest SIZE FOLDER [--quick]`` or ``serve SIZE FOLDER``; the
    result is the last line of stdout, as JSON."""
    role, size, folder = argv[0], int(argv[1]), Path(argv[2])
    quick = "--quick" in argv[3:]
    result = _ingest(size, folder, quick) if role == "ingest" else _serve(folder, quick)
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    _main(sys.argv[1:])
