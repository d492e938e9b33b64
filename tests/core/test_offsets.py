import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding_core import OffsetError, Utf8Offsets
from grounding_core.offsets import utf8_length

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


@pytest.mark.parametrize("text", SAMPLES)
def test_every_character_boundary_round_trips(text):
    mapper = Utf8Offsets(text)
    encoded = text.encode("utf-8")
    assert mapper.byte_length == len(encoded)
    for index in range(len(text) + 1):
        byte = mapper.to_byte(index)
        assert byte == len(text[:index].encode("utf-8"))
        assert mapper.to_char(byte) == index


def test_spans_slice_the_same_text_in_both_units():
    text = "Tokyo 東京 is big 🏙️."
    mapper = Utf8Offsets(text)
    start, end = text.index("東京"), text.index("東京") + 2
    byte_start, byte_end = mapper.byte_span(start, end)
    assert text.encode()[byte_start:byte_end].decode() == "東京"
    assert mapper.char_span(byte_start, byte_end) == (start, end)


def test_offset_inside_a_character_is_an_error_that_says_where():
    mapper = Utf8Offsets("a世b")
    with pytest.raises(OffsetError, match=r"byte offset 2 falls inside the 3-byte character '世'"):
        mapper.to_char(2)
    with pytest.raises(OffsetError, match=r"spans bytes 1\.\.4"):
        mapper.char_span(0, 3)


@pytest.mark.parametrize("offset", [-1, 6, 100])
def test_offset_outside_the_text_is_an_error(offset):
    with pytest.raises(OffsetError, match="outside the text"):
        Utf8Offsets("a世b").to_char(offset)


@pytest.mark.parametrize("ascii_text", [True, False])
def test_reversed_spans_and_bad_indices(ascii_text):
    mapper = Utf8Offsets("abc" if ascii_text else "ab世")
    with pytest.raises(OffsetError, match="before its start"):
        mapper.char_span(2, 1)
    with pytest.raises(OffsetError, match="before its start"):
        mapper.byte_span(2, 1)
    with pytest.raises(OffsetError, match="string index 4 is outside"):
        mapper.to_byte(4)


def test_nearest_char_snaps_outwards_and_clamps():
    mapper = Utf8Offsets("a世b")  # bytes: a=0, 世=1..4, b=4
    assert mapper.nearest_char(2, round_up=False) == 1
    assert mapper.nearest_char(2, round_up=True) == 2
    assert mapper.nearest_char(-5, round_up=False) == 0
    assert mapper.nearest_char(99, round_up=True) == 3
    assert Utf8Offsets("abc").nearest_char(99, round_up=False) == 3


def test_lone_surrogates_count_as_three_bytes():
    text = "a\ud800b"
    assert utf8_length(text) == 5
    assert Utf8Offsets(text).to_byte(2) == 4


@given(st.text(), st.data())
def test_any_text_any_valid_offset_round_trips(text, data):
    mapper = Utf8Offsets(text)
    index = data.draw(st.integers(0, len(text)))
    byte = mapper.to_byte(index)
    assert byte == utf8_length(text[:index])
    assert mapper.to_char(byte) == index


@given(st.text(min_size=1), st.data())
def test_any_byte_offset_is_either_exact_or_refused(text, data):
    mapper = Utf8Offsets(text)
    byte = data.draw(st.integers(-2, mapper.byte_length + 2))
    boundaries = {utf8_length(text[:i]) for i in range(len(text) + 1)}
    if byte in boundaries:
        assert utf8_length(text[: mapper.to_char(byte)]) == byte
    else:
        with pytest.raises(OffsetError):
            mapper.to_char(byte)
        low = mapper.nearest_char(byte, round_up=False)
        high = mapper.nearest_char(byte, round_up=True)
        assert 0 <= low <= high <= len(text)
