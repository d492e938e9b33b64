"""AnswerQuery calls: every request field, the filter refusal, the call options and the error's
resource (what ``make mutation`` found unasserted in ``grounding_core.answers``). The calls go
to the session emulator."""

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    AnswerSpec,
    CallOptions,
    ConfigurationError,
    DataStoreSpec,
    DiscoveryEngineTarget,
    GroundedAnswer,
    InputError,
    NotFoundError,
    Turn,
)
from grounding_core.answers import (
    aanswer_developer_query,
    aanswer_query,
    answer_developer_query,
    answer_query,
    answer_query_request,
    check_developer_filter,
    data_store_name,
    developer_answer_request,
    discovery_engine_answer,
)
from grounding_core.specs import QUERY_CLASSIFICATION_TYPES

from .emulated import PROJECT, RETRYING, result_of

ENGINE = DiscoveryEngineTarget(project=PROJECT, engine="test-app")
DATA_STORE = DiscoveryEngineTarget(project=PROJECT, data_store="test-docs")
QUESTION = "What does the lighthouse keeper number 11 describe?"
KNOWLEDGE = "How do I sort a list?"
MODE = de.SearchRequest.ContentSearchSpec.SearchResultMode
FILTERING = de.AnswerQueryRequest.GroundingSpec.FilteringLevel
CLASSIFICATION = de.AnswerQueryRequest.QueryUnderstandingSpec.QueryClassificationSpec.Type


def test_the_default_request():
    request = answer_query_request(DATA_STORE, "q")
    assert request.serving_config == DATA_STORE.serving_config_path
    assert request.query.text == "q"
    assert request.session == ""
    assert request.user_pseudo_id == ""
    generation = request.answer_generation_spec
    assert generation.include_citations is True
    assert (generation.answer_language_code, generation.prompt_spec.preamble) == ("", "")
    assert generation.model_spec.model_version == ""
    assert generation.ignore_adversarial_query is False
    assert generation.ignore_non_answer_seeking_query is False
    assert generation.ignore_jail_breaking_query is False
    assert "ignore_low_relevant_content" not in generation
    params = request.search_spec.search_params
    assert (params.max_return_results, params.filter, params.order_by) == (10, "", "")
    assert params.search_result_mode == MODE.CHUNKS
    assert "boost_spec" not in params
    assert list(params.data_store_specs) == []
    assert request.grounding_spec.include_grounding_supports is False
    assert request.grounding_spec.filtering_level == FILTERING.FILTERING_LEVEL_UNSPECIFIED
    assert request.related_questions_spec.enable is False
    assert request.safety_spec.enable is False
    understanding = request.query_understanding_spec
    assert understanding.query_rephraser_spec.disable is False
    assert understanding.query_rephraser_spec.max_rephrase_steps == 0
    assert list(understanding.query_classification_spec.types) == []
    assert understanding.disable_spell_correction is False


def test_no_search_mode_sends_none():
    params = answer_query_request(DATA_STORE, "q", AnswerSpec(search_mode=None)).search_spec
    assert "search_result_mode" not in params.search_params
    assert params.search_params.search_result_mode == MODE.SEARCH_RESULT_MODE_UNSPECIFIED


def test_every_option_reaches_the_request():
    spec = AnswerSpec(
        include_citations=False,
        max_return_results=3,
        filter="f",
        boost_spec={"condition_boost_specs": [{"condition": "c", "boost": 0.25}]},
        order_by="o",
        search_mode="documents",
        data_store_specs=[
            DataStoreSpec("manuals", filter='lang: ANY("en")'),
            DataStoreSpec(
                "projects/123/locations/global/dataStores/faq",
                boost_spec={"condition_boost_specs": [{"condition": "c", "boost": 0.5}]},
            ),
        ],
        preamble="p",
        model_version="m",
        answer_language_code="de",
        include_grounding_supports=True,
        filtering_level="high",
        ignore_adversarial_query=True,
        ignore_non_answer_seeking_query=True,
        ignore_jail_breaking_query=True,
        ignore_low_relevant_content=False,
        safety_filtering=True,
        related_questions=True,
        disable_query_rephraser=True,
        max_rephrase_steps=5,
        query_classification_types=["adversarial_query", "non_answer_seeking_query_v2"],
        disable_spell_correction=True,
        user_pseudo_id="visitor-1",
        session="s",
    )
    request = answer_query_request(ENGINE, "q", spec)
    assert request.session == ENGINE.session_path("s") == f"{ENGINE.parent_path}/sessions/s"
    assert request.user_pseudo_id == "visitor-1"
    generation = request.answer_generation_spec
    assert generation.include_citations is False
    assert (generation.answer_language_code, generation.prompt_spec.preamble) == ("de", "p")
    assert generation.model_spec.model_version == "m"
    assert generation.ignore_adversarial_query is True
    assert generation.ignore_non_answer_seeking_query is True
    assert generation.ignore_jail_breaking_query is True
    assert "ignore_low_relevant_content" in generation
    assert generation.ignore_low_relevant_content is False
    params = request.search_spec.search_params
    assert (params.max_return_results, params.filter, params.order_by) == (3, "f", "o")
    assert params.search_result_mode == MODE.DOCUMENTS
    assert params.boost_spec.condition_boost_specs[0].boost == 0.25
    assert [(s.data_store, s.filter) for s in params.data_store_specs] == [
        (
            f"{ENGINE.location_path}/collections/default_collection/dataStores/manuals",
            'lang: ANY("en")',
        ),
        ("projects/123/locations/global/dataStores/faq", ""),
    ]
    assert "boost_spec" not in params.data_store_specs[0]
    assert params.data_store_specs[1].boost_spec.condition_boost_specs[0].boost == 0.5
    assert request.grounding_spec.include_grounding_supports is True
    assert request.grounding_spec.filtering_level == FILTERING.FILTERING_LEVEL_HIGH
    assert request.related_questions_spec.enable is True
    assert request.safety_spec.enable is True
    understanding = request.query_understanding_spec
    assert understanding.query_rephraser_spec.disable is True
    assert understanding.query_rephraser_spec.max_rephrase_steps == 5
    assert list(understanding.query_classification_spec.types) == [
        CLASSIFICATION.ADVERSARIAL_QUERY,
        CLASSIFICATION.NON_ANSWER_SEEKING_QUERY_V2,
    ]
    assert understanding.disable_spell_correction is True
    low = answer_query_request(ENGINE, "q", AnswerSpec(filtering_level="low"))
    assert low.grounding_spec.filtering_level == FILTERING.FILTERING_LEVEL_LOW
    with pytest.raises(InputError, match="query is empty"):
        answer_query_request(ENGINE, " ", spec)


