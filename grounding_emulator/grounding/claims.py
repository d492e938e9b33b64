"""Splitting an answer into claims: one sentence is one claim.

The splitter works in two passes, both on the original string so that every span slices the
answer exactly (the servicer turns string spans into UTF-8 byte offsets):

1. **Blocks** (line by line, Markdown-aware): a fenced code block is one segment; a heading, a
   line in bold (``**Pricing**``), a table row (the row above a ``|---|`` rule is a header), a
   bullet or numbered list item
   (``-``, ``*``, ``+``, ``•``, ``1.``, ``2)``, ``a)``, ``- [ ]``) and a block quote start a new
   block with the marker left out of the span; a blank line ends a paragraph. Inside a block a
   line break ends a sentence unless the next line starts with a lower-case letter or the line
   ends with a character that cannot end a sentence (``,``, ``;``, ``(``...).
2. **Sentences** inside a block: a sentence ends after a terminal mark (``. ! ? …`` and ``。！？``,
   ``؟ ۔ । ॥ ። ။ ។ ։`` ...) with its closing quotes and brackets, where

   - Latin-style marks need whitespace after them and a next word that does not start with a
     lower-case letter (so ``3.5``, ``v1.2.3``, ``x.y()``, ``e.g. this`` and ``Wait... what`` stay
     whole), unless that word looks like a name or identifier (``f-strings``, ``iPhone``);
   - the word before a period is not an abbreviation that never ends a sentence (``Dr.``,
     ``e.g.``, ``Fig.``, an initial such as ``F.``); abbreviations that may end one (``etc.``,
     ``U.S.``, ``Inc.``) end it only before a typical sentence opener (``The``, ``It``...);
   - inline code spans, URLs, e-mail addresses and Markdown link targets never hold a boundary;
   - CJK full-width marks end a sentence without whitespace; in Thai and Lao, which do not space
     words, a space between two letters of the script ends a sentence.

Spans are trimmed of whitespace; a fragment with no letter or digit (an emoji after the period,
a table rule) is joined to the sentence before it in its block, or dropped. Each item of a list is
at least one claim; an item with two sentences is two claims.
"""

from __future__ import annotations

import bisect
import enum
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from grounding_emulator.grounding.lexical.lexicon import MONTHS

__all__ = ["Segment", "SegmentKind", "split_claims", "split_segments"]


class SegmentKind(enum.Enum):
    """What kind of Markdown block a segment came from."""

    SENTENCE = "sentence"
    LIST_ITEM = "list_item"
    HEADING = "heading"
    TABLE_ROW = "table_row"
    TABLE_HEADER = "table_header"
    CODE = "code"


@dataclass(frozen=True, slots=True)
class Segment:
    """A claim candidate: ``text[start:end]``, and the kind of block it came from."""

    start: int
    end: int
    kind: SegmentKind


# --- line-level Markdown -------------------------------------------------------------------

_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+")
_LIST_MARKER = re.compile(
    r"[ \t]*(?:>[ \t]*)*"  # optional block-quote markers
    r"(?:[-*+•‣◦▪▫●○■□–—][ \t]+(?:\[[ xX]\][ \t]+)?"  # bullets, task boxes
    r"|(?:\d{1,3}|[a-z]|[ivx]{1,4})[.)][ \t]+"  # 1. 2) a) iv.
    r"|\((?:\d{1,3}|[a-z])\)[ \t]+"  # (1) (a)
    r"|[①-⑳][ \t]*)"  # circled numbers
)
_QUOTE = re.compile(r"[ \t]*(?:>[ \t]*)+")
# A line that is all bold or italic ("**Storage classes**") is a heading in all but name.
# The tails are written so that a run of spaces has one way to match: ``[ \t]*:?[ \t]*`` would
# try every split of a long run before failing (quadratic in the run).
_EMPHASIS_HEADING = re.compile(
    r"[ \t]*(\*\*|__|\*|_)(?=\S)([^*_\n]{1,80}?)(?<=\S)\1[ \t]*(?::[ \t]*)?"
)
_TABLE_ROW = re.compile(r"[ \t]*\|")
_TABLE_RULE = re.compile(r"[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*(?:(?::-*|-+):?[ \t]*)?")
# A closing sequence of ATX heading marks; a run of spaces is tried from its first space only.
_CLOSING_HASHES = re.compile(r"(?<![ \t])[ \t]+#+\Z")

