"""The tests every bad-input table shares. A table is a list of cases ``(id, callable taking the
emulator, expected exception, message fragments)``; a fragment may also be a dict of the
attributes the error must have (``{"field": "timeout", "limit": 500}``), which says more than
its wording. A module makes its tests with

    test_the_table_is_big_enough = table_size_test(CASES, minimum=40)
    test_bad_input_gets_a_clear_error = clear_error_test(CASES)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

Fragment = str | Mapping[str, Any]
Case = tuple[str, Callable[[Any], Any], type[BaseException], Sequence[Fragment]]


def table_size_test(cases: Sequence[tuple[Any, ...]], *, minimum: int) -> Callable[[], None]:
    """A test that the table has at least ``minimum`` cases, with distinct ids."""

    def test_the_table_is_big_enough() -> None:
        assert len(cases) >= minimum
        assert len({case[0] for case in cases}) == len(cases)

    return test_the_table_is_big_enough


def clear_error_test(
    cases: Sequence[Case], *, after: Callable[[Any], None] | None = None
) -> Callable[..., None]:
    """A test per case: the call raises the expected exception, whose text holds every
    fragment (and which has the attributes a dict fragment gives); ``after(emulator)`` then
    checks what the module also needs to hold."""

    @pytest.mark.parametrize(
        ("name", "call", "error", "fragments"), cases, ids=[case[0] for case in cases]
    )
    def test_bad_input_gets_a_clear_error(
        emulator: Any,
        name: str,
        call: Callable[[Any], Any],
        error: type[BaseException],
        fragments: Sequence[Fragment],
    ) -> None:
        with pytest.raises(error) as info:
            call(emulator)
        message = str(info.value)
        for fragment in fragments:
            if isinstance(fragment, Mapping):
                found = {key: getattr(info.value, key) for key in fragment}
                assert found == dict(fragment), f"{name}: {found!r} != {dict(fragment)!r}"
            else:
                assert fragment in message, f"{name}: {fragment!r} not in {message[:2000]!r}"
        if after is not None:
            after(emulator)

    return test_bad_input_gets_a_clear_error
