"""Fault injection: make the next calls of a method fail with a status, or be delayed.

>>> faults = FaultInjector()
>>> faults.fail("Search", code="UNAVAILABLE", times=2)
>>> faults.delay("CheckGrounding", seconds=0.02)
>>> faults.next_fault("/google.cloud.discoveryengine.v1.SearchService/Search")
Fault(method='Search', code='UNAVAILABLE', message='injected fault: UNAVAILABLE', delay=0.0)

A method is named by its short name (``Search``: every service and version that has it) or by
its full gRPC path (``/google.developers.knowledge.v1.DeveloperKnowledge/AnswerQuery``). Failures
are consumed one per call; a delay applies to the next ``times`` calls (every call when
``times`` is ``None``) and is followed by the call itself, or by an injected failure.

Rules are checked when they are made, each ``ValueError`` naming the argument: ``code`` a
``grpc.StatusCode`` (or its name) other than ``OK``; ``seconds`` a finite number >= 0; ``times``
an int >= 1 (or ``None``: every call until ``clear()``); ``method`` an RPC the emulator serves,
with the close matches of a misspelt one:

>>> faults.fail("Serch", code="UNAVAILABLE")
Traceback (most recent call last):
...
ValueError: method 'Serch' is not an RPC the emulator serves; did you mean 'Search' or ...? ...
"""

from __future__ import annotations

import difflib
import math
import threading
from dataclasses import dataclass

import grpc

# Importing the servicers registers them: the methods a rule may name (``rpc_paths``).
from grounding_emulator.wire.servicers import registry

__all__ = ["Fault", "FaultInjector"]

_CODES = tuple(code.name for code in grpc.StatusCode if code is not grpc.StatusCode.OK)


@dataclass(frozen=True, slots=True)
class Fault:
    """What happens to one call: wait ``delay`` seconds, then fail with ``code`` (if any)."""

    method: str
    code: str | None = None
    message: str = ""
    delay: float = 0.0


def _suggest(value: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(value, choices, n=3, cutoff=0.6)
    return f"did you mean {' or '.join(map(repr, close))}? " if close else ""


def _code_name(code: object) -> str:
    if code is grpc.StatusCode.OK or code == "OK":
        raise ValueError("code: an injected failure cannot have the status OK")
    name = code.name if isinstance(code, grpc.StatusCode) else code
    if name not in _CODES:
        hint = _suggest(name.upper(), list(_CODES)) if isinstance(name, str) else ""
        raise ValueError(
            f"code must be a grpc.StatusCode or its name, got {code!r}: {hint}"
            f"valid names: {', '.join(_CODES)}"
        )
    assert isinstance(name, str)
    return name


def _check_times(times: object) -> int | None:
    if times is not None and (isinstance(times, bool) or not isinstance(times, int) or times < 1):
        raise ValueError(f"times must be an int >= 1, or None for every call, got {times!r}")
    return times


def _check_method(method: object) -> str:
    """``method`` if the emulator serves it: a full path it serves, or the short name of one."""
    if not isinstance(method, str):
        raise ValueError(f"method must be a str (e.g. 'Search'), got {type(method).__name__}")
    paths = registry.rpc_paths()
    names = sorted({path.rpartition("/")[2] for path in paths})
    if method in paths or method in names:
        return method
    choices = list(paths) if method.startswith("/") else names
    raise ValueError(
        f"method {method!r} is not an RPC the emulator serves; {_suggest(method, choices)}"
        "name one by its short name (e.g. 'Search', every service and version that has it) "
        "or its full path (e.g. '/google.cloud.discoveryengine.v1.SearchService/Search'); "
        f"short names: {', '.join(names)}"
    )


@dataclass
class _Rule:
    method: str
    remaining: int | None
    code: str | None = None
    message: str = ""
    delay: float = 0.0

    def matches(self, path: str) -> bool:
        return path == self.method or path.rpartition("/")[2] == self.method


class FaultInjector:
    """Thread-safe queue of injected failures and delays, consulted before every call."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: list[_Rule] = []
        self._delays: list[_Rule] = []
        self.injected = 0

    def fail(self, method: str, *, code: object, times: int | None = 1, message: str = "") -> None:
        """Fail the next ``times`` calls of ``method`` (every call if ``None``) with ``code``
        (a ``grpc.StatusCode`` or its name) and ``message``."""
        method = _check_method(method)
        name = _code_name(code)
        times = _check_times(times)
        if not isinstance(message, str):
            raise ValueError(f"message must be a str, got {type(message).__name__}")
        rule = _Rule(method, times, name, message or f"injected fault: {name}")
        with self._lock:
            self._failures.append(rule)

    def delay(self, method: str, *, seconds: float, times: int | None = None) -> None:
        """Delay the next ``times`` calls of ``method`` (all of them if ``None``) by ``seconds``."""
        method = _check_method(method)
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not 0 <= seconds < math.inf
        ):
            raise ValueError(f"seconds must be a finite number >= 0, got {seconds!r}")
        times = _check_times(times)
        with self._lock:
            self._delays.append(_Rule(method, times, delay=float(seconds)))

    def clear(self) -> None:
        """Drop every pending failure and delay."""
        with self._lock:
            self._failures.clear()
            self._delays.clear()

    @property
    def pending(self) -> int:
        """How many failure and delay rules are still armed."""
        with self._lock:
            return len(self._failures) + len(self._delays)

    def _take(self, rules: list[_Rule], path: str) -> _Rule | None:
        for rule in rules:
            if rule.matches(path):
                if rule.remaining is not None:
                    rule.remaining -= 1
                    if rule.remaining == 0:
                        rules.remove(rule)
                return rule
        return None

    def next_fault(self, path: str) -> Fault | None:
        """The fault for the call now starting on ``path`` (consuming it), or ``None``."""
        with self._lock:
            if not self._failures and not self._delays:
                return None
            failure = self._take(self._failures, path)
            delay = self._take(self._delays, path)
            rule = failure or delay
            if rule is None:
                return None
            self.injected += 1
        return Fault(
            method=rule.method,
            code=failure.code if failure else None,
            message=failure.message if failure else "",
            delay=delay.delay if delay else 0.0,
        )
