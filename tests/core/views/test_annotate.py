"""``grounding_core.views.annotate``: a checked or a grounded answer as annotated text, what
every view draws.

Covers ``support_level`` (weak strictly below ``weak_below``), ``annotate_grounding`` and
``annotate_answer`` (segments compared whole: located only with a usable span that overlaps no
earlier one, in either order; sources numbered in order of first citation, keyed by source
index, else by text, and for an answer by name, else URI, else content; titles and URIs from
the sources given), ``AnnotatedText`` (``pieces`` in text order, ``counts``, ``source``),
``NumberedSource.label``, ``Segment.numbers``, ``shown_verdict`` and ``format_score``.
"""

from __future__ import annotations

import pytest

from grounding_core import (
    AnswerCitation,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingResult,
    GroundingSource,
    SourceChunk,
)
from grounding_core.views import DEFAULT_WEAK_BELOW, format_score, support_level
from grounding_core.views.annotate import (
    SUPPORT_LEVELS,
    AnnotatedText,
    CitedPassage,
    NumberedSource,
    Segment,
    annotate_answer,
    annotate_grounding,
    shown_verdict,
)
from tests.core.claims import claim_at
from tests.core.reports import levels_result


def located(result: GroundingResult) -> list[bool]:
    return [s.located for s in annotate_grounding(result).segments]


def test_touching_claims_are_both_located_in_either_order():
    answer = "ab"
    first, second = Claim("a", 0, 1), Claim("b", 1, 2)
    assert located(GroundingResult(answer, None, (first, second))) == [True, True]
    assert located(GroundingResult(answer, None, (second, first))) == [True, True]


def test_overlapping_and_empty_claims_are_not_located():
    answer = "abcd"
    claims = (Claim("abc", 0, 3), Claim("cd", 2, 4), Claim("", 4, 4), Claim("d", 3, 4))
    assert located(GroundingResult(answer, None, claims)) == [True, False, False, True]


def test_a_claim_ending_exactly_at_the_end_is_located():
    claims = (Claim("ab", 0, 2), Claim("c", 2, 3), Claim("x", 2, 4))
    assert located(GroundingResult("abc", None, claims)) == [True, True, False]


def test_pieces_follow_the_text_whatever_the_claim_order():
    answer = "a b c"
    claims = (Claim("c", 4, 5), Claim("b", 2, 3), Claim("a", 0, 1))
    text = annotate_grounding(GroundingResult(answer, None, claims))
    assert [(piece, s.index if s else None) for piece, s in text.pieces()] == [
        ("a", 2),
        (" ", None),
        ("b", 1),
        (" ", None),
        ("c", 0),
    ]


def test_pieces_of_adjacent_claims_listed_backwards():
    text = annotate_grounding(GroundingResult("ab", None, (Claim("b", 1, 2), Claim("a", 0, 1))))
    assert [piece for piece, _ in text.pieces()] == ["a", "b"]


def test_counts_count_every_segment_by_level_in_order():
    answer = "One. Two. Three."
    claims = tuple(claim_at(answer, t) for t in ("One.", "Two.", "Three."))
    counts = annotate_grounding(GroundingResult(answer, 0.0, claims)).counts()
    assert counts == {"supported": 0, "weak": 0, "unsupported": 3, "not_checked": 0}
    assert list(counts) == ["supported", "weak", "unsupported", "not_checked"]
    counts = annotate_grounding(levels_result()).counts()
    assert counts == {"supported": 1, "weak": 1, "unsupported": 1, "not_checked": 1}
    assert annotate_grounding(GroundingResult("", None)).counts() == dict.fromkeys(counts, 0)


@pytest.mark.parametrize(
    ("score", "level"),
    [(0.79, "weak"), (0.8, "supported"), (0.81, "supported"), (None, "supported")],
)
def test_weak_is_strictly_below_the_threshold(score, level):
    assert support_level(Claim("x", citation_indices=(0,), score=score)) == level


def test_sources_given_to_the_check_name_the_numbered_sources():
    answer = "Paris. Lyon."
    paris = CitedChunk("Paris fact", source_index=1, fact_index=0)
    lyon = CitedChunk("Lyon fact", source_index=0, fact_index=1)
    sources = [
        GroundingSource("Lyon text", {"uri": "https://lyon"}),
        GroundingSource("Paris text", {"source": "https://paris", "uri": "ignored"}),
    ]
    result = GroundingResult(
        answer, 1.0, (claim_at(answer, "Paris.", paris), claim_at(answer, "Lyon.", lyon, paris))
    )
    text = annotate_grounding(result, sources)
    assert text.sources == (
        NumberedSource(1, "", "https://paris", "Paris text", 1),
        NumberedSource(2, "", "https://lyon", "Lyon text", 0),
    )
    assert text.segments == (
        Segment(0, "Paris.", 0, 6, "supported", None, (CitedPassage(1, "Paris fact"),), True),
        Segment(
            1,
            "Lyon.",
            7,
            12,
            "supported",
            None,
            (CitedPassage(2, "Lyon fact"), CitedPassage(1, "Paris fact")),
            True,
        ),
    )
    assert text.source_count == 2
    assert text.score == 1.0
    assert [s.label for s in text.sources] == ["https://paris", "https://lyon"]


