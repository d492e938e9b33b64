"""StreamAnswerQuery in the core: the assembler's two readings of a stream, the refused options,
and the calls on Google's sync and async clients against the session emulator."""

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    EMPTY_ANSWER,
    AnswerAssembler,
    AnswerSpec,
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeConnection,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineConnection,
    GroundedAnswer,
    InputError,
    NotFoundError,
    ServiceUnavailableError,
    check_stream_spec,
    whole_answer,
)

QUESTION = "What does the yield statement do?"
STREAMING, SUCCEEDED = de.Answer.State.STREAMING, de.Answer.State.SUCCEEDED


def response(text, state=STREAMING, **answer):
    return de.AnswerQueryResponse.pb(
        de.AnswerQueryResponse(answer={"answer_text": text, "state": state, **answer})
    )


def test_parts_then_a_final_whole_answer():
    assembler = AnswerAssembler()
    assert assembler.add(response("Zürich is in Switzerland. ")) == "Zürich is in Switzerland. "
    assert assembler.add(response("東京は首都です。")) == "東京は首都です。"
    whole = "Zürich is in Switzerland. 東京は首都です。"
    citation = {"start_index": 27, "end_index": 51, "sources": [{"reference_id": "0"}]}
    final = response(
        whole,
        SUCCEEDED,
        citations=[citation],
        references=[{"chunk_info": {"chunk": "c", "content": "東京は首都です。"}}],
    )
    assert assembler.add(final) == ""
    answer = assembler.answer()
    assert answer.answer_text == whole
    assert answer.state == "SUCCEEDED"
    (cited,) = answer.citations
    assert (cited.start, cited.end, cited.byte_start, cited.byte_end) == (26, 34, 27, 51)
    assert whole[cited.start : cited.end] == "東京は首都です。"


def test_a_final_part_and_a_growing_answer():
    parts = AnswerAssembler()
    assert [parts.add(response("One. ")), parts.add(response("Two.", SUCCEEDED))] == [
        "One. ",
        "Two.",
    ]
    assert parts.answer().answer_text == "One. Two."
    growing = AnswerAssembler()
    deltas = [growing.add(response(t)) for t in ("A 😀", "A 😀 b.", "A 😀 b. C.")]
    assert deltas == ["A 😀", " b.", " C."]
    assert growing.answer().answer_text == "A 😀 b. C."
    assert growing.answer().state == "STREAMING"  # the stream ended before SUCCEEDED


def test_an_empty_stream_and_the_session():
    empty = AnswerAssembler().answer()
    assert (empty.answer_text, empty.skipped_reasons) == ("", (EMPTY_ANSWER,))
    assembler = AnswerAssembler()
    first = de.AnswerQueryResponse.pb(de.AnswerQueryResponse(session={"name": "s/1"}))
    assembler.add(first)
    assembler.add(response("Done.", SUCCEEDED))
    assert assembler.answer().session == "s/1"  # kept from an earlier response


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("include_grounding_supports", True),
        ("filtering_level", "low"),
        ("disable_query_rephraser", True),
        ("max_rephrase_steps", 2),
    ],
)
def test_options_streamed_answers_cannot_honour_are_refused(field, value):
    with pytest.raises(InputError, match=f"^{field} is not available for streamed") as excinfo:
        check_stream_spec(AnswerSpec(**{field: value}))
    assert excinfo.value.field == field
    spec = AnswerSpec(max_return_results=3, preamble="Be brief.")
    assert check_stream_spec(spec) is spec


def test_whole_answer():
    answer = GroundedAnswer("Yes.")
    assert list(whole_answer(answer)) == ["Yes.", answer]
    skipped = GroundedAnswer("", skipped_reasons=("NO_RELEVANT_CONTENT",))
    assert list(whole_answer(skipped)) == [skipped]


def answering(emulator, **options):
    connection = DiscoveryEngineConnection.create(
        project_id="test-project", emulator_host=emulator.address, retry=None
    )
    return DiscoveryEngineAnswerQuery.create(
        connection, engine_id="python-docs-app", search_mode="chunks", **options
    )


def assert_stream(items, whole):
    *deltas, answer = items
    assert len(deltas) >= 2
    assert all(isinstance(d, str) and d for d in deltas)
    assert isinstance(answer, GroundedAnswer)
    assert "".join(deltas) == answer.answer_text == whole.answer_text
    assert answer.citations == whole.citations
    assert [r.name for r in answer.references] == [r.name for r in whole.references]
    assert answer.grounding_score is None


async def test_stream_and_astream_on_the_emulator(emulator):
    component = answering(emulator)
    whole = component.answer(QUESTION)
    assert_stream(list(component.stream(QUESTION)), whole)
    assert_stream([item async for item in component.astream(QUESTION)], whole)
    *_, in_session = list(component.stream(QUESTION, session="-"))
    assert in_session.session.startswith("projects/test-project/")
    assert in_session.turns[0].query == QUESTION


async def test_refused_before_any_call_and_errors_translated(emulator):
    with pytest.raises(InputError, match="include_grounding_supports"):
        answering(emulator, include_grounding_supports=True).stream(QUESTION)
    with pytest.raises(InputError, match="filtering_level"):
        answering(emulator, filtering_level="high").astream(QUESTION)
    connection = DiscoveryEngineConnection.create(
        project_id="test-project", emulator_host=emulator.address, retry=None
    )
    missing = DiscoveryEngineAnswerQuery.create(connection, engine_id="no-such-app")
    with pytest.raises(NotFoundError, match="StreamAnswerQuery"):
        list(missing.stream(QUESTION))
    with pytest.raises(NotFoundError, match="StreamAnswerQuery"):
        [item async for item in missing.astream(QUESTION)]
    emulator.faults.fail("StreamAnswerQuery", code="UNAVAILABLE", times=1)
    with pytest.raises(ServiceUnavailableError):
        list(answering(emulator).stream(QUESTION))


async def test_closing_a_stream_early_cancels_it(emulator):
    stream = answering(emulator).stream(QUESTION)
    first = next(stream)
    assert isinstance(first, str)
    stream.close()
    astream = answering(emulator).astream(QUESTION)
    assert isinstance(await astream.__anext__(), str)
    await astream.aclose()


async def test_developer_knowledge_streams_its_whole_answer(emulator):
    knowledge = DeveloperKnowledgeAnswerQuery(
        DeveloperKnowledgeConnection.create(emulator_host=emulator.address)
    )
    whole = knowledge.answer("How do I sort a list?")
    assert list(knowledge.stream("How do I sort a list?")) == [whole.answer_text, whole]
    items = [item async for item in knowledge.astream("How do I sort a list?")]
    assert items == [whole.answer_text, whole]
