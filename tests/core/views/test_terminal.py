"""``grounding_core.views.terminal``: a checked or a grounded answer for the terminal (rich).

Covers ``grounding_rich`` and ``answer_rich`` exactly as a colour terminal shows them (every
style, mark, count and plural: the expected views are written as rich markup and rendered the
same way), the summary and its verdict, the weak threshold passed on, content never read as
markup, and hostile answers, titles, URIs and errors through a truecolor terminal: rich's own
colour codes are the only escape sequences on the screen; the input's are shown, not obeyed.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console, Group
from rich.text import Text

from grounding_core import (
    AnswerCitation,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingReport,
    GroundingResult,
    GroundingSource,
    SourceChunk,
    answer_rich,
    grounding_rich,
)
from grounding_core.views.terminal import LEVEL_STYLES
from tests.core.claims import claim_at
from tests.core.hostile_text import (
    ANSWERS,
    CLEAR,
    OSC_TITLE,
    TITLES,
    URIS,
    assert_inert,
    hostile_result,
    hostile_sources,
)
from tests.core.reports import SOURCES as REPORT_SOURCES
from tests.core.reports import grounded_answer, levels_report, levels_result

ANSWER = "Paris is big. Lyon is old. Nice has [9] people. Hi!"
SOURCES = [
    GroundingSource("p", {"title": "Paris", "source": "https://p"}),
    GroundingSource("l", {"uri": "https://l"}),
    GroundingSource("x", {}),
]


def ansi(renderable: object) -> str:
    console = Console(width=200, force_terminal=True, color_system="standard")
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


def markup(*parts: str) -> str:
    """The rendering of one ``Text`` per part (an empty part is a blank line).

    A heading's style is the style of its whole ``Text``: the lines under "Sources" and
    "Unsupported claims" are drawn in it too.
    """
    return ansi(Group(*(Text.from_markup(part) for part in parts)))


def cited(index: int) -> CitedChunk:
    return CitedChunk(SOURCES[index].text, source_index=index, fact_index=index)


def claim(text: str, *sources: int, **kwargs: object) -> Claim:
    return claim_at(ANSWER, text, *(cited(i) for i in sources), **kwargs)


RESULT = GroundingResult(
    ANSWER,
    0.5,
    (
        claim("Paris is big.", 0, score=0.9),
        claim("Lyon is old.", 1, 2, score=0.7),
        claim("Nice has [9] people.", score=0.1),
        claim("Hi!", grounding_check_required=False),
    ),
)


def test_every_level_mark_and_source_line_is_styled():
    assert ansi(grounding_rich(RESULT, SOURCES, min_support_score=0.5)) == markup(
        "[bold]Support score [/bold][bold]0.50[/bold][green] · passed (minimum 0.50)[/green]\n"
        "[green]1 supported[/green] · [yellow]1 weak[/yellow] · "
        "[bold white on red]1 unsupported[/bold white on red] · [dim]1 not checked[/dim]",
        "",
        "[green]Paris is big.[/green][cyan][1][/cyan] [yellow]Lyon is old.[/yellow]"
        "[cyan][2][3][/cyan][yellow] \\[weak][/yellow] "
        "[bold white on red]Nice has [9] people.[/bold white on red]"
        "[bold red] \\[unsupported][/bold red] [dim]Hi![/dim]",
        "",
        "[bold red]Unsupported claims[red]\n  ✘ [/red]Nice has [9] people.[/bold red]",
        "",
        "[bold]Sources[cyan]\n  [1] [/cyan]Paris[dim]  https://p[/dim]"
        "[cyan]\n  [2] [/cyan]https://l[cyan]\n  [3] [/cyan]Source 3[/bold]",
    )


def test_empty_levels_are_dim_and_a_low_score_is_red():
    result = GroundingResult("No.", 0.25, (Claim("No.", 0, 3, score=0.0),))
    assert ansi(grounding_rich(result, min_support_score=0.3)) == markup(
        "[bold]Support score [/bold][bold]0.25[/bold]"
        "[bold red] · below the minimum 0.30[/bold red]\n"
        "[dim]0 supported[/dim] · [dim]0 weak[/dim] · "
        "[bold white on red]1 unsupported[/bold white on red] · [dim]0 not checked[/dim]",
        "",
        "[bold white on red]No.[/bold white on red][bold red] \\[unsupported][/bold red]",
        "",
        "[bold red]Unsupported claims[red]\n  ✘ [/red]No.[/bold red]",
    )


def test_no_score_and_no_minimum():
    result = GroundingResult("Hi!", None, (Claim("Hi!", 0, 3, grounding_check_required=False),))
    assert ansi(grounding_rich(result)) == markup(
        "[bold]Support score [/bold][bold]n/a[/bold]\n"
        "[dim]0 supported[/dim] · [dim]0 weak[/dim] · [dim]0 unsupported[/dim] · "
        "[dim]1 not checked[/dim]",
        "",
        "[dim]Hi![/dim]",
    )


def test_the_weak_threshold_is_passed_on():
    supported = Claim("Paris.", 0, 6, citation_indices=(0,), score=0.7)
    result = GroundingResult("Paris.", 1.0, (supported,))
    view = ansi(grounding_rich(result, weak_below=0.5))
    assert "[weak]" not in view
    assert "1 supported" in view
    assert "[weak]" in ansi(grounding_rich(result))


def answer_with(segments: int, references: int) -> GroundedAnswer:
    refs = tuple(
        SourceChunk(name=f"r{i}", content=f"c{i}", title=f"T{i}") for i in range(references)
    )
    citations = tuple(
        AnswerCitation(2 * i, 2 * i + 1, 2 * i, 2 * i + 1, "ab"[i], (0,), refs[:1])
        for i in range(segments)
    )
    return GroundedAnswer("a b", citations, refs)


def test_answer_counts_are_singular_and_plural():
    assert ansi(answer_rich(answer_with(1, 2))) == markup(
        "[bold]Grounding score [/bold][bold]n/a[/bold]\n[dim]1 cited segment · 2 references[/dim]",
        "",
        "[green]a[/green][cyan][1][/cyan] b",
        "",
        "[bold]Sources[cyan]\n  [1] [/cyan]T0[/bold]",
    )
    assert ansi(answer_rich(answer_with(2, 1))) == markup(
        "[bold]Grounding score [/bold][bold]n/a[/bold]\n[dim]2 cited segments · 1 reference[/dim]",
        "",
        "[green]a[/green][cyan][1][/cyan] [green]b[/green][cyan][1][/cyan]",
        "",
        "[bold]Sources[cyan]\n  [1] [/cyan]T0[/bold]",
    )


def test_a_skipped_answer_says_why_in_yellow():
    skipped = GroundedAnswer("", skipped_reasons=("OUT_OF_DOMAIN", "NO_RELEVANT_CONTENT"))
    assert ansi(answer_rich(skipped)) == markup(
        "[yellow]No answer (OUT_OF_DOMAIN, NO_RELEVANT_CONTENT)[/yellow]"
    )


def test_untrusted_text_is_printable_and_titles_are_one_line():
    answer = "Big\x1b[2J. \x9bNo\r."
    result = GroundingResult(
        answer,
        0.5,
        (
            claim_at(answer, "Big\x1b[2J.", cited(0)),
            claim_at(answer, "\x9bNo\r.", score=0.0),
        ),
    )
    sources = [GroundingSource("p", {"title": "A\n  [b]\x07", "source": "https://p/\u202e\nx"})]
    assert ansi(grounding_rich(result, sources)) == markup(
        "[bold]Support score [/bold][bold]0.50[/bold]\n"
        "[green]1 supported[/green] · [dim]0 weak[/dim] · "
        "[bold white on red]1 unsupported[/bold white on red] · [dim]0 not checked[/dim]",
        "",
        "[green]Big\u241b\\[2J.[/green][cyan][1][/cyan] "
        "[bold white on red]\ufffdNo\u240d.[/bold white on red]"
        "[bold red] \\[unsupported][/bold red]",
        "",
        "[bold red]Unsupported claims[red]\n  ✘ [/red]\ufffdNo\u240d.[/bold red]",
        "",
        "[bold]Sources[cyan]\n  [1] [/cyan]A \\[b]\u2407[dim]  https://p/\ufffd x[/dim][/bold]",
    )


# -- the plain view --------------------------------------------------------------------------


def plain(renderable: object) -> str:
    console = Console(width=200, color_system=None, record=True)
    console.print(renderable)
    return console.export_text()


def test_levels_are_marked_in_words():
    out = plain(levels_report())
    assert out.splitlines()[:2] == [
        "Support score 0.67 · passed (minimum 0.60)",
        "1 supported · 1 weak · 1 unsupported · 1 not checked",
    ]
    assert (
        "Paris is the capital of France.[1] The Eiffel Tower was finished around 1889.[2] [weak] "
        "Paris has 90 million inhabitants. [unsupported] Hope this helps!"
    ) in out
    assert "Unsupported claims\n  ✘ Paris has 90 million inhabitants.\n" in out
    assert "[2] Eiffel Tower  https://en.wikipedia.org/wiki/Eiffel_Tower" in out


def test_levels_are_coloured():
    group = grounding_rich(levels_result(), REPORT_SOURCES)
    body = group.renderables[2]
    assert isinstance(body, Text)
    styles = {body.plain[span.start : span.end]: str(span.style) for span in body.spans}
    assert styles["Paris is the capital of France."] == LEVEL_STYLES["supported"]
    assert styles["The Eiffel Tower was finished around 1889."] == LEVEL_STYLES["weak"]
    assert styles["Paris has 90 million inhabitants."] == LEVEL_STYLES["unsupported"]
    assert styles["Hope this helps!"] == LEVEL_STYLES["not_checked"]


def test_content_is_not_read_as_markup():
    result = GroundingResult("[bold red]Hi[/] :smile: there.", None)
    assert plain(grounding_rich(result)).splitlines()[3] == "[bold red]Hi[/] :smile: there."


def test_a_failed_check_and_a_grounded_answer_in_words():
    assert plain(GroundingReport(None, (), (), error="boom")).strip() == (
        "The grounding check failed: boom"
    )
    out = plain(answer_rich(grounded_answer()))
    assert out.splitlines()[:2] == ["Grounding score 0.90", "2 cited segments · 2 references"]
    assert "Yield is an expression 🙂.[1] Generators pause.[2]" in out
    assert plain(grounded_answer()) == out  # GroundedAnswer.__rich__
    skipped = GroundedAnswer("", skipped_reasons=("NO_RELEVANT_CONTENT",))
    assert plain(skipped).strip() == "No answer (NO_RELEVANT_CONTENT)"


# -- hostile text on a colour terminal --------------------------------------------------------


def screen(renderable: object) -> str:
    out = io.StringIO()
    Console(file=out, force_terminal=True, color_system="truecolor", width=1000).print(renderable)
    return out.getvalue()


@pytest.mark.parametrize("answer", ANSWERS, ids=[f"answer-{i}" for i in range(len(ANSWERS))])
def test_a_hostile_check_shows_every_sequence_as_text(answer):
    sources = hostile_sources()
    plain = assert_inert(screen(grounding_rich(hostile_result(answer, sources), sources)))
    assert "OWNED-WINDOW" in plain  # from the titles (and some answers): shown
    assert "\u241b]0;OWNED-WINDOW\u2407" in plain
    assert "\u241b[2J\u241b[H" in plain
    assert "[bold]rich markup[/bold] :warning:" in plain  # neither markup nor an emoji


def test_a_hostile_answer_with_its_own_sequences():
    answer = ANSWERS[6]
    plain = assert_inert(screen(grounding_rich(hostile_result(answer, ()), ())))
    assert "Terminal\u241b]0;OWNED-WINDOW\u2407 claim\u241b[2J\u241b[H." in plain
    assert "\ufffd31m Over\u240dwritten \ufffdevil\ufffd." in plain
    rich_markup = assert_inert(screen(grounding_rich(hostile_result(ANSWERS[7], ()), ())))
    assert "\n  ✘ Rich [bold]markup[/bold] and [link=https://evil.\n" in rich_markup
    assert "\n  ✘ example]x[/link] :warning:.\n" in rich_markup


@pytest.mark.parametrize("title", TITLES, ids=[f"title-{i}" for i in range(len(TITLES))])
@pytest.mark.parametrize("uri", URIS[:1] + URIS[10:12])
def test_a_hostile_reference_is_one_inert_line(title, uri):
    reference = SourceChunk(name="r", content="ref", title=title, uri=uri)
    citation = AnswerCitation(0, 6, 0, 6, "Claim.", (0,), (reference,))
    plain = assert_inert(screen(answer_rich(GroundedAnswer("Claim.", (citation,), (reference,)))))
    source_lines = plain.split("Sources\n", 1)[1].splitlines()
    assert len(source_lines) == 1  # a title or URI cannot start a line of its own


def test_skipped_reasons_and_a_failed_check_are_inert():
    skipped = GroundedAnswer("", skipped_reasons=(f"WHY{OSC_TITLE}", f"NOT{CLEAR}"))
    plain = assert_inert(screen(answer_rich(skipped)))
    assert plain == "No answer (WHY\u241b]0;OWNED-WINDOW\u2407, NOT\u241b[2J\u241b[H)\n"
    failed = GroundingReport.failed((), (), RuntimeError(f"bad\n{CLEAR}{OSC_TITLE}"))
    plain = assert_inert(screen(failed))
    assert plain == (
        "The grounding check failed: RuntimeError: bad "
        "\u241b[2J\u241b[H\u241b]0;OWNED-WINDOW\u2407\n"
    )


def test_without_the_sanitiser_the_sequences_would_reach_the_terminal():
    # The test's own check can fail: rich alone lets ESC through.
    with pytest.raises(AssertionError):
        assert_inert(screen(Text(f"x{OSC_TITLE}{CLEAR}")))
