"""Grounding results for the report tests: one claim per support level, and hostile content."""

from __future__ import annotations

from html.parser import HTMLParser

from grounding_core import (
    AnswerCitation,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingReport,
    GroundingResult,
    GroundingSource,
    SourceChunk,
)

SOURCES = (
    GroundingSource(
        "Paris is the capital and largest city of France.",
        {"title": "Paris", "source": "https://en.wikipedia.org/wiki/Paris"},
    ),
    GroundingSource(
        "The Eiffel Tower was completed in 1889 for the World's Fair.",
        {"title": "Eiffel Tower", "source": "https://en.wikipedia.org/wiki/Eiffel_Tower"},
    ),
)


def _claim(answer: str, text: str, cited: tuple[CitedChunk, ...], **kwargs: object) -> Claim:
    start = answer.index(text)
    return Claim(
        text,
        start,
        start + len(text),
        len(answer[:start].encode()),
        len(answer[: start + len(text)].encode()),
        tuple(range(len(cited))),
        cited,
        **kwargs,  # type: ignore[arg-type]
    )


def levels_result() -> GroundingResult:
    """Four claims: supported, weak, unsupported, not checked (in that order)."""
    paris = CitedChunk(SOURCES[0].text, source_index=0, fact_index=0)
    tower = CitedChunk(SOURCES[1].text, source_index=1, fact_index=1)
    answer = (
        "Paris is the capital of France. The Eiffel Tower was finished around 1889. "
        "Paris has 90 million inhabitants. Hope this helps!"
    )
    claims = (
        _claim(answer, "Paris is the capital of France.", (paris,), score=0.95),
        _claim(answer, "The Eiffel Tower was finished around 1889.", (tower,), score=0.7),
        _claim(answer, "Paris has 90 million inhabitants.", (), score=0.1),
        _claim(answer, "Hope this helps!", (), score=0.0, grounding_check_required=False),
    )
    return GroundingResult(answer, 2 / 3, claims, (paris, tower))


def levels_report() -> GroundingReport[GroundingSource]:
    return GroundingReport(levels_result(), SOURCES, SOURCES, min_support_score=0.6)


PWNED = "window.__pwned = 1"
HOSTILE_ANSWER = (
    f"Safe <script>{PWNED}</script> claim. "
    f'Second <img src=x onerror="{PWNED}"> claim "quoted" & \'single\'. '
    "Third </p></div><a href=javascript:alert(1)>claim</a>."
)
HOSTILE_SOURCES = (
    GroundingSource(
        f"<script>{PWNED}</script> fact text <style>body{{display:none}}</style>",
        {"title": f'"><script>{PWNED}</script>', "source": f"javascript:{PWNED}"},
    ),
    GroundingSource(
        "<iframe src=https://evil.example></iframe> second fact",
        {"title": "<b onmouseover=alert(1)>bold</b>", "source": " JaVaScRiPt:alert(1)"},
    ),
    GroundingSource(
        "third fact",
        {"title": "data", "source": "data:text/html,<script>alert(1)</script>"},
    ),
    GroundingSource(
        "fourth fact",
        {"title": "quote in URL", "source": 'https://example.org/"onmouseover="alert(1)'},
    ),
)


def hostile_report() -> GroundingReport[GroundingSource]:
    """Script, event handlers and javascript: URIs in the answer, the sources and their URIs."""
    answer = HOSTILE_ANSWER
    cited = tuple(
        CitedChunk(s.text, source_index=i, fact_index=i) for i, s in enumerate(HOSTILE_SOURCES)
    )
    claims = (
        _claim(answer, f"Safe <script>{PWNED}</script> claim.", cited[:2], score=0.9),
        _claim(answer, answer[answer.index("Second") : answer.index("Third") - 1], cited[2:]),
        _claim(answer, answer[answer.index("Third") :], ()),
    )
    result = GroundingResult(answer, 0.66, claims, cited)
    return GroundingReport(result, HOSTILE_SOURCES, HOSTILE_SOURCES)


def grounded_answer() -> GroundedAnswer:
    """An answerQuery answer with two cited segments and one reference each."""
    refs = (
        SourceChunk(
            name="r0",
            content="A yield statement is equivalent to a yield expression.",
            title="The yield statement",
            uri="https://docs.python.org/3/reference/simple_stmts.html#yield",
        ),
        SourceChunk(name="r1", content="Generators <em>pause</em>.", title="Generators", uri=""),
    )
    text = "Yield is an expression 🙂. Generators pause."
    first, second = "Yield is an expression 🙂.", "Generators pause."
    start = text.index(second)
    citations = (
        AnswerCitation(0, len(first), 0, len(first.encode()), first, (0,), (refs[0],)),
        AnswerCitation(
            start,
            len(text),
            len(text[:start].encode()),
            len(text.encode()),
            second,
            (1,),
            (refs[1],),
        ),
    )
    return GroundedAnswer(text, citations, refs, grounding_score=0.9)


class Elements(HTMLParser):
    """Every element of a page: (tag, attributes), and the text of each script and style."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.raw: dict[str, list[str]] = {"script": [], "style": []}
        self.text: list[str] = []
        self._open: str | None = None
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        if tag in self.raw:
            self._open = tag
            self.raw[tag].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._open:
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self.raw[self._open][-1] += data
        else:
            self.text.append(data)

    def tags(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.elements if tag == name]

    def with_class(self, css: str) -> list[dict[str, str | None]]:
        return [a for _, a in self.elements if css in (a.get("class") or "").split()]
