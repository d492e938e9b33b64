"""The terminal view as a colour terminal shows it: every style, mark and count.

The expected views are written as rich markup and rendered the same way, so that a wrong
style, a missing mark or a wrong plural shows as a difference in the escape codes.
"""

from rich.console import Console, Group
from rich.text import Text

from grounding_core.records import (
    AnswerCitation,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingResult,
    GroundingSource,
    SourceChunk,
)
from grounding_core.terminal import answer_rich, grounding_rich

from .claims import claim_at

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
