"""Hard-wrapped plain text -> one line per prose paragraph or list item; pure.

Text rendered for a terminal (pydoc's topics, ``man`` pages, e-mails) is wrapped at about 70
columns: a sentence runs over several lines. ``unwrap_paragraph`` joins the lines of a paragraph
that reads as prose, and the lines of each item of a bulleted or numbered list, and leaves
everything else as it is:

- code, grammar rules, doctests and tables (``::=``, ``>>>``, ``+---+``, ``|``), and any block
  whose lines are indented unevenly (nested code, continued grammar rules);
- blocks of short lines (code, addresses, poetry): prose wrapped at ~70 columns has long lines.

A word hyphenated at a line end (``built-`` / ``in``) is joined without a space.

>>> unwrap_paragraph("The with statement is used to wrap the execution of a block\\n"
...                  "with methods defined by a context manager.")
'The with statement is used to wrap the execution of a block with methods defined by a context manager.'
>>> unwrap_paragraph("   x = 1\\n   y = 2")
'   x = 1\\n   y = 2'
>>> print(unwrap_paragraph("1. The context expression is evaluated to obtain a context\\n"
...                        "   manager, which is then entered."))
1. The context expression is evaluated to obtain a context manager, which is then entered.
"""  # noqa: E501

from __future__ import annotations

import re

__all__ = ["MIN_WRAPPED_LINE", "unwrap_paragraph"]

# A prose line that was wrapped (every line but the last) is at least this long.
MIN_WRAPPED_LINE = 35
_MIN_LETTER_SHARE = 0.75
_LIST_MARKER = re.compile(r"^(?:[*\-+•]|\d{1,3}[.)]|\(\w{1,3}\)|[a-z][.)]|\[\d{1,3}\])\s+")
_NOT_PROSE = re.compile(
    r"::=|>>>|^\s*\.\.\.\s|^\s*\+[-=]{2,}|^\s*\|.*\|\s*$|^\s*[=\-*~^]{3,}\s*$", re.MULTILINE
)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _join(lines: list[str]) -> str:
    """``lines`` (stripped) joined by spaces; a hyphen at a line end joins without one."""
    text = lines[0]
    for line in lines[1:]:
        if len(text) > 1 and text.endswith("-") and text[-2].isalpha() and line[:1].islower():
            text += line
        else:
            text += " " + line
    return text


def _prose(lines: list[str]) -> bool:
    """Whether stripped ``lines`` look like wrapped prose."""
    if any(len(line) < MIN_WRAPPED_LINE for line in lines[:-1]):
        return False
    text = " ".join(lines)
    letters = sum(1 for c in text if c.isalpha() or c.isspace() or c in "\"'’“”,.;:()*-")
    return letters >= _MIN_LETTER_SHARE * len(text)


def _items(lines: list[str]) -> list[list[str]] | None:
    """The items of a list paragraph (each a list of raw lines), or ``None`` when ``lines`` is
    not a list whose items' continuation lines are indented under their text."""
    base = _indent(lines[0])
    items: list[list[str]] = []
    text_column = 0
    for line in lines:
        stripped = line.strip()
        marker = _LIST_MARKER.match(stripped)
        if marker and _indent(line) == base:
            items.append([line])
            text_column = base + marker.end()
        elif items and _indent(line) == text_column:
            items[-1].append(line)
        else:
            return None
    return items


def _definition(lines: list[str]) -> str | None:
    """A term on its first line and its wrapped description indented under it, or ``None``."""
    indent = _indent(lines[1])
    if indent <= _indent(lines[0]) or any(_indent(line) != indent for line in lines[1:]):
        return None
    stripped = [line.strip() for line in lines[1:]]
    if len(stripped) < 2 or not _prose(stripped):
        return None
    return lines[0] + "\n" + " " * indent + _join(stripped)


def unwrap_paragraph(text: str) -> str:
    """``text`` (one paragraph: no blank line inside) with wrapped lines joined (see the module
    docstring); the first line keeps its indentation."""
    lines = [line.rstrip() for line in text.split("\n") if line.strip()]
    if len(lines) < 2 or _NOT_PROSE.search(text):
        return text
    prefix = " " * _indent(lines[0])
    if _LIST_MARKER.match(lines[0].strip()):
        items = _items(lines)
        if items is None:
            return text
        joined = []
        for item in items:
            stripped = [line.strip() for line in item]
            if len(item) > 1 and _prose(stripped):
                joined.append(" " * _indent(item[0]) + _join(stripped))
            else:
                joined.append("\n".join(item))
        return "\n".join(joined)
    if any(_indent(line) != _indent(lines[0]) for line in lines):
        return _definition(lines) or text
    stripped = [line.strip() for line in lines]
    return prefix + _join(stripped) if _prose(stripped) else text
