"""grounding_core.arguments: unknown keyword arguments named with the closest known name."""

from __future__ import annotations

from typing import TypedDict

import pytest
from pydantic import BaseModel, ValidationError
from typing_extensions import Unpack

from grounding_core import init_without_inputs, refuse_unknown_arguments, unknown_arguments_message


class _Options(TypedDict, total=False):
    timeout: float
    location: str


class _Component:
    @refuse_unknown_arguments
    def __init__(self, query: str, *, k: int = 4, **options: Unpack[_Options]) -> None:
        self.query, self.k, self.options = query, k, options


def test_known_names_pass_through():
    built = _Component("q", k=2, timeout=1.5, location="eu")
    assert (built.query, built.k, built.options) == ("q", 2, {"timeout": 1.5, "location": "eu"})
    assert _Component(query="q").query == "q"  # a named parameter given by keyword


def test_an_unknown_name_is_a_type_error_naming_it_and_the_closest():
    with pytest.raises(TypeError) as info:
        _Component("q", locaton="eu", zzz=1)
    assert str(info.value) == (
        "_Component got unknown arguments 'locaton' (did you mean 'location'?), 'zzz': check "
        "the spelling; help(_Component) lists the arguments"
    )


def test_a_subclass_is_named_by_its_own_name():
    class Mine(_Component):
        pass

    with pytest.raises(
        TypeError, match=r"^Mine got an unknown argument 'kk' \(did you mean 'k'\?\)"
    ):
        Mine("q", kk=1)


def test_no_message_when_every_name_is_known():
    assert unknown_arguments_message("C", [], ["k"]) is None
    assert unknown_arguments_message("C", ["k"], ["k"]) is None
    assert unknown_arguments_message("C", [3], ["k"]) == (
        "C got an unknown argument '3': check the spelling; help(C) lists the arguments"
    )


class _Model(BaseModel):
    k: int


def test_init_without_inputs_drops_every_input():
    model = _Model.model_construct()
    with pytest.raises(ValidationError) as info:
        init_without_inputs(model.__init__, {"k": "secret-ish"})
    error = info.value
    assert error.__context__ is None
    assert error.__cause__ is None
    assert type(error) is ValidationError
    assert error.title == "_Model"
    assert [(e["loc"], e["type"], e["input"]) for e in error.errors()] == [
        (("k",), "int_parsing", None)
    ]
    assert "secret-ish" not in str(error) + repr(error) + error.json()


def test_init_without_inputs_builds_and_lets_other_errors_through():
    model = _Model.model_construct()
    init_without_inputs(model.__init__, {"k": 3})
    assert model.k == 3

    def broken(**data):
        raise ValueError("not a validation error")

    with pytest.raises(ValueError, match="not a validation error"):
        init_without_inputs(broken, {})


def test_init_without_inputs_shows_no_input_in_the_text():
    model = _Model.model_construct()
    with pytest.raises(ValidationError) as info:
        init_without_inputs(model.__init__, {"k": "secret-ish"})
    text = str(info.value)
    assert "input_value" not in text
    assert "input_type" not in text
    assert text.splitlines()[:3] == [
        "1 validation error for _Model",
        "k",
        "  Input should be a valid integer, unable to parse string as an integer "
        "[type=int_parsing]",
    ]


class _FreshOptions(TypedDict, total=False):
    timeout: float


class _Required(TypedDict):
    region: str


def test_the_known_names_are_read_fresh_from_a_new_signature():
    # Decorated inside the test: the names are resolved at this class's first call, not
    # remembered from an earlier run (mutation testing forks after the first runs).
    class Fresh:
        @refuse_unknown_arguments
        def __init__(self, query: str, *args: int, k: int = 4, **options: Unpack[_FreshOptions]):
            self.seen = (query, args, k, options)

    class FreshRequired:
        @refuse_unknown_arguments
        def __init__(self, **options: Unpack[_Required]):
            self.seen = options

    built = Fresh("q", 1, 2, k=3, timeout=1.0)
    assert built.seen == ("q", (1, 2), 3, {"timeout": 1.0})
    assert FreshRequired(region="eu").seen == {"region": "eu"}
    with pytest.raises(TypeError) as info:
        Fresh("q", args=1, options=3, timeout=1.0)
    assert str(info.value) == (
        "Fresh got unknown arguments 'args', 'options': check the spelling; "
        "help(Fresh) lists the arguments"
    )
    with pytest.raises(TypeError, match=r"^FreshRequired got an unknown argument 'regio' "):
        FreshRequired(regio="eu")


def test_a_long_unknown_name_is_cut_at_sixty_characters():
    exactly = "x" * 60
    assert unknown_arguments_message("C", [exactly], ["k"]).startswith(
        f"C got an unknown argument {exactly!r}:"
    )
    longer = "y" * 61
    assert unknown_arguments_message("C", [longer], ["k"]).startswith(
        f"C got an unknown argument {'y' * 60 + '...'!r}:"
    )


def test_only_the_closest_known_name_is_suggested():
    assert unknown_arguments_message("C", ["limt"], ["limit", "limits", "lime"]) == (
        "C got an unknown argument 'limt' (did you mean 'limit'?): check the spelling; "
        "help(C) lists the arguments"
    )
