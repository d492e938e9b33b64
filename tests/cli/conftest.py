"""The command line tests' fixtures: a wide terminal, no emulator or data store from the
environment, and ``host``, the flags naming the session emulator."""

from __future__ import annotations

import pytest

from grounding_core import DISCOVERYENGINE_EMULATOR_HOST, GROUNDING_DATA_STORE


@pytest.fixture(autouse=True)
def wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.delenv(DISCOVERYENGINE_EMULATOR_HOST, raising=False)
    monkeypatch.delenv(GROUNDING_DATA_STORE, raising=False)


@pytest.fixture
def host(emulator):
    return ["--emulator-host", emulator.address]
