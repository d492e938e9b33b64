"""``ScriptedJudge``: grounding verdicts a test sets, in the spirit of moto's canned responses.

>>> from grounding_emulator.grounding.judge import claims_of
>>> judge = ScriptedJudge()
>>> judge.unsupported_if_contains("Penguins")
>>> judge.supported_if_contains("Paris", facts=(1,), score=0.9)
>>> claims = claims_of("Paris is in France. Penguins live on the Moon.")
>>> facts = [Fact("Penguins live in Antarctica."), Fact("Paris is the capital of France.")]
>>> [(v.fact_indices, v.score) for v in judge(claims, facts, 0.6)]
[((1,), 0.9), ((), 0.0)]
>>> judge.next_check(Verdict.not_checked(), Verdict.supported(facts=(0,)))
>>> [v.grounding_check_required for v in judge(claims, facts, 0.6)]
[False, True]

A check takes the next queued check's verdicts when there is one (``next_check``, consumed in
order, one verdict per claim); otherwise each claim gets the verdict of the first rule whose text
it contains (case-sensitive, rules in the order they were added), and the claims no rule matches
get the fallback judge's verdict (the lexical judge unless given). The fallback is asked about
every claim, so that a rule on one claim never changes another's verdict. Deterministic;
``reset()`` forgets every rule and queued check. Scripted verdicts are returned as set: the
citation threshold does not filter them.

The same script as a JSON file (``grounding serve --judge-script FILE``, ``from_file``)::

    {"rules": [{"contains": "Penguins", "verdict": "unsupported"},
               {"contains": "Paris", "verdict": "supported", "facts": [1], "score": 0.9},
               {"contains": "Thanks", "verdict": "not_checked"}],
     "checks": [[{"verdict": "not_checked"}, {"verdict": "supported", "facts": [0]}]]}
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grounding_emulator.errors import JudgeError, JudgeScriptError
from grounding_emulator.grounding.judge import (
    SUPPORTED_SCORE,
    SUPPORTING_FACTS,
    UNSUPPORTED_SCORE,
    Claim,
    Fact,
    Judge,
    Verdict,
    ask,
)
from grounding_emulator.grounding.lexical.judge import LexicalJudge

__all__ = ["VERDICT_KINDS", "ScriptedJudge"]

# A verdict in a script file: its kind, and the keys that kind takes.
VERDICT_KINDS: Mapping[str, frozenset[str]] = {
    "supported": frozenset({"facts", "score"}),
    "unsupported": frozenset({"score"}),
    "not_checked": frozenset(),
}
_FILE_KEYS = frozenset({"rules", "checks"})


@dataclass(frozen=True, slots=True)
class _Rule:
    contains: str
    verdict: Verdict


class ScriptedJudge:
    """A judge whose verdicts a test sets (see the module docstring).

    Key init args:
        fallback: the judge of claims no rule matches; ``LexicalJudge()`` by default.
    """

    def __init__(self, fallback: Judge | None = None) -> None:
        self.fallback: Judge = LexicalJudge() if fallback is None else fallback
        self._lock = threading.Lock()
        self._rules: list[_Rule] = []
        self._checks: deque[tuple[Verdict, ...]] = deque()

    def __repr__(self) -> str:
        return (
            f"ScriptedJudge({len(self._rules)} rules, {len(self._checks)} queued checks, "
            f"fallback={self.fallback!r})"
        )

    def supported_if_contains(
        self,
        text: str,
        facts: Sequence[int] = SUPPORTING_FACTS,
        score: float = SUPPORTED_SCORE,
    ) -> None:
        """Claims containing ``text`` are supported by ``facts`` (indices, best first)."""
        self._add_rule(text, Verdict.supported(facts, score))

    def unsupported_if_contains(self, text: str, score: float = UNSUPPORTED_SCORE) -> None:
        """Claims containing ``text`` are checked and supported by no fact."""
        self._add_rule(text, Verdict.unsupported(score))

    def not_checked_if_contains(self, text: str) -> None:
        """Claims containing ``text`` need no check (``grounding_check_required`` false)."""
        self._add_rule(text, Verdict.not_checked())

    def next_check(self, *verdicts: Verdict) -> None:
        """The next check returns ``verdicts``, one per claim of its answer, in claim order.

        Each call queues one check; checks take them in the order they were queued.
        """
        if not verdicts:
            raise ValueError("next_check needs the verdicts of the check: one per claim")
        for number, verdict in enumerate(verdicts):
            if not isinstance(verdict, Verdict):
                raise TypeError(f"next_check: verdict {number} is a {type(verdict).__name__}")
        with self._lock:
            self._checks.append(tuple(verdicts))

    @property
    def queued_checks(self) -> int:
        """How many queued checks are not taken yet."""
        return len(self._checks)

    def reset(self) -> None:
        """Forget every rule and queued check."""
        with self._lock:
            self._rules.clear()
            self._checks.clear()

    def _add_rule(self, text: str, verdict: Verdict) -> None:
        if not isinstance(text, str) or not text:
            raise ValueError(f"a rule needs the text a claim contains, got {text!r}")
        with self._lock:
            self._rules.append(_Rule(text, verdict))

    def __call__(
        self, claims: Sequence[Claim], facts: Sequence[Fact], citation_threshold: float
    ) -> tuple[Verdict, ...]:
        """The queued check's verdicts, else each claim's rule's, else the fallback's."""
        with self._lock:
            queued = self._checks.popleft() if self._checks else None
            rules = tuple(self._rules)
        if queued is not None:
            if len(queued) != len(claims):
                listed = "; ".join(repr(c.text) for c in claims)
                raise JudgeError(
                    f"the scripted judge's queued check has {len(queued)} verdicts, but the "
                    f"answer has {len(claims)} claims ({listed}): queue one verdict per claim"
                )
            return queued
        scripted = [next((r.verdict for r in rules if r.contains in c.text), None) for c in claims]
        if all(v is not None for v in scripted):
            return tuple(v for v in scripted if v is not None)
        fallback = ask(self.fallback, claims, facts, citation_threshold)
        return tuple(
            mine if mine is not None else theirs
            for mine, theirs in zip(scripted, fallback, strict=True)
        )

    @classmethod
    def from_file(cls, path: str | Path, fallback: Judge | None = None) -> ScriptedJudge:
        """A judge scripted by the JSON file ``path`` (format: the module docstring).

        Raises :class:`JudgeScriptError`, naming the file and the bad entry, when it cannot be
        read or is not a valid script.
        """
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise JudgeScriptError(f"judge script {path}: cannot be read ({exc})") from exc
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise JudgeScriptError(f"judge script {path}: not JSON ({exc})") from exc
        judge = cls(fallback)
        _load(judge, raw, lambda where: f"judge script {path}: {where}")
        return judge


def _load(judge: ScriptedJudge, raw: Any, at: Callable[[str], str]) -> None:
    if not isinstance(raw, dict):
        raise JudgeScriptError(at('expected an object with "rules" and/or "checks"'))
    unknown = sorted(set(raw) - _FILE_KEYS)
    if unknown:
        raise JudgeScriptError(at(f'unknown key {unknown[0]!r} (expected "rules", "checks")'))
    rules = _list(raw.get("rules", []), "rules", at)
    for number, rule in enumerate(rules):
        where = f"rules[{number}]"
        if not isinstance(rule, dict):
            raise JudgeScriptError(at(f"{where} must be an object, got {rule!r}"))
        contains = rule.get("contains")
        if not isinstance(contains, str) or not contains:
            raise JudgeScriptError(at(f"{where}.contains must be a non-empty string"))
        verdict = _verdict({k: v for k, v in rule.items() if k != "contains"}, where, at)
        judge._add_rule(contains, verdict)
    checks = _list(raw.get("checks", []), "checks", at)
    for number, check in enumerate(checks):
        where = f"checks[{number}]"
        verdicts = _list(check, where, at)
        if not verdicts:
            raise JudgeScriptError(at(f"{where} is empty: give one verdict per claim"))
        judge.next_check(*(_verdict(v, f"{where}[{i}]", at) for i, v in enumerate(verdicts)))


def _list(value: Any, where: str, at: Callable[[str], str]) -> list[Any]:
    if not isinstance(value, list):
        raise JudgeScriptError(at(f"{where} must be a list, got {type(value).__name__}"))
    return value


def _verdict(raw: Any, where: str, at: Callable[[str], str]) -> Verdict:
    """A verdict of a script file: ``{"verdict": KIND, ...}`` (``VERDICT_KINDS``)."""
    if not isinstance(raw, dict):
        raise JudgeScriptError(at(f"{where} must be an object, got {raw!r}"))
    kind = raw.get("verdict")
    if not isinstance(kind, str) or kind not in VERDICT_KINDS:
        raise JudgeScriptError(
            at(f"{where}.verdict must be one of {', '.join(VERDICT_KINDS)}, got {kind!r}")
        )
    allowed = VERDICT_KINDS[kind]
    extra = sorted(set(raw) - allowed - {"verdict"})
    if extra:
        takes = ", ".join(sorted(allowed)) or "nothing else"
        raise JudgeScriptError(at(f"{where}: {kind} verdicts take {takes}, not {extra[0]!r}"))
    given = {key: value for key, value in raw.items() if key != "verdict"}
    if not isinstance(given.get("facts", []), list):
        raise JudgeScriptError(at(f"{where}.facts must be a list of fact indices"))
    if "facts" in given:
        given["facts"] = tuple(given["facts"])
    try:
        if kind == "supported":
            return Verdict.supported(**given)
        if kind == "unsupported":
            return Verdict.unsupported(**given)
        return Verdict.not_checked()
    except (TypeError, ValueError) as exc:
        raise JudgeScriptError(at(f"{where}: {exc}")) from exc
