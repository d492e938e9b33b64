"""``grounding_core.citations``: citation spans of a grounding report and of a grounded answer.

Covers ``CitationSpan`` (a frozen record, its ``metadata``), ``report_citations`` (one span
per supported claim and cited source, the fact's address winning over the source's, claims
without a usable span and unknown sources left out, at the answer's first and last
character), ``answer_citations`` (one span per citation and reference, repeats and unknown
references left out), ``segment_spans`` at every segment boundary, ``source_url`` /
``source_title`` and ``citations_metadata``: Python string indices in any script.
"""

from __future__ import annotations

import dataclasses

import pytest

from grounding_core import (
    AnswerCitation,
    CitationSpan,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingReport,
    GroundingResult,
    GroundingSource,
    SourceChunk,
    answer_citations,
    report_citations,
)
from grounding_core.citations import (
    CITATION_ANNOTATIONS_KEY,
    URL_KEYS,
    citations_metadata,
    segment_spans,
    source_title,
    source_url,
)

# The first 2-, 3- and 4-byte characters, an RTL word and a combining mark.
ANSWER = "\u0080 ok. \u0800本. \U00010000 שלום. e\u0301."
SENTENCES = ["\u0080 ok.", "\u0800本.", "\U00010000 שלום.", "e\u0301."]

SOURCES = (
    GroundingSource("zero", {"uri": "https://zero", "title": "Zero"}),
    GroundingSource("one", {"url": "https://one"}),
    GroundingSource("two", {"source": "https://two", "title": "Two"}),
)


def claims(cited_per_sentence):
    """One claim per sentence of ANSWER, with its string span; each cited source is a
    (source_index, uri, title) triple; a sentence citing none is unsupported."""
    result, position = [], 0
    for sentence, cited in zip(SENTENCES, cited_per_sentence, strict=True):
        start = ANSWER.index(sentence, position)
        end = start + len(sentence)
        position = end
        chunks = tuple(
            CitedChunk(f"fact {i}", source_index=i, fact_index=i, uri=uri, title=title)
            for i, uri, title in cited
        )
        result.append(Claim(sentence, start, end, None, None, tuple(range(len(chunks))), chunks))
    return tuple(result)


def report(cited, sources=SOURCES, ids=None):
    result = GroundingResult(ANSWER, 0.5, claims(cited))
    return GroundingReport(result, tuple(range(len(sources))), sources, source_ids=ids)


def span(start, end, source_index=0, claim_index=0):
    return CitationSpan(start, end, "cited", source_index, str(source_index), "", "", claim_index)


# -- the record --------------------------------------------------------------------------------


def test_a_span_is_a_frozen_record_whose_metadata_uses_langchains_keys():
    cited = CitationSpan(2, 7, "text", 1, "doc-1", "https://u", "T", 3)
    assert cited.metadata() == {
        "start_index": 2,
        "end_index": 7,
        "cited_text": "text",
        "source_index": 1,
        "source_id": "doc-1",
        "url": "https://u",
        "title": "T",
        "claim_index": 3,
    }
    assert CitationSpan(0, 1, "x", 0, "0", "", "", None).metadata()["claim_index"] is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        cited.start = 2  # type: ignore[misc]


def test_citations_metadata_keeps_the_order():
    spans = [span(3, 4, 1), span(0, 2, 0)]
    assert citations_metadata(spans) == [s.metadata() for s in spans]
    assert citations_metadata(iter(spans)) == [s.metadata() for s in spans]
    assert citations_metadata([]) == []
    assert CITATION_ANNOTATIONS_KEY == "citation_annotations"


# -- sources' addresses ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metadata", "url", "title"),
    [
        ({}, "", ""),
        ({"uri": "", "url": "https://u", "title": ""}, "https://u", ""),
        ({"uri": "https://a", "url": "https://b", "source": "https://s"}, "https://a", ""),
        ({"url": "https://b", "source": "https://s", "title": "T"}, "https://b", "T"),
        ({"source": "https://s"}, "https://s", ""),
        ({"uri": None, "source": 3, "title": None}, "", ""),
        ({"uri": ["https://a"], "title": 7}, "", ""),
    ],
)
def test_source_url_and_title(metadata, url, title):
    assert (source_url(metadata), source_title(metadata)) == (url, title)
    assert URL_KEYS == ("uri", "url", "source")


# -- a grounding report ------------------------------------------------------------------------


def test_one_span_per_supported_claim_and_source_with_string_indices():
    spans = report(
        [[(0, "", ""), (2, "", "")], [], [(1, "", ""), (1, "", "")], [(0, "https://c", "C")]],
        ids=("a", "b", "c"),
    ).metadata()[CITATION_ANNOTATIONS_KEY]
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
        # The same source cited twice by one claim is one span (its first fact).
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
    for cited, sentence in zip([spans[0], spans[2], spans[3]], [0, 2, 3], strict=True):
        assert ANSWER[cited["start_index"] : cited["end_index"]] == SENTENCES[sentence]


