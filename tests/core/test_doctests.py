"""The usage examples in the core's docstrings run."""

import doctest
import importlib
import pkgutil

import pytest

import grounding_core


def _modules() -> list[str]:
    """Every module of the core (the command line's examples are its help)."""
    found = pkgutil.walk_packages(grounding_core.__path__, "grounding_core.")
    return ["grounding_core", *(info.name for info in found if ".cli" not in info.name)]


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
