"""Records in notebooks and terminals, and values that JSON cannot hold."""

import decimal

from rich.console import Console

from grounding_core.html_report import answer_html, grounding_html
from grounding_core.records import (
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingResult,
    GroundingSource,
    to_jsonable,
)
from grounding_core.terminal import answer_rich, grounding_rich

CITED = CitedChunk("Paris is in France.", source_index=0, fact_index=0)
RESULT = GroundingResult(
    "Paris is in France.", 0.9, (Claim("Paris is in France.", 0, 19, 0, 19, (0,), (CITED,)),)
)
ANSWER = GroundedAnswer("Paris is in France.", grounding_score=0.5, related_questions=("Lyon?",))


def plain(renderable: object) -> str:
    console = Console(width=80, color_system=None, record=True)
    console.print(renderable)
    return console.export_text()


def test_notebooks_get_a_fragment_not_a_document():
    assert RESULT._repr_html_() == grounding_html(RESULT, full_document=False)
    assert not RESULT._repr_html_().startswith("<!DOCTYPE")
    assert ANSWER._repr_html_() == answer_html(ANSWER, full_document=False)
    assert not ANSWER._repr_html_().startswith("<!DOCTYPE")


def test_rich_renders_the_record_itself():
    assert plain(RESULT) == plain(grounding_rich(RESULT))
    assert "Support score 0.90" in plain(RESULT)
    assert plain(ANSWER) == plain(answer_rich(ANSWER))
    assert "Grounding score 0.50" in plain(ANSWER)


def test_values_json_cannot_hold_become_strings():
    assert to_jsonable({"d": decimal.Decimal("1.5"), "s": GroundingSource("t")}) == {
        "d": "1.5",
        "s": {"text": "t", "metadata": {}},
    }