def test_sources_without_ids_are_named_by_their_position():
    (cited,) = report_citations(report([[], [(2, "", "")], [], []]))
    assert (cited.source_id, cited.source_index, cited.claim_index) == ("2", 2, 1)


def test_a_fact_without_text_cites_its_sources_text():
    chunk = CitedChunk("", source_index=1, fact_index=0)
    result = GroundingResult(
        "Yes.", 1.0, (Claim("Yes.", 0, 4, citation_indices=(0,), citations=(chunk,)),)
    )
    (cited,) = report_citations(GroundingReport(result, ("a", "b"), SOURCES[:2]))
    assert (cited.cited_text, cited.url, cited.title) == ("one", "https://one", "")


def test_a_source_checked_without_a_grounding_source_has_the_facts_own_text():
    # Two sources were checked, one grounding source was kept (the other was empty).
    chunk = CitedChunk("fact", source_index=1, fact_index=0, uri="https://f", title="F")
    result = GroundingResult(
        "Yes.", 1.0, (Claim("Yes.", 0, 4, citation_indices=(0,), citations=(chunk,)),)
    )
    (cited,) = report_citations(GroundingReport(result, ("a", "b"), SOURCES[:1]))
    assert (cited.cited_text, cited.source_index, cited.url, cited.title) == (
        "fact",
        1,
        "https://f",
        "F",
    )
    bare = CitedChunk("", source_index=1, fact_index=0)
    result = GroundingResult(
        "Yes.", 1.0, (Claim("Yes.", 0, 4, citation_indices=(0,), citations=(bare,)),)
    )
    (cited,) = report_citations(GroundingReport(result, ("a", "b"), SOURCES[:1]))
    assert (cited.cited_text, cited.url, cited.title) == ("", "", "")


@pytest.mark.parametrize(
    ("start", "end", "kept"),
    [
        (0, 1, True),  # the first character
        (len(ANSWER) - 1, len(ANSWER), True),  # the last character
        (0, len(ANSWER), True),  # the whole answer
        (None, None, False),  # no span
        (0, None, False),
        (None, 3, False),
        (2, 2, False),  # empty
        (3, 2, False),  # reversed
        (-1, 3, False),  # before the answer
        (len(ANSWER) - 1, len(ANSWER) + 1, False),  # one past the end
    ],
)
def test_a_claim_is_cited_only_with_a_usable_span(start, end, kept):
    chunk = CitedChunk("fact", source_index=0, fact_index=0)
    claim = Claim("claim", start, end, citation_indices=(0,), citations=(chunk,))
    spans = report_citations(
        GroundingReport(GroundingResult(ANSWER, 1.0, (claim,)), ("s",), SOURCES[:1])
    )
    assert [(s.start, s.end) for s in spans] == ([(start, end)] if kept else [])


def test_a_claim_without_a_usable_span_leaves_the_next_claims_cited():
    chunk = CitedChunk("fact", source_index=0, fact_index=0)
    claims = (
        Claim("Out.", 7, 99, citation_indices=(0,), citations=(chunk,)),
        Claim("Yes.", 0, 4, citation_indices=(0,), citations=(chunk,)),
    )
    spans = report_citations(
        GroundingReport(GroundingResult("Yes. No.", 0.5, claims), ("s",), SOURCES[:1])
    )
    assert [(s.start, s.end, s.claim_index) for s in spans] == [(0, 4, 1)]


@pytest.mark.parametrize(
    ("source_index", "kept"), [(0, True), (2, True), (3, False), (9, False), (None, False)]
)
def test_only_the_sources_the_report_was_given_are_cited(source_index, kept):
    chunk = CitedChunk("fact", source_index=source_index, fact_index=0)
    claim = Claim("Yes.", 0, 4, citation_indices=(0,), citations=(chunk,))
    result = GroundingResult("Yes.", 1.0, (claim,))
    spans = report_citations(GroundingReport(result, ("a", "b", "c"), SOURCES))
    assert [s.source_index for s in spans] == ([source_index] if kept else [])


def test_unsupported_and_unchecked_claims_are_not_cited():
    chunk = CitedChunk("fact", source_index=0, fact_index=0)
    unsupported = Claim("One.", 0, 4, citations=(chunk,))  # no citation indices
    unchecked = Claim("Two.", 5, 9, (), (), (0,), (chunk,), grounding_check_required=False)
    result = GroundingResult("One. Two.", 0.0, (unsupported, unchecked))
    assert report_citations(GroundingReport(result, ("a",), SOURCES[:1])) == ()


