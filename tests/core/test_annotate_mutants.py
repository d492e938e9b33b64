"""Annotation at its edges: spans that touch or are empty, source numbering keys, levels.

Each test compares whole ``Segment``/``NumberedSource`` records or the exact pieces, so that a
wrong bound, key or default shows.
"""

import pytest

from grounding_core.annotate import (
    AnnotatedText,
    CitedPassage,
    NumberedSource,
    Segment,
    annotate_answer,
    annotate_grounding,
    support_level,
)
from grounding_core.records import (
    AnswerCitation,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingResult,
    GroundingSource,
    SourceChunk,
)

from .claims import claim_at


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


def test_counts_count_every_segment():
    answer = "One. Two. Three."
    claims = tuple(claim_at(answer, t) for t in ("One.", "Two.", "Three."))
    counts = annotate_grounding(GroundingResult(answer, 0.0, claims)).counts()
    assert counts == {"supported": 0, "weak": 0, "unsupported": 3, "not_checked": 0}


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
