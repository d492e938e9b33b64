"""Every documented validation error: its gRPC status (as Google's client raises it) and a
message that names the field."""

from __future__ import annotations

import grpc
import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import types as dk

from grounding_emulator import CorpusStore, EmulatorServer
from tests.emulator.conftest import GROUNDING_CONFIG, ONCE, assert_error, serving_config

CHUNKS = de.SearchRequest.ContentSearchSpec.SearchResultMode.CHUNKS
DOCUMENTS = de.SearchRequest.ContentSearchSpec.SearchResultMode.DOCUMENTS
BAD = core_exceptions.InvalidArgument
MISSING = core_exceptions.NotFound


def search(client, **fields):
    fields.setdefault("serving_config", serving_config())
    fields.setdefault("query", "lighthouse")
    pager = client.search(request=de.SearchRequest(**fields), **ONCE)
    return next(iter(pager.pages))


SEARCH_ERRORS = [
    ({"page_size": -1}, BAD, ["page_size must be >= 0, got -1"]),
    ({"offset": -5}, BAD, ["offset must be >= 0, got -5"]),
    (
        {"content_search_spec": {"search_result_mode": DOCUMENTS, "chunk_spec": {}}},
        BAD,
        ["content_search_spec.chunk_spec", "CHUNKS", "got DOCUMENTS"],
    ),
    (
        {"content_search_spec": {"chunk_spec": {"num_next_chunks": 1}}},
        BAD,
        ["content_search_spec.chunk_spec is only allowed"],
    ),
    (
        {
            "content_search_spec": {
                "search_result_mode": CHUNKS,
                "chunk_spec": {"num_next_chunks": 4},
            }
        },
        BAD,
        ["content_search_spec.chunk_spec.num_next_chunks must be between 0 and 3, got 4"],
    ),
    (
        {
            "content_search_spec": {
                "search_result_mode": CHUNKS,
                "chunk_spec": {"num_previous_chunks": -1},
            }
        },
        BAD,
        ["num_previous_chunks must be between 0 and 3, got -1"],
    ),
    ({"filter": 'lang: ANY("en"'}, BAD, ["filter is malformed", "end of input"]),
    ({"filter": "lang ~ 3"}, BAD, ["filter is malformed", "'~' at column 6"]),
    (
        {"filter": 'rank < "ten"'},
        BAD,
        ["filter: rank is a number field of data store 'test-docs' and < 'ten' does not apply"],
    ),
    (
        {"filter": 'lang = "en"'},
        BAD,
        ["filter: lang is a text field", 'write lang: ANY("value")'],
    ),
    ({"filter": 'lang != "en"'}, BAD, ["filter: != is not in the filter grammar"]),
    ({"filter": 'colour: ANY("red")'}, BAD, ["filter: 'colour' is not a struct_data field"]),
    ({"order_by": "colour"}, BAD, ["order_by: 'colour' is not a struct_data field"]),
    ({"order_by": "rank sideways"}, BAD, ["order_by: 'rank sideways'"]),
    ({"page_token": "not-a-token!"}, BAD, ["page_token is malformed"]),
    (
        {"boost_spec": {"condition_boost_specs": [{"condition": "rank < 3", "boost": 2.0}]}},
        BAD,
        ["boost_spec.condition_boost_specs[0].boost must be between -1 and 1, got 2.0"],
    ),
    (
        {"boost_spec": {"condition_boost_specs": [{"condition": "rank <", "boost": 0.5}]}},
        BAD,
        ["boost_spec.condition_boost_specs[0].condition is malformed"],
    ),
    ({"serving_config": "projects/p/dataStores/x"}, BAD, ["serving_config", "is not a serving"]),
    ({"serving_config": ""}, BAD, ["serving_config is required"]),
    (
        {"serving_config": serving_config("test-app", kind="engines", collection=None)},
        BAD,
        ["engines live in a collection"],
    ),
    ({"serving_config": serving_config("nope")}, MISSING, ["data store 'nope' not found"]),
    (
        {"serving_config": serving_config("nope", kind="engines")},
        MISSING,
        ["engine 'nope' not found"],
    ),
    (
        {"serving_config": serving_config(serving_config_id="custom")},
        MISSING,
        ["serving config 'custom' not found"],
    ),
    (
        {"serving_config": serving_config(collection="other")},
        MISSING,
        ["collection 'other' not found"],
    ),
]


@pytest.mark.parametrize(("fields", "error", "fragments"), SEARCH_ERRORS)
def test_search_errors(search_client, fields, error, fragments):
    with pytest.raises(error) as excinfo:
        search(search_client, **fields)
    assert_error(excinfo, error, *fragments)