def test_a_failed_or_skipped_check_has_no_spans():
    assert report_citations(GroundingReport.failed((), (), TimeoutError("t"), 1.0)) == ()
    assert report_citations(GroundingReport.nothing_to_check("", (), ())) == ()


# -- a grounded answer -------------------------------------------------------------------------


def test_answer_citations_follow_the_answer_references():
    first = SourceChunk(name="r/0", content="Zéro", uri="https://0", title="Z")
    second = SourceChunk(name="r/1", content="Un")
    text = "😀 yes. 日本 no."
    answer = GroundedAnswer(
        text,
        (
            # One past the end, a repeat and a negative index: one span per known reference.
            AnswerCitation(0, 6, 0, 9, "😀 yes.", (1, 2, 0, 1, -1)),
            AnswerCitation(7, 7, 10, 10, "", (0,)),  # an empty segment
            AnswerCitation(7, 13, 10, 20, "日本 no.", (0,)),
        ),
        (first, second),
    )
    spans = answer_citations(answer)
    assert citations_metadata(spans) == [
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
        {
            "start_index": 7,
            "end_index": 13,
            "cited_text": "Zéro",
            "source_index": 0,
            "source_id": "r/0",
            "url": "https://0",
            "title": "Z",
            "claim_index": None,
        },
    ]
    assert [text[s.start : s.end] for s in spans] == ["😀 yes.", "😀 yes.", "日本 no."]


@pytest.mark.parametrize(
    ("start", "end", "kept"),
    [
        (0, 1, True),
        (4, 5, True),
        (0, 5, True),
        (2, 2, False),
        (3, 2, False),
        (-1, 2, False),
        (4, 6, False),
    ],
)
def test_an_answer_citation_is_cited_only_with_a_usable_span(start, end, kept):
    reference = SourceChunk(name="r", content="c")
    answer = GroundedAnswer("Abcd.", (AnswerCitation(start, end, 0, 0, "", (0,)),), (reference,))
    assert [(s.start, s.end) for s in answer_citations(answer)] == ([(start, end)] if kept else [])


def test_an_answer_without_references_has_no_spans():
    assert (
        answer_citations(GroundedAnswer("Yes.", (AnswerCitation(0, 4, 0, 4, "Yes.", (0,)),))) == ()
    )
    assert answer_citations(GroundedAnswer("")) == ()


# -- segments ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bounds", "lengths", "parts"),
    [
        ((0, 3), [3, 2], [[(0, 3)], []]),  # exactly the first segment
        ((0, 2), [3, 2], [[(0, 2)], []]),  # one short of the boundary
        ((2, 3), [3, 2], [[(2, 3)], []]),  # ends at the boundary
        ((3, 5), [3, 2], [[], [(0, 2)]]),  # starts at the boundary: the second only
        ((2, 4), [3, 2], [[(2, 3)], [(0, 1)]]),  # across the boundary: both
        ((1, 7), [2, 0, 3, 4], [[(1, 2)], [], [(0, 3)], [(0, 2)]]),  # three, and an empty one
        ((0, 5), [5], [[(0, 5)]]),  # the whole text
        ((4, 5), [3, 2], [[], [(1, 2)]]),  # the last character
        ((5, 9), [3, 2], [[], []]),  # past the text: nowhere
        ((2, 2), [3, 2], [[], []]),  # empty: nowhere
        ((0, 3), [], []),  # no segments
    ],
)
def test_segment_spans_clip_each_span_to_the_segments_it_overlaps(bounds, lengths, parts):
    result = segment_spans([span(*bounds)], lengths)
    assert [[(p.start, p.end) for p in segment] for segment in result] == parts
    for segment in result:
        for part in segment:
            assert part == dataclasses.replace(span(*bounds), start=part.start, end=part.end)


def test_segment_spans_keep_the_order_of_the_spans_in_each_segment():
    spans = [span(3, 4, 1), span(0, 4, 0, claim_index=None)]
    result = segment_spans(iter(spans), [2, 2])
    assert result == [
        [span(0, 2, 0, claim_index=None)],
        [span(1, 2, 1), span(0, 2, 0, claim_index=None)],
    ]


def test_segment_spans_index_the_segments_text_in_any_script():
    blocks = ["\u0080 ok. ", "\u0800本. \U00010000", " שלום. e\u0301."]
    text = "".join(blocks)
    spans = [span(text.index(s), text.index(s) + len(s)) for s in SENTENCES]
    result = segment_spans(spans, [len(b) for b in blocks])
    pieces = [[blocks[i][p.start : p.end] for p in parts] for i, parts in enumerate(result)]
    assert pieces == [
        ["\u0080 ok."],
        ["\u0800本.", "\U00010000"],
        [" שלום.", "e\u0301."],
    ]
