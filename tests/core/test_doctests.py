"""The usage examples in the core's docstrings run."""

import doctest
import importlib

import pytest

MODULES = [
    "grounding_core.agent_policy",
    "grounding_core.annotate",
    "grounding_core.answering",
    "grounding_core.check",
    "grounding_core.citations",
    "grounding_core.clients",
    "grounding_core.connection",
    "grounding_core.html_report",
    "grounding_core.metadata",
    "grounding_core.offsets",
    "grounding_core.pass_mark",
    "grounding_core.render",
    "grounding_core.report",
    "grounding_core.retrieval",
    "grounding_core.settings",
    "grounding_core.specs",
    "grounding_core.terminal",
    "grounding_core.tool_arguments",
    "grounding_core.tool_text",
    "grounding_core.untrusted",
    "grounding_core.validation",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
