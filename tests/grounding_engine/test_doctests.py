"""The usage examples in the grounding checker's docstrings run."""

import doctest
import importlib

import pytest

MODULES = [
    "grounding_emulator.grounding.claims",
    "grounding_emulator.grounding.lexical.engine",
    "grounding_emulator.grounding.lexical.judge",
    "grounding_emulator.grounding.lexical.text_features",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
    assert result.attempted > 0
