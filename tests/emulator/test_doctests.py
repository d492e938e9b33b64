"""The usage examples in the emulator's docstrings run."""

import doctest
import importlib

import pytest

MODULES = [
    "grounding_emulator.answer.sentences",
    "grounding_emulator.corpus.sentences",
    "grounding_emulator.corpus.columns",
    "grounding_emulator.corpus.embeddings",
    "grounding_emulator.corpus.progress",
    "grounding_emulator.wire.faults",
    "grounding_emulator.wire.address",
    "grounding_emulator.wire.drain",
    "grounding_emulator.wire.rest.routes",
    "grounding_emulator.errors",
    "grounding_emulator.search.fusion",
    "grounding_emulator.answer.query_classes",
    "grounding_emulator.answer.rephrase",
    "grounding_emulator.answer.related",
    "grounding_emulator.corpus.records",
    "grounding_emulator.corpus.store",
    "grounding_emulator.corpus.tokens",
    "grounding_emulator.corpus.unwrap",
    "grounding_emulator.grounding.judge",
    "grounding_emulator.grounding.scripted",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
