"""The usage examples in the emulator's docstrings run."""

import doctest
import importlib

import pytest

MODULES = [
    "grounding_core.emulator.answer_sentences",
    "grounding_core.emulator.datastore",
    "grounding_core.emulator.embeddings",
    "grounding_core.emulator.faults",
    "grounding_core.emulator.fusion",
    "grounding_core.emulator.query_classes",
    "grounding_core.emulator.records",
    "grounding_core.emulator.store",
    "grounding_core.emulator.tokens",
    "grounding_core.emulator.unwrap",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
