"""``grounding_core._checks``: what every spec checks before anything is sent.

Covers ``check_wire_text`` (a lone surrogate named by its position in code points; a non-string
by its type), ``check_text`` and ``check_query`` (lengths exactly at a limit and one past it, blank
queries), ``check_count`` and ``check_fraction`` (bounds, bools are not numbers, NaN),
``check_choice``, ``check_request_size`` (exactly 10 MiB and one byte more), ``check_fields`` (a
field of each basic type and its ``| None`` form, the type given named and never the value, a
fresh record read afresh), ``check_user_labels`` (Google's label rules at each edge, a read-only
copy) and ``jsonable_metadata`` (what is kept, what is converted, what is refused by its path).
Each refusal is an ``InputError`` with ``.field`` and ``.limit``; the components refuse before a
call is made (an armed emulator fault stays pending).
"""

from __future__ import annotations

import array
import dataclasses
import datetime as dt
import enum
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Optional

import numpy as np
import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    ChunkSearchSpec,
    DeveloperKnowledgeAnswerQuery,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineChunkSearch,
    GroundingCheck,
    GroundingError,
    GroundingSource,
    InputError,
)
from grounding_core._checks import (
    MAX_LABEL_CHARS,
    MAX_METADATA_DEPTH,
    MAX_REQUEST_BYTES,
    MAX_USER_LABELS,
    check_choice,
    check_count,
    check_fields,
    check_fraction,
    check_query,
    check_request_size,
    check_text,
    check_user_labels,
    check_wire_text,
    jsonable_metadata,
)

LONE = "which is not valid UTF-8"


def refusal(call, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    assert isinstance(info.value, GroundingError)
    assert isinstance(info.value, ValueError)
    return info.value


# -- check_wire_text -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["", "plain", "café", "東京 🚀 👩‍🚀", "\U0001f600", "\x00", "\uffff", "\ue000", "\ud7ff"],
)
def test_text_utf8_can_carry_is_returned_as_it_is(text):
    assert check_wire_text("query", text) is text


@pytest.mark.parametrize(
    ("text", "code", "position"),
    [
        ("\ud800", "D800", 0),
        ("abc\udfff", "DFFF", 3),
        ("é\udc00x\ud800", "DC00", 1),  # the first one is named
        ("🚀" * 5 + "\ud83d", "D83D", 5),  # positions count code points, not bytes
        ("\ud83d\ude00", "D83D", 0),  # a pair written as two code points is two lone halves
    ],
)
def test_a_lone_surrogate_is_named_with_its_position_and_what_to_do(text, code, position):
    error = refusal(check_wire_text, "ChunkSearchSpec.filter", text)
    assert (error.field, error.limit) == ("ChunkSearchSpec.filter", None)
    assert str(error).startswith(
        f"ChunkSearchSpec.filter holds a lone surrogate (U+{code}) at character {position}, "
        f"{LONE} and cannot be sent"
    )
    assert str(error).endswith(
        ": decode the text properly (both halves of a surrogate pair) or remove it"
    )


@pytest.mark.parametrize(("value", "kind"), [(b"x", "bytes"), (None, "NoneType"), (7, "int")])
def test_a_non_string_is_refused_by_its_type(value, kind):
    error = refusal(check_wire_text, "display_name", value)
    assert (error.field, error.limit) == ("display_name", None)
    assert f"display_name must be a string, got {kind}" in str(error)


# -- check_text and check_query --------------------------------------------------------------------


@pytest.mark.parametrize("check", [check_text, lambda name, value, **kw: check_query(value, **kw)])
def test_a_text_exactly_at_its_limit_passes_and_one_more_character_is_refused(check):
    assert check("query", "é" * 5, maximum=5) == "é" * 5
    error = refusal(check, "query", "é" * 6, maximum=5)
    assert (error.field, error.limit) == ("query", 5)
    assert str(error).startswith("query has 6 characters; the API accepts at most 5")


def test_a_text_without_a_limit_has_none():
    assert check_text("display_name", "x" * 100_000) == "x" * 100_000
    assert check_query("x" * 100_000) == "x" * 100_000


