"""``grounding serve`` and ``grounding ingest``: run the emulator, build a corpus index.

The ``grounding`` command finds them through its ``grounding.commands`` entry points
(``pyproject.toml``): ``add_commands`` adds both to the command's sub-parsers, each with a
``run(args, console)`` that returns the exit status.

Corpora are given as ``--corpus [ID=]PATH`` (a folder of Markdown, text, HTML or PDF files, or a
JSONL file); ingestion shows its progress on stderr: a bar per phase on a terminal, else a line
every few seconds of a phase that lasts (``corpus/progress.py``). ``serve`` listens only once
every corpus is served (busy ports are found before the ingest): for gRPC on ``--port`` and for
REST (HTTP/JSON) on ``--rest-port`` (by default the next port), and prints both. Indexes are kept
in ``--state-dir`` and reloaded without re-ingesting while the corpus is unchanged (``--force``
re-ingests). A file or JSONL line that cannot be ingested is skipped and listed with its reason,
the rest is ingested; ``ingest`` then exits with status 1. ``serve --judge-script FILE`` scripts
the grounding verdicts (a ``ScriptedJudge``); the file is checked before any ingest. ``serve``
prints the ``export`` line that points the client side (``grounding search``, Google's clients)
at it.

At import this module loads ``argparse``, ``rich`` and the emulator's standard-library modules
that hold its defaults, so that ``grounding --help`` stays fast and works without the
``[emulator]`` extra; the engines are imported when a command runs. What the user must change
(a flag, a corpus, the missing extra, the emulator's ``EmulatorError``) is a ``CommandError``, a
``ValueError``: the ``grounding`` command prints it in one line, with exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import re
import signal
from collections.abc import Iterator, Sequence
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
    TimeRemainingColumn,
)
from rich.table import Table

from grounding_emulator.corpus.builtin import BUILTIN_DATA_STORE, BUILTIN_ENGINE
from grounding_emulator.corpus.chunking import DEFAULT_MAX_CHARS
from grounding_emulator.corpus.progress import ProgressLog
from grounding_emulator.errors import EmulatorError, ListenError
from grounding_emulator.limits import MAX_RANK_RECORDS
from grounding_emulator.wire.address import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    MAX_PORT,
    check_free,
    check_port,
)
from grounding_emulator.wire.drain import DEFAULT_STOP_GRACE

if TYPE_CHECKING:
    from grounding_emulator.corpus.datastore import ProgressCallback
    from grounding_emulator.corpus.store import CorpusStore
    from grounding_emulator.wire.server import EmulatorServer

__all__ = [
    "DEVELOPERKNOWLEDGE_EMULATOR_HOST",
    "DISCOVERYENGINE_EMULATOR_HOST",
    "GROUNDING_DATA_STORE",
    "CommandError",
    "add_commands",
    "default_data_store",
    "default_state_dir",
    "parse_corpus",
    "run_ingest",
    "run_serve",
]

# The client side's environment variables that ``serve`` prints in its ``export`` line: the
# emulator's own copies of the names (it imports nothing of the client side).
DISCOVERYENGINE_EMULATOR_HOST = "DISCOVERYENGINE_EMULATOR_HOST"
DEVELOPERKNOWLEDGE_EMULATOR_HOST = "DEVELOPERKNOWLEDGE_EMULATOR_HOST"
GROUNDING_DATA_STORE = "GROUNDING_DATA_STORE"

_SLUG = re.compile(r"[^A-Za-z0-9_-]+")
_MISSING_EMULATOR = "grounding {command} needs the emulator: pip install 'grounding-kit[emulator]'"
# What the commands use of the emulator, all imported before a command starts.
_EMULATOR_MODULES = ("grounding_emulator.corpus.store", "grounding_emulator.wire.server")
# What a terminal would obey instead of show, in the file names and reasons of a user's corpus:
# C0 controls but tab and line feed, and DEL, become their control pictures (ESC is ␛); C1
# controls, bidi embeddings, overrides and isolates, and lone surrogates become U+FFFD.
_SHOWN = str.maketrans(
    {
        **{code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)},
        0x7F: "\u2421",
        **dict.fromkeys(
            [*range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)], "\ufffd"
        ),
        **dict.fromkeys(range(0xD800, 0xE000), "\ufffd"),
    }
)


class CommandError(ValueError):
    """What the user must change to run the command (a flag, a corpus, the ``[emulator]``
    extra); the message says what. A ``ValueError``, which the ``grounding`` command reports in
    one line with exit status 2."""


def default_state_dir() -> Path:
    """``$XDG_CACHE_HOME/grounding-kit/emulator`` (``~/.cache/...`` when unset)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "grounding-kit" / "emulator"


