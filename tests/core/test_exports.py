"""The public API of grounding_core is what __all__ says, sorted, every name importable."""

import inspect

import grounding_core


def test_all_is_sorted_and_complete():
    names = grounding_core.__all__
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))
    assert len(names) == len(set(names))
    for name in names:
        assert getattr(grounding_core, name) is not None


def test_every_public_name_has_a_docstring():
    for name in grounding_core.__all__:
        value = getattr(grounding_core, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert value.__doc__, f"{name} has no docstring"