@pytest.mark.parametrize(
    ("call", "field", "words"),
    [
        (lambda: check_text("filter", 3, maximum=2), "filter", "filter must be a string, got int"),
        (lambda: check_text("filter", "a\ud800", maximum=2), "filter", "filter holds a lone"),
        (lambda: check_query(3), "query", "query must be a string, got int"),
        (lambda: check_query(" \ud800 "), "query", "query holds a lone surrogate (U+D800) at "),
    ],
)
def test_texts_are_checked_for_their_type_and_surrogates(call, field, words):
    error = refusal(call)
    assert (error.field, error.limit) == (field, None)
    assert str(error).startswith(words)


@pytest.mark.parametrize("query", ["", " ", "\n\t "])
def test_a_blank_query_is_refused(query):
    error = refusal(check_query, query, maximum=10)
    assert (error.field, error.limit) == ("query", None)
    assert str(error).startswith("query is empty")


def test_a_query_with_text_around_blanks_is_kept():
    assert check_query(" a ") == " a "


# -- check_count and check_fraction ----------------------------------------------------------------


@pytest.mark.parametrize(("value", "maximum"), [(1, 10), (10, 10), (1, None), (10**9, None)])
def test_a_count_within_its_bounds_is_returned(value, maximum):
    assert check_count("k", value, minimum=1, maximum=maximum) == value


@pytest.mark.parametrize(
    ("value", "maximum", "words"),
    [
        (0, 10, "k must be between 1 and 10, got 0"),
        (11, 10, "k must be between 1 and 10, got 11"),
        (0, None, "k must be >= 1, got 0"),
        (-5, None, "k must be >= 1, got -5"),
        (True, 10, "k must be an integer, got bool"),
        (2.0, 10, "k must be an integer, got float"),
        ("3", None, "k must be an integer, got str"),
    ],
)
def test_a_count_out_of_bounds_or_not_an_int_is_refused(value, maximum, words):
    error = refusal(check_count, "k", value, minimum=1, maximum=maximum)
    assert (error.field, error.limit) == ("k", maximum)
    assert words in str(error)


@pytest.mark.parametrize(("value", "expected"), [(0, 0.0), (1, 1.0), (0.0, 0.0), (0.25, 0.25)])
def test_a_fraction_in_the_closed_interval_is_a_float(value, expected):
    returned = check_fraction("citation_threshold", value)
    assert returned == expected
    assert type(returned) is float


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (-0.01, "-0.01"),
        (1.01, "1.01"),
        (2, "2"),
        (math.nan, "nan"),
        (math.inf, "inf"),
        (True, "True"),
        (False, "False"),
        ("0.5", "str"),
        (None, "NoneType"),
    ],
)
def test_a_fraction_outside_zero_to_one_or_not_a_number_is_refused(value, shown):
    error = refusal(check_fraction, "citation_threshold", value)
    assert (error.field, error.limit) == ("citation_threshold", "[0, 1]")
    assert f"citation_threshold must be a number between 0 and 1, got {shown}" in str(error)


# -- check_choice ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["raise", "record", None])
def test_a_choice_among_the_choices_passes(value):
    assert check_choice("on_error", value, ("raise", "record", None)) is None


@pytest.mark.parametrize(
    ("value", "shown"),
    [("fail", "'fail'"), (3, "3"), (None, "None"), (["raise"], "list"), (b"raise", "bytes")],
)
def test_a_value_not_among_the_choices_names_them(value, shown):
    error = refusal(check_choice, "on_error", value, ("raise", "record"))
    assert (error.field, error.limit) == ("on_error", None)
    assert f"on_error must be one of 'raise', 'record', got {shown}" in str(error)


# -- check_request_size ----------------------------------------------------------------------------


