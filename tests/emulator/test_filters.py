"""Filter parsing and evaluation, both dialects (pure, no server)."""

from __future__ import annotations

import pytest

from grounding_emulator import InvalidArgument
from grounding_emulator.search.filters import (
    AnyOf,
    BoolOp,
    Compare,
    Not,
    evaluate,
    parse_developer_knowledge_filter,
    parse_filter,
)

DOCUMENT = {"lang": "en", "tags": ["a", "b"], "n": 3, "flag": True, "author.name": "Zoë"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('lang: ANY("en", "fr")', True),
        ('lang: ANY("de")', False),
        ('tags: ANY("b")', True),
        ('tags = "a"', True),
        ('tags != "a"', False),
        ("n = 3", True),
        ('n = "3"', True),
        ("n < 3", False),
        ("n <= 3", True),
        ("n > 2.5", True),
        ("n >= -1", True),
        ("flag = true", True),
        ('flag: ANY("true")', True),
        ('author.name = "Zoë"', True),
        ('missing = "x"', False),
        ('NOT missing = "x"', True),
        ('-lang: ANY("en")', False),
        ('lang = "en" AND n < 2 OR tags: ANY("b")', True),
        ('lang = "en" AND (n < 2 OR tags: ANY("z"))', False),
        ('NOT lang = "fr" AND NOT n > 5', True),
        ('lang = "ANY" OR lang = "en"', True),
    ],
)
def test_discovery_engine_filters(text, expected):
    assert evaluate(parse_filter(text), DOCUMENT) is expected


def test_discovery_engine_precedence():
    assert parse_filter("a = 1 OR b = 2 AND c = 3") == BoolOp(
        "OR",
        (Compare("a", "=", 1.0), BoolOp("AND", (Compare("b", "=", 2.0), Compare("c", "=", 3.0)))),
    )
    assert parse_filter('NOT a: ANY("x") AND b = 1') == BoolOp(
        "AND", (Not(AnyOf("a", ("x",))), Compare("b", "=", 1.0))
    )


def test_aip160_or_binds_tighter_than_and():
    parsed = parse_developer_knowledge_filter(
        'uri = "a" AND data_source = "b" OR data_source = "c"'
    )
    assert parsed == BoolOp(
        "AND",
        (
            Compare("uri", "=", "a"),
            BoolOp("OR", (Compare("data_source", "=", "b"), Compare("data_source", "=", "c"))),
        ),
    )


def test_aip160_literals():
    parsed = parse_developer_knowledge_filter('update_time >= "2025-01-22T00:00:00Z"')
    assert parsed == Compare("update_time", ">=", 1737504000.0)
    assert parse_developer_knowledge_filter('content_length_bytes < "500"') == Compare(
        "content_length_bytes", "<", 500.0
    )
    assert parse_developer_knowledge_filter("  ") is None
    assert parse_filter("") is None


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("a = ", "end of input"),
        ("(a = 1", "end of input"),
        ("a = 1)", "unexpected ')' at column 6"),
        ("a: ANY()", "unexpected ')'"),
        ("a = 1 b = 2", "unexpected 'b' at column 7"),
        ('a > "x"', "a > needs a number"),
        ("= 1", "unexpected '='"),
    ],
)
def test_malformed_filters_name_the_field_and_column(text, fragment):
    with pytest.raises(InvalidArgument) as excinfo:
        parse_filter(text, "search_spec.search_params.filter")
    assert excinfo.value.field == "search_spec.search_params.filter"
    assert str(excinfo.value).startswith("search_spec.search_params.filter")
    assert fragment in str(excinfo.value)
