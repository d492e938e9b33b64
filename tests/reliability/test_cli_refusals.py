"""The command line refuses what it cannot do, in one line naming the flag (issue 39, points 9
and 11 to 13): a port outside 0-65535, two corpora with one data store id, a corpus or engine
named like the built-in's while it is served, a ``--facts`` file that cannot be parsed, an OS
error while the index is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core.cli import build_parser
from grounding_emulator import CorpusStore, EmulatorServer
from tests.cli.invoke import run
from tests.emulator.conftest import ONCE, serving_config, versioned_client
from tests.emulator.test_cli import serving

PORTS = "a port number from 0 (any free port) to 65535"
# A check serve makes after the corpora and engines, so that a refusal that regressed fails
# the test there instead of serving until the test is killed.
FAILS_LATER = ("--gcs-root", "no-such-folder")


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    root.mkdir()
    (root / "lamps.md").write_text("# Lamps\n\nLighthouse lamps turn all night.", "utf-8")
    return root


def one_error_line(err: str) -> str:
    """The message of the one line ``grounding`` writes for an error."""
    assert err.startswith("error: "), err
    assert err.count("\n") == 1, err
    return err.removeprefix("error: ").rstrip("\n")


# -- ports (point 9) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--port", "83736"),  # was 18200, modulo 65536
        ("--port", "73659"),  # was 8123, reported busy
        ("--port", "65536"),
        ("--port", "-1"),  # was "unknown host"
        ("--port", "eighty"),
        ("--rest-port", "65536"),
        ("--rest-port", "-1"),
    ],
)
def test_serve_refuses_a_port_outside_0_to_65535(capsys, flag, value):
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["serve", flag, value])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.endswith(f"error: argument {flag}: expected {PORTS}, got {value!r}\n")


def test_serve_takes_ports_0_and_65535():
    args = build_parser().parse_args(["serve", "--port", "65535", "--rest-port", "0"])
    assert (args.port, args.rest_port) == (65535, 0)
    args = build_parser().parse_args(["serve", "--port", "0", "--rest-port", "65535"])
    assert (args.port, args.rest_port) == (0, 65535)


def test_serve_on_port_65535_needs_a_rest_port(capsys):
    code, _, err = run(capsys, "serve", "--no-builtin", "--no-state", "--port", "65535")
    assert code == 2
    assert one_error_line(err) == (
        "--port 65535 is the last port, and REST listens on the port after --port: give "
        "--rest-port PORT (0: any free one)"
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"port": 83736}, f"port must be {PORTS}, got 83736"),
        ({"port": -1}, f"port must be {PORTS}, got -1"),
        ({"port": True}, f"port must be {PORTS}, got True"),
        ({"port": "8123"}, f"port must be {PORTS}, got '8123'"),
        ({"rest_port": 65536}, f"rest_port must be {PORTS}, got 65536"),
    ],
)
def test_emulator_server_refuses_a_port_outside_0_to_65535(arguments, message):
    with pytest.raises(ValueError, match="must be a port number") as refused:
        EmulatorServer(CorpusStore(semantic=False), **arguments)
    assert str(refused.value) == message


def test_emulator_server_takes_port_65535_and_no_rest():
    server = EmulatorServer(CorpusStore(semantic=False), port=65535, rest_port=None)
    assert server.port is None  # not started: nothing is bound yet


# -- corpora and engines (point 12) -----------------------------------------------------------


@pytest.mark.parametrize("command", ["serve", "ingest"])
def test_two_corpora_with_one_data_store_id_are_refused(capsys, kb, tmp_path, command):
    other = tmp_path / "kb2"
    other.mkdir()
    corpora = ("--corpus", f"a={kb}", "--corpus", f"a={other}")
    later = FAILS_LATER if command == "serve" else ()
    code, _, err = run(capsys, command, "--no-state", *corpora, *later)
    assert code == 2
    assert one_error_line(err) == (
        f"--corpus a={kb} and --corpus a={other} are both data store a: give each its own id, "
        "--corpus ID=PATH"
    )


def test_two_folders_of_one_name_are_refused_as_one_data_store(capsys, kb, tmp_path):
    twin = tmp_path / "elsewhere" / "kb"
    twin.mkdir(parents=True)
    code, _, err = run(capsys, "ingest", "--no-state", "--corpus", str(kb), "--corpus", str(twin))
    assert code == 2
    assert one_error_line(err).startswith(
        f"--corpus {kb} and --corpus {twin} are both data store kb"
    )


def test_a_corpus_named_like_the_builtin_is_refused_while_the_builtin_is_served(capsys, kb):
    code, _, err = run(capsys, "serve", "--no-state", "--corpus", f"python-docs={kb}", *FAILS_LATER)
    assert code == 2
    assert one_error_line(err) == (
        f"--corpus python-docs={kb} is data store python-docs, the built-in corpus's: give it "
        "another id (--corpus ID=PATH), or add --no-builtin to serve it instead of the built-in "
        "corpus"
    )


@pytest.mark.parametrize(
    ("engines", "shown"),
    [
        (
            ["python-docs-app=kb"],
            "python-docs-app=kb: engine python-docs-app is already served (the built-in corpus)",
        ),
        (["app=kb", "app=kb"], "app=kb: engine app is already served (another --engine)"),
    ],
)
def test_an_engine_served_already_is_refused(capsys, kb, engines, shown):
    flags = [flag for engine in engines for flag in ("--engine", engine)]
    code, _, err = run(capsys, "serve", "--no-state", "--corpus", f"kb={kb}", *flags, *FAILS_LATER)
    assert code == 2
    assert one_error_line(err) == f"--engine {shown}: give another engine id"


def test_a_corpus_named_like_the_builtin_is_served_with_no_builtin(kb):
    arguments = ("--no-builtin", "--no-state", "--corpus", f"python-docs={kb}")
    with serving(*arguments) as (address, _):
        client = versioned_client(de, "SearchServiceClient", address)
        request = de.SearchRequest(serving_config=serving_config("python-docs"), query="lamps")
        assert [r.id for r in client.search(request=request, **ONCE).results] == ["lamps-md"]


# -- --facts files (point 11) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "deep.json",
            "[" * 100_000 + "]" * 100_000,
            'nested too deeply to parse; a fact is a string, or an object of a "text" string '
            "and its metadata: flatten it",
        ),
        (
            "digits.jsonl",
            '{"text": "Lamps."}\n{"text": "x", "n": ' + "9" * 5_000 + "}\n",
            "a number has more digits than Python reads (Exceeds the limit (4300 digits) for "
            "integer string conversion: value has 5000 digits): write it as a string",
        ),
        ("broken.json", '[\n"Lamps.",\n oops]', "not JSON (Expecting value)"),
        (
            "list.jsonl",
            '{"text": "Lamps."}\n\n[1]\n',
            'expected a string or an object with a "text" string',
        ),
        ("object.json", '{"text": "Lamps."}', "expected a JSON list of facts"),
    ],
)
def test_a_bad_facts_file_exits_2_naming_the_flag_the_file_and_the_line(
    capsys, tmp_path, name, content, message
):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    code, out, err = run(capsys, "check", "Lamps turn.", "--facts", str(path))
    assert (code, out) == (2, "")
    where = {
        "digits.jsonl": ", line 2",
        "broken.json": ", line 3, column 2",
        "list.jsonl": ", line 3",
    }.get(name, "")
    assert one_error_line(err) == f"--facts {path}{where}: {message}"


# -- OS errors while persisting (point 13) ----------------------------------------------------

# The command in a process that may write files of at most 4 KB: a write past that fails with
# EFBIG ("File too large") as one past the end of a full disk fails with ENOSPC.
_LIMITED = """\
import resource, runpy, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
sys.argv = ["grounding", *sys.argv[1:]]
runpy.run_module("grounding_core.cli", run_name="__main__")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_an_os_error_while_persisting_names_the_path_and_state_dir(tmp_path):
    corpus = tmp_path / "kb.jsonl"
    text = "Lighthouse keepers tend the lamp every night. " * 20
    lines = (json.dumps({"id": f"d{n}", "content": text}) for n in range(20))
    corpus.write_text("\n".join(lines), encoding="utf-8")
    state = tmp_path / "state"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _LIMITED,
            "ingest",
            "--state-dir",
            str(state),
            "--corpus",
            str(corpus),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": "500"},
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert one_error_line(done.stderr) == (
        f"--state-dir {state}: cannot write {state}/data_stores/kb (File too large): free space "
        "there, give another --state-dir DIR, or --no-state to keep indexes in memory only"
    )
