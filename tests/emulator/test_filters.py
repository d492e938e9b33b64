"""Filter parsing, binding to field types and evaluation, both dialects (pure, no server).

The Discovery Engine forms follow Google's "Filter generic search for structured or
unstructured data" page (cloud.google.com/generative-ai-app-builder/docs/filter-search-metadata).
"""

from __future__ import annotations

import pytest

from grounding_emulator import InvalidArgument
from grounding_emulator.corpus.datastore import flatten_struct
from grounding_emulator.corpus.schema import detect_types, parse_moment
from grounding_emulator.search.filters import (
    MAX_FILTER_DEPTH,
    MAX_FILTER_LENGTH,
    AnyOf,
    BoolOp,
    Compare,
    GeoDistance,
    InRange,
    Not,
    bind_filter,
    evaluate,
    parse_developer_knowledge_filter,
    parse_filter,
)

# The page's own examples, on two documents.
DOCUMENTS = [
    flatten_struct(d)
    for d in (
        {
            "category": ["persona_A", "persona_B"],
            "score": 50,
            "price": 150,
            "pet-friendly": True,
            "manufactured_date": "2024-04-16T10:00:00Z",
            "office": {"location": {"latitude": 34.1829, "longitude": -121.293}},
            "author": {"name": "Zoë"},
        },
        {
            "category": ["persona_C"],
            "score": 100,
            "price": 120,
            "pet-friendly": False,
            "manufactured_date": "2023-06-01",
            "office": {"location": {"latitude": 37.422, "longitude": -122.084}},
            "author": {"name": "Ada"},
        },
    )
]
TYPES = detect_types(DOCUMENTS)


def matches(text: str, field: str = "filter") -> list[bool]:
    expression = parse_filter(text, field)
    assert expression is not None
    bound = bind_filter(expression, TYPES, field, "store")
    return [evaluate(bound, d) for d in DOCUMENTS]


def test_types_are_detected_from_the_values():
    types = dict(TYPES)
    assert types == {
        "category": {"text"},
        "score": {"number"},
        "price": {"number"},
        "pet-friendly": {"boolean"},
        "manufactured_date": {"datetime"},
        "office.location": {"geolocation"},
        "author.name": {"text"},
    }
    assert detect_types([{"mixed": "a"}, {"mixed": 2}, {"none": None}]) == {
        "mixed": {"text", "number"},
        "none": frozenset(),
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('category: ANY("persona_A")', [True, False]),
        ('category: ANY("persona_B", "persona_C")', [True, True]),
        ('category: ANY("persona_a")', [False, False]),  # exact, case-sensitive
        ('author.name: ANY("Zoë")', [True, False]),
        ("score: IN(*, 100.0e)", [True, False]),
        ("score: IN(*, 100)", [True, False]),  # the upper bound is exclusive by default
        ("score: IN(*, 100i)", [True, True]),
        ("score: IN(50, *)", [True, True]),  # the lower bound is inclusive by default
        ("score: IN(50e, *)", [False, True]),
        ("score: IN(50i, 100e)", [True, False]),
        ("score: IN(5e1e, 1e2i)", [False, True]),  # an exponent, then the marker
        ("score = 50", [True, False]),
        ("score < 100", [True, False]),
        ("score <= 100", [True, True]),
        ("score > 50", [False, True]),
        ("score >= -1", [True, True]),
        ('pet-friendly = "true"', [True, False]),
        ('pet-friendly = "false"', [False, True]),
        ('manufactured_date = "2023"', [False, True]),
        ('manufactured_date = "2024-04"', [True, False]),
        ('manufactured_date >= "2024-04-16"', [True, False]),
        ('manufactured_date < "2024-04-16T12:00:00-07:00"', [True, True]),
        ('manufactured_date < "2024-04-16T03:00:00-07:00"', [False, True]),
        ('manufactured_date <= "2023-06-01"', [False, True]),
        ('manufactured_date > "2023-06-01"', [True, False]),
        ('manufactured_date = "2024-04-16T10:00:00Z"', [True, False]),
        ("manufactured_date > 1700000000000000", [True, False]),  # microseconds since epoch
        ("office.location: GEO_DISTANCE(34.1829, -121.293, 500)", [True, False]),
        ("office.location:GEO_DISTANCE(34.1829, -121.293, 500)", [True, False]),
        ("NOT office.location: GEO_DISTANCE(34.1829, -121.293, 500)", [False, True]),
        # Mountain View to the first office is ~360 km.
        ("office.location: GEO_DISTANCE(37.422, -122.084, 400000)", [True, True]),
        ('category: ANY("persona_A") AND score: IN(*, 100.0e)', [True, False]),
        (
            '(price<175 AND pet-friendly = "true") OR (price<125 AND pet-friendly = "false")',
            [True, True],
        ),
        ('NOT category: ANY("persona_A")', [False, True]),
        ('-category: ANY("persona_A")', [False, True]),
        ('- category: ANY("persona_A")', [False, True]),
        ("NOT NOT score = 50", [True, False]),
        ('score = 50 AND price < 160 OR category: ANY("persona_C")', [True, True]),
        ('score = 50 AND (price < 140 OR category: ANY("persona_C"))', [False, False]),
        ('NOT category: ANY("persona_C") AND NOT score > 60', [True, False]),
    ],
)
def test_the_pages_forms(text, expected):
    assert matches(text) == expected