def test_every_classification_type_has_its_enum():
    spec = AnswerSpec(query_classification_types=list(QUERY_CLASSIFICATION_TYPES))
    types = answer_query_request(ENGINE, "q", spec).query_understanding_spec
    assert [CLASSIFICATION(t).name for t in types.query_classification_spec.types] == [
        "ADVERSARIAL_QUERY",
        "NON_ANSWER_SEEKING_QUERY",
        "JAIL_BREAKING_QUERY",
        "NON_ANSWER_SEEKING_QUERY_V2",
        "USER_DEFINED_CLASSIFICATION_QUERY",
    ]


def test_sessions_of_data_stores_and_by_resource_name():
    request = answer_query_request(DATA_STORE, "q", AnswerSpec(session="-"))
    assert request.session == f"{DATA_STORE.parent_path}/sessions/-"
    # The name a response gives back (Google's may carry the project number): used as it is.
    name = (
        "projects/123/locations/global/collections/default_collection/engines/test-app/sessions/9"
    )
    assert answer_query_request(ENGINE, "q", AnswerSpec(session=name)).session == name
    with pytest.raises(ConfigurationError, match="is not a session of"):
        answer_query_request(DATA_STORE, "q", AnswerSpec(session=name))
    with pytest.raises(ConfigurationError, match="session 'a/b' is not a valid resource id"):
        answer_query_request(ENGINE, "q", AnswerSpec(session="a/b"))
    collection_less = DiscoveryEngineTarget(project=PROJECT, data_store="d", collection=None)
    request = answer_query_request(
        collection_less, "q", AnswerSpec(data_store_specs=[DataStoreSpec("d")])
    )
    assert [s.data_store for s in request.search_spec.search_params.data_store_specs] == [
        f"projects/{PROJECT}/locations/global/dataStores/d"
    ]
    assert data_store_name(ENGINE, "projects/1/x") == "projects/1/x"


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
    emulator.faults.fail("AnswerQuery", code="NOT_FOUND", times=1)
    with pytest.raises(NotFoundError) as info:
        await result_of(_answer(asynchronous), clients, ENGINE, QUESTION, AnswerSpec(session="s9"))
    session = ENGINE.session_path("s9")
    assert str(info.value).startswith(
        f"AnswerQuery on {ENGINE.serving_config_path} (session {session}) failed: NOT_FOUND"
    )


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
    # Read from responses built here: one without turns, one with them.
    session = f"{ENGINE.parent_path}/sessions/s1"
    response = de.AnswerQueryResponse(
        answer=de.Answer(answer_text="Yes.", state=de.Answer.State.SUCCEEDED),
        session=de.Session(name=session),
    )
    answer = discovery_engine_answer(de.AnswerQueryResponse.pb(response))
    assert (answer.answer_text, answer.session, answer.state) == ("Yes.", session, "SUCCEEDED")
    assert answer.turns == ()
    response.session.turns.append(
        de.Session.Turn(query=de.Query(text="Why?", query_id="q1"), answer=f"{session}/answers/a1")
    )
    answer = discovery_engine_answer(de.AnswerQueryResponse.pb(response))
    assert answer.turns == (Turn(query="Why?", query_id="q1", answer=f"{session}/answers/a1"),)
    assert answer.answer_text == "Yes."


async def test_developer_answers_use_no_filter_by_default(dk_clients, dk_async_clients):
    for answer in (
        answer_developer_query(dk_clients, KNOWLEDGE),
        await aanswer_developer_query(dk_async_clients, KNOWLEDGE),
    ):
        assert answer.citations[0].references[0].uri.startswith("https://docs.python.org/")
