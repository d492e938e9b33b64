"""pytest fixtures that run a test on the emulator, as moto's ``mock_aws`` and pytest-postgresql's
fixtures do: installed with the ``emulator`` extra (the ``pytest11`` entry point
``grounding_emulator``; ``-p no:grounding_emulator`` turns it off).

The corpus comes from the ini file (``pytest.ini``, or ``[tool.pytest.ini_options]`` in
``pyproject.toml``), read as ``grounding serve`` reads its flags; relative paths are relative
to the ini file's folder::

    grounding_emulator_corpus = kb=docs/kb    # [ID=]PATH lines, as --corpus: folders, .jsonl
    grounding_emulator_engine = kb-app=kb     # ENGINE=DATASTORE lines, as --engine
    grounding_emulator_builtin = true         # serve python-docs too (served when no corpus is)

Fixtures:

- ``grounding_emulator_server`` (session): an ``EmulatorServer`` on a free loopback port, started
  once per session (per pytest-xdist worker) after every corpus is served, with a
  ``ScriptedJudge`` (the lexical judge for every claim no rule matches);
- ``grounding_emulator``: that server for one test: reset before and after it (faults, scripted
  verdicts, sessions, conversations: ``EmulatorServer.reset``), with the environment variables
  ``grounding serve`` prints set for the test and restored after
  (``DISCOVERYENGINE_EMULATOR_HOST``, ``DEVELOPERKNOWLEDGE_EMULATOR_HOST``,
  ``GROUNDING_DATA_STORE``: the one corpus, or ``python-docs`` when there is none; unset with
  several);
- ``grounding_judge``: its ``ScriptedJudge``; ``grounding_faults``: its ``FaultInjector``.

The Developer Knowledge service serves the ``GROUNDING_DATA_STORE`` data store (``python-docs``
with several). A bad option is a usage error naming it, before any test runs. This module
imports only pytest and the standard library; the emulator is imported when a test asks for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from grounding_emulator.grounding.scripted import ScriptedJudge
    from grounding_emulator.wire.faults import FaultInjector
    from grounding_emulator.wire.server import EmulatorServer

__all__ = [
    "BUILTIN_OPTION",
    "CORPUS_OPTION",
    "ENGINE_OPTION",
    "grounding_emulator",
    "grounding_emulator_server",
    "grounding_faults",
    "grounding_judge",
]

CORPUS_OPTION = "grounding_emulator_corpus"
ENGINE_OPTION = "grounding_emulator_engine"
BUILTIN_OPTION = "grounding_emulator_builtin"


@dataclass(frozen=True)
class _Settings:
    """What the ini options ask for."""

    corpora: tuple[tuple[str, Path], ...]
    engines: tuple[tuple[str, str], ...]
    builtin: bool
    default_data_store: str | None


_SETTINGS = pytest.StashKey[_Settings]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ini options (module docstring)."""
    parser.addini(
        CORPUS_OPTION,
        "the emulator's corpora, [ID=]PATH per line (a folder or a .jsonl file), relative to "
        "the ini file",
        type="linelist",
        default=[],
    )
    parser.addini(
        ENGINE_OPTION,
        "engines the emulator serves, ENGINE=DATASTORE per line",
        type="linelist",
        default=[],
    )
    parser.addini(
        BUILTIN_OPTION,
        "serve the built-in python-docs data store too (it is served when no corpus is given)",
        type="bool",
        default=False,
    )


def pytest_configure(config: pytest.Config) -> None:
    """Check the ini options when there are any, before any test runs."""
    if config.getini(CORPUS_OPTION) or config.getini(ENGINE_OPTION):
        _settings(config)


def _settings(config: pytest.Config) -> _Settings:
    """What the ini options ask for (read once); a bad one is a ``UsageError`` naming it."""
    if _SETTINGS not in config.stash:
        config.stash[_SETTINGS] = _read_settings(config)
    return config.stash[_SETTINGS]


