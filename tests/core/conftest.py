"""Fixtures of the core's call-level tests (the session emulator is in ``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from grounding_core import DeveloperKnowledgeConnection, DiscoveryEngineConnection
from grounding_emulator import EmulatorServer

from .emulated import PROJECT


@pytest.fixture
def connections(
    emulator: EmulatorServer,
) -> Iterator[tuple[DiscoveryEngineConnection, DeveloperKnowledgeConnection]]:
    """Both connections to the session emulator, without retries (a fault is not retried)."""
    de_connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, retry=None
    )
    dk_connection = DeveloperKnowledgeConnection(emulator_host=emulator.address, retry=None)
    yield de_connection, dk_connection
    de_connection.close()
    dk_connection.close()
