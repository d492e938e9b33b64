"""A child process driven over its stdin/stdout pipes, stopped by closing its stdin."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

from typing_extensions import Self

__all__ = ["PipedChild"]


class PipedChild:
    """Base of the benchmarks' helper processes; a context manager (enter starts, exit stops).

    Subclasses write ``start()`` (spawn with ``_spawn``, then wait for the child's first line).
    """

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None

    def _spawn(
        self, command: Sequence[str], *, env: Mapping[str, str], cwd: Path | None = None
    ) -> subprocess.Popen[str]:
        self._process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        return self._process

    def start(self) -> Self:
        """Start the child and wait until it is ready."""
        raise NotImplementedError

    def stop(self) -> None:
        """Close the child's stdin (it exits by itself) and wait for it."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
