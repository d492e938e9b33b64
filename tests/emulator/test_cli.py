"""The ``grounding`` command line: serve and ingest (search, answer, check: tests/cli/)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import DiscoveryEngineClients, DiscoveryEngineTarget, search_chunks
from grounding_core.cli import main
from grounding_emulator import CorpusStore
from tests.emulator.conftest import GROUNDING_CONFIG, ONCE, versioned_client


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
        clients = DiscoveryEngineClients(emulator_host=address)
        chunks = search_chunks(
            clients, DiscoveryEngineTarget(project="p", engine="tests-app"), "北京"
        )
        assert chunks[0].uri == "https://example.cn/beijing"
        clients.close()


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