def test_page_token_is_bound_to_its_query(search_client):
    page = search(search_client, page_size=10)
    assert page.next_page_token
    with pytest.raises(BAD) as excinfo:
        search(search_client, query="keeper", page_size=10, page_token=page.next_page_token)
    assert_error(excinfo, BAD, "page_token does not belong to this request")


def check(client, answer="Paris is in France.", facts=("Paris is in France.",), **fields):
    request = de.CheckGroundingRequest(
        grounding_config=fields.pop("grounding_config", GROUNDING_CONFIG),
        answer_candidate=answer,
        facts=[{"fact_text": f} for f in facts],
        **fields,
    )
    return client.check_grounding(request=request, **ONCE)


CHECK_ERRORS = [
    ({"answer": ""}, BAD, ["answer_candidate is empty"]),
    ({"answer": " \n\t"}, BAD, ["answer_candidate is empty"]),
    ({"facts": ["fact"] * 201}, BAD, ["facts has 201 entries; at most 200 are allowed"]),
    ({"facts": ["ok", "x" * 10_001]}, BAD, ["facts[1].fact_text has 10001 characters"]),
    ({"answer": "word " * 5000}, BAD, ["answer_candidate has about 5000 tokens"]),
    (
        {"grounding_spec": {"citation_threshold": 1.5}},
        BAD,
        ["grounding_spec.citation_threshold must be between 0 and 1, got 1.5"],
    ),
    (
        {"grounding_spec": {"citation_threshold": -0.1}},
        BAD,
        ["grounding_spec.citation_threshold must be between 0 and 1, got -0.1"],
    ),
    (
        {"grounding_config": "projects/p/groundingConfigs/x"},
        BAD,
        ["grounding_config", "is not a grounding config name"],
    ),
    (
        {"grounding_config": "projects/p/locations/global/groundingConfigs/custom"},
        MISSING,
        ["grounding config 'custom' not found"],
    ),
]


@pytest.mark.parametrize(("fields", "error", "fragments"), CHECK_ERRORS)
def test_check_grounding_errors(grounding_client, fields, error, fragments):
    with pytest.raises(error) as excinfo:
        check(grounding_client, **fields)
    assert_error(excinfo, error, *fragments)


def answer(client, query="What does the lighthouse keeper do?", **fields):
    request = de.AnswerQueryRequest(
        serving_config=fields.pop("serving_config", serving_config()),
        query={"text": query},
        **fields,
    )
    return client.answer_query(request=request, **ONCE)


ANSWER_ERRORS = [
    ({"query": ""}, BAD, ["query.text is empty"]),
    ({"serving_config": "engines/x"}, BAD, ["serving_config", "is not a serving config name"]),
    ({"serving_config": serving_config("gone", kind="engines")}, MISSING, ["engine 'gone'"]),
    (
        {"search_spec": {"search_params": {"filter": "rank <"}}},
        BAD,
        ["search_spec.search_params.filter is malformed"],
    ),
    (
        {"search_spec": {"search_params": {"max_return_results": -1}}},
        BAD,
        ["max_return_results must be >= 0, got -1"],
    ),
    (
        {"search_spec": {"search_result_list": {"search_results": [{"chunk_info": {}}]}}},
        BAD,
        ["search_spec.search_result_list is not supported"],
    ),
]


@pytest.mark.parametrize(("fields", "error", "fragments"), ANSWER_ERRORS)
def test_answer_query_errors(answer_client, fields, error, fragments):
    with pytest.raises(error) as excinfo:
        answer(answer_client, **fields)
    assert_error(excinfo, error, *fragments)


def dk_search(client, **fields):
    fields.setdefault("query", "yield statement")
    pager = client.search_document_chunks(request=dk.SearchDocumentChunksRequest(**fields), **ONCE)
    return next(iter(pager.pages))


DK_SEARCH_ERRORS = [
    ({"query": ""}, ["query is required"]),
    ({"query": "q" * 501}, ["query has 501 characters; at most 500 are allowed"]),
    ({"filter": 'uri = "' + "x" * 500 + '"'}, ["filter has 508 characters"]),
    ({"filter": 'language = "en"'}, ["filter: 'language' is not a filterable field"]),
    ({"filter": 'uri > "a"'}, ["uri is a string field and supports only = and !="]),
    ({"filter": 'update_time < "last week"'}, ["update_time needs an RFC 3339 timestamp"]),
    ({"filter": "content_length_bytes < 1.5"}, ["content_length_bytes needs an integer"]),
    ({"filter": 'data_source = "a" AND'}, ["filter is malformed"]),
    ({"page_size": -2}, ["page_size must be >= 0, got -2"]),
]


