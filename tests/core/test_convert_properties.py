"""Property tests: for any Unicode answer, converted spans slice the answer to each claim."""

from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import types as dk
from hypothesis import given
from hypothesis import strategies as st

from grounding_core.convert import answer_from_developer_knowledge, grounding_result_from_response
from grounding_core.facts import build_facts

# Printable text from every plane, including emoji, CJK, RTL and combining marks.
TEXT = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=40)


@st.composite
def answers_with_spans(draw):
    parts = draw(st.lists(TEXT, min_size=1, max_size=6))
    separator = draw(st.sampled_from([" ", "\n", "", "。"]))
    answer = separator.join(parts)
    spans, cursor = [], 0
    for part in parts:
        start = answer.index(part, cursor)
        spans.append((start, start + len(part)))
        cursor = start + len(part)
    return answer, spans


@given(answers_with_spans())
def test_claim_spans_always_slice_to_the_claim(data):
    answer, spans = data
    encode = lambda s: len(answer[:s].encode())  # noqa: E731
    response = de.CheckGroundingResponse(
        claims=[
            de.CheckGroundingResponse.Claim(
                start_pos=encode(s), end_pos=encode(e), claim_text=answer[s:e]
            )
            for s, e in spans
        ]
    )
    result = grounding_result_from_response(
        answer, de.CheckGroundingResponse.pb(response), build_facts([])
    )
    encoded = answer.encode()
    for claim, (start, end) in zip(result.claims, spans, strict=True):
        assert answer[claim.start : claim.end] == claim.text
        assert encoded[claim.byte_start : claim.byte_end] == claim.text.encode()
        assert (claim.start, claim.end) == (start, end)


@given(answers_with_spans(), st.lists(st.integers(-5, 200), min_size=2, max_size=8))
def test_arbitrary_server_offsets_never_raise_and_stay_in_the_text(data, offsets):
    answer, _ = data
    pairs = list(zip(offsets[::2], offsets[1::2], strict=False))
    message = dk.Answer(
        answer_text=answer,
        citations=[dk.Answer.AnswerCitation(start_index=s, end_index=e) for s, e in pairs],
    )
    result = answer_from_developer_knowledge(dk.Answer.pb(message))
    for citation in result.citations:
        assert 0 <= citation.start <= citation.end <= len(answer)
        assert citation.text == answer[citation.start : citation.end]
        assert answer.encode()[citation.byte_start : citation.byte_end] == citation.text.encode()