# --- sentence-level ------------------------------------------------------------------------

# Terminal marks. Full-width ones end a sentence even without a following space.
_LATIN_TERMINALS = ".!?…‼⁇⁈⁉"
_OTHER_TERMINALS = "؟۔।॥։።፧၊။។៕᙮܀܁܂߹"
_WIDE_TERMINALS = "。！？｡．"
_TERMINAL_RUN = re.compile(
    "[" + re.escape(_LATIN_TERMINALS + _OTHER_TERMINALS + _WIDE_TERMINALS) + "]+"
    r"""["'”’»›)\]}」』】〕）〉》〗〙*_~]*"""
)
# Spans that never hold a boundary, in order of preference where two start at the same place:
# inline code, URLs, e-mail addresses, Markdown link targets. Each kind is searched for on its
# own (``_protected`` merges them as one alternation would, leftmost first) so that each search
# is linear: inline code and e-mail addresses are only tried from the first character of a run
# (every later start of the same run reaches the same end, so it gives the same result), and a
# link target that fails skips past every start its scan covered.
_INLINE_CODE = re.compile(r"`+[^`\n]+`+")
_URL = re.compile(
    r"\b(?:https?|ftp|file|gs|s3)://[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]}]"
    r"|\bwww\.[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]}]"
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_RUN_STARTS = {
    _INLINE_CODE: re.compile(r"(?<!`)" + _INLINE_CODE.pattern),
    _EMAIL: re.compile(r"(?<![\w.+-])" + _EMAIL.pattern),
}
_LINK_BODY = re.compile(r"[^)\s]*")
_NEXT_WORD = re.compile(r"[\W_]*(\w*)")
# From the first space of a run only: a later start reaches the same line break, or none.
_LINE_BREAK = re.compile(r"(?<![ \t])[ \t]*(?:\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])")
_SPACE_RUN = re.compile(r"\s+")
# Thai words that carry a sentence on after a space, and that open a condition.
_THAI_CONTINUATIONS = ("จะ", "ก็", "และ", "หรือ", "แต่", "ซึ่ง", "ที่", "เพื่อ", "เพราะ", "โดย")
_THAI_CONDITIONS = ("ถ้า", "หาก", "เมื่อ", "แม้", "ถึงแม้")
# A space between two letters of these scripts separates sentences (they do not space words).
_SPACE_SEPARATED_SCRIPTS = re.compile(r"(?<=[\u0e00-\u0e7f\u0e80-\u0eff])[ \t]+(?=[\u0e00-\u0eff])")

# Abbreviations that never end a sentence (compared casefolded, without the final period).
_NEVER_FINAL = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "mt",
        "ft",
        "gen",
        "col",
        "capt",
        "lt",
        "sgt",
        "rev",
        "hon",
        "pres",
        "gov",
        "sen",
        "rep",
        "e.g",
        "eg",
        "i.e",
        "ie",
        "cf",
        "vs",
        "viz",
        "al",
        "approx",
        "appx",
        "ca",
        "cca",
        "no",
        "nos",
        "nr",
        "fig",
        "figs",
        "eq",
        "eqs",
        "sec",
        "ch",
        "chap",
        "vol",
        "vols",
        "pp",
        "ed",
        "eds",
        "ref",
        "refs",
        "dept",
        "est",
        "min",
        "max",
        "avg",
        "incl",
        "excl",
        "resp",
        "esp",
        "var",
        "op",
        "art",
        "para",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "mon",
        "tue",
        "tues",
        "wed",
        "thu",
        "thur",
        "thurs",
        "fri",
        "sat",
        "sun",
        "z.b",
        "d.h",
        "u.a",
        "bzw",
        "usw",
        "vgl",
        "evtl",
        "ggf",
        "inkl",
        "ca",
        "sog",
        "s.o",
        "s.u",
        "p.ex",
        "ex",
        "env",
        "cf",
        "mme",
        "mlle",
        "sra",
        "sres",
        "srta",
        "p.ej",
        "ej",
        "pág",
        "núm",
    ]
)
# Abbreviations that may end a sentence: a boundary only before a typical sentence opener.
_MAYBE_FINAL = frozenset(
    [
        "руб",
        "коп",
        "тыс",
        "млн",
        "млрд",
        "грн",
        "etc",
        "inc",
        "ltd",
        "co",
        "corp",
        "llc",
        "plc",
        "bros",
        "a.m",
        "p.m",
        "am",
        "pm",
        "u.s",
        "u.k",
        "u.n",
        "e.u",
        "u.s.a",
        "ph.d",
        "b.sc",
        "m.sc",
    ]
)
# Words that follow an ordinal written as digits and a point ("23. April", "19. Jahrhundert").
_AFTER_ORDINAL = frozenset(
    name.casefold() for name in MONTHS if name.isalpha() and name.isascii()
) | frozenset(
    [
        "jahrhundert",
        "jahrhunderts",
        "jahrtausend",
        "jh",
        "platz",
        "mal",
        "auflage",
        "stock",
        "etage",
        "klasse",
        "kapitel",
        "band",
        "runde",
        "spieltag",
        "geburtstag",
        "jahrestag",
    ]
)
_BEFORE_ORDINAL = frozenset(
    [
        "am",
        "im",
        "vom",
        "zum",
        "zur",
        "bis",
        "ab",
        "seit",
        "der",
        "die",
        "das",
        "dem",
        "den",
        "des",
        "ein",
        "eine",
        "einem",
        "einen",
        "einer",
    ]
)
_OPENERS = frozenset(
    [
        "the",
        "a",
        "an",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "they",
        "their",
        "then",
        "he",
        "she",
        "we",
        "you",
        "i",
        "in",
        "on",
        "at",
        "for",
        "to",
        "if",
        "when",
        "while",
        "as",
        "but",
        "and",
        "or",
        "so",
        "also",
        "however",
        "after",
        "before",
        "during",
        "since",
        "with",
        "by",
        "from",
        "each",
        "every",
        "all",
        "some",
        "many",
        "most",
        "no",
        "not",
        "one",
        "two",
        "our",
        "your",
        "my",
        "his",
        "her",
        "what",
        "which",
        "who",
        "how",
        "why",
        "note",
        "see",
        "use",
        "for",
        "first",
        "next",
        "finally",
        "yes",
    ]
)
_INITIALISM = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]")
_CANNOT_END_LINE = ",;(/&+=\\[{<–—-"


