"""Run the examples as ``python -m examples.NAME`` does, in this process, on the session's
emulator: ``EmulatorServer()`` in an example gives the running session emulator (a new one
would pay for the built-in corpus again), everything else runs as written.

The folder has no ``__init__.py`` on purpose: as a package it would be named ``examples`` and
hide the repository's ``examples`` package.
"""

from __future__ import annotations

import runpy
import sys
from contextlib import nullcontext

import pytest

import grounding_emulator


@pytest.fixture
def run_example(emulator, monkeypatch, capsys):
    """``run_example("demo", "--out", path)`` -> what the example printed."""
    monkeypatch.setenv("COLUMNS", "1000")  # no wrapping: assert on whole lines
    monkeypatch.setattr(
        grounding_emulator, "EmulatorServer", lambda *args, **kwargs: nullcontext(emulator)
    )

    def run(name: str, *argv: str) -> str:
        module = f"examples.{name}"
        monkeypatch.setattr(sys, "argv", [module, *argv])
        monkeypatch.delitem(sys.modules, module, raising=False)  # import it anew, patched
        capsys.readouterr()
        runpy.run_module(module, run_name="__main__")
        return capsys.readouterr().out

    return run
