"""A peer integration running in its own virtualenv, driven over a pipe.

>>> with PeerProcess(LANGCHAIN_PEER) as peer:  # doctest: +SKIP
...     peer.call("setup_retriever", framework="langchain", address=..., k=10, ...)
...     peer.call("retrieve", queries=["for statement"] * 5)["seconds"]

The child is ``benchmarks/peer_driver.py`` under the virtualenv's interpreter (created on first
use, see ``benchmarks.peer_venvs``); it times the peer's calls itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.child_process import PipedChild
from benchmarks.peer_venvs import (
    LANGCHAIN_PEER,
    LLAMAINDEX_PEER,
    LLAMAINDEX_RERANK_PEER,
    PeerEnv,
    isolated_env,
)

__all__ = [
    "LANGCHAIN_PEER",
    "LLAMAINDEX_PEER",
    "LLAMAINDEX_RERANK_PEER",
    "PeerError",
    "PeerProcess",
]

DRIVER = Path(__file__).with_name("peer_driver.py")


class PeerError(RuntimeError):
    """The peer driver failed a command (its message is the peer's error)."""


class PeerProcess(PipedChild):
    """``peer_driver.py`` in a peer's virtualenv; a context manager (exit stops it)."""

    def __init__(self, env: PeerEnv) -> None:
        super().__init__()
        self.env = env

    def start(self) -> PeerProcess:
        """Create the virtualenv if needed, start the driver, wait until it is ready."""
        python = self.env.ensure()
        # -W ignore: the peers warn about their own defaults and Python's end of life.
        self._spawn([str(python), "-W", "ignore", str(DRIVER)], env=isolated_env())
        self._read()
        return self

    def _read(self) -> dict[str, Any]:
        assert self._process is not None
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise PeerError(f"the {self.env.name} driver exited (see its stderr above)")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise PeerError(f"{self.env.name}: {reply['error']}")
        return reply

    def call(self, op: str, **arguments: Any) -> dict[str, Any]:
        """Run one command in the driver and return its reply."""
        assert self._process is not None
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps({"op": op, **arguments}) + "\n")
        self._process.stdin.flush()
        return self._read()
