"""ScriptedJudge without a server: rules, the queue, the fallback, reset, the script file."""

from __future__ import annotations

import json
import threading

import pytest

from grounding_emulator import Fact, JudgeError, JudgeScriptError, ScriptedJudge, Verdict
from grounding_emulator.grounding.judge import claims_of

ANSWER = "Paris is the capital of France. Penguins live on the Moon. Thanks for asking!"
CLAIMS = claims_of(ANSWER)
FACTS = [Fact("Penguins live in Antarctica."), Fact("Paris is the capital of France.")]


class Recorder:
    """A fallback judge that marks every claim unsupported (score 0.5) and records its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple[str, ...], float]] = []

    def __call__(self, claims, facts, citation_threshold):
        self.calls.append((tuple(c.text for c in claims), citation_threshold))
        return [Verdict.unsupported(0.5) for _ in claims]


def test_rules_decide_the_claims_they_match():
    judge = ScriptedJudge(fallback=Recorder())
    judge.supported_if_contains("Paris", facts=(1, 0), score=0.9)
    judge.unsupported_if_contains("Penguins", score=0.1)
    judge.not_checked_if_contains("Thanks")
    assert judge(CLAIMS, FACTS, 0.6) == (
        Verdict(True, (1, 0), 0.9),
        Verdict(True, (), 0.1),
        Verdict(False, (), 0.0),
    )
    assert judge.fallback.calls == []  # every claim matched: the fallback is not asked


def test_unmatched_claims_go_to_the_fallback_which_sees_every_claim():
    fallback = Recorder()
    judge = ScriptedJudge(fallback=fallback)
    judge.supported_if_contains("Penguins")
    assert judge(CLAIMS, FACTS, 0.7) == (
        Verdict.unsupported(0.5),
        Verdict(True, (0,), 1.0),
        Verdict.unsupported(0.5),
    )
    assert fallback.calls == [(tuple(c.text for c in CLAIMS), 0.7)]


def test_the_default_fallback_is_the_lexical_judge():
    judge = ScriptedJudge()
    assert repr(judge) == (
        "ScriptedJudge(0 rules, 0 queued checks, fallback=LexicalJudge(language=None))"
    )
    assert judge(CLAIMS, FACTS, 0.6) == (
        Verdict(True, (1,), 1.0),
        Verdict(True, (), judge(CLAIMS, FACTS, 0.6)[1].score),
        Verdict(False, (), 0.0),
    )
    assert judge(CLAIMS, FACTS, 0.6)[1].score < 0.6


def test_rules_match_case_sensitively_and_the_first_one_wins():
    judge = ScriptedJudge(fallback=Recorder())
    judge.not_checked_if_contains("paris")
    judge.unsupported_if_contains("France")
    judge.supported_if_contains("Paris")
    assert judge(CLAIMS[:1], FACTS, 0.6) == (Verdict.unsupported(),)


def test_queued_checks_come_first_in_order_then_the_rules_again():
    judge = ScriptedJudge(fallback=Recorder())
    judge.not_checked_if_contains(" ")
    first = (Verdict.supported(), Verdict.unsupported(), Verdict.not_checked())
    second = (Verdict.not_checked(), Verdict.not_checked(), Verdict.supported(facts=(1,)))
    judge.next_check(*first)
    judge.next_check(*second)
    assert judge.queued_checks == 2
    assert judge(CLAIMS, FACTS, 0.6) == first
    assert judge(CLAIMS, FACTS, 0.6) == second
    assert judge.queued_checks == 0
    assert judge(CLAIMS, FACTS, 0.6) == (Verdict.not_checked(),) * 3  # every claim has a space


def test_a_queued_check_of_the_wrong_length_is_consumed_and_refused():
    judge = ScriptedJudge(fallback=Recorder())
    judge.next_check(Verdict.supported())
    with pytest.raises(JudgeError, match=r"has 1 verdicts, but the answer has 3 claims \('Paris"):
        judge(CLAIMS, FACTS, 0.6)
    assert judge.queued_checks == 0


def test_reset_forgets_rules_and_queued_checks():
    fallback = Recorder()
    judge = ScriptedJudge(fallback=fallback)
    judge.supported_if_contains("Paris")
    judge.next_check(Verdict.supported(), Verdict.supported(), Verdict.supported())
    judge.reset()
    assert judge.queued_checks == 0
    assert judge(CLAIMS, FACTS, 0.6) == (Verdict.unsupported(0.5),) * 3
    assert repr(judge).startswith("ScriptedJudge(0 rules, 0 queued checks, fallback=")


@pytest.mark.parametrize(
    ("script", "error", "message"),
    [
        (lambda j: j.supported_if_contains("X", facts=()), ValueError, "at least one fact"),
        (lambda j: j.supported_if_contains("X", score=2), ValueError, r"in \[0, 1\], got 2"),
        (lambda j: j.unsupported_if_contains(""), ValueError, "needs the text"),
        (lambda j: j.next_check(), ValueError, "one per claim"),
        (lambda j: j.next_check({"verdict": "supported"}), TypeError, "verdict 0 is a dict"),
    ],
)
def test_bad_scripts_are_refused_when_set(script, error, message):
    judge = ScriptedJudge()
    with pytest.raises(error, match=message):
        script(judge)
    assert (judge.queued_checks, repr(judge).split(",")[0]) == (0, "ScriptedJudge(0 rules")


def test_checks_from_many_threads_take_each_queued_check_once():
    judge = ScriptedJudge(fallback=Recorder())
    for number in range(50):
        judge.next_check(Verdict.unsupported(number / 100))
    seen: list[float] = []
    lock = threading.Lock()

    def check() -> None:
        for _ in range(10):
            (verdict,) = judge(CLAIMS[:1], FACTS, 0.6)
            with lock:
                seen.append(verdict.score)

    threads = [threading.Thread(target=check) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen) == [number / 100 for number in range(50)]


SCRIPT = {
    "rules": [
        {"contains": "Penguins", "verdict": "unsupported", "score": 0.2},
        {"contains": "Paris", "verdict": "supported", "facts": [1, 0], "score": 0.9},
        {"contains": "Thanks", "verdict": "not_checked"},
    ],
    "checks": [
        [{"verdict": "supported"}, {"verdict": "unsupported"}, {"verdict": "not_checked"}],
    ],
}


def test_a_script_file_sets_rules_and_queued_checks(tmp_path):
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(SCRIPT), encoding="utf-8")
    judge = ScriptedJudge.from_file(path, fallback=Recorder())
    assert repr(judge).startswith("ScriptedJudge(3 rules, 1 queued checks, ")
    assert judge(CLAIMS, FACTS, 0.6) == (
        Verdict(True, (0,), 1.0),
        Verdict(True, (), 0.0),
        Verdict(False, (), 0.0),
    )
    assert judge(CLAIMS, FACTS, 0.6) == (
        Verdict(True, (1, 0), 0.9),
        Verdict(True, (), 0.2),
        Verdict(False, (), 0.0),
    )


def test_an_empty_script_is_the_fallback(tmp_path):
    path = tmp_path / "judge.json"
    path.write_text("{}", encoding="utf-8")
    fallback = Recorder()
    assert ScriptedJudge.from_file(path, fallback)(CLAIMS, FACTS, 0.6) == (
        (Verdict.unsupported(0.5),) * 3
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", 'expected an object with "rules" and/or "checks"'),
        ('{"rule": []}', 'unknown key \'rule\' (expected "rules", "checks")'),
        ('{"rules": {}}', "rules must be a list, got dict"),
        ('{"rules": ["Paris"]}', "rules[0] must be an object, got 'Paris'"),
        ('{"rules": [{"verdict": "supported"}]}', "rules[0].contains must be a non-empty string"),
        (
            '{"rules": [{"contains": "P", "verdict": "yes"}]}',
            "rules[0].verdict must be one of supported, unsupported, not_checked, got 'yes'",
        ),
        (
            '{"rules": [{"contains": "P", "verdict": "unsupported", "facts": [0]}]}',
            "rules[0]: unsupported verdicts take score, not 'facts'",
        ),
        (
            '{"rules": [{"contains": "P", "verdict": "not_checked", "score": 1}]}',
            "rules[0]: not_checked verdicts take nothing else, not 'score'",
        ),
        (
            '{"rules": [{"contains": "P", "verdict": "supported", "facts": 0}]}',
            "rules[0].facts must be a list of fact indices",
        ),
        (
            '{"rules": [{"contains": "P", "verdict": "supported", "facts": []}]}',
            "rules[0]: a supported Verdict cites at least one fact: give the indices of the "
            "facts that support the claim",
        ),
        (
            '{"rules": [{"contains": "P", "verdict": "supported", "score": 1.5}]}',
            "rules[0]: Verdict.score must be in [0, 1], got 1.5",
        ),
        (
            '{"rules": [{"contains": "P", "verdict": "supported", "facts": ["0"]}]}',
            "rules[0]: Verdict.fact_indices must be a tuple of ints, got ('0',)",
        ),
        ('{"checks": [{}]}', "checks[0] must be a list, got dict"),
        ('{"checks": [[]]}', "checks[0] is empty: give one verdict per claim"),
        (
            '{"checks": [[{"verdict": "supported"}, {"verdict": "no"}]]}',
            "checks[0][1].verdict must be one of supported, unsupported, not_checked, got 'no'",
        ),
        ('{"rules": [', "not JSON (Expecting value: line 1 column 12 (char 11))"),
    ],
)
def test_a_bad_script_file_names_the_file_and_the_entry(tmp_path, content, message):
    path = tmp_path / "judge.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(JudgeScriptError) as excinfo:
        ScriptedJudge.from_file(path)
    assert str(excinfo.value) == f"judge script {path}: {message}"
    assert excinfo.value.code == "INVALID_ARGUMENT"


def test_a_missing_script_file_is_one_clear_error(tmp_path):
    path = tmp_path / "missing.json"
    with pytest.raises(JudgeScriptError, match=r"judge script .*missing.json: cannot be read") as e:
        ScriptedJudge.from_file(path)
    assert isinstance(e.value.__cause__, FileNotFoundError)
