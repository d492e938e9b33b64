"""The ``grounding`` command line: serve and ingest (search, answer, check: tests/cli/)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from grounding_core import DiscoveryEngineClients, DiscoveryEngineTarget, search_chunks
from grounding_core.cli import main
from grounding_emulator import CorpusStore


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


def test_serve_runs_until_terminated(tmp_path, test_corpus_path):
    env = {**os.environ, "COLUMNS": "250", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "grounding_core.cli",
            "serve",
            "--port",
            "0",
            "--state-dir",
            str(tmp_path / "state"),
            "--corpus",
            f"tests={test_corpus_path}",
            "--engine",
            "tests-app=tests",
        ],
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
        assert any("tests-app" in line for line in lines)
        clients = DiscoveryEngineClients(emulator_host=address)
        chunks = search_chunks(
            clients, DiscoveryEngineTarget(project="p", engine="tests-app"), "北京"
        )
        assert chunks[0].uri == "https://example.cn/beijing"
        clients.close()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    assert process.returncode == 0
