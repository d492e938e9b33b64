"""The emulator the migration tests compare on: what the recording's emulator served."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from grounding_emulator import EmulatorServer


@pytest.fixture(scope="package")
def builtin_emulator() -> Iterator[EmulatorServer]:
    """The built-in corpus with BM25 search (the semantic model off, as in ``record_peers``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GROUNDING_EMULATOR_SEMANTIC", "off")
        with EmulatorServer() as emulator:
            yield emulator
