"""ConversationalSearchService/StreamAnswerQuery through Google's clients (sync and async)."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1beta

from tests.emulator.conftest import ONCE, assert_error, serving_config, versioned_client

STREAMING = de.Answer.State.STREAMING
SUCCEEDED = de.Answer.State.SUCCEEDED
QUESTION = "What does the yield statement do?"
CONFIG = serving_config("python-docs-app", kind="engines")


def request(query=QUESTION, **fields):
    fields.setdefault("answer_generation_spec", {"include_citations": True})
    fields.setdefault("search_spec", {"search_params": {"search_result_mode": "CHUNKS"}})
    return de.AnswerQueryRequest(serving_config=CONFIG, query={"text": query}, **fields)


def stream(client, **fields):
    return list(client.stream_answer_query(request=request(**fields), **ONCE))


def test_one_response_per_sentence_then_the_whole_answer(answer_client):
    responses = stream(answer_client)
    *parts, final = responses
    assert len(parts) >= 2
    answer = answer_client.answer_query(request=request(), **ONCE).answer
    # the parts join to the answer AnswerQuery gives; each is one sentence
    assert "".join(r.answer.answer_text for r in parts) == answer.answer_text
    for response in parts:
        text = response.answer.answer_text
        assert response.answer.state == STREAMING
        assert text.rstrip().endswith(".")
        assert text.rstrip().count(". ") == 0
        assert not response.answer.citations
        assert not response.answer.references
        assert response.answer.name == final.answer.name
        assert response.answer_query_token == final.answer_query_token
    assert parts[0].answer.answer_text.endswith(" ")
    assert not parts[-1].answer.answer_text.endswith(" ")
    # the final response is the answer, its citations indexing its own text
    assert final.answer.state == SUCCEEDED
    assert final.answer.answer_text == answer.answer_text
    assert [(c.start_index, c.end_index) for c in final.answer.citations] == [
        (c.start_index, c.end_index) for c in answer.citations
    ]
    assert len(final.answer.citations) == len(parts)
    assert [r.chunk_info.chunk for r in final.answer.references] == [
        r.chunk_info.chunk for r in answer.references
    ]
    assert final.answer_query_token
    assert final.answer.complete_time.timestamp() > 0


def test_no_grounding_scores_and_no_filtering_on_a_stream(answer_client):
    asked = {"include_grounding_supports": True, "filtering_level": "FILTERING_LEVEL_HIGH"}
    final = stream(answer_client, grounding_spec=asked)[-1].answer
    assert "grounding_score" not in final
    assert not final.grounding_supports
    unary = answer_client.answer_query(request=request(grounding_spec=asked), **ONCE).answer
    assert "grounding_score" in unary  # AnswerQuery honours both
    assert final.answer_text  # not withdrawn as LOW_GROUNDED_ANSWER


def test_a_skipped_answer_is_one_final_response(answer_client):
    (final,) = stream(
        answer_client,
        query="hello there, how are you?",
        answer_generation_spec={"ignore_non_answer_seeking_query": True},
    )
    assert final.answer.state == SUCCEEDED
    assert final.answer.answer_text == ""
    assert list(final.answer.answer_skipped_reasons) == [
        de.Answer.AnswerSkippedReason.NON_ANSWER_SEEKING_QUERY_IGNORED
    ]


def test_a_session_is_on_the_final_response(answer_client):
    session = CONFIG.rsplit("/servingConfigs/", 1)[0] + "/sessions/-"
    *parts, final = stream(answer_client, session=session)
    assert all(not r.session.name for r in parts)
    assert final.session.name.startswith(session[:-1])
    assert final.session.turns[0].query.text == QUESTION
    assert final.session.turns[0].answer == final.answer.name
    stored = answer_client.get_answer(name=final.answer.name, **ONCE)
    assert stored.answer_text == final.answer.answer_text


def test_errors_come_before_any_response(answer_client):
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        stream(answer_client, query="  ")
    assert_error(excinfo, core_exceptions.InvalidArgument, "query.text is empty")
    with pytest.raises(core_exceptions.NotFound):
        list(
            answer_client.stream_answer_query(
                request=de.AnswerQueryRequest(
                    serving_config=serving_config("no-such-app", kind="engines"),
                    query={"text": QUESTION},
                ),
                **ONCE,
            )
        )


def test_v1beta_client(emulator):
    client = versioned_client(
        discoveryengine_v1beta, "ConversationalSearchServiceClient", emulator.address
    )
    beta = discoveryengine_v1beta.AnswerQueryRequest(
        serving_config=CONFIG, query={"text": QUESTION}
    )
    responses = list(client.stream_answer_query(request=beta, **ONCE))
    assert len(responses) >= 2
    assert responses[-1].answer.state == discoveryengine_v1beta.Answer.State.SUCCEEDED


async def test_async_client(emulator):
    client = versioned_client(
        de, "ConversationalSearchServiceAsyncClient", emulator.address, asynchronous=True
    )
    call = await client.stream_answer_query(request=request(), **ONCE)
    responses = [response async for response in call]
    assert [r.answer.state for r in responses[:-1]] == [STREAMING] * (len(responses) - 1)
    assert responses[-1].answer.state == SUCCEEDED
    joined = "".join(r.answer.answer_text for r in responses[:-1])
    assert joined == responses[-1].answer.answer_text