def test_a_request_of_exactly_ten_mib_passes_and_one_byte_more_is_refused_saying_what_to_cut():
    assert MAX_REQUEST_BYTES == 10 * 1024 * 1024
    request = de.CheckGroundingRequest.pb()(answer_candidate="a")
    overhead = request.ByteSize()
    # One string field: its tag and length prefix (4 bytes for this length) plus its bytes.
    request.grounding_config = "g" * (MAX_REQUEST_BYTES - overhead - 5)
    assert request.ByteSize() == MAX_REQUEST_BYTES
    assert check_request_size("CheckGrounding", request) is None
    request.grounding_config += "g"
    error = refusal(check_request_size, "CheckGrounding", request)
    assert (error.field, error.limit) == ("request", MAX_REQUEST_BYTES)
    assert str(error).startswith(
        "the CheckGrounding request is 10,485,761 bytes; Google's API front end refuses "
        "requests over 10,485,760 bytes (10 MiB)"
    )
    assert str(error).endswith(": send fewer or smaller sources and metadata, or shorter texts")


# -- check_fields ----------------------------------------------------------------------------------


@dataclasses.dataclass
class Options:
    flag: bool = False
    count: int = 1
    ratio: float = 0.5
    name: str = ""
    maybe_flag: bool | None = None
    maybe_count: int | None = None
    other: tuple[str, ...] = ()
    mapping: dict[str, int] | None = None


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"flag": True, "count": 0, "ratio": 2, "name": "é"},
        {"ratio": -1e300, "maybe_flag": False, "maybe_count": 3},
        {"other": "not checked here", "mapping": 5},  # only the four basic types are checked
    ],
)
def test_fields_of_their_declared_type_pass(changes):
    assert check_fields(Options(**changes)) is None


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"flag": "no"}, "flag", "must be True or False, got str"),
        ({"flag": 1}, "flag", "must be True or False, got int"),
        ({"flag": None}, "flag", "must be True or False, got NoneType"),
        ({"count": True}, "count", "must be an integer, got bool"),
        ({"count": 1.0}, "count", "must be an integer, got float"),
        ({"count": "1"}, "count", "must be an integer, got str"),
        ({"ratio": False}, "ratio", "must be a finite number, got bool"),
        ({"ratio": "0.5"}, "ratio", "must be a finite number, got str"),
        ({"ratio": math.nan}, "ratio", "must be a finite number, got nan"),
        ({"ratio": math.inf}, "ratio", "must be a finite number, got inf"),
        ({"ratio": -math.inf}, "ratio", "must be a finite number, got -inf"),
        ({"name": 3}, "name", "must be a string, got int"),
        ({"name": None}, "name", "must be a string, got NoneType"),
        ({"maybe_flag": "yes"}, "maybe_flag", "must be True or False or None, got str"),
        ({"maybe_count": False}, "maybe_count", "must be an integer or None, got bool"),
        ({"flag": "x", "count": "y"}, "flag", "must be True or False, got str"),
    ],
)
def test_a_field_of_another_type_is_named_with_the_type_it_got(changes, field, words):
    error = refusal(check_fields, Options(**changes))
    assert (error.field, error.limit) == (field, None)
    assert f"Options.{field} {words}" in str(error)


def test_a_string_field_is_checked_for_lone_surrogates():
    error = refusal(check_fields, Options(name="ab\udc01"))
    assert error.field == "Options.name"
    assert str(error).startswith("Options.name holds a lone surrogate (U+DC01) at character 2")


def test_a_secret_given_in_the_wrong_field_is_not_echoed():
    assert "sk-secret" not in str(refusal(check_fields, Options(count="sk-secret-key")))


def test_the_declared_types_are_read_from_a_new_record():
    @dataclasses.dataclass(frozen=True)
    class Fresh:
        flag: bool = False
        count: int = 0
        ratio: float = 0.5
        name: str = ""
        maybe: int | None = None
        either: Optional[str] = None  # noqa: UP045 (the typing.Union spelling is read too)
        pair: int | str = 0  # not one basic type: not checked
        items: tuple[int, ...] = ()

    for fine in (Fresh(), Fresh(pair="s", items=(1,), maybe=3, either="e", ratio=2)):
        assert check_fields(fine) is None
    cases = [
        ({"flag": 1}, "flag", "Fresh.flag must be True or False, got int"),
        ({"count": True}, "count", "Fresh.count must be an integer, got bool"),
        ({"ratio": math.inf}, "ratio", "Fresh.ratio must be a finite number, got inf"),
        ({"name": None}, "name", "Fresh.name must be a string, got NoneType"),
        ({"maybe": 1.5}, "maybe", "Fresh.maybe must be an integer or None, got float"),
        ({"either": 3}, "either", "Fresh.either must be a string or None, got int"),
    ]
    for changes, field, words in cases:
        error = refusal(check_fields, Fresh(**changes))
        assert error.field == field
        assert words in str(error)


