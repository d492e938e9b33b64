"""``grounding serve`` and ``grounding ingest``: run the emulator, build a corpus index.

Corpora are given as ``--corpus [ID=]PATH`` (a folder of Markdown, text, HTML or PDF files, or a
JSONL file); ingestion shows a progress bar per phase. Indexes are kept in ``--state-dir`` and
reloaded without re-ingesting while the corpus is unchanged (``--force`` re-ingests). A file or
JSONL line that cannot be ingested is skipped and listed with its reason, the rest is ingested;
``ingest`` then exits with status 1. ``serve --judge-script FILE``
scripts the grounding verdicts (a ``ScriptedJudge``); the file is checked before any ingest.

The emulator (``grounding_emulator``, the ``[emulator]`` extra) is imported here only, inside
the commands, so that the rest of the command line works without it; its errors become the
command line's ``UsageError``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
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

from grounding_core.clients import DEVELOPERKNOWLEDGE_EMULATOR_HOST, DISCOVERYENGINE_EMULATOR_HOST
from grounding_core.connection import GROUNDING_DATA_STORE

from .connection import BUILTIN_DATA_STORE
from .errors import UsageError
from .inputs import existing_path
from .output import write_text

if TYPE_CHECKING:
    from grounding_emulator.corpus.datastore import ProgressCallback
    from grounding_emulator.corpus.store import CorpusStore
    from grounding_emulator.wire.server import EmulatorServer

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
    """``(data store id, path)`` of each ``--corpus``; a missing path is an error naming it."""
    corpora: list[tuple[str, Path]] = []
    for value in args.corpus or []:
        key, sep, rest = value.partition("=")
        if sep and key and rest and not Path(value).exists():
            corpora.append((key, existing_path("--corpus", rest)))
        else:
            path = existing_path("--corpus", value)
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


def _not_a_skip(record: logging.LogRecord) -> bool:
    return not getattr(record, "skipped", False)


@contextmanager
def _unlogged_skips() -> Iterator[None]:
    """Leave out the store's log records of what was skipped: the command prints the list."""
    store_logger = logging.getLogger("grounding_emulator.corpus.store")
    store_logger.addFilter(_not_a_skip)
    try:
        yield
    finally:
        store_logger.removeFilter(_not_a_skip)


def _store(args: argparse.Namespace) -> CorpusStore:
    from grounding_emulator.corpus.store import CorpusStore

    state_dir = None if args.no_state else Path(args.state_dir or default_state_dir())
    return CorpusStore(state_dir, max_chunk_chars=args.max_chunk_chars)


def _ingest_all(
    args: argparse.Namespace,
    console: Console,
    store: CorpusStore,
    corpora: list[tuple[str, Path]],
    *,
    builtin: bool,
) -> int:
    """Ingest (or reuse) every corpus, printing what was skipped; the number of files and
    lines skipped as bad (files of unsupported types are not counted: they are by design)."""
    from grounding_emulator.corpus.reading import describe_skipped

    if builtin:
        with _progress(console, BUILTIN_DATA_STORE) as report:
            store.add_builtin(on_progress=report)
    bad = 0
    for data_store_id, path in corpora:
        with _progress(console, data_store_id) as report, _unlogged_skips():
            snapshot = store.ingest(
                data_store_id,
                path,
                base_uri=args.base_uri,
                reuse=not args.force,
                on_progress=report,
            )
        console.print(
            f"[green]data store[/] {data_store_id}: {len(snapshot.documents)} documents, "
            f"{len(snapshot.chunks)} chunks"
        )
        for note in describe_skipped(path, snapshot.skipped):
            write_text(console, note)  # file names and reasons come from the user's corpus
        bad += sum(1 for s in snapshot.skipped if not s.unsupported)
    return bad


def run_serve(args: argparse.Namespace, console: Console) -> int:
    """Serve the built-in corpus and ``--corpus`` folders until interrupted or terminated."""
    with _emulator("serve"):
        return _serve(args, console)