def test_parsed_forms():
    assert parse_filter("score: IN(*, 100.0e)") == InRange("score", None, 100.0, True, False)
    assert parse_filter("score: IN(1.5i, 2)") == InRange("score", 1.5, 2.0, True, False)
    assert parse_filter("score: IN(-2e, *)") == InRange("score", -2.0, None, False, False)
    assert parse_filter("loc: GEO_DISTANCE(1, -2.5, 30)") == GeoDistance("loc", 1.0, -2.5, 30.0)
    assert parse_filter("a = 1 OR b = 2 AND c = 3") == BoolOp(
        "OR",
        (Compare("a", "=", 1.0), BoolOp("AND", (Compare("b", "=", 2.0), Compare("c", "=", 3.0)))),
    )
    assert parse_filter('NOT a: ANY("x") AND -b = 1') == BoolOp(
        "AND", (Not(AnyOf("a", ("x",))), Not(Compare("b", "=", 1.0)))
    )
    assert parse_filter("") is None
    assert parse_filter("   ") is None


def test_datetime_literals_bind_to_their_span():
    bound = bind_filter(parse_filter('manufactured_date = "2023"'), TYPES, "filter", "s")
    assert bound == Compare("manufactured_date", "=", parse_moment("2023"))
    assert parse_moment("2023") == (1672531200000000, 1704067200000000)
    assert parse_moment("2024-02") == (1706745600000000, 1709251200000000)
    assert parse_moment("2024-04-16T12:00:00-07:00") == (1713294000000000, 1713294001000000)
    assert parse_moment("2024-04-16T12:00:00.25Z") == (1713268800250000, 1713268800250001)
    assert parse_moment("2024-13-01") is None
    assert parse_moment("last week") is None


def test_a_missing_field_matches_nothing_and_its_negation_everything():
    types = {"score": frozenset({"number"}), "gone": frozenset()}
    bound = bind_filter(parse_filter("gone = 1 OR NOT gone = 1"), types, "filter", "s")
    assert [evaluate(bound, d) for d in ({"score": 1}, {"score": 1, "gone": None})] == [
        True,
        True,
    ]
    mixed = detect_types([{"x": "3"}, {"x": 3}])
    either = bind_filter(parse_filter('x: ANY("3") OR x = 3'), mixed, "filter", "s")
    only_text = bind_filter(parse_filter('x: ANY("3")'), mixed, "filter", "s")
    assert [evaluate(only_text, {"x": v}) for v in ("3", 3)] == [True, False]
    assert [evaluate(either, {"x": v}) for v in ("3", 3)] == [True, True]


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        (
            'category != "persona_A"',
            ["filter: != is not in the filter grammar: use NOT category: ANY(...)"],
        ),
        (
            'category = "persona_A"',
            [
                "filter: category is a text field of data store 'store' and = 'persona_A' does "
                'not apply to it: write category: ANY("value")'
            ],
        ),
        ('author.name < "b"', ["author.name is a text field", "write author.name: ANY("]),
        ('score: ANY("50")', ["score is a number field", "ANY() does not apply", "score = 3"]),
        ('score = "50"', ["score is a number field", "= '50' does not apply"]),
        ("category: IN(1, 2)", ["category is a text field", "IN() does not apply"]),
        ("score: GEO_DISTANCE(1, 2, 3)", ["GEO_DISTANCE() does not apply", "score: IN(1, 5)"]),
        ('pet-friendly < "true"', ["pet-friendly is a boolean field", 'pet-friendly = "true"']),
        ("pet-friendly = 1", ["pet-friendly is a boolean field"]),
        ("pet-friendly = true", ['a boolean is written as a string: pet-friendly = "true"']),
        ('category: ANY("a", false)', ['category = "false"']),
        ('pet-friendly: ANY("true")', ["pet-friendly is a boolean field", "ANY() does not"]),
        ("category: ANY(1)", ['ANY() takes double-quoted strings: category: ANY("a", "b")']),
        ('manufactured_date: ANY("2023")', ["manufactured_date is a datetime field"]),
        (
            'manufactured_date > "yesterday"',
            ["manufactured_date is a datetime field: compare it with an ISO 8601 date"],
        ),
        (
            'office.location: GEO_DISTANCE("1600 Amphitheater Pkwy, Mountain View", 500)',
            [
                "GEO_DISTANCE with an address needs geocoding, which the emulator cannot do "
                "offline: write office.location: GEO_DISTANCE(latitude, longitude, meters)"
            ],
        ),
        ("office.location: GEO_DISTANCE(91, 0, 5)", ["latitude in [-90, 90]"]),
        ("office.location: GEO_DISTANCE(0, 0, -5)", ["distance >= 0 meters, got -5.0"]),
        ('colour: ANY("red")', ["filter: 'colour' is not a struct_data field of data store"]),
    ],
)
def test_forms_the_grammar_does_not_have_are_refused(text, fragments):
    field = "boost_spec.condition_boost_specs[0].condition"
    with pytest.raises(InvalidArgument) as excinfo:
        matches(text, field)
    assert excinfo.value.field == field
    message = str(excinfo.value)
    assert message.startswith(field)
    for fragment in fragments:
        assert fragment.replace("filter", field, 1) in message, (fragment, message)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("a = ", "end of input"),
        ("(a = 1", "end of input"),
        ("a = 1)", "unexpected ')' at column 6"),
        ("a: ANY()", "unexpected ')'"),
        ("a = 1 b = 2", "unexpected 'b' at column 7"),
        ("= 1", "unexpected '='"),
        ("a: IN(1)", "unexpected ')'"),
        ("a: IN(1x, 2)", "unexpected 'x'"),
        ("a == 1", "unexpected '='"),
        ("a = 1 and b = 2", "unexpected 'and'"),
    ],
)
def test_malformed_filters_name_the_field_and_column(text, fragment):
    with pytest.raises(InvalidArgument) as excinfo:
        parse_filter(text, "search_spec.search_params.filter")
    assert excinfo.value.field == "search_spec.search_params.filter"
    assert str(excinfo.value).startswith("search_spec.search_params.filter is malformed")
    assert fragment in str(excinfo.value)


