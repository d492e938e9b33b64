"""Progress of a long ingest as lines, for logs and pipes (where a live bar cannot be drawn).

``ProgressLog`` is an ``on_progress(phase, done, total)`` callback (``datastore.ProgressCallback``)
that writes one line per phase at most every ``every`` seconds, with the rate and the time left,
and, when it wrote one, the phase's last line. A phase shorter than ``every`` writes nothing, so a
small corpus ingests silently and only long work (embedding with the ``semantic`` extra, a
million-chunk folder) is reported. ``CorpusStore`` logs through one when it is given no callback;
``grounding serve`` and ``grounding ingest`` draw bars on a terminal and write these lines to
stderr otherwise.

>>> lines = []
>>> now = iter([0.0, 12.0, 15.0]).__next__
>>> report = ProgressLog("kb", lines.append, clock=now)
>>> report("embed", 0, 900)
>>> report("embed", 240, 900)
>>> report("embed", 900, 900)
>>> lines
['kb: embed 240/900 (26%), 20/s, 33 s left', 'kb: embed 900/900 done in 15 s']
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["DEFAULT_EVERY", "ProgressLog"]

DEFAULT_EVERY = 10.0
"""Seconds between two lines of one phase (and before its first)."""


def _duration(seconds: float) -> str:
    """``42 s``, ``3 min 5 s``, ``2 h 1 min``."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


class ProgressLog:
    """Writes the progress of ``label``'s phases as lines (see the module docstring).

    Key init args:
        label: what is being ingested (a data store id), the start of every line.
        write: where a line goes (``logger.info``, a console's ``print``).
        every: seconds between two lines of a phase (``DEFAULT_EVERY`` when ``None``).
        clock: seconds, monotonic (for tests).
    """

    def __init__(
        self,
        label: str,
        write: Callable[[str], None],
        *,
        every: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self._write = write
        self._every = DEFAULT_EVERY if every is None else every
        self._clock = clock
        self._phase: str | None = None
        self._started = self._last = 0.0
        self._wrote = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        """Report ``done`` of ``total`` (0: unknown) in ``phase``."""
        now = self._clock()
        if phase != self._phase:
            self._phase, self._started, self._last, self._wrote = phase, now, now, False
        elapsed = now - self._started
        finished = 0 < total <= done
        if finished and self._wrote:
            self._write(f"{self.label}: {phase} {done}/{total} done in {_duration(elapsed)}")
        elif not finished and now - self._last >= self._every:
            self._write(f"{self.label}: {phase} {self._so_far(done, total, elapsed)}")
            self._last, self._wrote = now, True

    @staticmethod
    def _so_far(done: int, total: int, elapsed: float) -> str:
        rate = done / elapsed if elapsed > 0 else 0.0
        if total <= 0:
            return f"{done} so far, {rate:.0f}/s"
        left = f", {_duration((total - done) / rate)} left" if rate > 0 else ""
        return f"{done}/{total} ({100 * done // total}%), {rate:.0f}/s{left}"
