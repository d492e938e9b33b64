"""``grounding_core._offsets``: UTF-8 byte offsets <-> Python string indices.

Covers ``Utf8Offsets`` (``to_char``, ``to_byte``, ``char_span``, ``byte_span``, ``nearest_char``,
``byte_length``, its repr) and ``utf8_length``: every character boundary round-trips in any script,
the first and last character of each UTF-8 width (1, 2, 3 and 4 bytes), empty spans and spans at
the very end, ASCII (no table) and non-ASCII texts alike, lone surrogates (three bytes, as
``surrogatepass`` encodes them), and the ``OffsetError`` of an offset outside the text or inside
a character, which names the offset, the character and its bytes. Hypothesis: any text, any offset.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_core import GroundingError, OffsetError, Utf8Offsets
from grounding_core._offsets import utf8_length

SAMPLES = [
    "",
    "plain ascii",
    "né 世界",
    "emoji 👩‍👩‍👧 family and 🇫🇷 flag",
    "مرحبا بالعالم",  # Arabic (RTL)
    "e\u0301 combining acute",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 outside the BMP",
    "日本語のテキストです。",
]

# (character, its UTF-8 width): the last of each width and the first of the next.
WIDTH_EDGES = [
    ("\u007f", 1),
    ("\u0080", 2),
    ("\u07ff", 2),
    ("\u0800", 3),
    ("\uffff", 3),
    ("\U00010000", 4),
    ("\U0010ffff", 4),
]
EDGE_IDS = [f"U+{ord(char):04X}" for char, _ in WIDTH_EDGES]


@pytest.mark.parametrize("text", SAMPLES)
def test_every_character_boundary_round_trips_in_any_script(text):
    mapper = Utf8Offsets(text)
    assert mapper.text is text
    assert mapper.byte_length == len(text.encode("utf-8"))
    for index in range(len(text) + 1):
        byte = mapper.to_byte(index)
        assert byte == len(text[:index].encode("utf-8"))
        assert mapper.to_char(byte) == index


@pytest.mark.parametrize(("char", "width"), WIDTH_EDGES, ids=EDGE_IDS)
def test_the_first_and_last_character_of_each_utf8_width(char, width):
    text = f"é{char}x"  # non-ASCII, so that the width table is used
    mapper = Utf8Offsets(text)
    assert len(char.encode("utf-8")) == width
    assert utf8_length(char) == width
    assert mapper.byte_length == 2 + width + 1
    assert [mapper.to_byte(i) for i in range(4)] == [0, 2, 2 + width, 3 + width]
    assert [mapper.to_char(b) for b in (0, 2, 2 + width, 3 + width)] == [0, 1, 2, 3]
    assert mapper.char_span(2, 2 + width) == (1, 2)
    assert mapper.byte_span(1, 2) == (2, 2 + width)
    assert repr(mapper) == f"Utf8Offsets(chars=3, bytes={3 + width})"


@pytest.mark.parametrize(("char", "width"), WIDTH_EDGES[2:], ids=EDGE_IDS[2:])
def test_every_byte_inside_a_wide_character_is_refused(char, width):
    mapper = Utf8Offsets(f"a{char}b")
    for inside in range(2, 1 + width):
        with pytest.raises(
            OffsetError, match=f"byte offset {inside} falls inside the {width}-byte"
        ):
            mapper.to_char(inside)


def test_a_text_of_every_width_in_a_row():
    text = "a\u0080\u0800\U00010000b"
    mapper = Utf8Offsets(text)
    assert mapper.byte_length == 11 == utf8_length(text)
    assert [mapper.to_byte(i) for i in range(6)] == [0, 1, 3, 6, 10, 11]
    assert [mapper.to_char(b) for b in (0, 1, 3, 6, 10, 11)] == [0, 1, 2, 3, 4, 5]


def test_an_ascii_text_maps_each_offset_to_itself():
    mapper = Utf8Offsets("abc")
    assert (mapper.byte_length, repr(mapper)) == (3, "Utf8Offsets(chars=3, bytes=3)")
    assert [mapper.to_char(b) for b in range(4)] == [0, 1, 2, 3]
    assert [mapper.to_byte(i) for i in range(4)] == [0, 1, 2, 3]
    assert mapper.char_span(1, 3) == (1, 3)
    assert mapper.byte_span(0, 2) == (0, 2)


def test_spans_slice_the_same_text_in_both_units():
    text = "Tokyo 東京 is big 🏙️."
    mapper = Utf8Offsets(text)
    start = text.index("東京")
    byte_start, byte_end = mapper.byte_span(start, start + 2)
    assert (byte_start, byte_end) == (6, 12)
    assert text.encode()[byte_start:byte_end].decode() == "東京"
    assert mapper.char_span(byte_start, byte_end) == (start, start + 2)


@pytest.mark.parametrize("text", ["abc", "a世c", "👩‍🚀x"], ids=["ascii", "cjk", "zwj-emoji"])
def test_empty_spans_are_valid_on_every_boundary(text):
    mapper = Utf8Offsets(text)
    for index in range(len(text) + 1):
        byte = mapper.to_byte(index)
        assert mapper.char_span(byte, byte) == (index, index)
        assert mapper.byte_span(index, index) == (byte, byte)


@pytest.mark.parametrize("text", ["abc", "a世c"], ids=["ascii", "cjk"])
def test_a_span_exactly_at_the_end_and_one_past_it(text):
    mapper = Utf8Offsets(text)
    end = mapper.byte_length
    assert mapper.char_span(end, end) == (len(text), len(text))
    assert mapper.char_span(end - 1, end) == (len(text) - 1, len(text))
    assert mapper.to_char(end) == len(text)
    assert mapper.to_byte(len(text)) == end
    with pytest.raises(OffsetError, match=f"byte offset {end + 1} is outside the text"):
        mapper.char_span(end, end + 1)
    with pytest.raises(OffsetError, match=f"string index {len(text) + 1} is outside the text"):
        mapper.byte_span(0, len(text) + 1)


def test_an_offset_inside_a_character_names_the_character_and_its_bytes():
    mapper = Utf8Offsets("ab😀c")  # 😀 is bytes 2..6
    with pytest.raises(OffsetError) as info:
        mapper.to_char(4)
    assert isinstance(info.value, GroundingError)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    for words in (
        "byte offset 4 falls inside the 4-byte character '😀' (U+1F600)",
        "at string index 2, which spans bytes 2..6",
    ):
        assert words in message
    with pytest.raises(
        OffsetError, match=r"'世' \(U\+4E16\) at string index 1, which spans bytes 1\.\.4"
    ):
        Utf8Offsets("a世b").char_span(0, 3)


@pytest.mark.parametrize(
    ("text", "offset", "words"),
    [
        ("a世", -1, r"byte offset -1 is outside the text \(0\.\.4 bytes, 2 characters\)"),
        ("a世", 5, r"byte offset 5 is outside the text \(0\.\.4 bytes, 2 characters\)"),
        ("abc", -1, r"byte offset -1 is outside the text \(0\.\.3 bytes, 3 characters\)"),
        ("abc", 4, r"byte offset 4 is outside the text \(0\.\.3 bytes, 3 characters\)"),
        ("", 1, r"byte offset 1 is outside the text \(0\.\.0 bytes, 0 characters\)"),
    ],
)
def test_a_byte_offset_outside_the_text_gives_both_lengths(text, offset, words):
    with pytest.raises(OffsetError, match=words):
        Utf8Offsets(text).to_char(offset)


@pytest.mark.parametrize("text", ["abc", "ab世"], ids=["ascii", "cjk"])
def test_reversed_spans_and_string_indices_outside_the_text_are_refused(text):
    mapper = Utf8Offsets(text)
    with pytest.raises(OffsetError, match="byte span end 1 is before its start 2"):
        mapper.char_span(2, 1)
    with pytest.raises(OffsetError, match=r"^span end 0 is before its start 2"):
        mapper.byte_span(2, 0)
    with pytest.raises(OffsetError, match=r"string index 4 is outside the text \(0\.\.3\)"):
        mapper.to_byte(4)
    with pytest.raises(OffsetError, match=r"string index -1 is outside the text \(0\.\.3\)"):
        mapper.to_byte(-1)


@pytest.mark.parametrize(
    ("offset", "down", "up"),
    [(-5, 0, 0), (0, 0, 0), (1, 1, 1), (2, 1, 2), (3, 1, 2), (4, 2, 2), (5, 3, 3), (99, 3, 3)],
)
def test_nearest_char_snaps_outwards_and_clamps_into_the_text(offset, down, up):
    mapper = Utf8Offsets("a世b")  # a=0, 世=1..4, b=4..5
    assert mapper.nearest_char(offset, round_up=False) == down
    assert mapper.nearest_char(offset, round_up=True) == up


@pytest.mark.parametrize(("offset", "nearest"), [(-5, 0), (0, 0), (2, 2), (3, 3), (99, 3)])
def test_nearest_char_of_an_ascii_text_is_the_clamped_offset(offset, nearest):
    mapper = Utf8Offsets("abc")
    assert mapper.nearest_char(offset, round_up=False) == nearest
    assert mapper.nearest_char(offset, round_up=True) == nearest


@pytest.mark.parametrize(
    ("text", "length"),
    [("", 0), ("abc", 3), ("é", 2), ("世", 3), ("😀", 4), ("\ud800", 3), ("a\udfffb", 5)],
)
def test_utf8_length_counts_bytes_and_a_lone_surrogate_as_three(text, length):
    assert utf8_length(text) == length


def test_a_lone_surrogate_is_three_bytes_wide_in_the_table_too():
    mapper = Utf8Offsets("a\ud800b")
    assert mapper.byte_length == 5
    assert [mapper.to_byte(i) for i in range(4)] == [0, 1, 4, 5]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40), st.data())
def test_any_text_any_valid_index_round_trips(text, data):
    mapper = Utf8Offsets(text)
    index = data.draw(st.integers(0, len(text)))
    byte = mapper.to_byte(index)
    assert byte == utf8_length(text[:index])
    assert mapper.to_char(byte) == index
    assert mapper.byte_length == utf8_length(text)


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=40), st.data())
def test_any_byte_offset_is_exact_or_refused_and_then_repairable(text, data):
    mapper = Utf8Offsets(text)
    byte = data.draw(st.integers(-2, mapper.byte_length + 2))
    boundaries = {utf8_length(text[:i]) for i in range(len(text) + 1)}
    low = mapper.nearest_char(byte, round_up=False)
    high = mapper.nearest_char(byte, round_up=True)
    if byte in boundaries:
        exact = mapper.to_char(byte)
        assert utf8_length(text[:exact]) == byte
        assert low == exact == high
    else:
        with pytest.raises(OffsetError):
            mapper.to_char(byte)
        assert 0 <= low <= high <= len(text)
        assert utf8_length(text[:low]) <= max(byte, 0)
        assert utf8_length(text[:high]) >= min(byte, mapper.byte_length)
