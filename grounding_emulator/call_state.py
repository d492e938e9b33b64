"""Whether the call being served is still wanted: a cancelled or expired call stops its work.

The handler (``wire/handlers.py``) runs each call inside :func:`serving`, which makes the
call's state (a ``grpc.ServicerContext``, or the REST gateway's ``HttpCall``) the current one.
The long loops of every engine call :func:`check_call` at their loop boundaries (a record
ranked, a boost condition matched, a query term widened, a fact prepared, a claim judged,
a page of results built...), or walk their items through :func:`checked`. Once the client has
cancelled, or its deadline has passed, the next check raises ``DEADLINE_EXCEEDED`` or
``CANCELLED`` (the status gRPC gives such a call: the client has already stopped waiting), so the
worker thread is free for other clients instead of finishing work nobody reads. Outside a call
(the engines used in process) :func:`check_call` does nothing. A check reads a context variable
and asks the call whether it is active: about a microsecond, so the loops check once per unit
of work, not once per character.

gRPC's call states and statuses: https://grpc.io/docs/guides/deadlines/ and
https://grpc.io/docs/guides/cancellation/ ("the server should stop any ongoing computation").
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Protocol, TypeVar

from grounding_emulator.errors import EmulatorError

__all__ = [
    "CallCancelled",
    "CallContext",
    "CallDeadlineExceeded",
    "check_call",
    "checked",
    "serving",
]

_Item = TypeVar("_Item")


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


def check_call(step: str, number: int | None = None, of: int | None = None) -> None:
    """Raise ``CallDeadlineExceeded`` or ``CallCancelled`` if the current call is no longer
    wanted. ``step`` (with ``number`` ``of`` a total) says what the work had reached, for the
    server's log and the status; the text is only built when the call has ended."""
    context = _current.get()
    if context is None or context.is_active():
        return
    where = step if number is None else f"{step} {number}" + ("" if of is None else f" of {of}")
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        raise CallDeadlineExceeded(f"the call's deadline passed at {where}; the work was stopped")
    raise CallCancelled(f"the call was cancelled at {where}; the work was stopped")


def checked(items: Iterable[_Item], step: str) -> Iterator[_Item]:
    """``items``, with :func:`check_call` before each (``step`` names one, numbered from 1)."""
    for number, item in enumerate(items, 1):
        check_call(step, number)
        yield item