@pytest.mark.parametrize(("fields", "fragments"), DK_SEARCH_ERRORS)
def test_developer_knowledge_search_errors(dk_client, fields, fragments):
    with pytest.raises(BAD) as excinfo:
        dk_search(dk_client, **fields)
    assert_error(excinfo, BAD, *fragments)


@pytest.mark.parametrize(
    ("name", "error", "fragment"),
    [
        ("", BAD, "name is required"),
        ("docs.python.org/3/x", BAD, "is not a document name"),
        ("documents/https://docs.python.org/x", BAD, "is not a document name"),
        ("documents/" + "x" * 600, BAD, "at most 500 are allowed"),
        ("documents/docs.python.org/3/nowhere", MISSING, "not found"),
    ],
)
def test_get_document_errors(dk_client, name, error, fragment):
    with pytest.raises(error) as excinfo:
        dk_client.get_document(request={"name": name}, **ONCE)
    assert_error(excinfo, error, fragment)


def test_batch_get_documents_limits(dk_client):
    with pytest.raises(BAD) as excinfo:
        dk_client.batch_get_documents(request={"names": ["documents/x"] * 21}, **ONCE)
    assert_error(excinfo, BAD, "names has 21 entries; at most 20 are allowed")
    with pytest.raises(BAD) as excinfo:
        dk_client.batch_get_documents(request={"names": []}, **ONCE)
    assert_error(excinfo, BAD, "names is required")
    with pytest.raises(MISSING) as excinfo:
        dk_client.batch_get_documents(request={"names": ["documents/a.example/missing"]}, **ONCE)
    assert_error(excinfo, MISSING, "documents/a.example/missing")


def test_developer_knowledge_answer_errors(dk_client):
    with pytest.raises(BAD) as excinfo:
        dk_client.answer_query(request={"query": " "}, **ONCE)
    assert_error(excinfo, BAD, "query is required")
    with pytest.raises(BAD) as excinfo:
        dk_client.answer_query(request={"query": "yield", "filter": "uri ="}, **ONCE)
    assert_error(excinfo, BAD, "filter is malformed")


def test_garbage_request_is_invalid_argument(emulator):
    with grpc.insecure_channel(emulator.address) as channel:
        call = channel.unary_unary("/google.cloud.discoveryengine.v1.SearchService/Search")
        with pytest.raises(grpc.RpcError) as excinfo:
            call(b"\xff\xff\xff\xff garbage", timeout=10)
    assert excinfo.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not a valid google.cloud.discoveryengine.v1.SearchRequest" in excinfo.value.details()
    # The emulator keeps serving.
    with grpc.insecure_channel(emulator.address) as channel:
        call = channel.unary_unary("/google.cloud.discoveryengine.v1.SearchService/Search")
        request = de.SearchRequest(serving_config=serving_config(), query="lighthouse")
        response = de.SearchResponse.deserialize(
            call(de.SearchRequest.serialize(request), timeout=10)
        )
    assert response.total_size > 0


def test_oversized_request_is_invalid_argument_as_google_says_it():
    """Google's API front end: INVALID_ARGUMENT "Request payload size exceeds the limit: N
    bytes."; beyond four times the limit gRPC refuses it before the emulator sees it."""
    store = CorpusStore()
    with (
        EmulatorServer(store, max_request_bytes=4096) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        call = channel.unary_unary(
            "/google.cloud.discoveryengine.v1.GroundedGenerationService/CheckGrounding"
        )
        request = de.CheckGroundingRequest(
            grounding_config=GROUNDING_CONFIG, answer_candidate="x " * 5000
        )
        with pytest.raises(grpc.RpcError) as excinfo:
            call(de.CheckGroundingRequest.serialize(request), timeout=10)
        assert excinfo.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert excinfo.value.details() == "Request payload size exceeds the limit: 4096 bytes."
        request.answer_candidate = "x " * 8200  # over 4 x 4096 bytes
        with pytest.raises(grpc.RpcError) as excinfo:
            call(de.CheckGroundingRequest.serialize(request), timeout=10)
        assert excinfo.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        request.answer_candidate = "x " * 2000  # within the limit
        assert call(de.CheckGroundingRequest.serialize(request), timeout=10)


def test_unknown_method_is_unimplemented(emulator):
    with grpc.insecure_channel(emulator.address) as channel:
        call = channel.unary_unary("/google.cloud.discoveryengine.v1.SearchService/Nope")
        with pytest.raises(grpc.RpcError) as excinfo:
            call(b"", timeout=10)
    assert excinfo.value.code() == grpc.StatusCode.UNIMPLEMENTED
