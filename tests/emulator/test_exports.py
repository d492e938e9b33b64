"""The emulator's public API is what ``__all__`` says, every name importable and documented."""

from __future__ import annotations

import inspect

import grounding_emulator


def test_all_is_pinned():
    assert grounding_emulator.__all__ == [
        "BUILTIN_DATA_STORE",
        "BUILTIN_ENGINE",
        "DEFAULT_PORT",
        "Claim",
        "CorpusError",
        "CorpusStore",
        "DataStore",
        "EmulatorError",
        "EmulatorServer",
        "Fact",
        "FailedPrecondition",
        "Fault",
        "FaultInjector",
        "InvalidArgument",
        "Judge",
        "JudgeError",
        "JudgeScriptError",
        "LexicalJudge",
        "NotFound",
        "ResourceStore",
        "ScriptedJudge",
        "Verdict",
    ]


def test_every_class_and_function_is_documented():
    for name in grounding_emulator.__all__:
        value = getattr(grounding_emulator, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), name
