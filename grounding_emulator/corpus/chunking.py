"""Documents -> chunks, cut along their structure: headings first, then paragraphs, then size.

Parsing gives ``Block``s (a heading, a paragraph or a code block, with its page for paged
sources); ``chunk_blocks`` packs them into chunks:

- every heading starts a new chunk (a heading directly followed by another joins it);
- paragraphs are added to the current chunk while it stays within ``max_chars``;
- a paragraph longer than ``max_chars`` is cut at the last sentence end, line break or space
  before the limit (never inside a character sequence such as a letter and its combining marks).

Each chunk remembers the heading path it sits under, so that a chunk in the middle of a long
section is still found by the section's name.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import ClassVar, Literal

__all__ = [
    "DEFAULT_MAX_CHARS",
    "Block",
    "ChunkText",
    "blocks_from_html",
    "blocks_from_markdown",
    "blocks_from_plain_text",
    "chunk_blocks",
    "safe_cut",
    "split_long_text",
]

DEFAULT_MAX_CHARS = 1000

BlockKind = Literal["heading", "paragraph", "code"]


@dataclass(frozen=True, slots=True)
class Block:
    """A structural unit of a document; ``level`` is the heading level (1 = top)."""

    kind: BlockKind
    text: str
    level: int = 0
    page: int | None = None


@dataclass(frozen=True, slots=True)
class ChunkText:
    """A chunk before it gets an id: content, heading path, page span."""

    content: str
    heading: str = ""
    page_start: int | None = None
    page_end: int | None = None


# -- parsing ------------------------------------------------------------------------------------

_ATX_OPENING = re.compile(r"(#{1,6})[ \t]+")
_FENCE = re.compile(r"^(```|~~~)")
_SETEXT = {"=": 1, "-": 2}
_UNDERLINE = re.compile(r"^([=\-*~^#\"'`+])\1{2,}\s*$")


def _atx_heading(line: str) -> tuple[int, str] | None:
    """``(level, text)`` of an ATX heading line (``## Title ##``), else ``None``.

    The text is what ``^(#{1,6})[ \t]+(.+?)[ \t#]*$`` captures, stripped, found without that
    regex: on a line with a long run of spaces before its last word the lazy group is quadratic.
    """
    opening = _ATX_OPENING.match(line)
    if opening is None:
        return None
    start = opening.end()
    if start == len(line):  # the text takes one character: the last space, if there are two
        if start - opening.end(1) < 2:
            return None
        start -= 1
    end = max(start + 1, len(line.rstrip(" \t#")))
    return len(opening.group(1)), line[start:end].strip()


def _paragraphs(lines: Iterable[str], page: int | None) -> list[Block]:
    blocks: list[Block] = []
    current: list[str] = []
    for line in lines:
        if line.strip():
            current.append(line.rstrip())
        elif current:
            blocks.append(Block("paragraph", "\n".join(current), page=page))
            current = []
    if current:
        blocks.append(Block("paragraph", "\n".join(current), page=page))
    return blocks


def blocks_from_markdown(text: str, *, page: int | None = None) -> list[Block]:
    """Blocks of a Markdown text: ATX and setext headings, fenced code, paragraphs."""
    blocks: list[Block] = []
    pending: list[str] = []
    lines = text.splitlines()
    index = 0

    def flush() -> None:
        blocks.extend(_paragraphs(pending, page))
        pending.clear()

    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line.strip())
        if fence:
            flush()
            code = [line]
            index += 1
            while index < len(lines):
                code.append(lines[index])
                if lines[index].strip().startswith(fence.group(1)):
                    break
                index += 1
            blocks.append(Block("code", "\n".join(code).rstrip(), page=page))
            index += 1
            continue
        atx = _atx_heading(line)
        if atx:
            flush()
            blocks.append(Block("heading", atx[1], atx[0], page))
            index += 1
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        marker = following.strip()
        if (
            line.strip()
            and marker
            and marker[0] in _SETEXT
            and set(marker) == {marker[0]}
            and len(marker) >= 3
            and (not pending or not pending[-1].strip())
        ):
            flush()
            blocks.append(Block("heading", line.strip(), _SETEXT[marker[0]], page))
            index += 2
            continue
        pending.append(line)
        index += 1
    flush()
    return blocks


def blocks_from_plain_text(text: str, *, page: int | None = None) -> list[Block]:
    """Blocks of a plain text: reStructuredText-style underlined headings and paragraphs.

    Heading levels follow the order in which underline characters first appear, as in
    reStructuredText (the Python docs' ``****`` then ``====`` then ``----``).
    """
    blocks: list[Block] = []
    levels: dict[str, int] = {}
    pending: list[str] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        following = lines[index + 1] if index + 1 < len(lines) else ""
        underline = _UNDERLINE.match(following)
        if (
            line.strip()
            and not line.startswith((" ", "\t"))
            and underline
            and len(following.strip()) >= len(line.strip()) - 1
            and (not pending or not pending[-1].strip())
        ):
            blocks.extend(_paragraphs(pending, page))
            pending = []
            level = levels.setdefault(underline.group(1), len(levels) + 1)
            blocks.append(Block("heading", line.strip(), level, page))
            index += 2
            continue
        pending.append(line)
        index += 1
    blocks.extend(_paragraphs(pending, page))
    return blocks


class _HtmlBlocks(HTMLParser):
    _HEADINGS: ClassVar[dict[str, int]] = {f"h{n}": n for n in range(1, 7)}
    _BLOCKS = frozenset(
        {"p", "li", "pre", "blockquote", "td", "th", "dt", "dd", "div", "section", "article"}
    )
    _SKIP = frozenset({"script", "style", "nav", "noscript", "template", "head"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self.title = ""
        self._text: list[str] = []
        self._skip = 0
        self._in_title = False
        self._pre = 0

    def _flush(self, kind: BlockKind = "paragraph", level: int = 0) -> None:
        raw = "".join(self._text)
        self._text = []
        text = raw.strip("\n") if self._pre else " ".join(raw.split())
        if text.strip():
            self.blocks.append(Block(kind, text, level))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in self._SKIP:
            self._skip += 1
        elif tag in self._HEADINGS or tag in self._BLOCKS:
            self._flush()
            if tag == "pre":
                self._pre += 1
        elif tag == "br":
            self._text.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in self._SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag in self._HEADINGS:
            self._flush("heading", self._HEADINGS[tag])
        elif tag in self._BLOCKS:
            self._flush("code" if tag == "pre" else "paragraph")
            if tag == "pre":
                self._pre = max(0, self._pre - 1)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self._text.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def blocks_from_html(text: str) -> tuple[str, list[Block]]:
    """``(title, blocks)`` of an HTML page: ``<title>``, ``h1``-``h6`` headings, text blocks."""
    parser = _HtmlBlocks()
    parser.feed(text)
    parser.close()
    return " ".join(parser.title.split()), parser.blocks


# -- packing ------------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"[.!?。！？؟।][\"')\]»”’]*\s+|[。！？]")


def safe_cut(text: str, cut: int) -> int:
    """Move ``cut`` back so that it does not separate a character from its combining marks,
    joiners or variation selectors."""
    while 0 < cut < len(text) and (
        unicodedata.combining(text[cut])
        or text[cut] in "\u200d\ufe0e\ufe0f"
        or text[cut - 1] == "\u200d"
        or 0x1F3FB <= ord(text[cut]) <= 0x1F3FF
    ):
        cut -= 1
    return cut


def _cut(text: str, limit: int) -> int:
    """Where to cut ``text`` so that the first piece has at most ``limit`` characters: after
    the last sentence end, else at the last line break or space, else at a safe character."""
    window = text[: limit + 1]
    cut = 0
    for match in _SENTENCE_END.finditer(window):
        if match.end() <= limit:
            cut = match.end()
    if cut < limit // 3:
        cut = max(window.rfind("\n"), window.rfind(" "))
    if cut < limit // 3:
        cut = safe_cut(text, limit)
    return cut if cut > 0 else limit


def _after_space(text: str, pos: int) -> int:
    """``pos`` moved past whitespace (what ``text[pos:].lstrip()`` would drop)."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def split_long_text(text: str, max_chars: int) -> list[str]:
    """``text`` in pieces of at most ``max_chars`` characters, cut at the best boundary."""
    pieces: list[str] = []
    rest = text.strip()
    pos = 0  # the rest is rest[pos:], kept as an offset: slicing it off each time is quadratic
    while len(rest) - pos > max_chars:
        cut = _cut(rest[pos : pos + max_chars + 1], max_chars)
        pieces.append(rest[pos : pos + cut].rstrip())
        pos = _after_space(rest, pos + cut)
    if pos < len(rest):
        pieces.append(rest[pos:])
    return [p for p in pieces if p]


def _page_span(pages: Sequence[int | None]) -> tuple[int | None, int | None]:
    known = [p for p in pages if p is not None]
    if not known:
        return None, None
    return min(known), max(known)


def chunk_blocks(blocks: Sequence[Block], *, max_chars: int = DEFAULT_MAX_CHARS) -> list[ChunkText]:
    """Pack ``blocks`` into chunks (see the module docstring)."""
    if max_chars < 50:
        raise ValueError(f"max_chars must be >= 50, got {max_chars}")
    chunks: list[ChunkText] = []
    path: list[tuple[int, str]] = []
    parts: list[str] = []
    pages: list[int | None] = []
    heading = ""
    only_headings = True

    def emit() -> None:
        nonlocal parts, pages, only_headings
        if parts:
            start, end = _page_span(pages)
            chunks.append(ChunkText("\n\n".join(parts), heading, start, end))
        parts, pages, only_headings = [], [], True

    for block in blocks:
        if block.kind == "heading":
            if not only_headings:
                emit()
            while path and path[-1][0] >= block.level:
                path.pop()
            path.append((block.level, block.text))
            heading = " > ".join(text for _, text in path)
            parts.append(block.text)
            pages.append(block.page)
            # Headings lead their section's first chunk; they never fill more than half of one.
            lead = "\n\n".join(parts)
            if len(lead) > max_chars // 2:
                parts = [lead[: safe_cut(lead, max_chars // 2)].rstrip()]
            continue
        rest = block.text.strip()
        pos = 0  # the rest of the block is rest[pos:] (an offset, as in split_long_text)
        while pos < len(rest):
            used = sum(len(p) + 2 for p in parts)
            room = max_chars - used
            if len(rest) - pos <= room:
                parts.append(rest[pos:])
                pages.append(block.page)
                only_headings = False
                break
            if not only_headings:
                emit()
                continue
            # An empty chunk, or one with its headings only: fill it with the text's head.
            cut = _cut(rest[pos : pos + room + 1], room)
            parts.append(rest[pos : pos + cut].rstrip())
            pages.append(block.page)
            only_headings = False
            pos = _after_space(rest, pos + cut)
            emit()
    if parts:
        emit()
    return chunks