# -- the sub-commands ---------------------------------------------------------------------------


def _engine_pair(value: str) -> tuple[str, str]:
    key, sep, rest = value.partition("=")
    if not sep or not key or not rest:
        raise argparse.ArgumentTypeError(f"--engine must look like ENGINE=DATASTORE, got {value!r}")
    return key, rest


def _seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"expected seconds (a number >= 0), got {value!r}"
        ) from exc
    if not 0.0 <= number < float("inf"):
        raise argparse.ArgumentTypeError(f"expected seconds (a finite number >= 0), got {value}")
    return number


def _port(value: str) -> int:
    try:
        return check_port(int(value), "port")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"expected a port number from 0 (any free port) to {MAX_PORT}, got {value!r}"
        ) from exc


def _rerank_count(value: str) -> int:
    try:
        number = int(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected a number of results, got {value!r}") from exc
    if not 0 <= number <= MAX_RANK_RECORDS:
        raise argparse.ArgumentTypeError(
            f"expected 0 (off) to {MAX_RANK_RECORDS} (the records a Rank request takes), "
            f"got {number}"
        )
    return number


def _corpus_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--corpus",
        action="append",
        metavar="[ID=]PATH",
        help="a folder (Markdown, text, HTML, PDF) or a .jsonl file; repeatable",
    )
    parser.add_argument("--data-store", help="data store id of the corpus (default: its name)")
    parser.add_argument(
        "--state-dir", help=f"where indexes are kept (default: {default_state_dir()})"
    )
    parser.add_argument("--no-state", action="store_true", help="keep indexes in memory only")
    parser.add_argument(
        "--base-uri", help="URI prefix of folder documents (default: their file:// URIs)"
    )
    parser.add_argument(
        "--max-chunk-chars",
        type=int,
        default=DEFAULT_MAX_CHARS,
        help="chunk size limit, in characters",
    )
    parser.add_argument(
        "--force", action="store_true", help="re-ingest even if the persisted index is unchanged"
    )


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` and ``ingest`` to the ``grounding`` command's sub-parsers (the
    ``grounding.commands`` entry point)."""
    _add_serve(commands)
    _add_ingest(commands)


def _add_serve(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser("serve", description=run_serve.__doc__, help="run the emulator")
    _corpus_args(serve)
    serve.add_argument(
        "--engine",
        action="append",
        type=_engine_pair,
        metavar="ENGINE=DATASTORE",
        help="also serve data store DATASTORE as engine (app) ENGINE; repeatable (default: "
        "none but the built-in's app, unless --no-builtin)",
    )
    serve.add_argument("--host", default=DEFAULT_HOST, help="address to listen on")
    serve.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help="port to listen on; 0: any free one"
    )
    serve.add_argument(
        "--rest-port",
        type=_port,
        metavar="PORT",
        help="port of the REST transport (HTTP/JSON, as Google's REST APIs); 0: any free one "
        f"(default: --port + 1, {DEFAULT_PORT + 1}; any free one with --port 0)",
    )
    serve.add_argument(
        "--allow-remote", action="store_true", help="allow a non-loopback --host (no auth!)"
    )
    serve.add_argument(
        "--grace",
        type=_seconds,
        default=DEFAULT_STOP_GRACE,
        metavar="SECONDS",
        help="on SIGTERM or Ctrl-C, refuse new calls and give the calls in flight this long to "
        "complete",
    )
    serve.add_argument(
        "--no-builtin", action="store_true", help=f"do not serve {BUILTIN_DATA_STORE}"
    )
    serve.add_argument(
        "--developer-knowledge-store",
        default=BUILTIN_DATA_STORE,
        metavar="ID",
        help="data store behind the Developer Knowledge service",
    )
    serve.add_argument(
        "--rerank-search",
        type=_rerank_count,
        default=0,
        metavar="N",
        help="Search, AnswerQuery and ConverseConversation rerank their first N results with "
        "the emulator's Rank scorer, as an engine with a ranking step would (default: 0, off; "
        f"at most {MAX_RANK_RECORDS})",
    )
    serve.add_argument(
        "--gcs-root",
        metavar="DIR",
        help="the folder that stands for Cloud Storage: gs://BUCKET/PATH in ImportDocuments and "
        "Document.content.uri is read from DIR/BUCKET/PATH",
    )
    serve.add_argument(
        "--judge-script",
        metavar="FILE",
        help="a JSON file of grounding verdicts to return (rules, queued checks); the lexical "
        "judge for the rest (format: docs/emulator.md)",
    )
    serve.set_defaults(run=run_serve)


def _add_ingest(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ingest = commands.add_parser(
        "ingest", description=run_ingest.__doc__, help="build and persist the index of a corpus"
    )
    _corpus_args(ingest)
    ingest.set_defaults(run=run_ingest)


# -- running them -------------------------------------------------------------------------------


@contextmanager
def _emulator(command: str) -> Iterator[None]:
    """Run ``command`` on the emulator: its missing extra and its errors become
    ``CommandError``."""
    try:
        for module in _EMULATOR_MODULES:
            importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.startswith("grounding_emulator"):
            raise  # the package itself is broken, not missing an extra
        raise CommandError(f"{_MISSING_EMULATOR.format(command=command)} ({exc})") from exc
    try:
        yield
    except EmulatorError as exc:
        raise CommandError(str(exc)) from exc


def _write_text(console: Console, text: str) -> None:
    """``text`` from a user's corpus as it is: never read as markup, controls made visible."""
    shown = text.replace("\r\n", "\n").translate(_SHOWN)
    console.print(shown, markup=False, highlight=False, emoji=False, soft_wrap=True)


def _existing_path(flag: str, value: str, base: Path) -> Path:
    """``value`` as a path under ``base``; ``CommandError`` naming ``flag`` when nothing is
    there."""
    path = base / Path(value).expanduser()
    if not path.exists():
        raise CommandError(f"{flag} {value}: no such file or directory")
    return path


def _store_id_for(path: Path) -> str:
    stem = path.stem if path.is_file() else path.name
    return _SLUG.sub("-", stem).strip("-_").lower()[:63] or "corpus"


def parse_corpus(
    value: str,
    *,
    option: str = "--corpus",
    base: Path | None = None,
    data_store: str | None = None,
) -> tuple[str, Path]:
    """``(data store id, path)`` of a ``[ID=]PATH`` corpus: the id is ``ID``, else
    ``data_store``, else the folder's or file's name; a relative path is under ``base`` (the
    working directory by default). ``CommandError`` naming ``option`` when nothing is there."""
    where = Path() if base is None else base
    key, sep, rest = value.partition("=")
    if sep and key and rest and not (where / value).exists():
        return key, _existing_path(option, rest, where)
    path = _existing_path(option, value, where)
    return data_store or _store_id_for(path), path


def _corpora(args: argparse.Namespace, *, builtin: bool) -> list[tuple[str, Path]]:
    """``(data store id, path)`` of each ``--corpus``; a missing path, two corpora with one id
    and, while the built-in corpus is served, its id are errors naming the flags."""
    values = args.corpus or []
    corpora = [parse_corpus(value, data_store=args.data_store) for value in values]
    if args.data_store and len(corpora) > 1:
        raise CommandError("--data-store names one corpus; with several, write --corpus ID=PATH")
    given: dict[str, str] = {}
    for value, (data_store_id, _) in zip(values, corpora, strict=True):
        if data_store_id in given:
            raise CommandError(
                f"--corpus {given[data_store_id]} and --corpus {value} are both data store "
                f"{data_store_id}: give each its own id, --corpus ID=PATH"
            )
        given[data_store_id] = value
    if builtin and BUILTIN_DATA_STORE in given:
        raise CommandError(
            f"--corpus {given[BUILTIN_DATA_STORE]} is data store {BUILTIN_DATA_STORE}, the "
            f"built-in corpus's: give it another id (--corpus ID=PATH), or add --no-builtin to "
            "serve it instead of the built-in corpus"
        )
    return corpora


def _engines(args: argparse.Namespace) -> list[tuple[str, str]]:
    """``(engine id, data store id)`` of each ``--engine``; an engine id given twice, or the
    built-in corpus's while it is served, is an error naming the flag."""
    taken = set() if args.no_builtin else {BUILTIN_ENGINE}
    for engine_id, data_store_id in args.engine or []:
        if engine_id in taken:
            raise CommandError(
                f"--engine {engine_id}={data_store_id}: engine {engine_id} is already served "
                f"({'the built-in corpus' if engine_id == BUILTIN_ENGINE else 'another --engine'}"
                "): give another engine id"
            )
        taken.add(engine_id)
    return list(args.engine or [])


@contextmanager
def _progress(label: str) -> Iterator[ProgressCallback]:
    """Where ``label``'s ingest reports its progress: stderr (stdout carries the results), as
    bars on a terminal, as ``ProgressLog`` lines in a log or a pipe."""
    errors = Console(stderr=True)
    if not errors.is_terminal:
        yield ProgressLog(label, lambda line: _write_text(errors, line))
        return
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=errors,
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


@contextmanager
def _writing_state(store: CorpusStore) -> Iterator[None]:
    """An ``OSError`` on a path in the state folder (a full disk) becomes a ``CommandError``
    naming the path and ``--state-dir``."""
    try:
        yield
    except OSError as exc:
        state_dir, path = store.state_dir, Path(os.fsdecode(exc.filename or ""))
        if state_dir is None or not exc.filename or not path.is_relative_to(state_dir):
            raise
        raise CommandError(
            f"--state-dir {state_dir}: cannot write {path} ({exc.strerror or exc}): free space "
            "there, give another --state-dir DIR, or --no-state to keep indexes in memory only"
        ) from exc


def _count(number: int, noun: str) -> str:
    """``1 document``, ``2 documents``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


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
        with _progress(BUILTIN_DATA_STORE) as report, _writing_state(store):
            store.add_builtin(on_progress=report)
    bad = 0
    for data_store_id, path in corpora:
        with _progress(data_store_id) as report, _unlogged_skips(), _writing_state(store):
            snapshot = store.ingest(
                data_store_id,
                path,
                base_uri=args.base_uri,
                reuse=not args.force,
                on_progress=report,
            )
        console.print(
            f"[green]data store[/] {data_store_id}: {_count(len(snapshot.documents), 'document')}"
            f", {_count(len(snapshot.chunks), 'chunk')}"
        )
        for note in describe_skipped(path, snapshot.skipped):
            _write_text(console, note)  # file names and reasons come from the user's corpus
        bad += sum(1 for s in snapshot.skipped if not s.unsupported)
    return bad


def run_serve(args: argparse.Namespace, console: Console) -> int:
    """Serve the built-in corpus and ``--corpus`` folders until interrupted or terminated."""
    with _emulator("serve"):
        return _serve(args, console)


def _serve(args: argparse.Namespace, console: Console) -> int:
    from grounding_emulator.grounding.scripted import ScriptedJudge
    from grounding_emulator.wire.server import EmulatorServer

    # Every check that can fail at once comes before the (long) ingest: the judge script, the
    # corpus paths, the host, and the port (free now: a busy one is known in a moment). The port
    # opens only after the ingest, so that no client finds a data store missing.
    judge = ScriptedJudge.from_file(args.judge_script) if args.judge_script else None
    corpora = _corpora(args, builtin=not args.no_builtin)
    engines = _engines(args)
    gcs_root = _existing_path("--gcs-root", args.gcs_root, Path.cwd()) if args.gcs_root else None
    if gcs_root is not None and not gcs_root.is_dir():
        raise CommandError(f"--gcs-root {args.gcs_root}: not a folder")
    server = EmulatorServer(
        _store(args),
        judge=judge,
        host=args.host,
        port=args.port,
        rest_port=_rest_port(args),
        allow_remote=args.allow_remote,
        developer_knowledge_data_store=args.developer_knowledge_store,
        stop_grace=args.grace,
        rerank_search=args.rerank_search,
        gcs_root=gcs_root,
    )
    with _listening(server):
        check_free(args.host, args.port)
        check_free(args.host, _rest_port(args), transport="REST")
    store = server.store
    _ingest_all(args, console, store, corpora, builtin=not args.no_builtin)
    for engine_id, data_store_id in engines:
        store.add_engine(engine_id, data_store_id)
    with _listening(server):
        server.start()
    try:
        return _serve_until_stopped(args, console, server, corpora)
    finally:
        server.stop()


@contextmanager
def _listening(server: EmulatorServer) -> Iterator[None]:
    """A ``ListenError`` (the port is taken) becomes a ``CommandError`` saying what to do."""
    try:
        yield
    except ListenError as exc:
        flag = "--rest-port" if "(REST)" in str(exc) else "--port"
        raise CommandError(
            f"{exc} (another `grounding serve`?): give another port with {flag} PORT, or "
            f"{flag} 0 for any free one"
        ) from exc


def _rest_port(args: argparse.Namespace) -> int:
    """``--rest-port``, by default the port after ``--port`` (a free one with ``--port 0``)."""
    if args.rest_port is not None:
        return int(args.rest_port)
    if args.port == MAX_PORT:
        raise CommandError(
            f"--port {MAX_PORT} is the last port, and REST listens on the port after --port: "
            "give --rest-port PORT (0: any free one)"
        )
    return int(args.port) + 1 if args.port else 0


def _serve_until_stopped(
    args: argparse.Namespace,
    console: Console,
    server: EmulatorServer,
    corpora: list[tuple[str, Path]],
) -> int:
    store = server.store

    def stop(signum: int, frame: FrameType | None) -> None:
        server.stop()

    signal.signal(signal.SIGTERM, stop)
    console.print(
        f"emulator listening on {server.address} (gRPC) and {server.rest_url} (REST)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    table = Table(show_header=True)
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
        _write_text(
            console, f"grounding verdicts scripted by {args.judge_script}: {server.judge!r}"
        )
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


def default_data_store(served: Sequence[str], corpora: Sequence[str]) -> str | None:
    """The data store that searches naming none should use (``GROUNDING_DATA_STORE``), of the
    ``served`` ones, given the data store ids of the corpora asked for.

    One corpus: it (the user's own folder is what they mean to search); none: the built-in one
    if served. With several there is no right guess: none is set, and a search naming none
    fails, asking for ``--data-store ID`` or the variable.
    """
    if len(set(corpora)) == 1:
        return corpora[0]
    if not corpora and BUILTIN_DATA_STORE in served:
        return BUILTIN_DATA_STORE
    return None


def _default_data_store(store: CorpusStore, corpora: list[str]) -> tuple[str | None, str]:
    """``default_data_store`` and a line saying so."""
    served = ", ".join(store.data_store_ids) or "none"
    chosen = default_data_store(store.data_store_ids, corpora)
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
        raise CommandError("ingest needs --corpus PATH")
    with _emulator("ingest"):
        bad = _ingest_all(args, console, _store(args), _corpora(args, builtin=False), builtin=False)
    return 1 if bad else 0