def test_a_source_without_title_or_uri_is_labelled_by_its_number():
    answer = "Paris."
    cited = CitedChunk("Paris fact", source_index=0, fact_index=0)
    text = annotate_grounding(
        GroundingResult(answer, 1.0, (claim_at(answer, answer, cited),)),
        [GroundingSource("Paris text", {"title": None})],
    )
    assert text.sources == (NumberedSource(1, "", "", "Paris text", 0),)
    assert text.sources[0].label == "Source 1"


def test_cited_chunks_outside_the_sources_are_numbered_by_index_else_by_text():
    answer = "One. Two."
    by_index_a = CitedChunk("first", source_index=5, fact_index=5, title="T", uri="https://u")
    by_index_b = CitedChunk("second", source_index=5, fact_index=5)
    by_text_a = CitedChunk("web result", source_index=None, fact_index=None)
    by_text_b = CitedChunk("other web result", source_index=None, fact_index=None)
    result = GroundingResult(
        answer,
        None,
        (
            claim_at(answer, "One.", by_index_a, by_index_b),
            claim_at(answer, "Two.", by_text_a, by_text_b, by_text_a),
        ),
    )
    text = annotate_grounding(result)
    assert text.sources == (
        NumberedSource(1, "T", "https://u", "first", 5),
        NumberedSource(2, "", "", "web result", None),
        NumberedSource(3, "", "", "other web result", None),
    )
    assert [s.numbers for s in text.segments] == [(1,), (2, 3)]


def test_answer_references_are_numbered_by_name_else_uri_else_content():
    def ref(name: str, uri: str, content: str) -> SourceChunk:
        return SourceChunk(name=name, content=content, uri=uri)

    references = (
        ref("n1", "https://same", "a"),
        ref("n2", "https://same", "b"),  # another name: another source
        ref("", "https://u", "c"),
        ref("", "https://u", "d"),  # same URI, no name: the same source
        ref("", "", "e"),
        ref("n3", "", "e"),  # a name wins over equal content
    )
    text_value = "abcdef"
    citations = tuple(
        AnswerCitation(i, i + 1, i, i + 1, text_value[i], (i,), (r,))
        for i, r in enumerate(references)
    )
    text = annotate_answer(GroundedAnswer(text_value, citations, references, grounding_score=0.5))
    assert [s.numbers for s in text.segments] == [(1,), (2,), (3,), (3,), (4,), (5,)]
    assert text.sources[2] == NumberedSource(3, "", "https://u", "c", None)
    assert (text.score, text.source_count) == (0.5, 6)


def test_answer_segments_without_references_are_not_checked():
    answer = GroundedAnswer(
        "Yes. No.",
        (
            AnswerCitation(0, 4, 0, 4, "Yes.", (), ()),
            AnswerCitation(5, 8, 5, 8, "No.", (0,), (SourceChunk(name="r", content="c"),)),
        ),
    )
    text = annotate_answer(answer)
    assert text.segments == (
        Segment(0, "Yes.", 0, 4, "not_checked", None, (), True),
        Segment(1, "No.", 5, 8, "supported", None, (CitedPassage(1, "c"),), True),
    )
    assert text == AnnotatedText(
        "Yes. No.", text.segments, (NumberedSource(1, "", "", "c", None),), None, 0
    )


# -- levels, labels, numbers, verdicts, scores -------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "weak_below", "level"),
    [
        (Claim("x", citation_indices=(0,), score=0.5), 0.5, "supported"),
        (Claim("x", citation_indices=(0,), score=0.49), 0.5, "weak"),
        (Claim("x", citation_indices=(0,), score=0.0), 0.0, "supported"),
        (Claim("x", score=0.1), 0.8, "unsupported"),
        (Claim("x", score=0.1, grounding_check_required=False), 0.8, "not_checked"),
        (
            Claim("x", citation_indices=(0,), score=0.1, grounding_check_required=False),
            0.8,
            "not_checked",
        ),
    ],
)
def test_the_support_level_of_a_claim(claim, weak_below, level):
    assert support_level(claim, weak_below) == level


def test_the_levels_and_the_default_threshold():
    assert DEFAULT_WEAK_BELOW == 0.8
    assert SUPPORT_LEVELS == ("supported", "weak", "unsupported", "not_checked")


