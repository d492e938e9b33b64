"""Citation spans from a grounding report and from an answer: one per supported claim (or answer
citation) and cited source, with Python string indices into the answer in any script."""

import pytest

from grounding_core.citations import (
    CitationSpan,
    answer_citations,
    citations_metadata,
    report_citations,
    segment_spans,
    source_title,
    source_url,
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
from grounding_core.report import GroundingReport

# The first 2-, 3- and 4-byte characters, an RTL word and a combining mark.
ANSWER = "é ok. 日本. 😀 שלום. e\u0301."
SENTENCES = ["é ok.", "日本.", "😀 שלום.", "e\u0301."]


def claims(statuses_and_cited):
    """One claim per sentence of ANSWER, with its string span; cited is a list of
    (source_index, uri, title) triples; a sentence with no cited source is unsupported."""
    result, position = [], 0
    for sentence, cited in zip(SENTENCES, statuses_and_cited, strict=True):
        start = ANSWER.index(sentence, position)
        end = start + len(sentence)
        position = end
        chunks = tuple(
            CitedChunk(f"fact {i}", source_index=i, fact_index=i, uri=uri, title=title)
            for i, uri, title in cited
        )
        result.append(Claim(sentence, start, end, None, None, tuple(range(len(chunks))), chunks))
    return tuple(result)


SOURCES = (
    GroundingSource("zero", {"uri": "https://zero", "title": "Zero"}),
    GroundingSource("one", {"url": "https://one"}),
    GroundingSource("two", {"source": "https://two", "title": "Two"}),
)


def report(cited, sources=SOURCES, ids=None):
    result = GroundingResult(ANSWER, 0.5, claims(cited))
    return GroundingReport(result, tuple(range(len(sources))), sources, source_ids=ids)


def test_one_span_per_supported_claim_and_source_with_string_indices():
    spans = report(
        [[(0, "", ""), (2, "", "")], [], [(1, "", ""), (1, "", "")], [(0, "https://c", "C")]],
        ids=("a", "b", "c"),
    ).metadata()["citation_annotations"]
    assert spans == [
        {
            "start_index": 0,
            "end_index": 5,
            "cited_text": "fact 0",
            "source_index": 0,
            "source_id": "a",
            "url": "https://zero",
            "title": "Zero",
            "claim_index": 0,
        },
        {
            "start_index": 0,
            "end_index": 5,
            "cited_text": "fact 2",
            "source_index": 2,
            "source_id": "c",
            "url": "https://two",
            "title": "Two",
            "claim_index": 0,
        },
        # The same source cited twice by one claim is one span.
        {
            "start_index": 10,
            "end_index": 17,
            "cited_text": "fact 1",
            "source_index": 1,
            "source_id": "b",
            "url": "https://one",
            "title": "",
            "claim_index": 2,
        },
        # The fact's own uri and title (as checkGrounding sends them) win over the source's.
        {
            "start_index": 18,
            "end_index": 21,
            "cited_text": "fact 0",
            "source_index": 0,
            "source_id": "a",
            "url": "https://c",
            "title": "C",
            "claim_index": 3,
        },
    ]
    for span, sentence in zip([spans[0], spans[2], spans[3]], [0, 2, 3], strict=True):
        assert ANSWER[span["start_index"] : span["end_index"]] == SENTENCES[sentence]


def test_claims_without_a_usable_span_or_source_have_no_span():
    base = report([[(0, "", "")], [(5, "", "")], [], [(0, "", "")]])
    claims_ = list(base.result.claims)
    claims_[0] = Claim("é ok.", None, None, citations=claims_[0].citations)  # no span
    claims_[3] = Claim("e\u0301.", 18, 99, citations=claims_[3].citations)  # past the end
    broken = GroundingReport(
        GroundingResult(ANSWER, 0.1, tuple(claims_)), base.sources, base.grounding_sources
    )
    # claim 1 cites a source outside the checked list (5 of 3)
    assert report_citations(broken) == ()
    assert report_citations(GroundingReport.failed((), (), TimeoutError("t"), 1.0)) == ()
    assert report_citations(GroundingReport.nothing_to_check("", (), ())) == ()


def test_a_span_at_the_very_end_of_the_answer_is_kept():
    (span,) = [s for s in report_citations(report([[], [], [], [(0, "", "")]]))]
    assert span.end == len(ANSWER)
    assert ANSWER[span.start : span.end] == "e\u0301."


def test_answer_citations_follow_the_answer_references():
    first = SourceChunk(name="r/0", content="Zéro", uri="https://0", title="Z")
    second = SourceChunk(name="r/1", content="Un")
    text = "😀 yes. 日本 no."
    answer = GroundedAnswer(
        text,
        (
            AnswerCitation(0, 6, 0, 9, "😀 yes.", (1, 0, 1, 7, -1)),
            AnswerCitation(7, 7, 10, 10, "", (0,)),  # an empty segment
        ),
        (first, second),
    )
    assert citations_metadata(answer_citations(answer)) == [
        {
            "start_index": 0,
            "end_index": 6,
            "cited_text": "Un",
            "source_index": 1,
            "source_id": "r/1",
            "url": "",
            "title": "",
            "claim_index": None,
        },
        {
            "start_index": 0,
            "end_index": 6,
            "cited_text": "Zéro",
            "source_index": 0,
            "source_id": "r/0",
            "url": "https://0",
            "title": "Z",
            "claim_index": None,
        },
    ]
    assert text[0:6] == "😀 yes."


@pytest.mark.parametrize(
    ("metadata", "url", "title"),
    [
        ({}, "", ""),
        ({"uri": "", "url": "https://u", "title": ""}, "https://u", ""),
        ({"uri": "https://a", "source": "https://s", "title": "T"}, "https://a", "T"),
        ({"source": 3, "title": None}, "", ""),
    ],
)
def test_source_url_and_title(metadata, url, title):
    assert (source_url(metadata), source_title(metadata)) == (url, title)


def test_a_span_is_a_frozen_record():
    span = CitationSpan(0, 1, "x", 0, "0", "", "", None)
    with pytest.raises(AttributeError):
        span.start = 2  # type: ignore[misc]


def _span(start, end):
    return CitationSpan(start, end, "cited", 0, "0", "", "", 0)


@pytest.mark.parametrize(
    ("span", "lengths", "parts"),
    [
        ((0, 3), [3, 2], [[(0, 3)], []]),  # exactly the first segment
        ((3, 5), [3, 2], [[], [(0, 2)]]),  # starts at the boundary: the second only
        ((2, 4), [3, 2], [[(2, 3)], [(0, 1)]]),  # across the boundary: both
        ((1, 7), [2, 0, 3, 4], [[(1, 2)], [], [(0, 3)], [(0, 2)]]),  # three, and an empty one
        ((5, 9), [3, 2], [[], []]),  # past the text: nowhere
    ],
)
def test_segment_spans_clip_each_span_to_the_segments_it_overlaps(span, lengths, parts):
    result = segment_spans([_span(*span)], lengths)
    assert [[(p.start, p.end) for p in segment] for segment in result] == parts
    for segment in result:
        for part in segment:
            assert (part.cited_text, part.source_index, part.claim_index) == ("cited", 0, 0)


def test_segment_spans_index_the_segments_text_in_any_script():
    blocks = ["é ok. ", "日本. 😀", " שלום. e\u0301."]
    text = "".join(blocks)
    spans = [_span(text.index(s), text.index(s) + len(s)) for s in SENTENCES]
    result = segment_spans(spans, [len(b) for b in blocks])
    pieces = [[blocks[i][p.start : p.end] for p in parts] for i, parts in enumerate(result)]
    assert pieces == [["é ok."], ["日本.", "😀"], [" שלום.", "e\u0301."]]
    assert segment_spans(spans, []) == []
