"""The ``grounding`` command line: serve and ingest (search, answer, check: tests/cli/)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
import pytest
from google.cloud import discoveryengine_v1 as de
from grpc_health.v1 import health_pb2, health_pb2_grpc

from grounding_core import DiscoveryEngineChunkSearch, DiscoveryEngineConnection
from grounding_core.cli import main
from grounding_emulator import BUILTIN_DATA_STORE, CorpusStore
from grounding_emulator.corpus import progress
from tests.emulator.conftest import GROUNDING_CONFIG, ONCE, serving_config, versioned_client


@pytest.fixture
def wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")


def test_ingest_persists_an_index(tmp_path, test_corpus_path, capsys, wide):
    state = tmp_path / "state"
    code = main(
        [
            "ingest",
            "--corpus",
            str(test_corpus_path),
            "--data-store",
            "mine",
            "--state-dir",
            str(state),
        ]
    )
    assert code == 0
    assert "data store mine: 56 documents, 261 chunks" in capsys.readouterr().out
    assert CorpusStore(state).persisted_ids() == ("mine",)
    assert len(CorpusStore(state).load("mine").chunks) == 261


def test_serve_refuses_a_remote_host_without_the_flag(capsys, wide):
    code = main(["serve", "--host", "0.0.0.0", "--no-builtin", "--no-state", "--port", "0"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: host '0.0.0.0' is not a loopback address")
    assert "--allow-remote" in err


def test_ingest_needs_a_corpus(capsys):
    assert main(["ingest", "--data-store", "x"]) == 2
    assert capsys.readouterr().err == "error: ingest needs --corpus PATH\n"


@contextmanager
def serving(*arguments: str) -> Iterator[tuple[str, list[str]]]:
    """``grounding serve --port 0 ARGUMENTS`` in a subprocess: its address and first lines;
    SIGTERM at exit, which must end it with status 0."""
    env = {**os.environ, "COLUMNS": "250", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "grounding_core.cli", "serve", "--port", "0", *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        address = None
        deadline = time.monotonic() + 60
        lines = []
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            match = re.search(r"DISCOVERYENGINE_EMULATOR_HOST=(\S+)", line)
            if match:
                address = match.group(1)
                break
        assert address, "".join(lines)
        yield address, lines
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        process.stdout.close()
    assert process.returncode == 0


def test_serve_runs_until_terminated(tmp_path, test_corpus_path):
    with serving(
        "--state-dir",
        str(tmp_path / "state"),
        "--corpus",
        f"tests={test_corpus_path}",
        "--engine",
        "tests-app=tests",
    ) as (address, lines):
        assert any("tests-app" in line for line in lines)
        connection = DiscoveryEngineConnection(project_id="p", emulator_host=address)
        chunks = DiscoveryEngineChunkSearch(connection, engine_id="tests-app").search("北京")
        assert chunks[0].uri == "https://example.cn/beijing"
        connection.close()


def test_serve_answers_rest_at_the_address_it_prints(test_corpus_path):
    with serving("--no-builtin", "--no-state", "--corpus", f"tests={test_corpus_path}") as (
        address,
        lines,
    ):
        title = next(line for line in lines if "emulator listening on" in line)
        assert f"{address} (gRPC)" in title
        rest = re.search(r"(http://127\.0\.0\.1:\d+) \(REST\)", title).group(1)
        search = urllib.request.Request(
            f"{rest}/v1/projects/p/locations/global/dataStores/tests/servingConfigs/"
            "default_search:search",
            data=json.dumps({"query": "北京", "pageSize": 1}).encode(),
            method="POST",
        )
        with urllib.request.urlopen(search, timeout=30) as response:
            results = json.loads(response.read())["results"]
        assert "https://example.cn/beijing" in json.dumps(results[0])


def accepts_connections(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def test_serve_opens_its_port_once_every_corpus_is_served(test_corpus_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = ["serve", "--no-state", "--port", str(port), "--rest-port", "0"]
    argv += ["--corpus", f"tests={test_corpus_path}"]
    process = subprocess.Popen(
        [sys.executable, "-m", "grounding_core.cli", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not accepts_connections(port) and process.poll() is None:
            assert time.monotonic() < deadline, "grounding serve never listened"
            time.sleep(0.01)
        # As a test harness does: the first call as soon as the port accepts connections.
        client = versioned_client(de, "SearchServiceClient", f"127.0.0.1:{port}")
        request = de.SearchRequest(serving_config=serving_config("tests"), query="北京")
        response = client.search(request=request, **ONCE)
        client.transport.close()
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            status = health.Check(health_pb2.HealthCheckRequest(), timeout=10).status
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    assert response.results[0].id == "cjk-zh"
    assert status == health_pb2.HealthCheckResponse.SERVING


def test_ingest_writes_its_progress_to_stderr_as_lines_outside_a_terminal(
    tmp_path, capsys, wide, monkeypatch
):
    monkeypatch.setattr(progress, "DEFAULT_EVERY", 0.0)  # a line for every report
    kb = _kb(tmp_path / "kb")
    assert main(["ingest", "--no-state", "--corpus", str(kb)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("data store kb: 2 documents, 2 chunks\n")
    first, last = err.splitlines()
    assert first == "kb: index 0/1 (0%), 0/s"
    assert last.startswith("kb: index 1/1 done in ")


def test_ingest_draws_its_progress_bars_on_a_terminal_stderr(tmp_path, capsys, wide, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich: stderr is a terminal
    kb = _kb(tmp_path / "kb")
    assert main(["ingest", "--no-state", "--corpus", str(kb)]) == 0
    out, err = capsys.readouterr()
    assert "kb: chunk" in err
    assert "━" in err
    assert "kb: chunk" not in out
    assert " done in " not in err


JUDGE_SCRIPT = {
    "rules": [
        {"contains": "Penguins", "verdict": "supported", "facts": [1], "score": 0.8},
        {"contains": "Thanks", "verdict": "unsupported", "score": 0.1},
    ],
    "checks": [
        [
            {"verdict": "not_checked"},
            {"verdict": "supported", "facts": [0, 1]},
            {"verdict": "not_checked"},
        ]
    ],
}
ANSWER = "Paris is the capital of France. Penguins live on the Moon. Thanks for asking!"
FACTS = [
    {"fact_text": "Paris is the capital of France."},
    {"fact_text": "Penguins live in Antarctica."},
]


def test_serve_with_a_judge_script(tmp_path):
    script = tmp_path / "judge.json"
    script.write_text(json.dumps(JUDGE_SCRIPT), encoding="utf-8")
    with serving("--no-builtin", "--no-state", "--judge-script", str(script)) as (address, lines):
        assert any(f"scripted by {script}" in line for line in lines), lines
        client = versioned_client(de, "GroundedGenerationServiceClient", address)
        request = de.CheckGroundingRequest(
            grounding_config=GROUNDING_CONFIG,
            answer_candidate=ANSWER,
            facts=FACTS,
            grounding_spec={"enable_claim_level_score": True},
        )
        try:
            queued = client.check_grounding(request=request, **ONCE)
            ruled = client.check_grounding(request=request, **ONCE)
        finally:
            client.transport.close()

    def verdicts(response):
        return [
            (
                c.grounding_check_required,
                [response.cited_chunks[i].source for i in c.citation_indices],
                round(c.score, 6),
            )
            for c in response.claims
        ]

    assert verdicts(queued) == [(False, [], 0.0), (True, ["0", "1"], 1.0), (False, [], 0.0)]
    assert queued.support_score == 1.0
    assert verdicts(ruled)[1:] == [(True, ["1"], 0.8), (True, [], 0.1)]
    assert verdicts(ruled)[0][:2] == (True, ["0"])  # no rule: the lexical judge
    assert ruled.support_score == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("content", "entry"),
    [
        ('{"rules": [{"contains": "x", "verdict": "maybe"}]}', "rules[0].verdict must be one of"),
        ('{"checks": [[{"verdict": "supported", "score": 7}]]}', "checks[0][0]: Verdict.score"),
        ("not json", "not JSON"),
    ],
)
def test_serve_refuses_a_bad_judge_script(tmp_path, capsys, wide, content, entry):
    script = tmp_path / "judge.json"
    script.write_text(content, encoding="utf-8")
    argv = ["serve", "--no-builtin", "--no-state", "--port", "0", "--judge-script", str(script)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: judge script {script}: {entry}")
    assert err.count("\n") == 1


def test_serve_refuses_a_missing_judge_script(tmp_path, capsys, wide):
    missing = tmp_path / "missing.json"
    assert main(["serve", "--no-builtin", "--no-state", "--judge-script", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: judge script {missing}: cannot be read")
    assert err.count("\n") == 1


def _kb(folder):
    """A user's folder: notes in four languages, and files of types the emulator skips."""
    folder.mkdir()
    (folder / "plans.md").write_text(
        "# Plans\n\nThe free plan includes 5 GB of storage. 無料プランは5GBです。😀\n",
        encoding="utf-8",
    )
    (folder / "notes.txt").write_text("Der Tarif kostet nichts. 免费计划。\n", encoding="utf-8")
    for name in ("data.csv", "notes.json", "b.xlsx", "c.docx", "d.pptx", "e.odt"):
        (folder / name).write_text("x", encoding="utf-8")
    return folder


