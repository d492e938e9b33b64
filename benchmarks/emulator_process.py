"""The emulator in a child process, so that the clients measured do not share its interpreter.

Every client under comparison (ours, Google's raw client, the peers in their own virtualenvs)
then talks to the same server over loopback gRPC, and none of them competes with the server's
threads for its GIL. The child serves the built-in ``python-docs`` data store (and the
``python-docs-app`` engine) with BM25 search: the semantic model is switched off
(``GROUNDING_EMULATOR_SEMANTIC=off``) so that the server's share of a call stays small and the
client-side overhead being measured is not drowned in it.

>>> with EmulatorProcess(delays={"Search": 0.02}) as emulator:  # doctest: +SKIP
...     emulator.address
'127.0.0.1:40123'

The child prints ``READY host:port`` once it listens and stops when its stdin closes.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from benchmarks.child_process import PipedChild

__all__ = ["EmulatorProcess", "main"]

ROOT = Path(__file__).resolve().parents[1]
_READY = "READY "


class EmulatorProcess(PipedChild):
    """A child process running ``EmulatorServer``; a context manager (enter starts it)."""

    def __init__(self, *, delays: Mapping[str, float] | None = None) -> None:
        super().__init__()
        self.delays = dict(delays or {})
        self.address = ""

    def start(self) -> EmulatorProcess:
        """Start the child and wait until it listens."""
        command = [sys.executable, "-m", "benchmarks.emulator_process"]
        for method, seconds in self.delays.items():
            command += ["--delay", f"{method}={seconds}"]
        env = {**os.environ, "GROUNDING_EMULATOR_SEMANTIC": "off"}
        process = self._spawn(command, env=env, cwd=ROOT)
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith(_READY):
            self.stop()
            raise RuntimeError(f"the emulator process did not start (it said {line!r})")
        self.address = line[len(_READY) :].strip()
        return self


def main(argv: list[str] | None = None) -> int:
    """Child side: serve, print ``READY host:port``, stop at EOF on stdin."""
    parser = argparse.ArgumentParser(description="the emulator for a benchmark run")
    parser.add_argument("--delay", action="append", default=[], help="METHOD=SECONDS")
    args = parser.parse_args(argv)
    from grounding_emulator import EmulatorServer

    with EmulatorServer() as server:
        for rule in args.delay:
            method, _, seconds = rule.partition("=")
            server.faults.delay(method, seconds=float(seconds))
        print(f"{_READY}{server.address}", flush=True)
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())
