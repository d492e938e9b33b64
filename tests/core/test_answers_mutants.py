"""AnswerQuery calls: every request field, the filter refusal, the call options and the error's
resource (what ``make mutation`` found unasserted in ``grounding_core.answers``). The calls go
to the session emulator."""

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    AnswerSpec,
    CallOptions,
    ConfigurationError,
    DiscoveryEngineTarget,
    GroundedAnswer,
    InputError,
    NotFoundError,
)
from grounding_core.answers import (
    _discovery_engine_answer,
    aanswer_developer_query,
    aanswer_query,
    answer_developer_query,
    answer_query,
    answer_query_request,
    check_developer_filter,
    developer_answer_request,
)

from .emulated import PROJECT, RETRYING, result_of

ENGINE = DiscoveryEngineTarget(project=PROJECT, engine="test-app")
DATA_STORE = DiscoveryEngineTarget(project=PROJECT, data_store="test-docs")
QUESTION = "What does the lighthouse keeper number 11 describe?"
KNOWLEDGE = "How do I sort a list?"
MODE = de.SearchRequest.ContentSearchSpec.SearchResultMode


def test_the_default_request():
    request = answer_query_request(DATA_STORE, "q")
    assert request.serving_config == DATA_STORE.serving_config_path
    assert request.query.text == "q"
    assert request.session == ""
    generation = request.answer_generation_spec
    assert generation.include_citations is True
    assert (generation.answer_language_code, generation.prompt_spec.preamble) == ("", "")
    assert generation.model_spec.model_version == ""
    assert generation.ignore_adversarial_query is False
    assert generation.ignore_non_answer_seeking_query is False
    assert "ignore_low_relevant_content" not in generation
    params = request.search_spec.search_params
    assert (params.max_return_results, params.filter, params.order_by) == (10, "", "")
    assert params.search_result_mode == MODE.CHUNKS
    assert "boost_spec" not in params
    assert request.grounding_spec.include_grounding_supports is False
    assert request.related_questions_spec.enable is False


def test_every_option_reaches_the_request():
    spec = AnswerSpec(
        include_citations=False,
        max_return_results=3,
        filter="f",
        boost_spec={"condition_boost_specs": [{"condition": "c", "boost": 0.25}]},
        order_by="o",
        search_mode="documents",
        preamble="p",
        model_version="m",
        answer_language_code="de",
        include_grounding_supports=True,
        ignore_adversarial_query=True,
        ignore_non_answer_seeking_query=True,
        ignore_low_relevant_content=False,
        related_questions=True,
        session="s",
    )
    request = answer_query_request(ENGINE, "q", spec)
    assert request.session == ENGINE.session_path("s")
    generation = request.answer_generation_spec
    assert generation.include_citations is False
    assert (generation.answer_language_code, generation.prompt_spec.preamble) == ("de", "p")
    assert generation.model_spec.model_version == "m"
    assert generation.ignore_adversarial_query is True
    assert generation.ignore_non_answer_seeking_query is True
    assert "ignore_low_relevant_content" in generation
    assert generation.ignore_low_relevant_content is False
    params = request.search_spec.search_params
    assert (params.max_return_results, params.filter, params.order_by) == (3, "f", "o")
    assert params.search_result_mode == MODE.DOCUMENTS
    assert params.boost_spec.condition_boost_specs[0].boost == 0.25
    assert request.grounding_spec.include_grounding_supports is True
    assert request.related_questions_spec.enable is True
    with pytest.raises(InputError, match="query is empty"):
        answer_query_request(ENGINE, " ", spec)
    with pytest.raises(ConfigurationError, match="sessions belong to engines"):
        answer_query_request(DATA_STORE, "q", AnswerSpec(session="s"))


def test_developer_requests_and_filters():
    assert check_developer_filter("f" * 500) == "f" * 500
    for bad in ("f" * 501, None):
        with pytest.raises(InputError) as info:
            check_developer_filter(bad)
        assert str(info.value) == "filter must be a string of at most 500 characters"
        assert (info.value.field, info.value.limit) == ("filter", 500)
    request = developer_answer_request("q")
    assert (request.query, request.filter) == ("q", "")
    with pytest.raises(InputError) as info:
        developer_answer_request("q" * 501)
    assert (info.value.field, info.value.limit) == ("query", 500)


def _answer(asynchronous):
    return aanswer_query if asynchronous else answer_query


def _developer(asynchronous):
    return aanswer_developer_query if asynchronous else answer_developer_query


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_answers_use_the_spec_and_the_options(
    emulator, de_clients, de_async_clients, asynchronous
):
    clients = de_async_clients if asynchronous else de_clients
    emulator.faults.fail("AnswerQuery", code="UNAVAILABLE", times=1)
    answer = await result_of(
        _answer(asynchronous), clients, ENGINE, QUESTION, AnswerSpec(), RETRYING
    )
    assert isinstance(answer, GroundedAnswer)
    assert answer.state == "SUCCEEDED"
    assert answer.answer_text.startswith("Section 1 of document 11 talks about the lighthouse")
    assert answer.name.startswith(f"{ENGINE.parent_path}/sessions/-/answers/")
    assert answer.citations[0].references[0].document_id == "page-11"
    uncited = await result_of(_answer(asynchronous), clients, ENGINE, QUESTION, AnswerSpec(False))
    assert uncited.answer_text == answer.answer_text
    assert uncited.citations == ()
    emulator.faults.fail("AnswerQuery", code="NOT_FOUND", times=1)
    with pytest.raises(NotFoundError) as info:
        await result_of(
            _answer(asynchronous), clients, ENGINE, QUESTION, AnswerSpec(), CallOptions(retry=None)
        )
    assert str(info.value).startswith(f"AnswerQuery on {ENGINE.serving_config_path} failed: ")


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_developer_answers_use_the_filter_and_the_options(
    emulator, dk_clients, dk_async_clients, asynchronous
):
    clients = dk_async_clients if asynchronous else dk_clients
    emulator.faults.fail("AnswerQuery", code="UNAVAILABLE", times=1)
    answer = await result_of(_developer(asynchronous), clients, KNOWLEDGE, "", RETRYING)
    assert answer.answer_text.startswith("If set to")
    assert answer.citations[0].references[0].uri.startswith("https://docs.python.org/")
    filtered = await result_of(
        _developer(asynchronous), clients, KNOWLEDGE, 'data_source = "nowhere"'
    )
    assert filtered.citations == ()
    emulator.faults.fail("AnswerQuery", code="NOT_FOUND", times=1)
    with pytest.raises(NotFoundError) as info:
        await result_of(_developer(asynchronous), clients, KNOWLEDGE, "", CallOptions(retry=None))
    assert str(info.value).startswith("AnswerQuery on the Developer Knowledge corpus failed: ")


def test_the_response_session_reaches_the_answer():
    # The emulator keeps no sessions: the session name is read from a response built here.
    session = f"{ENGINE.parent_path}/sessions/s1"
    response = de.AnswerQueryResponse(
        answer=de.Answer(answer_text="Yes.", state=de.Answer.State.SUCCEEDED),
        session=de.Session(name=session),
    )
    answer = _discovery_engine_answer(response)
    assert (answer.answer_text, answer.session, answer.state) == ("Yes.", session, "SUCCEEDED")


async def test_developer_answers_use_no_filter_by_default(dk_clients, dk_async_clients):
    for answer in (
        answer_developer_query(dk_clients, KNOWLEDGE),
        await aanswer_developer_query(dk_async_clients, KNOWLEDGE),
    ):
        assert answer.citations[0].references[0].uri.startswith("https://docs.python.org/")
