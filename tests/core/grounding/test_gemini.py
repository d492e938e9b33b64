"""``grounding_core.grounding.gemini``: Gemini's grounding metadata as the project's.

Inputs are shaped exactly as Google's packages give them (none is installed here):

- ``langchain-google-genai`` / ``langchain-google-vertexai`` put
  ``proto.Message.to_dict(candidate.grounding_metadata)`` (snake_case, defaults included) or,
  on google-genai, ``grounding_metadata.model_dump(exclude_none=True)`` (a ``start_index`` of 0
  absent) in ``message.response_metadata["grounding_metadata"]`` (``chat_models.py``,
  ``_response_to_result``);
- google-genai's ``GenerateContentResponse.candidates[i].grounding_metadata`` is a pydantic
  ``GroundingMetadata``: ``grounding_chunks[]`` (``web``: ``uri``, ``title``, ``domain``;
  ``retrieved_context``: ``uri``, ``title``, ``text``, ``document_name``),
  ``grounding_supports[]`` (``segment``: ``part_index``, ``start_index``, ``end_index``,
  ``text``; ``grounding_chunk_indices``; ``confidence_scores``), ``web_search_queries``,
  ``retrieval_queries``: attributes, here ``SimpleNamespace``s;
- Vertex AI's reference (``google.cloud.aiplatform.v1.GroundingSupport``, ``Segment``): "Start
  index in the given Part, measured in bytes. Offset from the start of the Part, inclusive";
  "confidence_scores ... must have the same size as the grounding_chunk_indices"; the REST
  JSON is camelCase (``groundingSupports``, ``startIndex``...).
"""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from grounding_core import (
    CitationSpan,
    CitedChunk,
    DiscoveryEngineConnection,
    GroundingCheck,
    GroundingSource,
    InputError,
)
from grounding_core.grounding.gemini import gemini_grounding, genai_response_grounding

WEB = {"web": {"uri": "https://example.com/a", "title": "A", "domain": "example.com"}}
CONTEXT = {
    "retrieved_context": {
        "uri": "gs://docs/b.pdf",
        "title": "B",
        "text": "Lists hold their values in order.",
        "document_name": "projects/p/locations/global/dataStores/d/documents/b",
    }
}


def _support(start, end, indices=(0,), scores=(0.5,), part=None):
    segment = {"start_index": start, "end_index": end}
    if part is not None:
        segment["part_index"] = part
    return {
        "segment": segment,
        "grounding_chunk_indices": list(indices),
        "confidence_scores": list(scores),
    }


def _spans(answer, supports, chunks=(WEB,)):
    grounding = gemini_grounding(
        answer, {"grounding_chunks": list(chunks), "grounding_supports": supports}
    )
    return [
        (c.text, c.start, c.end, c.byte_start, c.byte_end) for c in grounding.report.result.claims
    ]


@pytest.mark.parametrize(
    ("answer", "first", "second"),
    [
        ("東京は首都です。大阪は都市です。", "東京は首都です。", "大阪は都市です。"),
        ("Cats 🐈 purr. Dogs 🐕 bark.", "Cats 🐈 purr.", "Dogs 🐕 bark."),
        ("Cafe\u0301 open. Cre\u0300me sold.", "Cafe\u0301 open.", "Cre\u0300me sold."),
        ("שלום עולם. مرحبا بالعالم.", "שלום עולם.", "مرحبا بالعالم."),
    ],
    ids=["japanese", "emoji-4-bytes", "combining-marks", "rtl"],
)
def test_byte_segments_become_char_spans_that_slice_the_answer(answer, first, second):
    b1 = len(first.encode())
    b2 = len(answer.encode())  # the second segment ends at the answer's last byte
    s2 = len(answer[: answer.index(second)].encode())
    spans = _spans(answer, [_support(0, b1), _support(s2, b2)])
    c2 = answer.index(second)
    assert spans == [
        (first, 0, len(first), 0, b1),
        (second, c2, len(answer), s2, b2),
    ]
    assert [answer[start:end] for _, start, end, _, _ in spans] == [first, second]


