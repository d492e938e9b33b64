"""The ``grounding`` command: run the emulator, ingest a corpus, search, answer and check.

::

    grounding serve [--corpus [ID=]PATH]... [--data-store ID] [--engine E=D]... [--port 8123]
    grounding ingest --corpus PATH --data-store ID [--state-dir DIR]
    grounding search "what is a generator?" [--emulator localhost:8123] [--engine ID]
    grounding answer "how do I open a file?" [--emulator localhost:8123]
    grounding check "Paris is in France." --fact "Paris is the capital of France."

``serve`` binds to 127.0.0.1 (another address needs ``--allow-remote``) and always serves the
built-in Python docs as ``python-docs`` (engine ``python-docs-app``) unless ``--no-builtin``.
Indexes are kept in ``--state-dir`` (default ``$XDG_CACHE_HOME/grounding-kit/emulator``) and
reloaded without re-ingesting while the corpus is unchanged. ``search``, ``answer`` and ``check``
call the core functions, on the emulator given by ``--emulator`` or
``$DISCOVERYENGINE_EMULATOR_HOST``, else on Google Cloud.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

if TYPE_CHECKING:
    from .clients import DiscoveryEngineClients
    from .emulator.datastore import ProgressCallback
    from .emulator.store import CorpusStore
    from .settings import CallOptions, DiscoveryEngineTarget

__all__ = ["build_parser", "default_state_dir", "main"]

logger = logging.getLogger(__name__)

_SLUG = re.compile(r"[^A-Za-z0-9_-]+")


def default_state_dir() -> Path:
    """``$XDG_CACHE_HOME/grounding-kit/emulator`` (``~/.cache/...`` when unset)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "grounding-kit" / "emulator"


def _pair(value: str, what: str) -> tuple[str, str]:
    key, sep, rest = value.partition("=")
    if not sep or not key or not rest:
        raise argparse.ArgumentTypeError(f"{what} must look like A=B, got {value!r}")
    return key, rest


def _engine(value: str) -> tuple[str, str]:
    return _pair(value, "--engine")


def _store_id_for(path: Path) -> str:
    stem = path.stem if path.is_file() else path.name
    return _SLUG.sub("-", stem).strip("-_").lower()[:63] or "corpus"


def _corpora(args: argparse.Namespace) -> list[tuple[str, Path]]:
    corpora: list[tuple[str, Path]] = []
    for value in args.corpus or []:
        key, sep, rest = value.partition("=")
        if sep and key and rest and not Path(value).exists():
            corpora.append((key, Path(rest)))
        else:
            path = Path(value)
            corpora.append((args.data_store or _store_id_for(path), path))
    if args.data_store and len(corpora) > 1:
        raise SystemExit("--data-store names one corpus; with several, write --corpus ID=PATH")
    return corpora


@contextmanager
def _progress(console: Console, label: str) -> Iterator[ProgressCallback]:
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        tasks: dict[str, TaskID] = {}

        def report(phase: str, done: int, total: int) -> None:
            task = tasks.get(phase)
            if task is None:
                task = tasks[phase] = progress.add_task(f"{label}: {phase}", total=total or None)
            progress.update(task, completed=done, total=total or None)

        yield report


def _store(args: argparse.Namespace) -> CorpusStore:
    from .emulator.store import CorpusStore

    state_dir = None if args.no_state else Path(args.state_dir or default_state_dir())
    return CorpusStore(state_dir, max_chunk_chars=args.max_chunk_chars)


def _ingest_all(args: argparse.Namespace, console: Console, *, builtin: bool) -> CorpusStore:
    store = _store(args)
    if builtin:
        with _progress(console, "python-docs") as report:
            store.add_builtin(on_progress=report)
    for data_store_id, path in _corpora(args):
        with _progress(console, data_store_id) as report:
            snapshot = store.ingest(
                data_store_id,
                path,
                base_uri=args.base_uri,
                reuse=not getattr(args, "force", False),
                on_progress=report,
            )
        console.print(
            f"[green]data store[/] {data_store_id}: {len(snapshot.documents)} documents, "
            f"{len(snapshot.chunks)} chunks"
        )
    return store