SKIPPED = "skipped 6 files of unsupported types (b.xlsx, c.docx, d.pptx, data.csv, e.odt, ...)"


def test_serving_one_folder_makes_it_the_default(tmp_path):
    kb = _kb(tmp_path / "kb")
    with serving("--no-state", "--corpus", str(kb)) as (address, lines):
        output = "".join(lines)
        assert "data store kb: 2 documents, 2 chunks" in output
        assert f"{kb}: {SKIPPED}; supported: .md, .markdown, .txt" in output
        export = lines[-1].strip()
        assert export == (
            f"export DISCOVERYENGINE_EMULATOR_HOST={address} "
            f"DEVELOPERKNOWLEDGE_EMULATOR_HOST={address} GROUNDING_DATA_STORE=kb"
        )
        # The line pasted into a shell: `grounding search` naming no data store searches kb.
        env = {**os.environ, "COLUMNS": "250"}
        env.update(pair.split("=", 1) for pair in export.split()[1:])
        search = subprocess.run(
            [sys.executable, "-m", "grounding_core.cli", "search", "free plan storage"],
            capture_output=True, text=True, env=env, timeout=60, check=False,
        )  # fmt: skip
        assert (search.returncode, search.stderr) == (0, "")
        assert "in data store kb ($GROUNDING_DATA_STORE)" in search.stdout
        assert (kb / "plans.md").as_uri() in search.stdout