def test_a_claim_carries_its_chunks_score_and_citations_and_sources_are_the_chunks():
    answer = "Lists hold their values in order. See the web."
    metadata = {
        "grounding_chunks": [WEB, CONTEXT],
        "grounding_supports": [_support(0, 33, (1, 0, 1), (0.7, 0.9, 0.7))],
        "web_search_queries": ["lists order"],
        "retrieval_queries": ["list values"],
    }
    grounding = gemini_grounding(answer, metadata)
    web = CitedChunk("", 0, 0, {}, "https://example.com/a", "A", "example.com")
    ctx = CitedChunk("Lists hold their values in order.", 1, 1, {}, "gs://docs/b.pdf", "B", "")
    (claim,) = grounding.report.result.claims
    assert (claim.text, claim.start, claim.end, claim.byte_start, claim.byte_end) == (
        "Lists hold their values in order.",
        0,
        33,
        0,
        33,
    )
    assert claim.citation_indices == (1, 0)
    assert claim.citations == (ctx, web)
    assert claim.score == 0.9
    assert claim.status == "supported"
    assert grounding.report.result.cited_chunks == (web, ctx)
    assert grounding.report.result.support_score is None
    assert grounding.answer == answer
    assert grounding.sources == (
        GroundingSource(
            "",
            {
                "source": "https://example.com/a",
                "uri": "https://example.com/a",
                "title": "A",
                "chunk_type": "web",
                "domain": "example.com",
            },
        ),
        GroundingSource(
            "Lists hold their values in order.",
            {
                "source": "gs://docs/b.pdf",
                "uri": "gs://docs/b.pdf",
                "title": "B",
                "chunk_type": "retrieved_context",
                "document_name": "projects/p/locations/global/dataStores/d/documents/b",
            },
        ),
    )
    assert grounding.citations() == (
        CitationSpan(0, 33, "Lists hold their values in order.", 1, "1", "gs://docs/b.pdf", "B", 0),
        CitationSpan(0, 33, "", 0, "0", "https://example.com/a", "A", 0),
    )
    meta = grounding.metadata()
    assert meta["web_search_queries"] == ["lists order"]
    assert meta["retrieval_queries"] == ["list values"]
    assert meta["rechecked"] is False
    assert meta["support_score"] is None
    assert meta["claims"] == [
        {
            "text": "Lists hold their values in order.",
            "start": 0,
            "end": 33,
            "byte_start": 0,
            "byte_end": 33,
            "status": "supported",
            "score": 0.9,
            "grounding_check_required": True,
            "citation_indices": [1, 0],
            "source_indices": [1, 0],
            "source_ids": ["1", "0"],
        }
    ]
    assert meta["source_ids"] == ["0", "1"]


def test_an_empty_segment_is_left_out_and_scores_may_be_absent():
    grounding = gemini_grounding(
        "Ab. Cd.",
        {
            "grounding_chunks": [WEB],
            "grounding_supports": [_support(3, 3), _support(4, 7, scores=())],
        },
    )
    (claim,) = grounding.report.result.claims
    assert (claim.text, claim.start, claim.end, claim.score) == ("Cd.", 4, 7, None)


def test_camel_case_json_and_a_missing_start_index_read_as_google_sends_them():
    metadata = {
        "groundingChunks": [{"web": {"uri": "https://x", "title": "X"}}],
        "groundingSupports": [
            {
                "segment": {"endIndex": 7, "text": "né 世"},
                "groundingChunkIndices": [0],
                "confidenceScores": [0.4],
            }
        ],
        "webSearchQueries": ["q"],
    }
    grounding = gemini_grounding("né 世界", metadata)
    (claim,) = grounding.report.result.claims
    assert (claim.text, claim.start, claim.end, claim.byte_start, claim.byte_end) == (
        "né 世",
        0,
        4,
        0,
        7,
    )
    assert claim.citation_indices == (0,)
    assert claim.score == 0.4
    assert grounding.web_search_queries == ("q",)