@pytest.mark.parametrize(
    ("score", "shown"),
    [(0.6666666865348816, "0.67"), (None, "n/a"), (0.0, "0.00"), (1, "1.00"), (0.994, "0.99")],
)
def test_a_score_is_shown_with_two_decimals(score, shown):
    assert format_score(score) == shown


@pytest.mark.parametrize(
    ("source", "label"),
    [
        (NumberedSource(2, "T", "https://u", "x"), "T"),
        (NumberedSource(2, "", "https://u", "x"), "https://u"),
        (NumberedSource(2, "", "", "x"), "Source 2"),
    ],
)
def test_a_source_is_labelled_by_its_title_else_its_uri_else_its_number(source, label):
    assert source.label == label
    assert source.source_index is None


def test_a_segments_numbers_are_its_sources_in_order_each_once():
    passages = (CitedPassage(2, "a"), CitedPassage(1, "b"), CitedPassage(2, "c"))
    segment = Segment(0, "x", 0, 1, "supported", None, passages)
    assert segment.numbers == (2, 1)
    assert segment.located is False
    assert Segment(0, "x", None, None, "unsupported", None).numbers == ()


def test_the_source_of_a_number():
    sources = (NumberedSource(1, "A", "", "a"), NumberedSource(2, "B", "", "b"))
    text = AnnotatedText("t", (), sources, None)
    assert (text.source(1), text.source(2)) == sources
    assert text.source_count == 0


@pytest.mark.parametrize(
    ("score", "minimum", "verdict"),
    [
        (0.5, None, None),
        (None, 0.5, None),
        (0.5, 0.5, (True, "passed (minimum 0.50)")),
        (0.25, 0.5, (False, "below the minimum 0.50")),
    ],
)
def test_the_verdict_shown_needs_a_minimum_and_a_score(score, minimum, verdict):
    assert shown_verdict(GroundingResult("a", score), minimum) == verdict


# -- pieces and sources ------------------------------------------------------------------------


def test_pieces_keep_the_text_around_located_segments():
    claims = (Claim("b", 2, 3), Claim("nowhere"), Claim("d", 6, 9))
    text = annotate_grounding(GroundingResult("a b c d", None, claims))
    assert [(piece, s.index if s else None) for piece, s in text.pieces()] == [
        ("a ", None),
        ("b", 0),
        (" c d", None),
    ]
    assert [(p, s) for p, s in annotate_grounding(GroundingResult("", None)).pieces()] == []
    whole = annotate_grounding(GroundingResult("abc", None, (Claim("abc", 0, 3),)))
    assert [piece for piece, _ in whole.pieces()] == ["abc"]


def test_the_sources_title_and_uri_come_from_their_metadata():
    answer = "A. B. C."
    cited = [
        CitedChunk(f"f{i}", source_index=i, fact_index=i, title="no", uri="no") for i in range(3)
    ]
    sources = [
        GroundingSource("s0", {"title": 3, "uri": "https://u"}),
        GroundingSource("s1", {"title": "", "source": "", "uri": "https://v"}),
        GroundingSource("s2", {"source": None, "uri": None}),
    ]
    result = GroundingResult(
        answer,
        1.0,
        tuple(claim_at(answer, t, c) for t, c in zip(("A.", "B.", "C."), cited, strict=True)),
    )
    assert annotate_grounding(result, sources).sources == (
        NumberedSource(1, "3", "https://u", "s0", 0),
        NumberedSource(2, "", "https://v", "s1", 1),
        NumberedSource(3, "", "", "s2", 2),
    )


def test_a_negative_source_index_is_numbered_from_the_cited_chunk():
    cited = CitedChunk("fact", source_index=-1, fact_index=0, title="T", uri="https://t")
    result = GroundingResult("A.", 1.0, (claim_at("A.", "A.", cited),))
    text = annotate_grounding(result, [GroundingSource("s", {"title": "S"})])
    assert text.sources == (NumberedSource(1, "T", "https://t", "fact", -1),)


def test_the_weak_threshold_is_passed_on():
    claim = Claim("Paris.", 0, 6, citation_indices=(0,), score=0.7)
    result = GroundingResult("Paris.", 1.0, (claim,))
    assert [s.level for s in annotate_grounding(result).segments] == ["weak"]
    assert [s.level for s in annotate_grounding(result, weak_below=0.7).segments] == ["supported"]


def test_an_answer_with_an_unlocated_citation():
    reference = SourceChunk(name="r", content="c", title="T", uri="https://r")
    citation = AnswerCitation(3, 9, 3, 9, "nowhere", (0,), (reference,))
    text = annotate_answer(GroundedAnswer("Yes.", (citation,), (reference,), grounding_score=0.5))
    assert text == AnnotatedText(
        "Yes.",
        (Segment(0, "nowhere", 3, 9, "supported", None, (CitedPassage(1, "c"),), False),),
        (NumberedSource(1, "T", "https://r", "c", None),),
        0.5,
        1,
    )
