"""Pins of grounding_core.validation: lone surrogates, declared field types, JSON-safe metadata
and the request size bound, each message whole."""

import array
import dataclasses
import datetime as dt
import enum
import math
from collections.abc import Mapping
from typing import Optional

import numpy as np
import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import InputError
from grounding_core.validation import (
    MAX_METADATA_DEPTH,
    MAX_REQUEST_BYTES,
    check_field_types,
    check_request_size,
    check_wire_text,
    jsonable_metadata,
)

SURROGATE_TAIL = (
    "which is not valid UTF-8 and cannot be sent: decode the text properly (both halves of a "
    "surrogate pair) or remove it"
)


def refused(call, *args):
    with pytest.raises(InputError) as info:
        call(*args)
    return str(info.value), info.value.field, info.value.limit


# -- check_wire_text -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["", "plain", "café", "東京 🚀 👩‍🚀", "\U0001f600", "\x00", "\uffff", "\ue000"]
)
def test_text_that_utf8_can_carry_is_returned_as_it_is(text):
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
def test_a_lone_surrogate_is_named_with_its_position(text, code, position):
    assert refused(check_wire_text, "ChunkSearchSpec.filter", text) == (
        f"ChunkSearchSpec.filter holds a lone surrogate (U+{code}) at character {position}, "
        + SURROGATE_TAIL,
        "ChunkSearchSpec.filter",
        None,
    )


def test_a_non_string_is_refused_by_its_type():
    assert refused(check_wire_text, "display_name", b"x") == (
        "display_name must be a string, got bytes",
        "display_name",
        None,
    )


# -- check_field_types -----------------------------------------------------------------------


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
    check_field_types(Options(**changes))


@pytest.mark.parametrize(
    ("changes", "message", "field"),
    [
        ({"flag": "no"}, "Options.flag must be True or False, got str", "flag"),
        ({"flag": 1}, "Options.flag must be True or False, got int", "flag"),
        ({"flag": None}, "Options.flag must be True or False, got NoneType", "flag"),
        ({"count": True}, "Options.count must be an integer, got bool", "count"),
        ({"count": 1.0}, "Options.count must be an integer, got float", "count"),
        ({"count": "1"}, "Options.count must be an integer, got str", "count"),
        ({"ratio": False}, "Options.ratio must be a finite number, got bool", "ratio"),
        ({"ratio": "0.5"}, "Options.ratio must be a finite number, got str", "ratio"),
        ({"ratio": math.nan}, "Options.ratio must be a finite number, got nan", "ratio"),
        ({"ratio": math.inf}, "Options.ratio must be a finite number, got inf", "ratio"),
        ({"ratio": -math.inf}, "Options.ratio must be a finite number, got -inf", "ratio"),
        ({"name": 3}, "Options.name must be a string, got int", "name"),
        ({"name": None}, "Options.name must be a string, got NoneType", "name"),
        (
            {"maybe_flag": "yes"},
            "Options.maybe_flag must be True or False or None, got str",
            "maybe_flag",
        ),
        (
            {"maybe_count": False},
            "Options.maybe_count must be an integer or None, got bool",
            "maybe_count",
        ),
        ({"flag": "x", "count": "y"}, "Options.flag must be True or False, got str", "flag"),
    ],
)
def test_a_field_of_another_type_is_named_with_the_type_it_got(changes, message, field):
    assert refused(check_field_types, Options(**changes)) == (message, field, None)


def test_a_string_field_is_checked_for_lone_surrogates():
    assert refused(check_field_types, Options(name="ab\udc01")) == (
        "Options.name holds a lone surrogate (U+DC01) at character 2, " + SURROGATE_TAIL,
        "Options.name",
        None,
    )


def test_a_secret_given_in_the_wrong_field_is_not_echoed():
    message = refused(check_field_types, Options(count="sk-secret-key"))[0]
    assert "sk-secret" not in message


# -- jsonable_metadata -----------------------------------------------------------------------


def test_json_values_are_kept():
    value = {"s": "ü", "i": 3, "f": 0.5, "b": True, "n": None, "l": [1, "x"], "d": {"k": {}}}
    assert jsonable_metadata(value, "m") == value


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
            "datetime": dt.datetime(2024, 5, 1, 12, 30, tzinfo=dt.UTC),
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


def test_a_shared_value_is_not_circular():
    shared = [1]
    assert jsonable_metadata({"a": shared, "b": [shared, shared]}, "m") == {
        "a": [1],
        "b": [[1], [1]],
    }


def test_nesting_up_to_the_depth_limit_is_kept():
    # 64 containers: the dict and 63 lists.
    assert jsonable_metadata(deep(MAX_METADATA_DEPTH - 2), "m") == deep(MAX_METADATA_DEPTH - 2)


def circular():
    loop: dict = {"name": "x"}
    loop["self"] = loop
    return {"a": {"loop": loop}}


def deep(levels):
    value: list = []
    for _ in range(levels):
        value = [value]
    return {"k": value}


