"""The usage examples in the LangChain adapter's docstrings run."""

import doctest
import importlib

import pytest

MODULES = ["langchain_grounding.citations", "langchain_grounding._options"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