def test_google_genai_response_objects_and_part_offsets():
    # A thought part is not answer text but counts for part_index; offsets restart per part.
    metadata = NS(
        grounding_chunks=[
            NS(
                web=None,
                retrieved_context=NS(uri="u", title="T", text="Ähm ja.", document_name=None),
            )
        ],
        grounding_supports=[
            NS(
                segment=NS(part_index=2, start_index=6, end_index=14, text="Grüße."),
                grounding_chunk_indices=[0],
                confidence_scores=[0.8],
            )
        ],
        web_search_queries=None,
        retrieval_queries=["grüße"],
    )
    parts = [
        NS(text="thinking", thought=True),
        NS(text="Hallo. ", thought=None),
        NS(text="Ähm. Grüße.", thought=None),
        NS(text=None, thought=None),
    ]
    response = NS(candidates=[NS(content=NS(parts=parts), grounding_metadata=metadata)])
    grounding = genai_response_grounding(response)
    assert grounding.answer == "Hallo. Ähm. Grüße."
    (claim,) = grounding.report.result.claims
    assert (claim.text, claim.start, claim.end, claim.byte_start, claim.byte_end) == (
        "Grüße.",
        12,
        18,
        13,
        21,
    )
    assert grounding.retrieval_queries == ("grüße",)
    assert grounding.web_search_queries == ()


@pytest.mark.parametrize(
    ("supports", "field", "says"),
    [
        ([{"grounding_chunk_indices": [0]}], "grounding_supports[0]", "segment is missing"),
        (
            [_support(0, 3, (0, 2), (0.1, 0.2))],
            "grounding_supports[0].grounding_chunk_indices[1]",
            "is 2, but there are 1 grounding_chunks",
        ),
        ([_support(0, 3, (-1,))], "grounding_supports[0].grounding_chunk_indices[0]", "is -1"),
        (
            [_support(5, 2)],
            "grounding_supports[0].segment.end_index",
            "end_index 2 is before its start_index 5",
        ),
        (
            [_support(0, 99)],
            "grounding_supports[0].segment.end_index",
            "byte offset 99 is outside the text",
        ),
        (
            [_support(1, 4)],
            "grounding_supports[0].segment.start_index",
            "falls inside the 3-byte character",
        ),
        (
            [_support(0, 3, part=1)],
            "grounding_supports[0].segment.part_index",
            r"is 1, but the answer has 1 part\(s\)",
        ),
        (
            [{"segment": {"start_index": 0}}],
            "grounding_supports[0].segment.end_index",
            "is missing",
        ),
        (
            [{"segment": {"start_index": "0", "end_index": 3}}],
            "grounding_supports[0].segment.start_index",
            "must be an integer",
        ),
        (
            [_support(0, 3, (0,), (0.1, 0.2))],
            "grounding_supports[0].confidence_scores",
            "has 2 scores for 1",
        ),
        ("nope", "grounding_supports", "must be a list"),
    ],
)
def test_malformed_metadata_is_refused_naming_the_field(supports, field, says):
    with pytest.raises(InputError, match=says) as caught:
        gemini_grounding("世界です", {"grounding_chunks": [WEB], "grounding_supports": supports})
    assert caught.value.field == field
    assert str(caught.value).startswith(field)


def test_a_chunk_naming_no_source_and_a_missing_candidate_are_refused():
    with pytest.raises(
        InputError, match=r"grounding_chunks\[0\] has neither web nor retrieved_context"
    ):
        gemini_grounding("x", {"grounding_chunks": [{"maps": {}}]})
    with pytest.raises(
        InputError, match=r"candidates\[0\] does not exist: the response has 0"
    ) as caught:
        genai_response_grounding({"candidates": []})
    assert caught.value.field == "candidates[0]"


def test_recheck_on_the_emulator_grades_every_sentence_against_the_retrieved_contexts(emulator):
    answer = "Lists hold their values in order. The moon is made of green cheese."
    grounding = gemini_grounding(
        answer, {"grounding_chunks": [WEB, CONTEXT], "grounding_supports": []}
    )
    assert grounding.report.result.claims == ()
    check = GroundingCheck(DiscoveryEngineConnection(emulator_host=emulator.address))
    checked = grounding.recheck(check)
    assert checked.rechecked is True
    claims = checked.report.result.claims
    assert [(c.text, c.start, c.end, c.status, c.source_indices) for c in claims] == [
        ("Lists hold their values in order.", 0, 33, "supported", (1,)),
        ("The moon is made of green cheese.", 34, 67, "unsupported", ()),
    ]
    assert checked.report.support_score == RECHECK_SCORE
    assert checked.metadata()["rechecked"] is True
    assert [s.url for s in checked.citations()] == ["gs://docs/b.pdf"]


RECHECK_SCORE = 0.5  # the emulator's judge: one of the two claims supported
