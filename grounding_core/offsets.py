"""UTF-8 byte offsets <-> Python string indices.

Every offset Google's grounding APIs return (``Claim.start_pos/end_pos``,
``Answer.Citation.start_index/end_index``, Developer Knowledge ``AnswerCitation``) counts UTF-8
bytes, end exclusive; Python strings index by code point. ``Utf8Offsets`` is built once per text
and converts any number of offsets in either direction.

A byte offset beyond the text or inside a multi-byte character raises ``OffsetError``: a wrong
slice is never returned silently. ``nearest_char`` is the explicit, lossy alternative for callers
that prefer to repair a bad server offset (they log a warning when they do).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from .errors import OffsetError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Utf8Offsets", "utf8_length"]


def utf8_length(text: str) -> int:
    """Number of bytes of ``text`` in UTF-8 (lone surrogates count three bytes, as Python's
    ``surrogatepass`` encodes them)."""
    return len(text.encode("utf-8", "surrogatepass"))


class Utf8Offsets:
    """Offset mapper for one text.

    >>> m = Utf8Offsets("né 世界")
    >>> m.to_char(4), m.to_byte(3)
    (3, 4)
    >>> m.char_span(4, 10)
    (3, 5)
    """

    __slots__ = ("_starts", "byte_length", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        # _starts[i] is the byte offset at which character i starts; _starts[len] is the length.
        # ASCII text (the common case) needs no table: byte offset == char offset.
        self._starts: np.ndarray | None
        if text.isascii():
            self._starts = None
            self.byte_length = len(text)
            return
        # numpy only for non-ASCII text: importing it would add ~60 ms to every import of
        # the adapters, most of whose answers are ASCII.
        import numpy as np

        codepoints = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
        widths = (
            1
            + (codepoints >= 0x80).astype(np.int64)
            + (codepoints >= 0x800)
            + (codepoints >= 0x10000)
        )
        starts = np.zeros(len(text) + 1, dtype=np.int64)
        np.cumsum(widths, out=starts[1:])
        self._starts = starts
        self.byte_length = int(starts[-1])

    def __repr__(self) -> str:
        return f"Utf8Offsets(chars={len(self.text)}, bytes={self.byte_length})"

    def to_char(self, byte_offset: int) -> int:
        """The string index at UTF-8 byte offset ``byte_offset``.

        Raises ``OffsetError`` when the offset is negative, beyond the text or falls inside a
        multi-byte character.
        """
        if not 0 <= byte_offset <= self.byte_length:
            raise OffsetError(
                f"byte offset {byte_offset} is outside the text (0..{self.byte_length} bytes, "
                f"{len(self.text)} characters)"
            )
        if self._starts is None:
            return byte_offset
        index = int(self._starts.searchsorted(byte_offset))
        end = int(self._starts[index])
        if end != byte_offset:
            char = self.text[index - 1]
            first = int(self._starts[index - 1])
            raise OffsetError(
                f"byte offset {byte_offset} falls inside the {end - first}-byte character "
                f"{char!r} (U+{ord(char):04X}) at string index {index - 1}, which spans bytes "
                f"{first}..{end}"
            )
        return index

    def to_byte(self, char_offset: int) -> int:
        """The UTF-8 byte offset of string index ``char_offset`` (0..len(text))."""
        if not 0 <= char_offset <= len(self.text):
            raise OffsetError(
                f"string index {char_offset} is outside the text (0..{len(self.text)})"
            )
        if self._starts is None:
            return char_offset
        return int(self._starts[char_offset])

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
        """The string index nearest to ``byte_offset``, clamped into the text.

        An offset inside a character moves to that character's start (``round_up=False``) or
        past its end (``round_up=True``). Lossy by design: use ``to_char`` unless repairing.
        """
        byte_offset = min(max(byte_offset, 0), self.byte_length)
        if self._starts is None:
            return byte_offset
        side: Literal["left", "right"] = "left" if round_up else "right"
        index = int(self._starts.searchsorted(byte_offset, side=side))
        return index if round_up else index - 1