# -- check_user_labels -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "labels",
    [
        {},
        {"env": "prod", "équipe": ""},
        {"a": "x" * MAX_LABEL_CHARS},
        {"k" * MAX_LABEL_CHARS: "v"},
        {"team-1_x": "a-b_9", "日本": "東京"},
        {f"k{i}": "v" for i in range(MAX_USER_LABELS)},
    ],
    ids=["empty", "international", "longest-value", "longest-key", "digits-and-marks", "64"],
)
def test_labels_that_meet_googles_rules_are_a_read_only_copy(labels):
    given = dict(labels)
    checked = check_user_labels(given)
    assert isinstance(checked, MappingProxyType)
    assert dict(checked) == labels
    given["later"] = "x"
    assert "later" not in checked
    with pytest.raises(TypeError):
        checked["x"] = "y"  # type: ignore[index]


@pytest.mark.parametrize(
    ("labels", "limit", "words"),
    [
        (["env"], None, "user_labels must be a mapping of str to str, got list"),
        ({1: "x"}, None, "user_labels: keys and values must be strings, got int -> str"),
        ({"k": 1}, None, "user_labels: keys and values must be strings, got str -> int"),
        (
            {f"k{i}": "v" for i in range(MAX_USER_LABELS + 1)},
            MAX_USER_LABELS,
            "user_labels has 65 labels; at most 64 are allowed",
        ),
    ],
    ids=["not-a-mapping", "int-key", "int-value", "65-labels"],
)
def test_labels_of_the_wrong_shape_are_refused(labels, limit, words):
    error = refusal(check_user_labels, labels)
    assert (error.field, error.limit) == ("user_labels", limit)
    assert words in str(error)


LENGTH = "a key has 1 to 63 characters, a value at most as many"
START = "a key starts with a lowercase letter or an international character"
CHARACTERS = "use lowercase letters, digits, '_' and '-' (international ones too)"


@pytest.mark.parametrize(
    ("labels", "rule"),
    [
        ({"": "v"}, LENGTH),
        ({"k" * (MAX_LABEL_CHARS + 1): "v"}, LENGTH),
        ({"k": "v" * (MAX_LABEL_CHARS + 1)}, LENGTH),
        ({"Env": "v"}, START),
        ({"Équipe": "v"}, START),
        ({"1env": "v"}, START),
        ({"_env": "v"}, START),
        ({"-env": "v"}, START),
        ({"eNv": "v"}, CHARACTERS),
        ({"env": "Prod"}, CHARACTERS),
        ({"a b": "v"}, CHARACTERS),
        ({"env": "a.b"}, CHARACTERS),
        ({"env": "a/b"}, CHARACTERS),
    ],
    ids=["empty-key", "long-key", "long-value", "upper-start", "upper-international",
         "digit-start", "underscore-start", "dash-start", "upper-inside", "upper-value", "space",
         "dot", "slash"],
)  # fmt: skip
def test_a_label_breaking_a_rule_is_named_with_the_rule(labels, rule):
    (key,) = labels
    error = refusal(check_user_labels, {"ok": "fine", **labels})
    assert (error.field, error.limit) == ("user_labels", MAX_LABEL_CHARS)
    assert f"user_labels: the label {key!r} breaks Google's label rules: {rule}" in str(error)


def test_a_long_key_is_cut_in_the_refusal():
    error = refusal(check_user_labels, {"k" * 70: "v"})
    assert repr("k" * 64) in str(error)
    assert "k" * 65 not in str(error)


