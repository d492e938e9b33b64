"""Untrusted text in the renderings: one rule for characters, one rule for links.

Answers (an LLM's), titles, snippets and URIs (a corpus's or a user's file's) can carry markup,
escape sequences or a ``javascript:`` URI: every renderer (``markdown``, ``terminal`` and the
CLI, ``html``) passes such text through ``printable`` before escaping it for its own syntax,
and makes a link only through ``safe_href``.

``printable`` replaces what a terminal (or a reader) would obey instead of show:

- C0 control characters other than tab and line feed, and DEL, become their visible Unicode
  control pictures (ESC is ``␛``, BEL ``␇``, a bare carriage return ``␍``); a CR LF line end
  becomes a line feed;
- C1 control characters (``\\x80``-``\\x9f``: ``\\x9b`` is a one-byte CSI on some terminals) and
  lone surrogates become U+FFFD;
- the bidirectional embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069)
  become U+FFFD: they reorder whole runs of text, so that what is displayed differs from what
  is stored ("Trojan Source", CVE-2021-42574), which in a grounding report could disguise an
  unsupported claim or a link's host. The implicit marks LRM, RLM and ALM (U+200E, U+200F,
  U+061C) are kept: they only set the direction of the neutral characters beside them and are
  ordinary in Arabic and Hebrew text.

>>> printable("Paris\\x1b]0;owned\\x07 is big.\\r\\nLyon \\u202eevil\\u202c is old\\rFAKE.")
'Paris␛]0;owned␇ is big.\\nLyon \\ufffdevil\\ufffd is old␍FAKE.'
>>> safe_href("https://example.org/a b(c)"), safe_href("javascript:alert(1)")
('https://example.org/a%20b%28c%29', None)
"""

from __future__ import annotations

import functools
import re
import unicodedata

LINK_SCHEMES = ("http", "https")
"""The URI schemes that become links. ``gs://`` (a Cloud Storage document) stays text: a
browser cannot open it, so a link would be dead."""

_REPLACEMENT = "\ufffd"
_KEPT_CONTROLS = (0x09, 0x0A)  # tab and line feed: the layout needs them


def _replacements() -> dict[int, str]:
    table = {code: chr(0x2400 + code) for code in range(0x20) if code not in _KEPT_CONTROLS}
    table[0x7F] = "\u2421"  # ␡
    table.update(dict.fromkeys(range(0x80, 0xA0), _REPLACEMENT))
    table.update(dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)], _REPLACEMENT))
    table.update(dict.fromkeys(range(0xD800, 0xE000), _REPLACEMENT))
    return table


_PRINTABLE = _replacements()
# The same characters as JSON escapes: the JSON value stays the same, the text turns harmless.
_JSON_ESCAPES = {code: f"\\u{code:04x}" for code in _PRINTABLE}


def printable(text: str) -> str:
    """``text`` with control, escape and bidi override characters made visible (see above)."""
    return text.replace("\r\n", "\n").translate(_PRINTABLE)


def one_line(text: str) -> str:
    """``printable(text)`` with every run of whitespace (line breaks too) made one space: a
    title, a URI or an error message that cannot start a line of its own.

    >>> one_line("Title\\n# not a heading\\x1b[2J")
    'Title # not a heading␛[2J'
    """
    return " ".join(printable(text).split())


def json_escaped(dumped: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with every character ``printable``
    would replace written as a ``\\uXXXX`` escape: the same JSON value, safe on a terminal.

    >>> json_escaped('"a\\x9b[2J\\u202e"')
    '"a\\\\u009b[2J\\\\u202e"'
    """
    return dumped.translate(_JSON_ESCAPES)


# In a link target: whitespace, controls, quotes, angle brackets, parentheses, backslash and
# backquote, and any non-ASCII space, control, format (bidi), surrogate or unassigned character.
_URI_ASCII = str.maketrans({code: f"%{code:02X}" for code in [*range(0x21), 0x7F, *b"\"'<>()\\`"]})
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_URI_KEPT_CATEGORIES = ("L", "M", "N", "P", "S")


@functools.cache  # one entry per distinct non-ASCII character met: bounded by Unicode
def _encoded(char: str) -> str:
    category = unicodedata.category(char)
    if category[0] in _URI_KEPT_CATEGORIES:
        return char  # a letter of an IRI: browsers encode it themselves
    if category == "Cs":
        char = _REPLACEMENT  # a lone surrogate has no UTF-8 form
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))


def safe_href(uri: str) -> str | None:
    """The link target for ``uri``, or ``None`` when ``uri`` must not become a link.

    Only absolute ``http``/``https`` URIs with a host become links (``javascript:``,
    ``data:``, ``vbscript:``, ``file:``, ``gs://``, a leading space... never do); in the target
    every space, control, quote, ``<>()``, backslash, backquote and invisible character is
    percent-encoded, so that it cannot end the link or the attribute it is written in.

    >>> safe_href("https://docs.python.org/3/")
    'https://docs.python.org/3/'
    >>> safe_href("http://a.example/\\n<img src=x onerror=alert(1)>")
    'http://a.example/%0A%3Cimg%20src=x%20onerror=alert%281%29%3E'
    >>> safe_href("java\\tscript:x"), safe_href("https:/x"), safe_href("https:// x")
    (None, None, None)
    """
    scheme, sep, rest = uri.partition("://")
    if not sep or scheme.lower() not in LINK_SCHEMES or not rest:
        return None
    target = _NON_ASCII.sub(lambda match: _encoded(match.group()), rest.translate(_URI_ASCII))
    if target[0] in "/?#%":  # no host (or one that starts with a space or a control)
        return None
    return f"{scheme}{sep}{target}"