def _read_settings(config: pytest.Config) -> _Settings:
    from grounding_emulator.commands import CommandError, default_data_store, parse_corpus
    from grounding_emulator.corpus.builtin import BUILTIN_DATA_STORE

    corpus_lines: list[str] = config.getini(CORPUS_OPTION)
    engine_lines: list[str] = config.getini(ENGINE_OPTION)

    base = config.inipath.parent if config.inipath is not None else config.rootpath
    corpora = []
    for line in corpus_lines:
        try:
            corpora.append(parse_corpus(line, option=CORPUS_OPTION, base=base))
        except CommandError as exc:
            raise pytest.UsageError(
                f"{exc} (relative to {base}): give a folder of documents or a .jsonl file, "
                f"one [ID=]PATH per line"
            ) from exc
    engines = []
    for line in engine_lines:
        engine_id, sep, data_store_id = line.partition("=")
        if not (sep and engine_id and data_store_id):
            raise pytest.UsageError(
                f"{ENGINE_OPTION} {line}: write ENGINE=DATASTORE, one per line, DATASTORE "
                f"being a data store of {CORPUS_OPTION}"
            )
        engines.append((engine_id, data_store_id))
    builtin = bool(config.getini(BUILTIN_OPTION)) or not corpora
    ids = [data_store_id for data_store_id, _ in corpora]
    default = default_data_store([*ids, *([BUILTIN_DATA_STORE] if builtin else [])], ids)
    return _Settings(tuple(corpora), tuple(engines), builtin, default)


@contextmanager
def _option(name: str, value: object) -> Iterator[None]:
    """The emulator's errors about ini option ``name`` fail the test with a message naming it."""
    from grounding_emulator.errors import EmulatorError

    try:
        yield
    except EmulatorError as exc:
        raise pytest.fail.Exception(f"{name} {value}: {exc}", pytrace=False) from exc


@pytest.fixture(scope="session")
def grounding_emulator_server(pytestconfig: pytest.Config) -> Iterator[EmulatorServer]:
    """The session's emulator, serving the corpora of the ini options (module docstring)."""
    try:
        from grounding_emulator.corpus.builtin import BUILTIN_DATA_STORE
        from grounding_emulator.corpus.store import CorpusStore
        from grounding_emulator.grounding.scripted import ScriptedJudge
        from grounding_emulator.wire.server import EmulatorServer
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.startswith("grounding_emulator"):
            raise  # the package itself is broken, not missing an extra
        raise pytest.fail.Exception(
            f"the grounding_emulator fixtures need the emulator: pip install "
            f"'grounding-kit[emulator]' ({exc})",
            pytrace=False,
        ) from exc
    settings = _settings(pytestconfig)
    store = CorpusStore()
    if settings.builtin:
        store.add_builtin()
    for data_store_id, path in settings.corpora:
        with _option(CORPUS_OPTION, f"{data_store_id}={path}"):
            store.ingest(data_store_id, path)
    for engine_id, data_store_id in settings.engines:
        with _option(ENGINE_OPTION, f"{engine_id}={data_store_id}"):
            store.add_engine(engine_id, data_store_id)
    developer_knowledge = settings.default_data_store or BUILTIN_DATA_STORE
    with EmulatorServer(
        store, judge=ScriptedJudge(), developer_knowledge_data_store=developer_knowledge
    ) as server:
        yield server


@pytest.fixture
def grounding_emulator(
    grounding_emulator_server: EmulatorServer,
    pytestconfig: pytest.Config,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[EmulatorServer]:
    """The session's emulator for one test: reset before and after it, the environment
    variables set for it (module docstring)."""
    from grounding_emulator.commands import (
        DEVELOPERKNOWLEDGE_EMULATOR_HOST,
        DISCOVERYENGINE_EMULATOR_HOST,
        GROUNDING_DATA_STORE,
    )

    server = grounding_emulator_server
    monkeypatch.setenv(DISCOVERYENGINE_EMULATOR_HOST, server.address)
    monkeypatch.setenv(DEVELOPERKNOWLEDGE_EMULATOR_HOST, server.address)
    default = _settings(pytestconfig).default_data_store
    if default is None:
        monkeypatch.delenv(GROUNDING_DATA_STORE, raising=False)
    else:
        monkeypatch.setenv(GROUNDING_DATA_STORE, default)
    server.reset()
    yield server
    server.reset()


@pytest.fixture
def grounding_judge(grounding_emulator: EmulatorServer) -> ScriptedJudge:
    """The emulator's ``ScriptedJudge``: rules and queued checks for this test only."""
    from grounding_emulator.grounding.scripted import ScriptedJudge

    judge = grounding_emulator.judge
    if not isinstance(judge, ScriptedJudge):  # a grounding_emulator_server of the user's
        raise pytest.fail.Exception(
            f"grounding_judge needs an emulator whose judge is a ScriptedJudge, not "
            f"{type(judge).__name__}: give EmulatorServer(judge=ScriptedJudge(...))",
            pytrace=False,
        )
    return judge


@pytest.fixture
def grounding_faults(grounding_emulator: EmulatorServer) -> FaultInjector:
    """The emulator's ``FaultInjector``: failures and delays for this test only."""
    return grounding_emulator.faults
