"""Hostile answers, titles and URIs for the rendering tests (Markdown, terminal, HTML, CLI).

Each payload tries to become markup, a link or a terminal command where the report means to
show text. ``PWNED`` is what a payload's script would do (set the page's title); ``OSC_TITLE``
and ``CLEAR`` are terminal sequences (set the window title, clear the screen). ``assert_inert``
checks a terminal's output: rich's own colour codes are the only escape sequences in it.
"""

from __future__ import annotations

import re

from grounding_core import CitedChunk, Claim, GroundingReport, GroundingResult, GroundingSource

PWNED = "document.title='pwned'"
OSC_TITLE = "\x1b]0;OWNED-WINDOW\x07"
CLEAR = "\x1b[2J\x1b[H"
C1_CSI = "\x9b31m"

TITLES = (
    f'T<iframe srcdoc="<script>{PWNED}</script>">',
    f'<img src=x onerror="{PWNED}">',
    f"<script>{PWNED}</script>",
    "# Heading",
    "- item",
    "+ item",
    "1. one",
    "2) two",
    "> quote",
    "```fence",
    "~~~fence",
    "    indented",
    "---",
    "===",
    f"[x](javascript:{PWNED})",
    "![i](https://tracker.example/p.png)",
    "*em* _u_ **b** `code`",
    "a | b",
    "~~struck~~",
    "back\\slash\\",
    "&lt;script&gt; &amp; &#60;b&#62;",
    "<https://evil.example>",
    f"title\n<img/src=x/onerror={PWNED}>",
    f"line\n\n<script>{PWNED}</script>",
    "[1]: https://evil.example",
    '{: onclick="x"}',
    "[bold]rich markup[/bold] :warning:",
    f"esc{OSC_TITLE}{CLEAR}{C1_CSI}\rFAKE \u202eevil\u202c \u2066iso\u2069",
    "lone \ud800 surrogate",
)

URIS = (
    f"http://a.example/\n<img/src=x/onerror={PWNED}>",
    f"javascript:{PWNED}",
    " JaVaScRiPt:alert(1)",
    f"data:text/html,<script>{PWNED}</script>",
    "vbscript:msgbox(1)",
    f'https://x.example/"onmouseover="{PWNED}',
    "https://x.example/a) [y](javascript:alert(1)",
    "https://x.example/<script>",
    "file:///etc/passwd",
    "gs://bucket/a_b",
    f"https://x.example/{OSC_TITLE}{CLEAR}",
    "https://x.example/\u202eexe.txt",
    "https://docs.python.org/3/",
)

ANSWERS = (
    f"Safe <script>{PWNED}</script> claim.",
    f'Second <img src=x onerror="{PWNED}"> claim "quoted" & \'single\'.',
    "Third </p></div><a href=javascript:alert(1)>claim</a>.",
    "A claim.\n# heading\n> quote\n- list\n1. one\n    code\n<div onclick=x>\n---\n===",
    "Cited claim.\n\n[1]: https://evil.example",
    "Cited claim.(javascript:alert(1)) and [x][1] and ![y](https://tracker.example/p.png)",
    f"Terminal{OSC_TITLE} claim{CLEAR}.{C1_CSI} Over\rwritten \u202eevil\u202c.",
    "Rich [bold]markup[/bold] and [link=https://evil.example]x[/link] :warning:.",
)


def hostile_result(answer: str, sources: tuple[GroundingSource, ...]) -> GroundingResult:
    """``answer`` cut into claims at its first sentence end; the first cites every source,
    the rest (if any) is unsupported."""
    cut = answer.find(".") + 1 or len(answer)
    cited = tuple(CitedChunk(s.text, source_index=i, fact_index=i) for i, s in enumerate(sources))
    claims = [
        Claim(
            answer[:cut],
            0,
            cut,
            citation_indices=tuple(range(len(cited))),
            citations=cited,
            score=0.9,
        )
    ]
    if answer[cut:].strip():
        claims.append(Claim(answer[cut:], cut, len(answer), score=0.1))
    return GroundingResult(answer, 0.5, tuple(claims), cited)


def hostile_sources() -> tuple[GroundingSource, ...]:
    """One source per hostile title, each with one of the hostile URIs (cycling)."""
    return tuple(
        GroundingSource(f"fact {n} <script>{PWNED}</script>", {"title": t, "source": u})
        for n, (t, u) in enumerate(zip(TITLES, URIS * 3, strict=False))
    )


def hostile_reports() -> list[GroundingReport[GroundingSource]]:
    """A report per hostile answer, every one citing every hostile source."""
    sources = hostile_sources()
    return [GroundingReport(hostile_result(a, sources), sources, sources) for a in ANSWERS]


SGR = re.compile(r"\x1b\[[0-9;]*m")  # a colour or style: what rich itself writes
# What must not reach a terminal from the input: ESC (outside rich's colours), C1, BEL, CR, BS,
# bidi embeddings, overrides and isolates, lone surrogates.
OBEYED = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def assert_inert(output: str) -> str:
    """``output`` without rich's colour codes, after checking nothing else would be obeyed."""
    plain = SGR.sub("", output)
    assert OBEYED.findall(plain) == [], repr(plain)
    return plain