def _cmd_serve(args: argparse.Namespace, console: Console) -> int:
    from .emulator.server import EmulatorServer

    store = _ingest_all(args, console, builtin=not args.no_builtin)
    for engine_id, data_store_id in args.engine or []:
        store.add_engine(engine_id, data_store_id)
    server = EmulatorServer(
        store,
        host=args.host,
        port=args.port,
        allow_remote=args.allow_remote,
        developer_knowledge_data_store=args.developer_knowledge_store,
    )
    server.start()

    def stop(signum: int, frame: FrameType | None) -> None:
        server.stop()

    signal.signal(signal.SIGTERM, stop)
    table = Table(title=f"emulator listening on {server.address}", show_header=True)
    table.add_column("data store")
    table.add_column("documents", justify="right")
    table.add_column("chunks", justify="right")
    table.add_column("engines")
    for data_store_id in store.data_store_ids:
        snapshot = store.get(data_store_id)
        engines = ", ".join(e for e, d in sorted(store.engines.items()) if d == data_store_id)
        table.add_row(
            data_store_id, str(len(snapshot.documents)), str(len(snapshot.chunks)), engines
        )
    console.print(table)
    console.print(
        f"export DISCOVERYENGINE_EMULATOR_HOST={server.address} "
        f"DEVELOPERKNOWLEDGE_EMULATOR_HOST={server.address}"
    )
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        console.print("stopping")
    finally:
        server.stop()
    return 0


def _cmd_ingest(args: argparse.Namespace, console: Console) -> int:
    if not args.corpus:
        raise SystemExit("ingest needs --corpus PATH")
    _ingest_all(args, console, builtin=False)
    return 0


def _target(args: argparse.Namespace, emulator: bool) -> DiscoveryEngineTarget:
    from .settings import DiscoveryEngineTarget, resolve_project

    project = resolve_project(args.project, emulator=emulator)
    if args.engine_id:
        return DiscoveryEngineTarget(project=project, engine=args.engine_id, location=args.location)
    return DiscoveryEngineTarget(
        project=project, data_store=args.data_store or "python-docs", location=args.location
    )


def _clients(args: argparse.Namespace) -> DiscoveryEngineClients:
    from .clients import DiscoveryEngineClients

    return DiscoveryEngineClients(location=args.location, emulator_host=args.emulator)


def _options(args: argparse.Namespace) -> CallOptions:
    from .settings import CallOptions

    return CallOptions(timeout=args.timeout)


def _cmd_search(args: argparse.Namespace, console: Console) -> int:
    from .search import search_chunks
    from .specs import ChunkSearchSpec

    clients = _clients(args)
    target = _target(args, clients.uses_emulator)
    spec = ChunkSearchSpec(k=args.k, filter=args.filter, mode=args.mode)
    chunks = search_chunks(clients, target, args.query, spec, _options(args))
    if args.json:
        console.print_json(json.dumps([c.to_dict() for c in chunks], ensure_ascii=False))
        return 0
    table = Table(title=f"{len(chunks)} results for {args.query!r}")
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("title / uri")
    table.add_column("content")
    for number, chunk in enumerate(chunks, start=1):
        score = f"{chunk.relevance_score:.3f}" if chunk.relevance_score is not None else ""
        text = " ".join(chunk.content.split())
        table.add_row(
            str(number),
            score,
            f"{escape(chunk.title)}\n[dim]{escape(chunk.uri)}",
            escape(text[:300] + ("..." if len(text) > 300 else "")),
        )
    console.print(table)
    return 0


def _cmd_answer(args: argparse.Namespace, console: Console) -> int:
    from .answers import answer_query
    from .specs import AnswerSpec

    clients = _clients(args)
    target = _target(args, clients.uses_emulator)
    spec = AnswerSpec(filter=args.filter)
    answer = answer_query(clients, target, args.query, spec, _options(args))
    if args.json:
        console.print_json(json.dumps(answer.to_dict(), ensure_ascii=False))
        return 0
    if answer.skipped:
        console.print(f"[yellow]no answer[/] ({', '.join(answer.skipped_reasons)})")
        return 0
    console.print(escape(answer.answer_text))
    for number, citation in enumerate(answer.citations, start=1):
        uris = ", ".join(sorted({r.uri for r in citation.references}))
        console.print(f"  [{number}] {escape(citation.text[:80])} -> {escape(uris)}")
    if answer.grounding_score is not None:
        console.print(f"grounding score: {answer.grounding_score:.2f}")
    return 0