def _has_alnum(text: str, start: int, end: int) -> bool:
    return any(text[i].isalnum() for i in range(start, end))


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _is_lower_start(ch: str) -> bool:
    return unicodedata.category(ch) == "Ll"


@dataclass(slots=True)
class _Block:
    start: int
    end: int
    kind: SegmentKind
    quote: bool = False


def _lines(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every line, without its line break."""
    spans = []
    pos = 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
        spans.append((pos, pos + len(stripped)))
        pos += len(line)
    return spans


def _blocks(text: str) -> list[_Block]:
    """Markdown blocks of ``text``, markers excluded."""
    blocks: list[_Block] = []
    current: _Block | None = None
    fence: str | None = None
    fence_start = 0
    for start, end in _lines(text):
        line = text[start:end]
        if fence is not None:
            if line.strip().startswith(fence):
                blocks.append(_Block(fence_start, end, SegmentKind.CODE))
                fence = None
            continue
        fence_match = _FENCE.match(line)
        if fence_match:
            current = None
            fence = fence_match.group(1)
            fence_start = start + fence_match.start(1)
            continue
        if not line.strip():
            current = None
            continue
        heading = _HEADING.match(line)
        if heading:
            content_end = end
            stripped = line.rstrip()
            closing = _CLOSING_HASHES.search(stripped)
            if closing:
                content_end = start + closing.start()
            blocks.append(_Block(start + heading.end(), content_end, SegmentKind.HEADING))
            current = None
            continue
        emphasis = _EMPHASIS_HEADING.fullmatch(line)
        if emphasis:
            blocks.append(
                _Block(start + emphasis.start(2), start + emphasis.end(2), SegmentKind.HEADING)
            )
            current = None
            continue
        if _TABLE_ROW.match(line):
            if _TABLE_RULE.fullmatch(line) and blocks and blocks[-1].kind == SegmentKind.TABLE_ROW:
                blocks[-1].kind = SegmentKind.TABLE_HEADER
            blocks.append(_Block(start, end, SegmentKind.TABLE_ROW))
            current = None
            continue
        marker = _LIST_MARKER.match(line)
        if marker:
            current = _Block(start + marker.end(), end, SegmentKind.LIST_ITEM)
            blocks.append(current)
            continue
        quote = _QUOTE.match(line)
        if current is not None and current.quote == bool(quote):
            current.end = end  # continuation line of a paragraph, list item or quote
        else:
            content_start = start + quote.end() if quote else start
            current = _Block(content_start, end, SegmentKind.SENTENCE, quote=bool(quote))
            blocks.append(current)
    if fence is not None:  # an unclosed fence runs to the end of the text
        blocks.append(_Block(fence_start, len(text), SegmentKind.CODE))
    return blocks


_Span = tuple[int, int]


def _next_run_match(pattern: re.Pattern[str], text: str, pos: int, end: int) -> _Span | None:
    """The first match of ``pattern`` at or after ``pos``: at ``pos`` itself (which may sit inside
    a run, after an earlier span), else from the start of a later run."""
    match = pattern.match(text, pos, end) or _RUN_STARTS[pattern].search(text, pos, end)
    return match.span() if match else None


def _next_url(text: str, pos: int, end: int) -> _Span | None:
    match = _URL.search(text, pos, end)
    return match.span() if match else None


def _next_link_target(text: str, pos: int, end: int) -> _Span | None:
    """The first ``](...)`` at or after ``pos``; a failed scan skips the starts it covered (from
    any of them the scan stops at the same space or end)."""
    while (start := text.find("](", pos, end)) >= 0:
        body = _LINK_BODY.match(text, start + 2, end)
        stop = body.end() if body else start + 2
        if stop < end and text[stop] == ")":
            return start, stop + 1
        pos = stop
    return None


def _protected(text: str, start: int, end: int) -> list[_Span]:
    """The protected spans of ``text[start:end]``, in order, as ``finditer`` of the alternation
    code | URL | e-mail | link target would give them (leftmost first, then in that order)."""
    finders: list[Callable[[int], _Span | None]] = []
    if text.find("`", start, end) >= 0:
        finders.append(lambda p: _next_run_match(_INLINE_CODE, text, p, end))
    if text.find("://", start, end) >= 0 or text.find("www.", start, end) >= 0:
        finders.append(lambda p: _next_url(text, p, end))
    if text.find("@", start, end) >= 0:
        finders.append(lambda p: _next_run_match(_EMAIL, text, p, end))
    if text.find("](", start, end) >= 0:
        finders.append(lambda p: _next_link_target(text, p, end))
    found = [find(start) for find in finders]
    spans: list[_Span] = []
    pos = start
    while True:
        candidates = [(span[0], order) for order, span in enumerate(found) if span is not None]
        if not candidates:
            return spans
        _, order = min(candidates)
        span = found[order]
        assert span is not None
        spans.append(span)
        pos = span[1]
        for other, next_span in enumerate(found):
            if next_span is not None and next_span[0] < pos:
                found[other] = finders[other](pos)


def _inside(pos: int, ranges: list[_Span]) -> bool:
    """Whether ``pos`` is strictly inside one of ``ranges`` (sorted, not overlapping)."""
    index = bisect.bisect_left(ranges, (pos,))
    return index > 0 and ranges[index - 1][1] > pos


def _next_word(text: str, pos: int, end: int) -> str:
    match = _NEXT_WORD.match(text, pos, end)
    return match.group(1).casefold() if match else ""


def _word_after(text: str, pos: int, end: int) -> str:
    """The word (hyphens, dots and underscores included) that starts at ``pos``."""
    stop = pos
    while stop < end and (text[stop].isalnum() or text[stop] in "-_."):
        stop += 1
    return text[pos:stop].rstrip(".")


def _is_identifier_like(word: str) -> bool:
    """A lower-case word that can start a sentence: "f-strings", "iPhone", "npm2", "x_y"."""
    return any(ch in "-_" or ch.isdigit() or ch.isupper() for ch in word[1:])


def _word_before(text: str, pos: int) -> str:
    """The word (dots, apostrophes and hyphens included) that ends at ``pos``."""
    start = pos
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "._'’-"):
        start -= 1
    return text[start:pos]


def _ends_sentence(text: str, run_start: int, run_end: int, block_end: int) -> bool:
    """Whether the terminal run ``text[run_start:run_end]`` ends a sentence."""
    marks = text[run_start:run_end]
    if any(ch in _WIDE_TERMINALS for ch in marks):
        return True
    nxt = run_end
    if nxt >= block_end:
        return True
    if not text[nxt].isspace():
        # "!" or "?" directly before a CJK letter still ends the sentence.
        return marks[0] in "!?" and _is_wide_letter(text[nxt])
    after = _SPACE_RUN.match(text, nxt)
    following = after.end() if after else nxt
    if following >= block_end:
        return True
    first = text[following]
    if _is_lower_start(first):
        return _is_identifier_like(_word_after(text, following, block_end))
    if marks[0] != ".":
        return True
    before = _word_before(text, run_start).strip("'’-").casefold()
    before_key = before.rstrip(".")
    if not before_key:
        return True
    if before_key in _NEVER_FINAL:
        return before_key == "no" and not text[following].isdigit()
    opener = _next_word(text, following, block_end)
    if before_key.isdigit() and len(before_key) <= 3 and opener in _AFTER_ORDINAL:
        # a German ordinal: "am 23. April", "im 19. Jahrhundert" (not "version 2. March")
        cursor = run_start - len(before)
        while cursor > 0 and text[cursor - 1].isspace():
            cursor -= 1
        previous = _word_before(text, cursor)
        return previous.casefold() not in _BEFORE_ORDINAL
    if before_key in _MAYBE_FINAL or _INITIALISM.fullmatch(before_key):
        return opener in _OPENERS
    if (
        len(before_key) == 1
        and before_key.isalpha()
        and text[run_start - 1].isupper()
        and text[run_start - 2 : run_start - 1] != "°"  # "1,5 °C." ends a sentence
    ):
        return opener in _OPENERS  # an initial, as in "John F. Kennedy"
    return True


def _is_wide_letter(ch: str) -> bool:
    code = ord(ch)
    return (
        0x3040 <= code <= 0x30FF
        or 0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xAC00 <= code <= 0xD7AF
        or 0xF900 <= code <= 0xFAFF
    )


_WRAPPED_LINE = 48


def _line_break_ends(text: str, pos: int, block_end: int) -> bool:
    """Whether the line break at ``pos`` (inside a block) ends a sentence."""
    last = pos - 1
    while last >= 0 and text[last].isspace():
        last -= 1
    if last < 0:
        return False
    if text[last] in _CANNOT_END_LINE:
        return False
    # A long line without a final mark is hard-wrapped prose (pydoc, e-mail, man pages): the
    # sentence goes on. Short unpunctuated lines are titles or labels and end there.
    # (the line is that long when no "\n" is among the _WRAPPED_LINE characters before pos)
    long_line = pos >= _WRAPPED_LINE and text.rfind("\n", pos - _WRAPPED_LINE, pos) < 0
    if long_line and text[last] not in ":":
        return False
    after = _SPACE_RUN.match(text, pos)
    following = after.end() if after else pos
    if following >= block_end:
        return True
    if text[last] == ":":
        return True
    return not _is_lower_start(text[following])


def _after_trailing_symbols(text: str, pos: int, end: int) -> int:
    """``pos`` moved past spaces and a run of emoji or symbols that closes the sentence."""
    cursor = pos
    while cursor < end and text[cursor] in " \t":
        cursor += 1
    run_start = cursor
    while cursor < end and _is_symbol(text[cursor]):
        cursor += 1
    if cursor == run_start or (cursor < end and not text[cursor].isspace()):
        return pos
    return cursor


def _is_symbol(ch: str) -> bool:
    category = unicodedata.category(ch)
    return category[0] == "S" or category in ("Mn", "Me", "Cf") or ch == "\ufe0f"


def _sentence_ends(text: str, start: int, end: int) -> list[int]:
    """Positions inside ``[start, end)`` after which a sentence ends."""
    protected = _protected(text, start, end)
    ends = set()
    for match in _TERMINAL_RUN.finditer(text, start, end):
        run_start, run_end = match.span()
        if _inside(run_start, protected) or _inside(run_end - 1, protected):
            continue
        if _ends_sentence(text, run_start, run_end, end):
            ends.add(_after_trailing_symbols(text, run_end, end))
    for match in _LINE_BREAK.finditer(text, start, end):
        pos = match.start()
        if pos <= start or _inside(pos, protected):
            continue
        if _line_break_ends(text, pos, end):
            ends.add(pos)
    earlier = sorted(ends)
    last_thai = start  # Thai ends come in order: the latest is the nearest before the next space
    for match in _SPACE_SEPARATED_SCRIPTS.finditer(text, start, end):
        space = match.start()
        before = bisect.bisect_left(earlier, space)
        clause_start = max(start, last_thai, earlier[before - 1] if before else start)
        if _thai_space_ends(text, space, match.end(), clause_start):
            ends.add(space)
            last_thai = space
    return sorted(ends)


def _thai_space_ends(text: str, space: int, after: int, clause_start: int) -> bool:
    """Whether the space at ``space`` ends a sentence of Thai or Lao: not before a word that
    carries the sentence on ("จะ", "และ") or an abbreviation ("ภ.ง.ด."), nor after the first
    clause of a condition ("ถ้ายื่นออนไลน์ จะได้...")."""
    following = text[after : after + 4]
    if following.startswith(_THAI_CONTINUATIONS) or following[1:2] == ".":
        return False
    clause = text[clause_start:space].lstrip(" -*•\t0123456789.)")
    return not (clause.startswith(_THAI_CONDITIONS) and " " not in clause.strip())


def _split_block(text: str, block: _Block) -> list[Segment]:
    if block.kind in (
        SegmentKind.CODE,
        SegmentKind.TABLE_ROW,
        SegmentKind.TABLE_HEADER,
        SegmentKind.HEADING,
    ):
        s, e = _trim(text, block.start, block.end)
        return [Segment(s, e, block.kind)] if s < e and _has_alnum(text, s, e) else []
    kind = block.kind
    segments: list[Segment] = []
    cursor = block.start
    for boundary in [*_sentence_ends(text, block.start, block.end), block.end]:
        if boundary <= cursor:
            continue
        s, e = _trim(text, cursor, boundary)
        cursor = boundary
        if s >= e:
            continue
        if _has_alnum(text, s, e):
            segments.append(Segment(s, e, kind))
        elif segments:  # a trailing emoji or mark joins the sentence before it
            segments[-1] = Segment(segments[-1].start, e, kind)
    return segments


def split_segments(text: str) -> list[Segment]:
    """Claim candidates of ``text`` with the kind of block each came from, in order.

    >>> text = "Here is what I found:\\n- Cloud Run scales to zero.\\n- It bills per 100 ms."
    >>> [(text[s.start:s.end], s.kind.value) for s in split_segments(text)]
    [('Here is what I found:', 'sentence'), ('Cloud Run scales to zero.', 'list_item'), \
('It bills per 100 ms.', 'list_item')]
    """
    segments: list[Segment] = []
    for block in _blocks(text):
        segments.extend(_split_block(text, block))
    return segments


def split_claims(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` string spans of the sentences of ``text``, trimmed of whitespace.

    Spans are in order, do not overlap, and each slices ``text`` to a non-empty claim.

    >>> text = "Dr. Lee moved to the U.S. in 2010. Python 3.5 added async! 東京は首都。大阪も。"
    >>> [text[s:e] for s, e in split_claims(text)]
    ['Dr. Lee moved to the U.S. in 2010.', 'Python 3.5 added async!', '東京は首都。', '大阪も。']
    """
    return [(segment.start, segment.end) for segment in split_segments(text)]
