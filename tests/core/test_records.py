"""``grounding_core._records``: the plain, frozen records the adapters receive.

Covers every record's defaults and immutability, ``to_dict`` (JSON-safe values all the way down:
nested records, tuples, mappings, datetimes, and the ``str()`` of what JSON cannot hold),
``Claim.status`` and ``source_indices``, ``GroundingResult``'s checked and unsupported claims and
``verdict`` (the pass mark, formerly ``pass_mark``: a score reaching the minimum, or every checked
claim supported; nothing checked never passes), what uses the verdict (the report, its error and
the views, scores shown with two decimals), ``GroundedAnswer.skipped`` and ``stream``,
``Session.id``, and the display hooks: a notebook's HTML fragment and ``rich``'s renderable.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import json

import pytest
from rich.console import Console

from grounding_core import (
    DEFAULT_MIN_SUPPORT_SCORE,
    AnswerCitation,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingReport,
    GroundingResult,
    GroundingSource,
    GroundingSupport,
    SearchResults,
    Session,
    SourceChunk,
    Turn,
    UngroundedAnswerError,
    answer_html,
    answer_rich,
    grounding_html,
    grounding_rich,
)
from grounding_core._records import (
    EMPTY_ANSWER,
    AnnotationMetadata,
    FacetValue,
    PageSpan,
    RankSignals,
    SearchFacet,
    to_jsonable,
)
from grounding_core.views import format_score

WHEN = dt.datetime(2024, 5, 1, 12, 30, tzinfo=dt.timezone.utc)
FACT = CitedChunk("Paris is the capital of France.", source_index=0, fact_index=0)
CITED = Claim("Paris is the capital.", 0, 21, citation_indices=(0,), citations=(FACT,))
INVENTED = Claim("It was founded in 1850.", 22, 45)
GREETING = Claim("Hello!", grounding_check_required=False)
TWO_OF_THREE = 0.6666666865348816  # float32, as the service sends 2/3


def result(score: float | None, *claims: Claim) -> GroundingResult:
    return GroundingResult("Paris is the capital. It was founded in 1850.", score, claims)


# -- defaults and immutability ------------------------------------------------------------------


def test_each_record_has_its_defaults():
    assert dataclasses.asdict(SourceChunk("n", "c")) == {
        "name": "n",
        "content": "c",
        "id": "",
        "document_id": "",
        "document_name": "",
        "uri": "",
        "title": "",
        "mime_type": "",
        "description": "",
        "data_source": "",
        "update_time": None,
        "struct_data": {},
        "derived_struct_data": {},
        "page_span": None,
        "page_identifier": "",
        "previous_chunks": (),
        "next_chunks": (),
        "relevance_score": None,
        "rank_signals": None,
        "model_scores": {},
        "annotation_contents": (),
        "annotation_metadata": (),
        "data_urls": (),
    }
    assert dataclasses.asdict(RankSignals()) == {
        **dict.fromkeys(
            (
                "keyword_similarity_score",
                "relevance_score",
                "semantic_similarity_score",
                "pctr_rank",
                "topicality_rank",
                "document_age",
                "boosting_factor",
                "default_rank",
            )
        ),
        "custom_signals": {},
        "precomputed_expression_values": (),
    }
    assert AnnotationMetadata() == AnnotationMetadata("", "", "")
    assert FacetValue(3) == FacetValue(count=3, value="", interval={})
    assert SearchFacet("k") == SearchFacet("k", (), False)
    assert SearchResults(()) == SearchResults((), 0, "", False, 0, (), "")
    assert GroundingSource("t") == GroundingSource("t", {})
    assert CitedChunk("t", None, None) == CitedChunk("t", None, None, {}, "", "", "")
    assert Claim("c") == Claim("c", None, None, None, None, (), (), None, True)
    assert GroundingResult("a", None) == GroundingResult("a", None, (), (), ())
    assert AnswerCitation(0, 1, 0, 1, "t") == AnswerCitation(0, 1, 0, 1, "t", (), ())
    assert GroundingSupport(0, 1, 0, 1, "t") == GroundingSupport(
        0, 1, 0, 1, "t", None, None, (), ()
    )
    assert GroundedAnswer("a") == GroundedAnswer("a", (), (), None, (), "", (), (), "", "", ())
    assert Turn() == Turn("", "", "", None)
    assert Session("n") == Session("n", "", "", "", (), (), None, None, False)
    assert DEFAULT_MIN_SUPPORT_SCORE == 1.0
    assert EMPTY_ANSWER == "EMPTY_ANSWER"


@pytest.mark.parametrize(
    "record",
    [
        SourceChunk("n", "c"),
        Claim("c"),
        GroundingResult("a", 0.5),
        GroundedAnswer("a"),
        Session(""),
    ],
)
def test_records_are_frozen_and_slotted(record):
    field = dataclasses.fields(record)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(record, field, "x")
    assert not hasattr(record, "__dict__")


# -- to_dict ------------------------------------------------------------------------------------


def test_to_dict_gives_json_values_all_the_way_down():
    chunk = SourceChunk(
        name="n",
        content="Généralités 🚀",
        update_time=WHEN,
        struct_data={"tags": ("a", "b"), "n": {"x": 1}},
        page_span=PageSpan(3, 4),
        previous_chunks=(SourceChunk("p", "before"),),
        rank_signals=RankSignals(default_rank=2.0, custom_signals={"bm25": 1.5}),
        model_scores={"relevance": (0.1, 0.2)},
        annotation_metadata=(AnnotationMetadata("TABLE", "| a |", "img"),),
    )
    as_dict = chunk.to_dict()
    assert json.loads(json.dumps(as_dict)) == as_dict
    assert as_dict["update_time"] == "2024-05-01T12:30:00+00:00"
    assert as_dict["struct_data"] == {"tags": ["a", "b"], "n": {"x": 1}}
    assert as_dict["page_span"] == {"start": 3, "end": 4}
    assert as_dict["previous_chunks"][0] == SourceChunk("p", "before").to_dict()
    assert as_dict["previous_chunks"][0]["content"] == "before"
    assert as_dict["rank_signals"]["custom_signals"] == {"bm25": 1.5}
    assert as_dict["rank_signals"]["precomputed_expression_values"] == []
    assert as_dict["model_scores"] == {"relevance": [0.1, 0.2]}
    assert as_dict["annotation_metadata"] == [
        {"structure_type": "TABLE", "content": "| a |", "image_id": "img"}
    ]
    assert as_dict["data_urls"] == []
    assert as_dict["relevance_score"] is None


def test_to_dict_of_a_checked_answer():
    checked = result(TWO_OF_THREE, CITED, INVENTED)
    assert checked.to_dict() == {
        "answer": "Paris is the capital. It was founded in 1850.",
        "support_score": TWO_OF_THREE,
        "claims": [
            {
                "text": "Paris is the capital.",
                "start": 0,
                "end": 21,
                "byte_start": None,
                "byte_end": None,
                "citation_indices": [0],
                "citations": [
                    {
                        "text": "Paris is the capital of France.",
                        "source_index": 0,
                        "fact_index": 0,
                        "attributes": {},
                        "uri": "",
                        "title": "",
                        "domain": "",
                    }
                ],
                "score": None,
                "grounding_check_required": True,
            },
            {
                "text": "It was founded in 1850.",
                "start": 22,
                "end": 45,
                "byte_start": None,
                "byte_end": None,
                "citation_indices": [],
                "citations": [],
                "score": None,
                "grounding_check_required": True,
            },
        ],
        "cited_chunks": [],
        "cited_facts": [],
    }


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("s", "s"),
        (3, 3),
        (0.5, 0.5),
        (True, True),
        ((1, (2, 3)), [1, [2, 3]]),
        ([GroundingSource("t")], [{"text": "t", "metadata": {}}]),
        ({1: WHEN}, {"1": "2024-05-01T12:30:00+00:00"}),
        (decimal.Decimal("1.5"), "1.5"),
        ([GroundingSource("", {"d": decimal.Decimal(2)})], [{"text": "", "metadata": {"d": "2"}}]),
        (GroundingSource, str(GroundingSource)),  # a class is not a record
    ],
)  # fmt: skip
def test_to_jsonable_turns_anything_into_json_types(value, expected):
    assert to_jsonable(value) == expected


# -- claims and the pass mark -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "status"),
    [
        (CITED, "supported"),
        (INVENTED, "unsupported"),
        (GREETING, "not_checked"),
        (Claim("x", citation_indices=(0,), grounding_check_required=False), "not_checked"),
    ],
)
def test_a_claims_status(claim, status):
    assert claim.status == status


def test_source_indices_are_the_cited_sources_in_order_without_repeats():
    citations = tuple(CitedChunk("f", source, None) for source in (2, None, 0, 2, 0, 5))
    assert Claim("c", citations=citations).source_indices == (2, 0, 5)
    assert Claim("c").source_indices == ()


def test_checked_and_unsupported_claims():
    checked = result(0.5, CITED, GREETING, INVENTED)
    assert checked.checked_claims == (CITED, INVENTED)
    assert checked.unsupported_claims == (INVENTED,)
    assert result(None).checked_claims == ()


def test_the_default_pass_mark_fails_one_made_up_sentence_in_three():
    answer = result(TWO_OF_THREE, CITED, CITED, INVENTED)
    assert answer.verdict() == (False, "below the minimum 1.00")
    assert answer.verdict(0.6) == (True, "passed (minimum 0.60)")  # a lower mark, if asked


@pytest.mark.parametrize(
    ("answer", "minimum", "expected"),
    [
        # Google's model-made score need not reach 1.0 when every claim is cited.
        (result(0.97, CITED, GREETING), 1.0, (True, "passed (every checked claim is supported)")),
        (result(1.0, CITED), 1.0, (True, "passed (minimum 1.00)")),
        (result(1.0, INVENTED), 1.0, (True, "passed (minimum 1.00)")),
        (result(0.5, CITED, INVENTED), 0.5, (True, "passed (minimum 0.50)")),
        (result(0.5, CITED, INVENTED), 0.51, (False, "below the minimum 0.51")),
        (result(0.0, INVENTED), 0.0, (True, "passed (minimum 0.00)")),
        # Nothing checked: nothing is grounded.
        (result(0.0, GREETING), 1.0, (False, "below the minimum 1.00")),
        (result(0.0), 1.0, (False, "below the minimum 1.00")),
        (result(None, CITED), 1.0, (True, "passed (every checked claim is supported)")),
        (result(None, CITED, GREETING), 0.5, (True, "passed (every checked claim is supported)")),
        (result(None, INVENTED), 0.0, (False, "below the minimum 0.00")),
        (result(None, CITED, INVENTED), 0.0, (False, "below the minimum 0.00")),
        (result(None), 0.0, (False, "below the minimum 0.00")),
    ],
)
def test_verdicts(answer, minimum, expected):
    assert answer.verdict(minimum) == expected


def test_scores_are_shown_with_two_decimals():
    assert [format_score(s) for s in (TWO_OF_THREE, 1.0, 0.0, 0.005, None)] == [
        "0.67",
        "1.00",
        "0.00",
        "0.01",
        "n/a",
    ]


def test_the_report_passes_by_the_verdict_and_keeps_the_full_score():
    report = GroundingReport(result(TWO_OF_THREE, CITED, CITED, INVENTED), ("a",), ())
    assert report.min_support_score == DEFAULT_MIN_SUPPORT_SCORE
    assert report.passed is False
    assert report.metadata()["support_score"] == TWO_OF_THREE
    assert report.metadata()["passed"] is False
    assert GroundingReport(result(0.97, CITED), ("a",), ()).passed is True
    assert GroundingReport(result(0.5, INVENTED), ("a",), (), min_support_score=0.5).passed


def test_the_ungrounded_error_rounds_and_names_the_unsupported_claims():
    report = GroundingReport(result(TWO_OF_THREE, CITED, CITED, INVENTED), ("a",), ())
    with pytest.raises(UngroundedAnswerError) as info:
        report.enforce("raise")
    assert "support score 0.67 is below the required 1.00" in str(info.value)
    assert "1 claim(s) unsupported: 'It was founded in 1850.'" in str(info.value)
    assert info.value.result is report
    nothing_checked = GroundingReport(result(0.0, GREETING), ("a",), ())
    with pytest.raises(UngroundedAnswerError, match=r"0 claim\(s\) unsupported"):
        nothing_checked.enforce("raise")


def plain(renderable: object, width: int = 100) -> str:
    console = Console(width=width, color_system=None, record=True)
    console.print(renderable)
    return console.export_text()


EVERY_CLAIM = "passed (every checked claim is supported)"


def test_a_check_that_failed_never_passes():
    failed = GroundingReport.failed(("a",), (), ValueError("x"), min_support_score=0.0)
    assert (failed.result, failed.passed) == (None, False)


@pytest.mark.parametrize(
    ("answer", "minimum", "header"),
    [
        (result(0.97, CITED), 1.0, f"Support score 0.97 · {EVERY_CLAIM}"),
        (result(TWO_OF_THREE, CITED, INVENTED), 1.0, "Support score 0.67 · below the minimum 1.00"),
        # A verdict is shown only with a minimum and a score.
        (result(0.5, CITED), None, "Support score 0.50"),
        (result(None, CITED), 1.0, "Support score n/a"),
    ],
)  # fmt: skip
def test_the_terminal_view_shows_the_verdict(answer, minimum, header):
    assert plain(grounding_rich(answer, min_support_score=minimum)).splitlines()[0] == header


# -- answers and sessions -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "skipped", "items"),
    [
        (GroundedAnswer("Yes."), False, ["Yes."]),
        (GroundedAnswer("", skipped_reasons=(EMPTY_ANSWER,)), True, []),
        (GroundedAnswer("Not now.", skipped_reasons=("OUT_OF_DOMAIN",)), True, ["Not now."]),
    ],
)  # fmt: skip
def test_an_answer_streams_as_its_text_then_itself(answer, skipped, items):
    assert answer.skipped is skipped
    streamed = list(answer.stream())
    assert streamed == [*items, answer]
    assert streamed[-1] is answer


def test_a_sessions_id_is_the_last_segment_of_its_name():
    name = "projects/p/locations/global/collections/c/engines/e/sessions/9"
    assert Session(name).id == "9"
    assert Session("9").id == "9"
    assert Session("").id == ""


# -- display hooks ------------------------------------------------------------------------------

RESULT = GroundingResult(
    "Paris is in France.",
    0.9,
    (Claim("Paris is in France.", 0, 19, 0, 19, (0,), (FACT,)),),
)
ANSWER = GroundedAnswer("Paris is in France.", grounding_score=0.5, related_questions=("Lyon?",))


def test_notebooks_get_an_html_fragment_not_a_document():
    # ``_repr_html_`` is the notebook display protocol (IPython calls it by that name).
    assert RESULT._repr_html_() == grounding_html(RESULT, full_document=False)
    assert ANSWER._repr_html_() == answer_html(ANSWER, full_document=False)
    for html in (RESULT._repr_html_(), ANSWER._repr_html_()):
        assert not html.startswith("<!DOCTYPE")
        assert "Paris is in France." in html


def test_rich_renders_the_record_itself():
    assert plain(RESULT) == plain(grounding_rich(RESULT))
    assert "Support score 0.90" in plain(RESULT)
    assert plain(ANSWER) == plain(answer_rich(ANSWER))
    assert "Grounding score 0.50" in plain(ANSWER)