# -- jsonable_metadata -----------------------------------------------------------------------------


def test_json_values_are_kept():
    value = {"s": "ü", "i": 3, "f": 0.5, "b": True, "n": None, "l": [1, "x"], "d": {"k": {}}}
    assert jsonable_metadata(value, "m") == value
    assert jsonable_metadata("ascii", "m") == "ascii"


def test_odd_values_are_converted_sensibly():
    class Thing:
        def __str__(self):
            return "thing"

    converted = jsonable_metadata(
        {
            "tuple": (1, 2),
            "set": {3, 1, 2},
            "mixed set": frozenset({"b", 10, 9, "a", None}),
            "array": np.array([[1, 2], [3, 4]]),
            "scalar": np.float32(1.5),
            "int64": np.int64(7),
            "flag": np.bool_(True),
            "nan": math.nan,
            "inf": [math.inf, -math.inf],
            "datetime": dt.datetime(2024, 5, 1, 12, 30, tzinfo=dt.timezone.utc),
            "date": dt.date(2024, 5, 1),
            "time": dt.time(8, 15),
            "bytes": "é".encode(),
            "bytearray": bytearray(b"raw"),
            "object": Thing(),
            7: "an int key",
        },
        "m",
    )
    assert converted == {
        "tuple": [1, 2],
        "set": [1, 2, 3],
        "mixed set": [9, 10, "a", "b", None],
        "array": [[1, 2], [3, 4]],
        "scalar": 1.5,
        "int64": 7,
        "flag": True,
        "nan": None,
        "inf": [None, None],
        "datetime": "2024-05-01T12:30:00+00:00",
        "date": "2024-05-01",
        "time": "08:15:00",
        "bytes": "é",
        "bytearray": "raw",
        "object": "thing",
        "7": "an int key",
    }
    assert type(converted["int64"]) is int
    assert type(converted["flag"]) is bool


def test_odd_subclasses_of_json_types():
    class Colour(enum.IntEnum):
        RED = 1

    class Name(str):
        pass

    class Ratio(float):
        pass

    converted = jsonable_metadata(
        {
            "enum": Colour.RED,
            "name": Name("ü"),
            "ascii name": Name("a"),
            "ratio": Ratio(0.5),
            "infinite ratio": Ratio(math.inf),
            "nan64": np.float64("nan"),
            "f64": np.float64(2.5),
            "array": array.array("i", [1, 2]),
        },
        "m",
    )
    assert converted == {
        "enum": 1,
        "name": "ü",
        "ascii name": "a",
        "ratio": 0.5,
        "infinite ratio": None,
        "nan64": None,
        "f64": 2.5,
        "array": "array('i', [1, 2])",  # tolist() without a dtype: not an array library's
    }

    class Typed:  # a dtype without tolist(): shown by its text
        dtype = "x"

        def __str__(self):
            return "typed"

    assert jsonable_metadata({"t": Typed()}, "m") == {"t": "typed"}


def test_sets_get_a_stable_order_numbers_first():
    assert jsonable_metadata({True, 2.5, -1, "z", "a"}, "m") == [-1, 2.5, "a", "z", True]


class _Frozen(Mapping):
    """A hashable mapping: the one kind of set member that converts to a dict."""

    def __init__(self, **items):
        self._items = items

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def __hash__(self):
        return hash(tuple(sorted(self._items.items())))


def test_a_set_of_mappings_is_ordered_by_their_sorted_json():
    members = {_Frozen(b=1, a=2), _Frozen(a=3)}
    assert jsonable_metadata({"s": members}, "m") == {"s": [{"b": 1, "a": 2}, {"a": 3}]}


def test_a_shared_value_is_not_circular():
    shared = [1]
    assert jsonable_metadata({"a": shared, "b": [shared, shared]}, "m") == {
        "a": [1],
        "b": [[1], [1]],
    }


def deep(levels: int) -> dict:
    """A dict holding ``levels + 1`` nested lists: ``levels + 2`` containers."""
    value: list = []
    for _ in range(levels):
        value = [value]
    return {"k": value}


