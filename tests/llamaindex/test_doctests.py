"""The usage examples in the LlamaIndex adapters' docstrings run."""

import doctest
import importlib

import pytest

MODULES = [
    "llamaindex_grounding.nodes",
    "llamaindex_grounding.events",
    "llamaindex_grounding.citations",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
