"""``grounding serve`` and ``grounding ingest``: run the emulator, build a corpus index.

Corpora are given as ``--corpus [ID=]PATH`` (a folder of Markdown, text, HTML or PDF files, or a
JSONL file); ingestion shows a progress bar per phase. Indexes are kept in ``--state-dir`` and
reloaded without re-ingesting while the corpus is unchanged. ``serve --judge-script FILE``
scripts the grounding verdicts (a ``ScriptedJudge``); the file is checked before any ingest.

The emulator (``grounding_emulator``, the ``[emulator]`` extra) is imported here only, inside
the commands, so that the rest of the command line works without it; its errors become the
command line's ``UsageError``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from .errors import UsageError

if TYPE_CHECKING:
    from grounding_emulator.corpus.datastore import ProgressCallback
    from grounding_emulator.corpus.store import CorpusStore

__all__ = ["default_state_dir", "run_ingest", "run_serve"]

_SLUG = re.compile(r"[^A-Za-z0-9_-]+")
_MISSING_EMULATOR = "grounding {command} needs the emulator: pip install 'grounding-kit[emulator]'"
# What the commands use of the emulator, all imported before a command starts.
_EMULATOR_MODULES = ("grounding_emulator.corpus.store", "grounding_emulator.wire.server")


@contextmanager
def _emulator(command: str) -> Iterator[None]:
    """Run ``command`` on the emulator: its missing extra and its errors become ``UsageError``."""
    try:
        for module in _EMULATOR_MODULES:
            importlib.import_module(module)
        from grounding_emulator.errors import EmulatorError
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.startswith("grounding_emulator"):
            raise  # the package itself is broken, not missing an extra
        raise UsageError(f"{_MISSING_EMULATOR.format(command=command)} ({exc})") from exc
    try:
        yield
    except EmulatorError as exc:
        raise UsageError(str(exc)) from exc


def default_state_dir() -> Path:
    """``$XDG_CACHE_HOME/grounding-kit/emulator`` (``~/.cache/...`` when unset)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "grounding-kit" / "emulator"


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
        raise UsageError("--data-store names one corpus; with several, write --corpus ID=PATH")
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
    from grounding_emulator.corpus.store import CorpusStore

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


def run_serve(args: argparse.Namespace, console: Console) -> int:
    """Serve the built-in corpus and ``--corpus`` folders until interrupted or terminated."""
    with _emulator("serve"):
        return _serve(args, console)


def _serve(args: argparse.Namespace, console: Console) -> int:
    from grounding_emulator.grounding.scripted import ScriptedJudge
    from grounding_emulator.wire.server import DEFAULT_PORT, EmulatorServer

    judge = ScriptedJudge.from_file(args.judge_script) if args.judge_script else None
    store = _ingest_all(args, console, builtin=not args.no_builtin)
    for engine_id, data_store_id in args.engine or []:
        store.add_engine(engine_id, data_store_id)
    server = EmulatorServer(
        store,
        judge=judge,
        host=args.host,
        port=DEFAULT_PORT if args.port is None else args.port,
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
    if judge is not None:
        console.print(f"grounding verdicts scripted by {args.judge_script}: {judge!r}")
    console.print(
        f"export DISCOVERYENGINE_EMULATOR_HOST={server.address} "
        f"DEVELOPERKNOWLEDGE_EMULATOR_HOST={server.address}",
        soft_wrap=True,
    )
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        console.print("stopping")
    finally:
        server.stop()
    return 0


def run_ingest(args: argparse.Namespace, console: Console) -> int:
    """Build (or reuse) and persist the index of each ``--corpus``."""
    if not args.corpus:
        raise UsageError("ingest needs --corpus PATH")
    with _emulator("ingest"):
        _ingest_all(args, console, builtin=False)
    return 0
