"""Hostile text in what the renderings show (issue #16, points 9 and 10): Markdown, the
terminal view, HTML and the CLI's JSON show it as text, never as markup, a link or a terminal
command; none crashes on it. Answers that go through a real check on the emulator first."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from grounding_core import (
    GroundingSource,
    grounding_html,
    grounding_markdown,
    grounding_rich,
)
from grounding_core.views.untrusted import json_escaped
from tests.core.hostile_text import CLEAR, OSC_TITLE, PWNED, hostile_result
from tests.reliability.bad_input_table import table_size_test
from tests.reliability.test_bad_inputs import check

FACT = "Lighthouses guide ships."


def source(title: str = "Lights", uri: str = "https://l.example/") -> GroundingSource:
    return GroundingSource(FACT, {"title": title, "source": uri})


def markdown(title: str = "Lights", uri: str = "https://l.example/", answer: str = "A.") -> str:
    sources = (source(title, uri),)
    return grounding_markdown(hostile_result(answer, sources), sources)


def checked_markdown(emulator, answer: str) -> str:
    return grounding_markdown(check(emulator, answer, [source()]), [source()])


def terminal(renderable: object) -> str:
    out = io.StringIO()
    Console(file=out, force_terminal=True, width=500).print(renderable)
    return out.getvalue()


def view(title: str = "Lights", uri: str = "https://l.example/", answer: str = "A.") -> str:
    sources = (source(title, uri),)
    return terminal(grounding_rich(hostile_result(answer, sources), sources))


def checked_view(emulator, answer: str) -> str:
    return terminal(grounding_rich(check(emulator, answer, [source()]), [source()]))


def page(title: str) -> str:
    sources = (source(title),)
    return grounding_html(hostile_result("A.", sources), sources)


# (id, callable taking the emulator and returning the rendering, absent, present fragments)
CASES = [
    # -- Markdown ----------------------------------------------------------------------------
    (
        "markdown: an iframe in a title",
        lambda e: markdown(f'T<iframe srcdoc="<script>{PWNED}</script>">'),
        ["<iframe", "<script"],
        ['T&lt;iframe srcdoc="&lt;script&gt;'],
    ),
    (
        "markdown: a line break and an img in an http URI",
        lambda e: markdown(uri=f"http://a.example/\n<img/src=x/onerror={PWNED}>"),
        ["\n<img", "<img"],
        ["(http://a.example/%0A%3Cimg/src=x/onerror="],
    ),
    (
        "markdown: a javascript: URI",
        lambda e: markdown(uri=f"javascript:{PWNED}"),
        ["](javascript:"],
        ["1. Lights (javascript:document.title='pwned')"],
    ),
    (
        "markdown: a script in a checked answer",
        lambda e: checked_markdown(e, f"Lighthouses guide ships. <script>{PWNED}</script>"),
        ["<script>"],
        ["&lt;script&gt;"],
    ),
    (
        "markdown: a heading and a quote in a checked answer",
        lambda e: checked_markdown(e, "Lighthouses guide ships.\n# Big\n> quote"),
        ["\n# Big", "\n> quote"],
        ["\n\\# Big", "\n&gt; quote"],
    ),
    (
        "markdown: a link made of a marker",
        lambda e: markdown(answer="A.(https://evil.example) [1]: https://evil.example"),
        ["[1](", "[1]: "],
        ["A.[1]\\(https://evil.example) \\[1\\]: https://evil.example"],
    ),
    (
        "markdown: a lone surrogate in a title",
        lambda e: markdown("T\ud800"),
        ["\ud800"],
        ["1. [T\ufffd](https://l.example/)"],
    ),
    # -- terminal ----------------------------------------------------------------------------
    (
        "terminal: an OSC title in a checked answer",
        lambda e: checked_view(e, f"Lighthouses guide ships.{OSC_TITLE}"),
        ["\x1b]0;", "\x07"],
        ["\u241b]0;OWNED-WINDOW\u2407"],
    ),
    (
        "terminal: clear screen in a title",
        lambda e: view(f"Lights{CLEAR}"),
        ["\x1b[2J", "\x1b[H"],
        ["Lights\u241b[2J\u241b[H"],
    ),
    (
        "terminal: a C1 CSI in an answer",
        lambda e: view(answer="A.\x9b2J"),
        ["\x9b"],
        ["\ufffd2J"],
    ),
    (
        "terminal: a carriage return overwriting a claim",
        lambda e: view(answer="Unsupported.\rSupported!"),
        ["\r"],
        ["\u240dSupported!"],
    ),
    (
        "terminal: a bidi override in a URI",
        lambda e: view(uri="https://l.example/\u202etxt.exe"),
        ["\u202e"],
        ["https://l.example/\ufffdtxt.exe"],
    ),
    (
        "terminal: rich markup and an emoji code in a title",
        lambda e: view("[bold red]Lights[/] :warning:"),
        ["\u26a0"],
        ["[bold red]Lights[/] :warning:"],
    ),
    (
        "terminal: a line break in a title",
        lambda e: view("Lights\n  [2] Fake source"),
        ["\n  [2] Fake"],
        ["Lights [2] Fake source"],
    ),
    # -- HTML and JSON -----------------------------------------------------------------------
    (
        "html: a bidi isolate in a title",
        lambda e: page("Lights\u2067evil\u2069"),
        ["\u2067", "\u2069"],
        ["Lights\ufffdevil\ufffd"],
    ),
    (
        "html: an escape sequence in a title",
        lambda e: page(f"Lights{OSC_TITLE}"),
        ["\x1b", "\x07"],
        ["Lights\u241b]0;OWNED-WINDOW\u2407"],
    ),
    (
        "json: C1, bidi and a lone surrogate in CLI JSON",
        lambda e: json_escaped(json.dumps({"t": "a\x9b\u202e\ud800"}, ensure_ascii=False)),
        ["\x9b", "\u202e", "\ud800"],
        ['{"t": "a\\u009b\\u202e\\ud800"}'],
    ),
]


test_the_table_is_big_enough = table_size_test(CASES, minimum=15)


@pytest.mark.parametrize(("name", "render", "absent", "present"), CASES, ids=[c[0] for c in CASES])
def test_hostile_text_is_shown_not_obeyed(emulator, name, render, absent, present):
    output = render(emulator)
    output.encode("utf-8")  # writable: no lone surrogate left
    for fragment in absent:
        assert fragment not in output, f"{name}: {fragment!r} in {output!r}"
    for fragment in present:
        assert fragment in output, f"{name}: {fragment!r} not in {output!r}"
