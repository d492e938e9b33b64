"""The options TypedDicts are their specs' fields, with the same types: they cannot drift.

``SearchOptions``, ``AnswerOptions`` and ``SummaryOptions`` are how components take a spec's
options as ``**options`` (LlamaIndex) and what the LangChain fields are checked against; the
spec (its field, type and default) is the one definition.
"""

import dataclasses
import typing
from collections.abc import Sequence

import pytest

from grounding_core import (
    AnswerOptions,
    AnswerSpec,
    ChunkSearchSpec,
    SearchOptions,
    SummaryOptions,
    SummarySpec,
)

PAIRS = [
    (SearchOptions, ChunkSearchSpec),
    (AnswerOptions, AnswerSpec),
    (SummaryOptions, SummarySpec),
]


def option_type(spec_type: object) -> object:
    """The type an option takes for a spec field of ``spec_type``: a ``tuple[X, ...]`` field
    takes any ``Sequence[X]`` (the spec keeps a tuple of it)."""
    if typing.get_origin(spec_type) is tuple:
        item, rest = typing.get_args(spec_type)
        assert rest is Ellipsis
        return Sequence[item]
    return spec_type


def spec_option_types(spec: type) -> dict[str, object]:
    hints = typing.get_type_hints(spec)
    return {f.name: option_type(hints[f.name]) for f in dataclasses.fields(spec)}


@pytest.mark.parametrize(("options", "spec"), PAIRS, ids=lambda t: t.__name__)
def test_options_have_the_fields_and_types_of_their_spec(options, spec):
    assert typing.get_type_hints(options) == spec_option_types(spec)
    assert options.__required_keys__ == frozenset()  # each may be left out: the spec's default


@pytest.mark.parametrize(("options", "spec"), PAIRS, ids=lambda t: t.__name__)
def test_every_option_builds_its_spec(options, spec):
    defaults = {f.name: getattr(spec(), f.name) for f in dataclasses.fields(spec)}
    assert set(defaults) == set(options.__optional_keys__)
    assert spec(**defaults) == spec()


def test_the_comparison_sees_a_drift():
    assert option_type(tuple[int, ...]) == Sequence[int]
    assert option_type(str | None) == (str | None)
    search = spec_option_types(ChunkSearchSpec)
    assert typing.get_type_hints(AnswerOptions) != search
    assert {**search, "k": str} != typing.get_type_hints(SearchOptions)
