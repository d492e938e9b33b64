"""Offsets at the UTF-8 width boundaries, empty spans, and the exact error messages.

The first character of each UTF-8 width (U+0080: 2 bytes, U+0800: 3, U+10000: 4) and the last
one before it are where a wrong comparison in the width table shows.
"""

import re

import pytest

from grounding_core import OffsetError, Utf8Offsets

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


@pytest.mark.parametrize(
    ("char", "width"), WIDTH_EDGES, ids=[f"U+{ord(c):04X}" for c, _ in WIDTH_EDGES]
)
def test_the_first_and_last_character_of_each_utf8_width(char, width):
    text = f"é{char}x"  # non-ASCII, so that the width table is used
    mapper = Utf8Offsets(text)
    assert len(char.encode("utf-8")) == width
    assert mapper.byte_length == 2 + width + 1
    assert [mapper.to_byte(i) for i in range(4)] == [0, 2, 2 + width, 3 + width]
    assert [mapper.to_char(b) for b in (0, 2, 2 + width, 3 + width)] == [0, 1, 2, 3]
    assert mapper.char_span(2, 2 + width) == (1, 2)
    assert repr(mapper) == f"Utf8Offsets(chars=3, bytes={3 + width})"


def test_a_text_of_every_width_in_a_row():
    text = "a\u0080\u0800\U00010000b"
    mapper = Utf8Offsets(text)
    assert mapper.byte_length == 11
    assert [mapper.to_byte(i) for i in range(6)] == [0, 1, 3, 6, 10, 11]


@pytest.mark.parametrize("text", ["abc", "a世c", "👩‍🚀x"], ids=["ascii", "cjk", "zwj-emoji"])
def test_empty_spans_are_valid_everywhere_on_a_boundary(text):
    mapper = Utf8Offsets(text)
    for index in range(len(text) + 1):
        byte = mapper.to_byte(index)
        assert mapper.char_span(byte, byte) == (index, index)
        assert mapper.byte_span(index, index) == (byte, byte)


@pytest.mark.parametrize("text", ["abc", "a世c"], ids=["ascii", "cjk"])
def test_a_span_exactly_at_the_end(text):
    mapper = Utf8Offsets(text)
    end = mapper.byte_length
    assert mapper.char_span(end, end) == (len(text), len(text))
    assert mapper.char_span(end - 1, end) == (len(text) - 1, len(text))
    assert mapper.to_char(end) == len(text)
    with pytest.raises(OffsetError, match=re.escape(f"byte offset {end + 1} is outside")):
        mapper.char_span(end, end + 1)


def test_the_inside_a_character_message_names_the_character_and_its_bytes():
    mapper = Utf8Offsets("ab😀c")  # 😀 is bytes 2..6
    with pytest.raises(OffsetError) as info:
        mapper.to_char(4)
    assert str(info.value) == (
        "byte offset 4 falls inside the 4-byte character '😀' (U+1F600) at string index 2, "
        "which spans bytes 2..6"
    )


def test_the_outside_messages_give_both_lengths():
    mapper = Utf8Offsets("a世")
    with pytest.raises(OffsetError) as info:
        mapper.to_char(5)
    assert str(info.value) == "byte offset 5 is outside the text (0..4 bytes, 2 characters)"
    with pytest.raises(OffsetError) as info:
        mapper.to_byte(-1)
    assert str(info.value) == "string index -1 is outside the text (0..2)"
    with pytest.raises(OffsetError) as info:
        mapper.char_span(3, 1)
    assert str(info.value) == "byte span end 1 is before its start 3"
    with pytest.raises(OffsetError) as info:
        mapper.byte_span(2, 0)
    assert str(info.value) == "span end 0 is before its start 2"


@pytest.mark.parametrize(
    ("offset", "down", "up"),
    [(0, 0, 0), (1, 1, 1), (2, 1, 2), (3, 1, 2), (4, 2, 2), (5, 3, 3), (6, 3, 3)],
)
def test_nearest_char_at_and_between_every_boundary(offset, down, up):
    mapper = Utf8Offsets("a世b")  # a=0, 世=1..4, b=4..5
    assert mapper.nearest_char(offset, round_up=False) == down
    assert mapper.nearest_char(offset, round_up=True) == up