@pytest.mark.parametrize(
    ("value", "message", "field"),
    [
        (
            circular(),
            "sources[3].metadata['a']['loop']['self'] is circular (it contains itself): "
            "break the cycle",
            "sources[3].metadata['a']['loop']['self']",
        ),
        (
            {"k": [1, [2, None]]} | {"l": (lambda x: (x.append(x), x)[1])([])},
            "sources[3].metadata['l'][0] is circular (it contains itself): break the cycle",
            "sources[3].metadata['l'][0]",
        ),
        (
            deep(MAX_METADATA_DEPTH - 1),  # 65 containers
            "sources[3].metadata['k'][0][0]...[0][0] is nested more than 64 levels deep: "
            "flatten it",
            "sources[3].metadata['k'][0][0]...[0][0]",
        ),
        (
            {"raw": b"\xff\xfe"},
            "sources[3].metadata['raw'] is bytes that are not UTF-8 text: decode it",
            "sources[3].metadata['raw']",
        ),
        (
            {(1, 2): "x"},
            "sources[3].metadata has a key of type tuple: use string keys (JSON objects have "
            "only string keys)",
            "sources[3].metadata",
        ),
        (
            {"in": {True: 1}},
            "sources[3].metadata['in'] has a key of type bool: use string keys (JSON objects "
            "have only string keys)",
            "sources[3].metadata['in']",
        ),
        (
            {"x" * 50: {"k\ud800": 1}},
            "a key of sources[3].metadata['xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...] holds a lone "
            "surrogate (U+D800) at character 1, " + SURROGATE_TAIL,
            "a key of sources[3].metadata['xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...]",
        ),
        (
            {"tags": ["ok", "bad\udfff"]},
            "sources[3].metadata['tags'][1] holds a lone surrogate (U+DFFF) at character 3, "
            + SURROGATE_TAIL,
            "sources[3].metadata['tags'][1]",
        ),
        (
            {"raw": b"\xed\xa0\x80"},  # an encoded surrogate is not UTF-8 either
            "sources[3].metadata['raw'] is bytes that are not UTF-8 text: decode it",
            "sources[3].metadata['raw']",
        ),
    ],
    ids=["circular-dict", "circular-list", "too-deep", "bytes", "tuple-key", "bool-key",
         "surrogate-key", "surrogate-value", "surrogate-bytes"],
)  # fmt: skip
def test_what_cannot_be_sent_is_refused_by_its_path(value, message, field):
    assert refused(jsonable_metadata, value, "sources[3].metadata") == (message, field, None)


def test_an_object_whose_str_has_a_lone_surrogate_is_refused():
    class Odd:
        def __str__(self):
            return "\udc80"

    assert refused(jsonable_metadata, {"o": Odd()}, "m")[0] == (
        "m['o'] holds a lone surrogate (U+DC80) at character 0, " + SURROGATE_TAIL
    )


def test_the_walk_is_fast_on_wide_metadata():
    wide = {f"k{i}": [i, f"v{i}", {"x": i}] for i in range(20_000)}
    assert len(jsonable_metadata(wide, "m")) == 20_000


# -- check_request_size ----------------------------------------------------------------------


def test_a_request_up_to_the_bound_passes_and_over_it_is_refused():
    request = de.CheckGroundingRequest.pb()(answer_candidate="a")
    overhead = request.ByteSize()
    assert MAX_REQUEST_BYTES == 10 * 1024 * 1024
    # One string field: its tag and length prefix (4 bytes for this length) plus its bytes.
    request.grounding_config = "g" * (MAX_REQUEST_BYTES - overhead - 5)
    assert request.ByteSize() == MAX_REQUEST_BYTES
    check_request_size("CheckGrounding", request)
    request.grounding_config += "g"
    assert refused(check_request_size, "CheckGrounding", request) == (
        "the CheckGrounding request is 10,485,761 bytes; Google's API front end refuses "
        "requests over 10,485,760 bytes (10 MiB): send fewer or smaller sources and metadata, "
        "or shorter texts",
        "request",
        MAX_REQUEST_BYTES,
    )


# -- what mutation testing must see run afresh (no cache filled by an earlier test) ------------


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

    for fine in [Fresh(), Fresh(pair="s", items=(1,), maybe=3, either="e", ratio=2)]:
        check_field_types(fine)
    cases = [
        ({"flag": 1}, "Fresh.flag must be True or False, got int", "flag"),
        ({"count": True}, "Fresh.count must be an integer, got bool", "count"),
        ({"ratio": math.inf}, "Fresh.ratio must be a finite number, got inf", "ratio"),
        ({"name": None}, "Fresh.name must be a string, got NoneType", "name"),
        ({"maybe": 1.5}, "Fresh.maybe must be an integer or None, got float", "maybe"),
        ({"either": 3}, "Fresh.either must be a string or None, got int", "either"),
    ]
    for changes, message, field in cases:
        assert refused(check_field_types, Fresh(**changes)) == (message, field, None)


def test_odd_subclasses_of_json_types():
    class Colour(enum.IntEnum):
        RED = 1

    class Name(str):
        pass

    converted = jsonable_metadata(
        {
            "enum": Colour.RED,
            "name": Name("ü"),
            "nan64": np.float64("nan"),
            "f64": np.float64(2.5),
            "array": array.array("i", [1, 2]),
        },
        "m",
    )
    assert converted == {
        "enum": 1,
        "name": "ü",
        "nan64": None,
        "f64": 2.5,
        "array": "array('i', [1, 2])",  # tolist() without a dtype: not an array library's
    }

    class Typed:  # a dtype without tolist(): shown by its text
        dtype = "x"

        def __str__(self):
            return "typed"

    assert jsonable_metadata({"t": Typed()}, "m") == {"t": "typed"}


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
    message, field, _ = refused(jsonable_metadata, value, "m")
    assert field == path
    assert message == f"{path} is bytes that are not UTF-8 text: decode it"


@pytest.mark.parametrize(
    ("key", "shown"),
    [("k" * 38, repr("k" * 38)), ("k" * 39, repr("k" * 39)[:37] + "...")],
)
def test_a_long_key_is_cut_in_a_path(key, shown):
    _, field, _ = refused(jsonable_metadata, {key: b"\xff"}, "m")
    assert field == f"m[{shown}]"