def _facts(args: argparse.Namespace) -> list[str]:
    facts = list(args.fact or [])
    if args.facts_file:
        text = Path(args.facts_file).read_text(encoding="utf-8")
        if args.facts_file.endswith(".jsonl"):
            facts += [json.loads(line)["text"] for line in text.splitlines() if line.strip()]
        else:
            facts += [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return facts


def _cmd_check(args: argparse.Namespace, console: Console) -> int:
    from .clients import DiscoveryEngineClients
    from .grounding import check_grounding
    from .settings import grounding_config_path, resolve_project
    from .specs import GroundingSpec

    clients = DiscoveryEngineClients(location=args.location, emulator_host=args.emulator)
    project = resolve_project(args.project, emulator=clients.uses_emulator)
    config = grounding_config_path(project, args.location)
    spec = GroundingSpec(citation_threshold=args.citation_threshold, enable_claim_level_score=True)
    result = check_grounding(clients, config, args.answer, _facts(args), spec, _options(args))
    if args.json:
        console.print_json(json.dumps(result.to_dict(), ensure_ascii=False))
        return 0
    score = f"{result.support_score:.2f}" if result.support_score is not None else "n/a"
    table = Table(title=f"support score {score}")
    table.add_column("claim")
    table.add_column("status")
    table.add_column("score", justify="right")
    table.add_column("sources")
    for claim in result.claims:
        table.add_row(
            escape(claim.text),
            claim.status,
            f"{claim.score:.2f}" if claim.score is not None else "",
            ", ".join(str(i) for i in claim.source_indices),
        )
    console.print(table)
    return 0


def _client_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--emulator", help="emulator address host:port (default: the env var)")
    parser.add_argument("--project", help="Google Cloud project (any value on the emulator)")
    parser.add_argument("--location", default="global")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per attempt")
    parser.add_argument("--json", action="store_true", help="print the records as JSON")


def _corpus_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--corpus",
        action="append",
        metavar="[ID=]PATH",
        help="a folder (Markdown, text, HTML, PDF) or a .jsonl file; repeatable",
    )
    parser.add_argument("--data-store", help="data store id of the corpus (default: its name)")
    parser.add_argument(
        "--state-dir", help=f"where indexes are kept (default {default_state_dir()})"
    )
    parser.add_argument("--no-state", action="store_true", help="keep indexes in memory only")
    parser.add_argument("--base-uri", help="URI prefix of folder documents (default file://)")
    parser.add_argument("--max-chunk-chars", type=int, default=1000, help="chunk size limit")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``grounding``."""
    from .emulator.server import DEFAULT_PORT

    parser = argparse.ArgumentParser(
        prog="grounding", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the emulator")
    _corpus_args(serve)
    serve.add_argument("--engine", action="append", type=_engine, metavar="ENGINE=DATASTORE")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT)
    serve.add_argument(
        "--allow-remote", action="store_true", help="allow a non-loopback --host (no auth!)"
    )
    serve.add_argument("--no-builtin", action="store_true", help="do not serve python-docs")
    serve.add_argument(
        "--developer-knowledge-store",
        default="python-docs",
        metavar="ID",
        help="data store behind the Developer Knowledge service",
    )
    serve.set_defaults(run=_cmd_serve)

    ingest = commands.add_parser("ingest", help="build and persist the index of a corpus")
    _corpus_args(ingest)
    ingest.add_argument("--force", action="store_true", help="re-ingest even if unchanged")
    ingest.set_defaults(run=_cmd_ingest)

    for name, run, what in (
        ("search", _cmd_search, "search chunks"),
        ("answer", _cmd_answer, "answer a question with citations"),
    ):
        command = commands.add_parser(name, help=what)
        command.add_argument("query")
        _client_args(command)
        command.add_argument("--data-store", help="data store id (default python-docs)")
        command.add_argument("--engine", dest="engine_id", help="engine (app) id instead")
        command.add_argument("--filter", default="", help='e.g. category: ANY("statements")')
        if name == "search":
            command.add_argument("-k", type=int, default=5, help="number of results")
            command.add_argument("--mode", choices=("chunks", "documents"), default="chunks")
        command.set_defaults(run=run)

    check = commands.add_parser("check", help="check an answer against facts")
    check.add_argument("answer")
    check.add_argument("--fact", action="append", help="a fact text; repeatable")
    check.add_argument("--facts-file", help="facts: paragraphs of a text file, or .jsonl {text}")
    check.add_argument("--citation-threshold", type=float, default=0.6)
    _client_args(check)
    check.set_defaults(run=_cmd_check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``grounding`` console script."""
    from .emulator.errors import EmulatorError
    from .errors import GroundingError

    args = build_parser().parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    console = Console()
    try:
        result: int = args.run(args, console)
    except (GroundingError, EmulatorError, ValueError, OSError) as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        logger.debug("details", exc_info=True)
        return 2
    return result


if __name__ == "__main__":
    sys.exit(main())
