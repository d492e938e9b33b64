"""The existing integrations, each installed in a virtualenv of its own under ``.bench-venvs/``.

``llama-index-retrievers-vertexai-search`` pins an older ``google-cloud-discoveryengine`` than
ours, so the peers cannot share our environment. Each virtualenv is created on first use with
``python -m venv`` and ``pip install``, marked as complete by a file naming what was installed,
and reused by later runs (delete ``.bench-venvs/`` to rebuild them).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "LANGCHAIN_PEER",
    "LLAMAINDEX_PEER",
    "LLAMAINDEX_RERANK_PEER",
    "PEERS",
    "VENVS",
    "PeerEnv",
    "isolated_env",
    "main",
]

logger = logging.getLogger(__name__)

VENVS = Path(__file__).resolve().parents[1] / ".bench-venvs"
_MARKER = "installed.txt"


def isolated_env() -> dict[str, str]:
    """This process's environment without what would let a peer see our packages."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


@dataclass(frozen=True)
class PeerEnv:
    """A virtualenv holding one peer integration, pinned."""

    name: str
    requirements: tuple[str, ...]

    @property
    def path(self) -> Path:
        """The virtualenv's folder."""
        return VENVS / self.name

    @property
    def python(self) -> Path:
        """Its interpreter."""
        return self.path / "bin" / "python"

    @property
    def ready(self) -> bool:
        """True when a complete install of exactly these requirements is there."""
        marker = self.path / _MARKER
        return marker.exists() and marker.read_text().split() == list(self.requirements)

    def ensure(self) -> Path:
        """The interpreter, creating the virtualenv and installing the peer when needed."""
        if self.ready:
            return self.python
        if self.path.exists():
            shutil.rmtree(self.path)
        logger.info("creating %s with %s", self.path, " ".join(self.requirements))
        for command in (
            [sys.executable, "-m", "venv", str(self.path)],
            [str(self.python), "-m", "pip", "install", "--quiet", *self.requirements],
        ):
            done = subprocess.run(command, env=isolated_env(), capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(
                    f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-4000:]}"
                )
        (self.path / _MARKER).write_text("\n".join(self.requirements) + "\n")
        return self.python


LANGCHAIN_PEER = PeerEnv(
    "langchain-google-community",
    ("langchain-google-community[vertexaisearch]==5.1.1",),
)
LLAMAINDEX_PEER = PeerEnv(
    "llama-index-retrievers-vertexai-search",
    ("llama-index-retrievers-vertexai-search==0.5.0",),
)
LLAMAINDEX_RERANK_PEER = PeerEnv(
    "llama-index-postprocessor-google-rerank",
    ("llama-index-postprocessor-google-rerank==0.2.0",),
)
PEERS = (LANGCHAIN_PEER, LLAMAINDEX_PEER, LLAMAINDEX_RERANK_PEER)


def main() -> int:
    """``python -m benchmarks.peer_venvs``: create every peer's virtualenv that is missing (the
    side-by-side tests of ``tests/migration/`` are skipped without them)."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for peer in PEERS:
        logger.info("%s: %s", peer.name, peer.ensure())
    return 0


if __name__ == "__main__":
    sys.exit(main())
