"""``grounding_core.views.untrusted``: one rule for characters, one rule for links.

Covers ``printable`` (every character class it replaces and the neighbours it keeps: C0
controls but tab and line feed, DEL, C1, lone surrogates, the bidi embeddings, overrides and
isolates; CR LF and bare CR), ``one_line``, ``json_escaped`` (the same JSON value, harmless
text) and ``safe_href`` (what becomes a link, and how its target is percent-encoded).
"""

import json

import pytest

from grounding_core.views.untrusted import (
    LINK_SCHEMES,
    _replacements,
    json_escaped,
    one_line,
    printable,
    safe_href,
)


def test_c0_controls_become_control_pictures_except_tab_and_line_feed():
    every = "".join(chr(c) for c in range(0x20))
    expected = "".join(chr(0x2400 + c) for c in range(0x20))
    expected = expected.replace("\u2409", "\t").replace("\u240a", "\n")
    assert printable(every) == expected
    assert printable("\x1b]0;title\x07\x1b[2J") == "\u241b]0;title\u2407\u241b[2J"


def test_del_c1_surrogates_and_bidi_controls():
    assert printable("\x7f") == "\u2421"
    assert printable("\x7e\x80\x9b\x9f\xa0") == "\x7e\ufffd\ufffd\ufffd\xa0"
    assert printable("\ud7ff\ud800\udbff\udc00\udfff\ue000") == "\ud7ff" + "\ufffd" * 4 + "\ue000"
    bidi = "\u2029\u202a\u202b\u202c\u202d\u202e\u202f\u2065\u2066\u2067\u2068\u2069\u206a"
    assert printable(bidi) == "\u2029" + "\ufffd" * 5 + "\u202f\u2065" + "\ufffd" * 4 + "\u206a"
    # The implicit direction marks are kept: they are ordinary in RTL text.
    assert printable("\u200e\u200f\u061c") == "\u200e\u200f\u061c"


def test_a_crlf_ends_a_line_and_a_bare_cr_is_shown():
    assert printable("a\r\nb\rc\n\rd") == "a\nb\u240dc\n\u240dd"
    assert printable("\r\r\n") == "\u240d\n"


def test_one_line_makes_every_whitespace_run_one_space():
    assert one_line("  a\n\tb \u2028 c\x1b  ") == "a b c\u241b"
    assert one_line("") == ""


def test_json_escapes_keep_the_value():
    value = {"t": "a\x1b[2J\x7f\x9b\u202e\ud800\u2066 é\n"}
    dumped = json_escaped(json.dumps(value, ensure_ascii=False))
    assert dumped == '{"t": "a\\u001b[2J\\u007f\\u009b\\u202e\\ud800\\u2066 é\\n"}'
    assert json.loads(dumped) == value


@pytest.mark.parametrize(
    ("uri", "href"),
    [
        ("https://docs.python.org/3/", "https://docs.python.org/3/"),
        ("HTTP://Example.org/?a=1&b=2#c", "HTTP://Example.org/?a=1&b=2#c"),
        ("https://[::1]:8080/a", "https://[::1]:8080/a"),
        ("http://x/a b\tc\nd\re", "http://x/a%20b%09c%0Ad%0De"),
        ("http://x/\"'<>()\\`", "http://x/%22%27%3C%3E%28%29%5C%60"),
        ("http://x/\x00\x1f\x7f\x80\x9f", "http://x/%00%1F%7F%C2%80%C2%9F"),
        ("http://x/é/日本/%20", "http://x/é/日本/%20"),
        ("http://x/e\u0301\u0663\u2013\u20ac", "http://x/e\u0301\u0663\u2013\u20ac"),
        (
            "http://x/\xa0\u2028\u202e\u200b\ud800",
            "http://x/%C2%A0%E2%80%A8%E2%80%AE%E2%80%8B%EF%BF%BD",
        ),
        ("http://x/\ue000\U000e0001", "http://x/%EE%80%80%F3%A0%80%81"),
        ("http://x/{}|^~!*$,;=:@", "http://x/{}|^~!*$,;=:@"),
        ("https://x.example/?next=http://y", "https://x.example/?next=http://y"),
        ("http://a.example", "http://a.example"),
        ("https://Xyz.example/", "https://Xyz.example/"),
        ('https://example.org/"x', "https://example.org/%22x"),
        ("https://exa mple.org", "https://exa%20mple.org"),
    ],
    ids=[
        "plain",
        "case-query-fragment",
        "ipv6",
        "whitespace",
        "quotes-brackets-parens",
        "controls",
        "iri-letters-and-escapes",
        "iri-marks-digits-punctuation-symbols",
        "invisible",
        "private-and-tags",
        "kept-punctuation",
        "a-uri-in-the-query",
        "no-path",
        "a-host-with-a-capital",
        "quote",
        "space-in-the-host",
    ],
)
def test_safe_links_and_their_encoding(uri, href):
    assert safe_href(uri) == href


@pytest.mark.parametrize(
    "uri",
    [
        "",
        "https://",
        "https:///x",
        "https://?x",
        "https://#x",
        "https:// x",
        "https://\nx",
        "https://%41",
        "https:/x",
        "https:x",
        "//x.example/",
        " https://x.example/",
        "https ://x.example/",
        "ftp://x.example/",
        "gs://bucket/o",
        "file:///etc/passwd",
        "javascript://x.example/%0Aalert(1)",
        "JavaScript:alert(1)",
        "data:text/html,<script>x</script>",
        "vbscript:msgbox(1)",
        "httpx://x.example/",
        "java\nscript:alert(1)",
        "java\tscript:x",
    ],
)
def test_what_never_becomes_a_link(uri):
    assert safe_href(uri) is None


def test_only_http_and_https_are_link_schemes():
    assert LINK_SCHEMES == ("http", "https")


def test_the_replacement_table_covers_exactly_the_replaced_characters():
    # The unit under test: printable's table, built once at import (mutation testing needs the
    # build itself run by a test).
    table = _replacements()
    controls = [c for c in range(0x20) if c not in (0x09, 0x0A)]
    replaced = [*range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
    assert sorted(table) == sorted([*controls, 0x7F, *replaced, *range(0xD800, 0xE000)])
    assert [table[c] for c in controls] == [chr(0x2400 + c) for c in controls]
    assert table[0x7F] == "\u2421"
    assert {table[c] for c in [*replaced, *range(0xD800, 0xE000)]} == {"\ufffd"}
