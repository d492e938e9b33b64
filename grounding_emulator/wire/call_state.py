"""Whether the call being served is still wanted: a cancelled or expired call stops its work.

The handler (``handlers.py``) runs each call inside :func:`serving`, which makes the call's
``grpc.ServicerContext`` the current one; the long loops of a call run :func:`check_call`
between steps: the servicers give the judge (whose loop over the claims, each scored against
every fact, is the longest work of CheckGrounding and AnswerQuery) the claims through
:func:`watched`, which checks before handing over each claim. Once the client has cancelled, or
its deadline has passed, the next check raises ``DEADLINE_EXCEEDED`` or ``CANCELLED`` (the status
gRPC gives such a call: the client has already stopped waiting), so the worker thread is free for
other clients instead of finishing work nobody reads. Outside a call (engines used in process),
:func:`check_call` does nothing.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol

from grounding_emulator.errors import EmulatorError
from grounding_emulator.grounding.judge import Claim, Fact, Judge, Verdict

__all__ = [
    "CallCancelled",
    "CallContext",
    "CallDeadlineExceeded",
    "check_call",
    "serving",
    "watched",
]


class CallContext(Protocol):
    """What a call's state is read from (``grpc.ServicerContext`` has both methods)."""

    def is_active(self) -> bool:
        """Whether the call is still in progress (not cancelled, deadline not passed)."""

    def time_remaining(self) -> float | None:
        """Seconds to the call's deadline, ``None`` without one."""


class CallDeadlineExceeded(EmulatorError):
    """The client's deadline passed while the call was being worked on."""

    code = "DEADLINE_EXCEEDED"


class CallCancelled(EmulatorError):
    """The client cancelled the call while it was being worked on."""

    code = "CANCELLED"


_current: contextvars.ContextVar[CallContext | None] = contextvars.ContextVar(
    "grounding_emulator_call", default=None
)


@contextmanager
def serving(context: CallContext) -> Iterator[None]:
    """Make ``context`` the call that :func:`check_call` reads, for the ``with`` block."""
    token = _current.set(context)
    try:
        yield
    finally:
        _current.reset(token)


def check_call(step: str) -> None:
    """Raise ``CallDeadlineExceeded`` or ``CallCancelled`` if the current call is no longer
    wanted; ``step`` says what the work had reached (for the server's log and the status)."""
    context = _current.get()
    if context is None or context.is_active():
        return
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        raise CallDeadlineExceeded(f"the call's deadline passed at {step}; the work was stopped")
    raise CallCancelled(f"the call was cancelled at {step}; the work was stopped")


class _CheckedClaims(tuple[Claim, ...]):
    """The claims of a call, checked (:func:`check_call`) before each one is handed over."""

    def __iter__(self) -> Iterator[Claim]:
        for number, claim in enumerate(super().__iter__()):
            check_call(f"claim {number + 1} of {len(self)}")
            yield claim


def watched(judge: Judge) -> Judge:
    """``judge``, given the claims as :class:`_CheckedClaims`: a call that is no longer wanted
    stops at the next claim the judge takes. Errors name it as they name ``judge``."""

    def judge_checked(
        claims: Sequence[Claim], facts: Sequence[Fact], citation_threshold: float
    ) -> Sequence[Verdict]:
        return judge(_CheckedClaims(claims), facts, citation_threshold)

    named = judge if hasattr(judge, "__qualname__") else type(judge)
    judge_checked.__module__ = getattr(named, "__module__", "?")
    judge_checked.__qualname__ = getattr(named, "__qualname__", "?")
    return judge_checked