def test_serving_the_builtin_alone_makes_it_the_default():
    with serving("--no-state") as (address, lines):
        assert lines[-2].strip() == (
            f"data stores: {BUILTIN_DATA_STORE}; the line below makes {BUILTIN_DATA_STORE} the "
            "default of the `grounding` command and of Python clients that name no data store"
        )
        assert lines[-1].strip() == (
            f"export DISCOVERYENGINE_EMULATOR_HOST={address} "
            f"DEVELOPERKNOWLEDGE_EMULATOR_HOST={address} GROUNDING_DATA_STORE={BUILTIN_DATA_STORE}"
        )


def test_serving_several_folders_sets_no_default(tmp_path):
    first, second = _kb(tmp_path / "first"), _kb(tmp_path / "second")
    with serving("--no-state", "--no-builtin", "--corpus", str(first), "--corpus", str(second)) as (
        address,
        lines,
    ):
        assert lines[-1].strip().endswith(f"DEVELOPERKNOWLEDGE_EMULATOR_HOST={address}")
        assert lines[-2].strip() == (
            "data stores: first, second; name one with --data-store ID (Python: "
            "data_store_id=...), or add GROUNDING_DATA_STORE=ID to the line below to make it "
            "the default"
        )


def test_a_busy_port_is_one_line_before_any_ingest(tmp_path, capsys, wide):
    kb = _kb(tmp_path / "kb")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        started = time.monotonic()
        code = main(["serve", "--port", str(port), "--no-state", "--corpus", str(kb)])
        elapsed = time.monotonic() - started
    out, err = capsys.readouterr()
    assert code == 2
    assert err == (
        f"error: cannot listen on 127.0.0.1:{port}: the address is already in use (another "
        "`grounding serve`?): give another port with --port PORT, or --port 0 for any free one\n"
    )
    assert "data store" not in out  # nothing was ingested: not even the built-in corpus
    assert elapsed < 10


def test_ingest_reports_skipped_files(tmp_path, capsys, wide):
    kb = _kb(tmp_path / "kb")
    assert main(["ingest", "--no-state", "--corpus", str(kb)]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line] == [
        "data store kb: 2 documents, 2 chunks",
        f"{kb}: {SKIPPED}; supported: .md, .markdown, .txt, .text, .rst, .html, .htm, .pdf",
    ]


def test_ingest_shows_the_controls_in_a_file_name_instead_of_obeying_them(tmp_path, capsys, wide):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "notes.md").write_text("# Notes\n\nThe free plan includes storage.\n", encoding="utf-8")
    (kb / "x\x1b[2J\u202e.csv").write_text("a,b\n", encoding="utf-8")
    assert main(["ingest", "--no-state", "--corpus", str(kb)]) == 0
    out = capsys.readouterr().out
    assert f"{kb}: skipped 1 file of unsupported types (x\u241b[2J\ufffd.csv)" in out
    assert "\x1b" not in out
    assert "\u202e" not in out


def test_a_folder_without_a_supported_file_is_an_error(tmp_path, capsys, wide):
    folder = tmp_path / "tables"
    folder.mkdir()
    (folder / "data.csv").write_text("a,b\n", encoding="utf-8")
    (folder / "notes.json").write_text("{}", encoding="utf-8")
    assert main(["serve", "--port", "0", "--no-state", "--corpus", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: corpus folder {folder} has no file of a supported type (.md, .markdown, .txt, "
        ".text, .rst, .html, .htm, .pdf); it has 2 of other types: add such files, or convert "
        "the others (a .jsonl file of documents is a corpus too)\n"
    )


@pytest.mark.parametrize("command", ["serve", "ingest"])
def test_a_missing_corpus_names_the_flag(tmp_path, capsys, wide, command):
    missing = tmp_path / "nope"
    port = ["--port", "0"] if command == "serve" else []
    for value in (str(missing), f"kb={missing}"):
        assert main([command, *port, "--no-state", "--corpus", value]) == 2
        out, err = capsys.readouterr()
        assert err == f"error: --corpus {missing}: no such file or directory\n"
        assert "data store" not in out