def test_deep_nesting_is_refused_and_long_filters_are_not_echoed_whole():
    # Before parsing, by a linear pre-scan: parentheses, or negations in a row, too deep.
    with pytest.raises(InvalidArgument) as excinfo:
        parse_filter("NOT (" * 600 + "a = 1" + ")" * 600)
    assert str(excinfo.value) == (
        f"filter nests parentheses 600 levels deep; at most {MAX_FILTER_DEPTH} are allowed: "
        "write it flatter (a OR b OR c needs no parentheses)"
    )
    with pytest.raises(InvalidArgument) as excinfo:
        parse_filter("(" * 5000 + "a = 1" + ")" * 5000)
    assert "nests parentheses 5000 levels deep" in str(excinfo.value)
    with pytest.raises(InvalidArgument) as excinfo:
        parse_filter("- NOT " * 60 + "a = 1")
    assert str(excinfo.value) == (
        f"filter has 120 negations (NOT or -) in a row; at most {MAX_FILTER_DEPTH} are "
        "allowed: two negations cancel out"
    )
    # After parsing: NOT, AND and OR nesting deeper than the bound by other means.
    with pytest.raises(InvalidArgument) as excinfo:
        parse_filter("NOT (a = 1 AND " * 60 + "a = 1" + ")" * 60)
    assert str(excinfo.value) == (
        f"filter nests NOT, AND and OR more than {MAX_FILTER_DEPTH} levels deep: write it "
        "flatter (a OR b OR c needs no parentheses)"
    )
    at_limit = "NOT " * (MAX_FILTER_DEPTH - 1) + "a = 1"
    assert parse_filter(at_limit) is not None
    assert parse_filter("(" * MAX_FILTER_DEPTH + "a = 1" + ")" * MAX_FILTER_DEPTH) == Compare(
        "a", "=", 1.0
    )
    # Strings, field names with dashes and negative numbers are no nesting.
    quoted = 'a: ANY("' + "((((NOT -" * 200 + '")'
    assert parse_filter(quoted) == AnyOf("a", ("((((NOT -" * 200,))
    assert parse_filter("non-smoking" + "-" * 200 + " > -5") is not None
    long = 'a: ANY("' + "x" * 20_000 + '") )'
    with pytest.raises(InvalidArgument) as excinfo:
        parse_filter(long)
    assert "…'xxxxx" in str(excinfo.value)
    assert "x'… (20012 characters)" not in str(excinfo.value)  # the end is quoted: no tail
    assert """x") )' (20012 characters)""" in str(excinfo.value)
    assert len(str(excinfo.value)) < 400


def test_a_filter_over_the_length_bound_is_refused_before_parsing():
    longest = "a = 1" + " " * (MAX_FILTER_LENGTH - 5)
    assert parse_filter(longest) == Compare("a", "=", 1.0)
    with pytest.raises(InvalidArgument) as excinfo:
        parse_filter(longest + " ", "boost_spec.condition_boost_specs[0].condition")
    assert str(excinfo.value) == (
        f"boost_spec.condition_boost_specs[0].condition has {MAX_FILTER_LENGTH + 1} characters; "
        f"at most {MAX_FILTER_LENGTH} are allowed (the emulator's bound: Google documents none)"
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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('data_source = "docs.python.org"', True),
        ('data_source != "docs.python.org"', False),
        ('NOT uri = "https://x"', True),
        ('-uri = "https://x"', True),
        ("content_length_bytes >= 10 AND content_length_bytes < 11", True),
        ('update_time > "2025-01-01T00:00:00Z"', False),
    ],
)
def test_aip160_evaluation(text, expected):
    fields = {
        "data_source": "docs.python.org",
        "uri": "https://docs.python.org/3/",
        "update_time": 1700000000.0,
        "content_length_bytes": 10,
    }
    assert evaluate(parse_developer_knowledge_filter(text), fields) is expected
