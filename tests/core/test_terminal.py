"""The terminal view (rich): support levels coloured and marked, sources listed."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from grounding_core import (
    GroundedAnswer,
    GroundingReport,
    GroundingResult,
    answer_rich,
    grounding_rich,
)
from grounding_core.terminal import LEVEL_STYLES

from .reports import SOURCES, grounded_answer, levels_report, levels_result


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
    group = grounding_rich(levels_result(), SOURCES)
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


def test_failed_check_and_answers():
    assert plain(GroundingReport(None, (), (), error="boom")).strip() == (
        "The grounding check failed: boom"
    )
    out = plain(answer_rich(grounded_answer()))
    assert out.splitlines()[:2] == ["Grounding score 0.90", "2 cited segments · 2 references"]
    assert "Yield is an expression 🙂.[1] Generators pause.[2]" in out
    assert plain(grounded_answer()) == out  # GroundedAnswer.__rich__
    skipped = GroundedAnswer("", skipped_reasons=("NO_RELEVANT_CONTENT",))
    assert plain(skipped).strip() == "No answer (NO_RELEVANT_CONTENT)"
