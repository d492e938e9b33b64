"""Records what the peers' apps of docs/migrating.md and their documented examples and tested
behaviours (``peer_cases.py``) give on the emulator, into ``peer_results.json`` (next to this
file), which the test suite compares ours with.

    python -m tests.migration.record_peers

For each peer (langchain-google-community, llama-index-retrievers-vertexai-search): its
virtualenv under ``.bench-venvs/`` is created if needed, as the benchmarks do
(``benchmarks.peer_venvs``: the peers pin other versions than ours and cannot share our
environment); the emulator runs in a child process on its built-in corpus with BM25 search
(``benchmarks.emulator_process``, the semantic model off, as in the test); the guide's
``setup`` and ``peer`` blocks of that framework run, unmodified, under the peer's interpreter
(``peer_harness.py``, which points Google's clients at the emulator), and so does each case of
``peer_cases.py`` for that framework, in a namespace of its own. Run it again when the guide's
apps, the cases, the emulator's corpus or its search change; the test names this command when
the recording is out of date.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.emulator_process import EmulatorProcess
from benchmarks.peer_venvs import LANGCHAIN_PEER, LLAMAINDEX_PEER, PeerEnv, isolated_env
from tests.migration.guide_apps import FRAMEWORKS, blocks_of
from tests.migration.peer_cases import CASES, case_code

__all__ = ["RECORDING", "app_blocks", "case_inputs", "main", "record", "run_harness"]

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
RECORDING = HERE / "peer_results.json"
HARNESS = HERE / "peer_harness.py"
ENVS: dict[str, PeerEnv] = {"langchain": LANGCHAIN_PEER, "llamaindex": LLAMAINDEX_PEER}


def app_blocks(framework: str) -> list[dict[str, Any]]:
    """The blocks the peer's side runs: the framework's setup and peer blocks, in page order."""
    blocks = sorted(
        [*blocks_of("setup", framework), *blocks_of("peer", framework)], key=lambda b: b.line
    )
    return [{"line": block.line, "code": block.code} for block in blocks]


def case_inputs(framework: str) -> list[dict[str, str]]:
    """The harness's input for the cases of ``framework``: each one's name and whole code."""
    return [{"name": c.name, "code": case_code(c)} for c in CASES if c.framework == framework]


def run_harness(env: PeerEnv, command: dict[str, Any]) -> Any:
    """``peer_harness.py``'s output for ``command``, run under ``env``'s interpreter."""
    done = subprocess.run(
        # -W ignore: the peers warn about their own defaults and Python's end of life.
        [str(env.ensure()), "-W", "ignore", str(HARNESS)],
        input=json.dumps(command),
        capture_output=True,
        text=True,
        env=isolated_env(),
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the {env.name} harness failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout)


def record(framework: str, address: str) -> dict[str, Any]:
    """What the peer's app of ``framework`` leaves (``peer_harness.RECORDED``), and what each of
    its cases gives, run on the emulator at ``address``."""
    env = ENVS[framework]
    blocks = app_blocks(framework)
    cases = case_inputs(framework)
    return {
        "peer": " ".join(env.requirements),
        "blocks": blocks,
        "outputs": run_harness(env, {"address": address, "blocks": blocks}),
        "cases": cases,
        "case_outputs": run_harness(env, {"address": address, "cases": cases}) if cases else {},
    }


def main() -> int:
    """Record every peer's app and write ``RECORDING``."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    with EmulatorProcess() as emulator:
        apps = {framework: record(framework, emulator.address) for framework in FRAMEWORKS}
    recording = {
        "how_made": (
            "python -m tests.migration.record_peers: each peer installed unmodified in its own "
            "virtualenv (benchmarks/peer_venvs.py), the emulator's built-in corpus with BM25 "
            "search (GROUNDING_EMULATOR_SEMANTIC=off), the setup and peer blocks of "
            "docs/migrating.md run by tests/migration/peer_harness.py, which gives Google's "
            "clients an insecure channel to the emulator; 'outputs' are the values the blocks "
            "left under docs, answer, result, answers, nodes and response; 'case_outputs' what "
            "each case of tests/migration/peer_cases.py left under result (or its error)."
        ),
        "recorded_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "apps": apps,
    }
    RECORDING.write_text(json.dumps(recording, indent=1, ensure_ascii=False) + "\n")
    logger.info("wrote %s", RECORDING)
    return 0


if __name__ == "__main__":
    sys.exit(main())
