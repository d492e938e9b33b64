"""The gate every call passes: it counts the calls in flight and, once closed, refuses new ones,
so that a stopping server can let the calls in flight complete (``EmulatorServer.stop``, within
``DEFAULT_STOP_GRACE`` seconds unless told otherwise).

>>> gate = CallGate()
>>> gate.enter()
True
>>> gate.close()
>>> gate.enter()  # a new call while stopping: refused
False
>>> gate.wait_idle(0.01)  # the first call is still in flight
False
>>> gate.leave()
>>> gate.wait_idle(0.01)
True
>>> gate.wait_quiet(0.01, timeout=1.0)  # no call refused for 0.01 s
True

A closed gate refuses a call in the handler, with a status of the emulator's choosing
(``UNAVAILABLE``, which clients retry); without it, a call that reaches gRPC as its server shuts
down is cancelled by gRPC itself, and its client sees ``CANCELLED``, which it does not retry.
Shutting gRPC down only once no call has come for a moment (``wait_quiet``) leaves that to a
call that arrives in the very instant of the shutdown.
"""

from __future__ import annotations

import threading
import time

__all__ = ["DEFAULT_STOP_GRACE", "CallGate"]

DEFAULT_STOP_GRACE = 5.0
"""Seconds a stopping server gives calls in flight to complete (a full-size CheckGrounding
takes about one); within Docker's 10 s between SIGTERM and SIGKILL."""


class CallGate:
    """Thread-safe count of the calls in flight, and whether new ones are let in."""

    def __init__(self) -> None:
        self._idle = threading.Condition()
        self._in_flight = 0
        self._closed = False
        self._last_refused = -float("inf")

    @property
    def in_flight(self) -> int:
        """How many calls have entered and not left."""
        with self._idle:
            return self._in_flight

    def enter(self) -> bool:
        """Let a call in (``True``), or refuse it: the gate is closed (``False``)."""
        with self._idle:
            if self._closed:
                self._last_refused = time.monotonic()
                return False
            self._in_flight += 1
            return True

    def leave(self) -> None:
        """A call that entered is done."""
        with self._idle:
            self._in_flight -= 1
            if not self._in_flight:
                self._idle.notify_all()

    def close(self) -> None:
        """Refuse every call from now on."""
        with self._idle:
            self._closed = True

    def wait_idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the calls in flight to leave; ``True`` if none is
        left."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._in_flight, timeout)

    def wait_quiet(self, quiet: float, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until no call has been refused for ``quiet`` seconds;
        ``True`` if it is so."""
        deadline = time.monotonic() + timeout
        while True:
            with self._idle:
                left = self._last_refused + quiet - time.monotonic()
            if left <= 0:
                return True
            if time.monotonic() + left > deadline:
                return False
            time.sleep(left)