def test_nesting_exactly_at_the_depth_limit_is_kept():
    assert MAX_METADATA_DEPTH == 64
    # 64 containers (the dict and 63 lists) are kept; one more is refused below.
    assert jsonable_metadata(deep(MAX_METADATA_DEPTH - 2), "m") == deep(MAX_METADATA_DEPTH - 2)


def circular() -> dict:
    loop: dict = {"name": "x"}
    loop["self"] = loop
    return {"a": {"loop": loop}}


def circular_list() -> dict:
    loop: list = []
    loop.append(loop)
    return {"k": [1, [2, None]], "l": loop}


PATH = "sources[3].metadata"
CYCLE = "is circular (it contains itself): break the cycle"
NOT_UTF8 = "is bytes that are not UTF-8 text: decode it"
SURROGATE = "holds a lone surrogate"
REMOVE = "decode the text properly or remove it"
STRING_KEYS = "use string keys (JSON objects have only string keys)"
TOO_DEEP = "is nested more than 64 levels deep: flatten it"


@pytest.mark.parametrize(
    ("value", "field", "words"),
    [
        (circular(), f"{PATH}['a']['loop']['self']", CYCLE),
        (circular_list(), f"{PATH}['l'][0]", CYCLE),
        (deep(MAX_METADATA_DEPTH - 1), f"{PATH}['k'][0][0]...[0][0]", TOO_DEEP),
        ({"raw": b"\xff\xfe"}, f"{PATH}['raw']", NOT_UTF8),
        ({"raw": b"\xed\xa0\x80"}, f"{PATH}['raw']", NOT_UTF8),
        ({(1, 2): "x"}, PATH, f"has a key of type tuple: {STRING_KEYS}"),
        ({"in": {True: 1}}, f"{PATH}['in']", "has a key of type bool: use string keys"),
        ({"in": {None: 1}}, f"{PATH}['in']", "has a key of type NoneType: use string keys"),
        ({"tags": ["ok", "bad\udfff"]}, f"{PATH}['tags'][1]",
         f"{SURROGATE} (U+DFFF), {LONE}: {REMOVE}"),
        ({"x" * 50: {"k\ud800": 1}}, f"{PATH}['{'x' * 36}...]",
         f"{SURROGATE} (U+D800), {LONE}: {REMOVE}"),
    ],
    ids=["circular-dict", "circular-list", "too-deep", "bytes", "surrogate-bytes", "tuple-key",
         "bool-key", "none-key", "surrogate-value", "surrogate-key"],
)  # fmt: skip
def test_what_cannot_be_sent_is_refused_by_its_path(value, field, words):
    error = refusal(jsonable_metadata, value, PATH)
    assert (error.field, error.limit) == (field, None)
    assert str(error).startswith(f"{field} {words}")


def test_an_object_whose_str_has_a_lone_surrogate_is_refused():
    class Odd:
        def __str__(self):
            return "\udc80"

    error = refusal(jsonable_metadata, {"o": Odd()}, "m")
    assert error.field == "m['o']"
    assert str(error).startswith(f"m['o'] holds a lone surrogate (U+DC80), {LONE}")


def test_a_string_subclass_with_a_lone_surrogate_is_refused():
    class Name(str):
        pass

    assert refusal(jsonable_metadata, [Name("\ud800")], "m").field == "m[0]"


@pytest.mark.parametrize(
    ("keys", "path"),
    [
        ("abcdef", "m['a']['b']['c']['d']['e']['f']"),
        ("abcdefg", "m['a']['b']['c']...['f']['g']"),
    ],
)
def test_a_deep_path_keeps_its_start_and_end(keys, path):
    value: object = b"\xff"
    for key in reversed(keys):
        value = {key: value}
    error = refusal(jsonable_metadata, value, "m")
    assert error.field == path
    assert str(error).startswith(f"{path} is bytes that are not UTF-8 text")