def _serve(args: argparse.Namespace, console: Console) -> int:
    from grounding_emulator.errors import ListenError
    from grounding_emulator.grounding.scripted import ScriptedJudge
    from grounding_emulator.wire.server import DEFAULT_PORT, DEFAULT_STOP_GRACE, EmulatorServer

    # Every check that can fail at once comes before the (long) ingest: the judge script, the
    # corpus paths, the host, and the port (bound first: a busy one is known in a moment).
    judge = ScriptedJudge.from_file(args.judge_script) if args.judge_script else None
    corpora = _corpora(args)
    store = _store(args)
    server = EmulatorServer(
        store,
        judge=judge,
        host=args.host,
        port=DEFAULT_PORT if args.port is None else args.port,
        allow_remote=args.allow_remote,
        developer_knowledge_data_store=args.developer_knowledge_store,
        stop_grace=DEFAULT_STOP_GRACE if args.grace is None else args.grace,
        rerank_search=args.rerank_search,
    )
    try:
        server.start()
    except ListenError as exc:
        raise UsageError(
            f"{exc} (another `grounding serve`?): give another port with --port PORT, or "
            "--port 0 for any free one"
        ) from exc
    try:
        return _serve_until_stopped(args, console, server, corpora)
    finally:
        server.stop()


def _serve_until_stopped(
    args: argparse.Namespace,
    console: Console,
    server: EmulatorServer,
    corpora: list[tuple[str, Path]],
) -> int:
    store = server.store
    _ingest_all(args, console, store, corpora, builtin=not args.no_builtin)
    for engine_id, data_store_id in args.engine or []:
        store.add_engine(engine_id, data_store_id)

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
    if args.judge_script:
        console.print(f"grounding verdicts scripted by {args.judge_script}: {server.judge!r}")
    default, note = _default_data_store(store, [d for d, _ in corpora])
    export = (
        f"export {DISCOVERYENGINE_EMULATOR_HOST}={server.address} "
        f"{DEVELOPERKNOWLEDGE_EMULATOR_HOST}={server.address}"
    )
    if default is not None:
        export += f" {GROUNDING_DATA_STORE}={default}"
    console.print(note, markup=False, highlight=False, soft_wrap=True)
    console.print(export, markup=False, highlight=False, soft_wrap=True)
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        console.print("stopping")
    return 0


def _default_data_store(store: CorpusStore, corpora: list[str]) -> tuple[str | None, str]:
    """The data store that searches naming none should use, and a line saying so.

    One ``--corpus``: it (the user's own folder is what they mean to search); none: the
    built-in one if served. With several there is no right guess: none is set, and a search
    naming none goes to the emulator's built-in data store (its output says so), or fails
    listing the served ones when that is not served.
    """
    served = ", ".join(store.data_store_ids) or "none"
    if len(set(corpora)) == 1:
        chosen: str | None = corpora[0]
    elif not corpora and BUILTIN_DATA_STORE in store.data_store_ids:
        chosen = BUILTIN_DATA_STORE
    else:
        chosen = None
    if chosen is not None:
        return chosen, (
            f"data stores: {served}; the line below makes {chosen} the default of the "
            "`grounding` command and of Python clients that name no data store"
        )
    return None, (
        f"data stores: {served}; name one with --data-store ID (Python: data_store_id=...), "
        f"or add {GROUNDING_DATA_STORE}=ID to the line below to make it the default"
    )


def run_ingest(args: argparse.Namespace, console: Console) -> int:
    """Build (or reuse) and persist the index of each ``--corpus``; exit status 1 when files or
    lines were skipped as bad (the rest is ingested; they are listed with their reasons)."""
    if not args.corpus:
        raise UsageError("ingest needs --corpus PATH")
    with _emulator("ingest"):
        bad = _ingest_all(args, console, _store(args), _corpora(args), builtin=False)
    return 1 if bad else 0
