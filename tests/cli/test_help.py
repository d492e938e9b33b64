"""``grounding ... --help``: every option has help and shows its default; no reST in it."""

from __future__ import annotations

import argparse
import re

import pytest

from grounding_core import DEFAULT_SEARCH_K
from grounding_core.cli import build_parser, main
from grounding_emulator.corpus.chunking import DEFAULT_MAX_CHARS
from grounding_emulator.wire.address import DEFAULT_HOST, DEFAULT_PORT
from grounding_emulator.wire.drain import DEFAULT_STOP_GRACE

COMMANDS = ("serve", "ingest", "search", "answer", "check")


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    (commands,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(commands.choices)


def _help(capsys, monkeypatch, command: str) -> str:
    monkeypatch.setenv("COLUMNS", "2000")  # one line per option: easy to parse
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_has_help_and_its_default(capsys, monkeypatch, command):
    text = _help(capsys, monkeypatch, command)
    entries: dict[str, str] = {}  # first flag -> its whole entry (help may wrap to a new line)
    flag = None
    for line in text.splitlines():
        if re.match(r"  -", line):
            flag = line.split()[0].rstrip(",")
            entries[flag] = line
        elif flag is not None and line.startswith("    "):
            entries[flag] += " " + line.strip()
        else:
            flag = None
    lines = {f: " ".join(e.split()) for f, e in entries.items()}
    for action in _subparsers()[command]._actions:
        if not action.option_strings or action.default == argparse.SUPPRESS:  # --help
            continue
        flag = action.option_strings[-1]
        assert action.help, f"{command} {flag} has no help"
        shown = lines[action.option_strings[0]]
        if action.default not in (None, False):
            assert "default" in shown, f"{command} {flag}: {shown!r}"
            if "%(default)" not in action.help and "default" not in action.help:
                assert f"(default: {action.default})" in shown, f"{command} {flag}: {shown!r}"
    assert "``" not in text


def test_serve_help_shows_the_defaults_of_engine_host_and_port(capsys, monkeypatch):
    text = _help(capsys, monkeypatch, "serve")
    assert re.search(rf"--host HOST\s+address to listen on \(default: {DEFAULT_HOST}\)", text)
    assert re.search(
        rf"--port PORT\s+port to listen on; 0: any free one \(default: {DEFAULT_PORT}\)", text
    )
    assert re.search(r"--engine ENGINE=DATASTORE\s+.*\(default: none but the built-in", text)
    assert re.search(r"--max-chunk-chars MAX_CHUNK_CHARS\s+chunk size limit, in characters "
                     rf"\(default: {DEFAULT_MAX_CHARS}\)", text)  # fmt: skip
    assert re.search(rf"--grace SECONDS\s+.*complete \(default: {DEFAULT_STOP_GRACE}\)", text)
    # The description (a docstring) without reST markup.
    assert "Serve the built-in corpus and --corpus folders" in text


def test_search_help_names_the_data_store_default(capsys, monkeypatch):
    text = _help(capsys, monkeypatch, "search")
    assert DEFAULT_SEARCH_K == 4  # the core's one search default
    assert re.search(rf"-k K, --k K\s+number of results \(default: {DEFAULT_SEARCH_K}\)", text)
    assert re.search(
        r"--data-store ID\s+data store id \(default: \$GROUNDING_DATA_STORE, which `grounding "
        r"serve` prints; one of --data-store, --engine and the variable is required\)",
        text,
    )
    assert re.search(r"--location LOCATION\s+global, us or eu \(default: global\)", text)