@pytest.mark.parametrize(
    ("key", "shown"),
    [("k" * 38, repr("k" * 38)), ("k" * 39, repr("k" * 39)[:37] + "...")],
)
def test_a_long_key_is_cut_in_a_path(key, shown):
    assert refusal(jsonable_metadata, {key: b"\xff"}, "m").field == f"m[{shown}]"


def test_the_walk_handles_wide_metadata():
    wide = {f"k{i}": [i, f"v{i}", {"x": i}] for i in range(5_000)}
    assert jsonable_metadata(wide, "m") == wide


# -- what the components refuse before a call ------------------------------------------------------

HUGE = "x" * 11_000_000  # over the 10 MiB request bound


def _search(connection, query="q", **options):
    return DiscoveryEngineChunkSearch(connection, data_store_id="test-docs", **options).search(
        query
    )


def _check(connection, answer, source):
    return GroundingCheck(connection).check(answer, [source], [GroundingSource(source)])


def _answers(connection, **options):
    return DiscoveryEngineAnswerQuery(connection, engine_id="test-app", **options)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda de_, dk_: _search(de_, "a\ud800"), "query"),
        (lambda de_, dk_: _search(de_, user_pseudo_id="a\ud800"), "ChunkSearchSpec.user_pseudo_id"),
        (lambda de_, dk_: DeveloperKnowledgeAnswerQuery(dk_, filter="a\ud800"), "filter"),
        (lambda de_, dk_: DeveloperKnowledgeAnswerQuery(dk_).answer("a\ud800"), "query"),
        (lambda de_, dk_: _answers(de_).create_session(display_name="a\ud800"), "display_name"),
        (lambda de_, dk_: _answers(de_).create_session(user_pseudo_id="a\ud800"), "user_pseudo_id"),
        (lambda de_, dk_: _check(de_, "a\ud800", "s"), "answer_candidate"),
        (lambda de_, dk_: _check(de_, "a", "s\ud800"), "facts[0].fact_text"),
    ],
    ids=["query", "user_pseudo_id", "developer-filter", "developer-query", "display_name",
         "session-user", "answer", "fact"],
)  # fmt: skip
def test_a_lone_surrogate_is_refused_by_its_field_before_any_call(
    emulator, connections, call, field
):
    emulator.faults.fail("Search", code="UNAVAILABLE")  # would be taken by any call
    injected = emulator.faults.injected
    error = refusal(call, *connections)
    assert error.field == field
    assert str(error).startswith(f"{field} holds a lone surrogate (U+D800) at character 1")
    assert (emulator.faults.pending, emulator.faults.injected) == (1, injected)


@pytest.mark.parametrize(
    ("method", "call"),
    [
        ("Search", lambda de_: _search(de_, filter=HUGE)),
        ("AnswerQuery", lambda de_: _answers(de_, filter=HUGE).answer("q")),
        (
            "CheckGrounding",
            lambda de_: GroundingCheck(de_).check(
                "An answer.", ["a"] * 200, [GroundingSource("a", {"t": "x" * 60_000})] * 200
            ),
        ),
    ],
)
def test_an_oversize_request_is_refused_before_it_is_sent(emulator, connections, method, call):
    emulator.faults.fail(method, code="UNAVAILABLE")  # would be taken by a call
    injected = emulator.faults.injected
    error = refusal(call, connections[0])
    assert (error.field, error.limit) == ("request", MAX_REQUEST_BYTES)
    assert str(error).startswith(f"the {method} request is ")
    assert "refuses requests over 10,485,760 bytes (10 MiB)" in str(error)
    assert (emulator.faults.pending, emulator.faults.injected) == (1, injected)


def test_a_session_user_that_is_not_a_string_is_refused_by_its_type(connections):
    error = refusal(_answers(connections[0]).create_session, user_pseudo_id=7)
    assert error.field == "user_pseudo_id"
    assert "user_pseudo_id must be a string, got int" in str(error)


def test_a_spec_refuses_a_field_of_the_wrong_type_by_its_name():
    error = refusal(ChunkSearchSpec, k="4")
    assert error.field == "k"
    assert "ChunkSearchSpec.k must be an integer, got str" in str(error)
