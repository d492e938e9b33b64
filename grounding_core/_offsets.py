"""UTF-8 byte offsets <-> Python string indices: every offset Google's grounding APIs return
(``Claim.start_pos``, ``Citation.start_index``, ...) counts UTF-8 bytes, end exclusive."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate

from ._errors import OffsetError


def utf8_length(text: str) -> int:
    """Number of bytes of ``text`` in UTF-8 (a lone surrogate counts three, as Python's
    ``surrogatepass`` encodes it)."""
    return len(text.encode("utf-8", "surrogatepass"))


def _width(char: str) -> int:
    code = ord(char)
    return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4


class Utf8Offsets:
    """Offset mapper for one text: an offset beyond it or inside a character raises
    ``OffsetError``, never a wrong slice.

    >>> m = Utf8Offsets("né 世界")
    >>> m.to_char(4), m.to_byte(3)
    (3, 4)
    >>> m.char_span(4, 10)
    (3, 5)
    """

    __slots__ = ("_starts", "byte_length", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        # _starts[i]: the byte offset where character i starts; _starts[len(text)] the length.
        # ASCII text (the common case) needs no table: a byte offset is a string index.
        self._starts = None if text.isascii() else list(accumulate(map(_width, text), initial=0))
        self.byte_length = len(text) if self._starts is None else self._starts[-1]

    def __repr__(self) -> str:
        return f"Utf8Offsets(chars={len(self.text)}, bytes={self.byte_length})"

    def to_char(self, byte_offset: int) -> int:
        """The string index at UTF-8 byte offset ``byte_offset``."""
        if not 0 <= byte_offset <= self.byte_length:
            raise OffsetError(
                f"byte offset {byte_offset} is outside the text (0..{self.byte_length} bytes, "
                f"{len(self.text)} characters)"
            )
        starts = self._starts
        if starts is None:
            return byte_offset
        index = bisect_left(starts, byte_offset)
        if starts[index] != byte_offset:
            char, first = self.text[index - 1], starts[index - 1]
            raise OffsetError(
                f"byte offset {byte_offset} falls inside the {starts[index] - first}-byte "
                f"character {char!r} (U+{ord(char):04X}) at string index {index - 1}, which "
                f"spans bytes {first}..{starts[index]}"
            )
        return index

    def to_byte(self, char_offset: int) -> int:
        """The UTF-8 byte offset of string index ``char_offset`` (0..len(text))."""
        if not 0 <= char_offset <= len(self.text):
            raise OffsetError(
                f"string index {char_offset} is outside the text (0..{len(self.text)})"
            )
        return char_offset if self._starts is None else self._starts[char_offset]

    def char_span(self, byte_start: int, byte_end: int) -> tuple[int, int]:
        """``(start, end)`` string indices of the byte span ``[byte_start, byte_end)``."""
        if byte_end < byte_start:
            raise OffsetError(f"byte span end {byte_end} is before its start {byte_start}")
        return self.to_char(byte_start), self.to_char(byte_end)

    def byte_span(self, start: int, end: int) -> tuple[int, int]:
        """``(byte_start, byte_end)`` of the string span ``[start, end)``."""
        if end < start:
            raise OffsetError(f"span end {end} is before its start {start}")
        return self.to_byte(start), self.to_byte(end)

    def nearest_char(self, byte_offset: int, *, round_up: bool) -> int:
        """The string index nearest to ``byte_offset``, clamped into the text: an offset inside
        a character moves to its start (``round_up=False``) or past its end. Lossy: for
        repairing a bad server offset only."""
        byte_offset = min(max(byte_offset, 0), self.byte_length)
        if self._starts is None:
            return byte_offset
        if round_up:
            return bisect_left(self._starts, byte_offset)
        return bisect_right(self._starts, byte_offset) - 1
