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
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

__all__ = ["Fault", "FaultInjector"]


@dataclass(frozen=True, slots=True)
class Fault:
    """What happens to one call: wait ``delay`` seconds, then fail with ``code`` (if any)."""

    method: str
    code: str | None = None
    message: str = ""
    delay: float = 0.0


def _code_name(code: object) -> str:
    name = getattr(code, "name", code)
    if not isinstance(name, str) or not name.isupper():
        raise ValueError(
            f"code must be a grpc.StatusCode or its name (e.g. 'UNAVAILABLE'), got {code!r}"
        )
    if name == "OK":
        raise ValueError("an injected failure cannot have the status OK")
    return name


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

    def fail(self, method: str, *, code: object, times: int = 1, message: str = "") -> None:
        """Fail the next ``times`` calls of ``method`` with ``code`` (a ``grpc.StatusCode`` or
        its name)."""
        if times < 1:
            raise ValueError(f"times must be >= 1, got {times}")
        name = _code_name(code)
        rule = _Rule(method, times, name, message or f"injected fault: {name}")
        with self._lock:
            self._failures.append(rule)

    def delay(self, method: str, *, seconds: float, times: int | None = None) -> None:
        """Delay the next ``times`` calls of ``method`` (all of them if ``None``) by ``seconds``."""
        if seconds < 0:
            raise ValueError(f"seconds must be >= 0, got {seconds}")
        if times is not None and times < 1:
            raise ValueError(f"times must be >= 1 or None, got {times}")
        with self._lock:
            self._delays.append(_Rule(method, times, delay=seconds))

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
