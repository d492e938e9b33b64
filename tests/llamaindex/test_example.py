"""examples/llamaindex_rag.py runs offline and prints a cited answer with a caught claim."""

import runpy
import sys

from examples.llamaindex_rag import main

CAUGHT = "Unsupported claim caught: 'The with statement was added in Python 1.0.'"


def test_example_prints_a_cited_answer():
    out = main("How does the with statement work?")
    lines = out.splitlines()
    assert lines[0] == "Question: How does the with statement work?"
    assert lines[1].startswith("Support score: ")
    assert 0.0 < float(lines[1].removeprefix("Support score: ")) < 1.0
    assert "[1]" in out
    assert "The with statement was added in Python 1.0. **[unsupported]**" in out
    assert "**Sources**\n\n1. [" in out
    assert "(https://docs.python.org/" in out
    assert out.endswith(CAUGHT)


def test_example_runs_as_a_module(monkeypatch, capsys):
    # What `python -m examples.llamaindex_rag ...` does, in this process (a new process would
    # pay the emulator's start-up again).
    monkeypatch.setattr(sys, "argv", ["llamaindex_rag", "What does the yield statement do?"])
    monkeypatch.delitem(sys.modules, "examples.llamaindex_rag")  # imported above: run it anew
    runpy.run_module("examples.llamaindex_rag", run_name="__main__")
    out = capsys.readouterr().out
    assert out.startswith("Question: What does the yield statement do?\n")
    assert "(https://docs.python.org/" in out
    assert out.endswith(CAUGHT + "\n")
