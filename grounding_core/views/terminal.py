"""A grounding check (or a grounded answer) for the terminal, with ``rich``
(``docs/reports.md``, an example in ``grounding_core.views``): claims coloured by support level
(``LEVEL_STYLES``) and marked ``[weak]``/``[unsupported]`` (readable without colours). Answer and
source text is never read as rich markup and goes through ``untrusted.printable`` (an escape
sequence is shown, never obeyed); titles and URIs are one line each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from .annotate import (
    DEFAULT_WEAK_BELOW,
    LEVEL_LABELS,
    AnnotatedText,
    SupportLevel,
    Verdict,
    annotate_answer,
    annotate_grounding,
    format_score,
    plural,
    shown_verdict,
)
from .untrusted import one_line, printable

if TYPE_CHECKING:
    from grounding_core._records import GroundedAnswer, GroundingResult, GroundingSource

LEVEL_STYLES: dict[SupportLevel, str] = {
    "supported": "green",
    "weak": "yellow",
    "unsupported": "bold white on red",
    "not_checked": "dim",
}
_MARKS = {"weak": (" [weak]", "yellow"), "unsupported": (" [unsupported]", "bold red")}


def _summary(
    text: AnnotatedText, score_label: str, verdict: Verdict | None, *, answer: bool
) -> Text:
    line = Text()
    line.append(f"{score_label} ", style="bold")
    line.append(format_score(text.score), style="bold")
    if verdict is not None:
        passed, words = verdict
        line.append(f" · {words}", style="green" if passed else "bold red")
    line.append("\n")
    if answer:
        line.append(
            f"{plural(len(text.segments), 'cited segment')} · "
            f"{plural(text.source_count, 'reference')}",
            style="dim",
        )
        return line
    for number, (level, count) in enumerate(text.counts().items()):
        if number:
            line.append(" · ")
        line.append(f"{count} {LEVEL_LABELS[level]}", style=LEVEL_STYLES[level] if count else "dim")
    return line


def _body(text: AnnotatedText) -> Text:
    body = Text()
    for piece, segment in text.pieces():
        if segment is None:
            body.append(printable(piece))
            continue
        body.append(printable(piece), style=LEVEL_STYLES[segment.level])
        body.append("".join(f"[{n}]" for n in segment.numbers), style="cyan")
        mark, style = _MARKS.get(segment.level, ("", ""))
        body.append(mark, style=style)
    return body


def annotated_rich(
    text: AnnotatedText,
    *,
    score_label: str = "Support score",
    verdict: Verdict | None = None,
    answer: bool = False,
) -> RenderableType:
    """The terminal view of an ``AnnotatedText`` (see the module docstring); ``verdict`` (from
    ``GroundingResult.verdict``) follows the score."""
    parts: list[RenderableType] = [_summary(text, score_label, verdict, answer=answer)]
    parts += [Text(), _body(text)]
    unsupported = [s for s in text.segments if s.level == "unsupported"]
    if unsupported:
        lines = Text("Unsupported claims", style="bold red")
        for segment in unsupported:
            lines.append("\n  ✘ ", style="red")
            lines.append(one_line(segment.text))
        parts += [Text(), lines]
    if text.sources:
        lines = Text("Sources", style="bold")
        for source in text.sources:
            lines.append(f"\n  [{source.number}] ", style="cyan")
            lines.append(one_line(source.label))
            if source.uri and source.uri != source.label:
                lines.append(f"  {one_line(source.uri)}", style="dim")
        parts += [Text(), lines]
    return Group(*parts)


def grounding_rich(
    result: GroundingResult,
    sources: Sequence[GroundingSource] = (),
    *,
    weak_below: float = DEFAULT_WEAK_BELOW,
    min_support_score: float | None = None,
) -> RenderableType:
    """A grounding check as a ``rich`` renderable: ``Console().print(grounding_rich(...))``;
    ``min_support_score`` adds the passed/failed verdict (``GroundingResult.verdict``)."""
    text = annotate_grounding(result, sources, weak_below=weak_below)
    return annotated_rich(text, verdict=shown_verdict(result, min_support_score))


def answer_rich(answer: GroundedAnswer) -> RenderableType:
    """An ``answerQuery`` answer as a ``rich`` renderable: cited segments and references."""
    if answer.skipped:
        return Text(f"No answer ({one_line(', '.join(answer.skipped_reasons))})", style="yellow")
    return annotated_rich(annotate_answer(answer), score_label="Grounding score", answer=True)
