"""The terminal view of hostile answers, titles and URIs, through a colour terminal: rich's own
colour codes are the only escape sequences on the screen; the input's are shown, not obeyed."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from grounding_core import (
    AnswerCitation,
    GroundedAnswer,
    GroundingReport,
    SourceChunk,
    answer_rich,
    grounding_rich,
)
from tests.core.hostile_text import (
    ANSWERS,
    CLEAR,
    OSC_TITLE,
    TITLES,
    URIS,
    hostile_result,
    hostile_sources,
)

SGR = re.compile(r"\x1b\[[0-9;]*m")  # a colour or style: what rich itself writes
# What must not reach a terminal from the input: ESC (outside rich's colours), C1, BEL, CR, BS,
# bidi embeddings, overrides and isolates, lone surrogates.
OBEYED = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def screen(renderable: object) -> str:
    out = io.StringIO()
    Console(file=out, force_terminal=True, color_system="truecolor", width=1000).print(renderable)
    return out.getvalue()


def assert_inert(output: str) -> str:
    """``output`` without rich's colour codes, after checking nothing else would be obeyed."""
    plain = SGR.sub("", output)
    assert OBEYED.findall(plain) == [], repr(plain)
    return plain


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
    from rich.text import Text

    with pytest.raises(AssertionError):
        assert_inert(screen(Text(f"x{OSC_TITLE}{CLEAR}")))
