"""``peer_harness.py``, which runs the peers' blocks for ``record_peers``, checked here under our
own interpreter (the peers' virtualenvs are not needed): Google's clients it redirects reach
the emulator, whatever endpoint the code asks for, and what the blocks leave comes back as
plain data."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.migration.record_peers import HARNESS

BLOCK = """
from google.cloud import discoveryengine_v1 as de
from langchain_core.documents import Document

# As the peer builds it: its own endpoint and (no) credentials, both replaced.
client = de.SearchServiceClient(
    credentials=None, client_options={"api_endpoint": "eu-discoveryengine.googleapis.com"}
)
request = de.SearchRequest(
    serving_config="projects/p/locations/global/dataStores/python-docs/servingConfigs/default_config",
    query="with statement",
    page_size=2,
)
docs = [Document(r.document.id, metadata={"n": 1.5}) for r in client.search(request).results]
answer = "two"
unrecorded = "not a recorded name"
"""


def test_the_harness_runs_blocks_on_the_emulator_and_returns_the_recorded_names(builtin_emulator):
    done = subprocess.run(
        [sys.executable, str(HARNESS)],
        input=json.dumps(
            {"address": builtin_emulator.address, "blocks": [{"line": 1, "code": BLOCK}]}
        ),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "docs": [
            {"id": None, "text": "with", "metadata": {"n": 1.5}},
            {"id": None, "text": "context-managers", "metadata": {"n": 1.5}},
        ],
        "answer": "two",
    }


def test_a_failing_block_names_its_line_of_the_guide(builtin_emulator):
    done = subprocess.run(
        [sys.executable, str(HARNESS)],
        input=json.dumps(
            {"address": builtin_emulator.address, "blocks": [{"line": 40, "code": "1/0\n"}]}
        ),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode != 0
    assert 'File "docs/migrating.md", line 40' in done.stderr
    assert "ZeroDivisionError" in done.stderr
