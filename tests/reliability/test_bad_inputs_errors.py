"""Errors classified once, their texts bounded: deep nesting on every filter-like field is
``INVALID_ARGUMENT`` naming the field (never ``INTERNAL``), an input quoted in an error is an
excerpt (never a ``RESOURCE_EXHAUSTED`` for an overlong error text), an oversized request is
Google's ``INVALID_ARGUMENT``, and a fault injector or server option that cannot work is a
``ValueError`` naming the argument. Through Google's own clients on a real channel."""

import math

import grpc
import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import types as dk
from google.developer_knowledge_v1.services.developer_knowledge import DeveloperKnowledgeClient

from grounding_core import (
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    InvalidRequestError,
)
from grounding_emulator import EmulatorServer
from grounding_emulator.search.filters import MAX_FILTER_DEPTH, MAX_FILTER_LENGTH
from grounding_emulator.wire.handlers import MAX_STATUS_MESSAGE_BYTES
from grounding_emulator.wire.server import DEFAULT_MAX_REQUEST_BYTES
from tests.reliability.bad_input_table import clear_error_test, table_size_test

PROJECT = "test-project"
STORE = "test-docs"
SERVING = (
    f"projects/{PROJECT}/locations/global/collections/default_collection/dataStores/{STORE}"
    "/servingConfigs/default_search"
)
DATA_STORE = (
    f"projects/{PROJECT}/locations/global/collections/default_collection/dataStores/{STORE}"
)
ONCE = {"retry": None, "timeout": 30.0}
LONG = 20_000  # over gRPC's 16 KiB header limit, had the error echoed the input

DEEP = "(" * 600 + 'lang: ANY("en")' + ")" * 600
NOTS = "NOT " * 600 + 'lang: ANY("en")'
DASHES = "-" * 600 + 'lang: ANY("en")'
NESTED_ANDS = 'lang: ANY("en") AND (' * 600 + 'lang: ANY("en")' + ")" * 600
MALFORMED = 'lang: ANY("en") AND ' + "x" * LONG + " >"
DEEP_FIELD = ".".join(["a"] * 5_000) + " = 1"
TOO_LONG = " OR ".join(['lang: ANY("en")'] * 4_000)


def _channel(emulator):
    return grpc.insecure_channel(
        emulator.address,
        options=[("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)],
    )


def _client(cls, emulator):
    return cls(transport=cls.get_transport_class("grpc")(channel=_channel(emulator)))


def search(emulator, **fields):
    fields.setdefault("serving_config", SERVING)
    fields.setdefault("query", "lighthouse")
    return _client(de.SearchServiceClient, emulator).search(
        request=de.SearchRequest(**fields), **ONCE
    )


def answer(emulator, **search_params):
    return _client(de.ConversationalSearchServiceClient, emulator).answer_query(
        request=de.AnswerQueryRequest(
            serving_config=SERVING,
            query={"text": "lighthouse"},
            search_spec={"search_params": search_params},
        ),
        **ONCE,
    )


def check(emulator, **fields):
    fields.setdefault(
        "grounding_config",
        f"projects/{PROJECT}/locations/global/groundingConfigs/default_grounding_config",
    )
    fields.setdefault("answer_candidate", "Lighthouses guide ships.")
    return _client(de.GroundedGenerationServiceClient, emulator).check_grounding(
        request=de.CheckGroundingRequest(**fields), **ONCE
    )


def knowledge(emulator):
    return _client(DeveloperKnowledgeClient, emulator)


def boost(condition):
    return {"condition_boost_specs": [{"condition": condition, "boost": 0.5}]}


def fault(method, **rule):
    def call(emulator):
        kind = "delay" if "seconds" in rule else "fail"
        getattr(emulator.faults, kind)(method, **rule)

    return call


BAD_REQUEST = core_exceptions.InvalidArgument
PARENS = f"at most {MAX_FILTER_DEPTH} are allowed"

# (id, callable taking the emulator, expected exception, message fragments)
CASES = [
    # -- nesting: refused by a linear pre-scan, naming the field ---------------------------------
    (
        "filter 600 parentheses deep",
        lambda e: search(e, filter=DEEP),
        BAD_REQUEST,
        ["filter nests parentheses 601 levels deep", PARENS],
    ),
    (
        "filter of 600 NOTs",
        lambda e: search(e, filter=NOTS),
        BAD_REQUEST,
        ["filter has 600 negations (NOT or -) in a row", PARENS],
    ),
    (
        "filter of 600 dashes",
        lambda e: search(e, filter=DASHES),
        BAD_REQUEST,
        ["filter has 600 negations", PARENS],
    ),
    (
        "filter of nested AND chains",
        lambda e: search(e, filter=NESTED_ANDS),
        BAD_REQUEST,
        ["filter nests parentheses 601 levels deep"],
    ),
    (
        "boost condition 600 deep",
        lambda e: search(e, boost_spec=boost(DEEP)),
        BAD_REQUEST,
        ["boost_spec.condition_boost_specs[0].condition nests parentheses 601 levels deep"],
    ),
    (
        "data store spec filter 600 NOTs",
        lambda e: search(e, data_store_specs=[{"data_store": DATA_STORE, "filter": NOTS}]),
        BAD_REQUEST,
        ["data_store_specs[0].filter has 600 negations"],
    ),
    (
        "data store spec boost 600 deep",
        lambda e: search(
            e, data_store_specs=[{"data_store": DATA_STORE, "boost_spec": boost(DEEP)}]
        ),
        BAD_REQUEST,
        ["condition nests parentheses 601 levels deep"],
    ),
    (
        "answer query filter 600 deep",
        lambda e: answer(e, filter=NESTED_ANDS),
        BAD_REQUEST,
        ["search_spec.search_params.filter nests parentheses 601 levels deep"],
    ),
    (
        "answer query boost 600 NOTs",
        lambda e: answer(e, boost_spec=boost(NOTS)),
        BAD_REQUEST,
        ["condition has 600 negations"],
    ),
    (
        "Developer Knowledge filter 200 deep",
        lambda e: knowledge(e).search_document_chunks(
            request=dk.SearchDocumentChunksRequest(
                query="for", filter="(" * 200 + 'uri = "x"' + ")" * 200
            ),
            **ONCE,
        ),
        BAD_REQUEST,
        ["filter nests parentheses 200 levels deep", PARENS],
    ),
    (
        "Developer Knowledge answer filter 120 NOTs",
        lambda e: knowledge(e).answer_query(
            request=dk.AnswerQueryRequest(query="for", filter="NOT " * 120 + 'uri = "x"'),
            **ONCE,
        ),
        BAD_REQUEST,
        ["filter has 120 negations"],
    ),
    (
        "core search with a filter 600 deep",
        lambda e: DiscoveryEngineChunkSearch(
            DiscoveryEngineConnection(project_id=PROJECT, emulator_host=e.address),
            data_store_id=STORE,
            filter=DEEP,
        ).search("lighthouse"),
        InvalidRequestError,
        ["INVALID_ARGUMENT", "filter nests parentheses 601 levels deep"],
    ),
    (
        "filter over the length bound",
        lambda e: search(e, filter=TOO_LONG),
        BAD_REQUEST,
        [f"filter has {len(TOO_LONG)} characters; at most {MAX_FILTER_LENGTH} are allowed"],
    ),
    (
        "ListSessions filter of 600 NOTs",
        lambda e: list(
            _client(de.SessionServiceClient, e).list_sessions(
                request={"parent": DATA_STORE, "filter": "NOT " * 600 + 'user_pseudo_id = "u"'},
                **ONCE,
            )
        ),
        BAD_REQUEST,
        ["filter has 600 negations (NOT or -) in a row; at most 100 are allowed"],
    ),
    (
        "ListConversations filter 600 deep",
        lambda e: list(
            _client(de.ConversationalSearchServiceClient, e).list_conversations(
                request={
                    "parent": DATA_STORE,
                    "filter": "(" * 600 + "state = IN_PROGRESS" + ")" * 600,
                },
                **ONCE,
            )
        ),
        BAD_REQUEST,
        ["filter nests parentheses 600 levels deep; at most 100 are allowed"],
    ),
    # -- long inputs quoted as excerpts -------------------------------------------------------
    (
        "malformed 20k-character filter",
        lambda e: search(e, filter=MALFORMED),
        BAD_REQUEST,
        ["filter is malformed: unexpected end of input at column 20022", "(20022 characters)"],
    ),
    (
        "malformed 20k-character boost condition",
        lambda e: search(e, boost_spec=boost(MALFORMED)),
        BAD_REQUEST,
        ["boost_spec.condition_boost_specs[0].condition is malformed", "(20022 characters)"],
    ),
    (
        "filter on a 10k-character field path",
        lambda e: search(e, filter=DEEP_FIELD),
        BAD_REQUEST,
        ["is not a struct_data field of data store 'test-docs'", "(9999 characters)"],
    ),
    (
        "malformed 20k-character order_by",
        lambda e: search(e, order_by="x" * LONG + " upward"),
        BAD_REQUEST,
        ["order_by: 'xxx", "(20007 characters) is not 'field', 'field asc' or 'field desc'"],
    ),
    (
        "order_by on a 10k-character field path",
        lambda e: search(e, order_by=".".join(["a"] * 5_000)),
        BAD_REQUEST,
        ["(9999 characters) is not a struct_data field"],
    ),
    (
        "20k-character facet order_by",
        lambda e: search(e, facet_specs=[{"facet_key": {"key": "lang", "order_by": "x" * LONG}}]),
        BAD_REQUEST,
        ["facet_specs[0].facet_key.order_by must be", f"({LONG} characters)"],
    ),
    (
        "20k-character session",
        lambda e: search(e, session="x" * LONG),
        BAD_REQUEST,
        ["session 'xxx", f"({LONG} characters)"],
    ),
    (
        "20k-character data store spec",
        lambda e: search(e, data_store_specs=[{"data_store": "y" * LONG}]),
        BAD_REQUEST,
        ["data_store_specs[0].data_store 'yyy", f"({LONG} characters) is not a data store name"],
    ),
    (
        "20k-character serving config",
        lambda e: search(e, serving_config="x" * LONG),
        BAD_REQUEST,
        ["serving_config 'xxx", f"({LONG} characters) is not a serving config name"],
    ),
    (
        "20k-character grounding config",
        lambda e: check(e, grounding_config="x" * LONG),
        BAD_REQUEST,
        ["grounding_config 'xxx", f"({LONG} characters) is not a grounding config name"],
    ),
    (
        "20k-character literal for a number field",
        lambda e: search(e, filter='rank = "' + "9" * LONG + '"'),
        BAD_REQUEST,
        ["rank is a number field", f"({LONG} characters)"],
    ),
    # -- request size: Google's front end's status and text -----------------------------------
    (
        "11 MB request",
        lambda e: search(e, query="q" * (11 * 1024 * 1024)),
        BAD_REQUEST,
        [f"Request payload size exceeds the limit: {DEFAULT_MAX_REQUEST_BYTES} bytes."],
    ),
    # -- the fault injector validates its rules ------------------------------------------------
    (
        "fault code not a status",
        fault("Search", code="NOT_A_CODE"),
        ValueError,
        ["code must be a grpc.StatusCode or its name, got 'NOT_A_CODE'", "valid names: CANCELLED"],
    ),
    (
        "fault code in lower case",
        fault("Search", code="unavailable"),
        ValueError,
        ["did you mean 'UNAVAILABLE'?"],
    ),
    (
        "fault code a number",
        fault("Search", code=14),
        ValueError,
        ["got 14", "valid names:"],
    ),
    ("fault code OK", fault("Search", code="OK"), ValueError, ["cannot have the status OK"]),
    (
        "fault delay infinite",
        fault("Search", seconds=math.inf),
        ValueError,
        ["seconds must be a finite number >= 0, got inf"],
    ),
    (
        "fault delay NaN",
        fault("Search", seconds=math.nan),
        ValueError,
        ["seconds must be a finite number >= 0, got nan"],
    ),
    (
        "fault delay negative",
        fault("Search", seconds=-1),
        ValueError,
        ["seconds must be a finite number >= 0, got -1"],
    ),
    (
        "fault delay a string",
        fault("Search", seconds="1"),
        ValueError,
        ["seconds must be a finite number >= 0, got '1'"],
    ),
    (
        "fault times 0",
        fault("Search", code="INTERNAL", times=0),
        ValueError,
        ["times must be an int >= 1, or None for every call, got 0"],
    ),
    (
        "fault times a float",
        fault("Search", seconds=1, times=1.5),
        ValueError,
        ["times must be an int >= 1", "got 1.5"],
    ),
    (
        "fault on a misspelt method",
        fault("Serch", code="UNAVAILABLE"),
        ValueError,
        [
            "method 'Serch' is not an RPC the emulator serves",
            "did you mean 'Search' or 'SearchLite'?",
        ],
    ),
    (
        "fault on a misspelt full path",
        fault("/google.cloud.discoveryengine.v1.SearchService/Serch", seconds=1),
        ValueError,
        ["did you mean '/google.cloud.discoveryengine.v1.SearchService/Search'"],
    ),
    (
        "fault on a method of another service",
        fault("/google.cloud.discoveryengine.v1.SearchService/CheckGrounding", code="INTERNAL"),
        ValueError,
        ["is not an RPC the emulator serves", "short names: AnswerQuery"],
    ),
    (
        "fault message not a string",
        fault("Search", code="INTERNAL", message=3),
        ValueError,
        ["message must be a str, got int"],
    ),
    # -- server options -------------------------------------------------------------------------
    (
        "stop grace infinite",
        lambda e: EmulatorServer(e.store, stop_grace=math.inf),
        ValueError,
        ["stop_grace must be a finite number of seconds >= 0, got inf"],
    ),
    (
        "stop grace negative at stop",
        lambda e: EmulatorServer(e.store).stop(grace=-1),
        ValueError,
        ["grace must be a finite number of seconds >= 0, got -1"],
    ),
    (
        "max request bytes 0",
        lambda e: EmulatorServer(e.store, max_request_bytes=0),
        ValueError,
        ["max_request_bytes must be a positive int (bytes), got 0"],
    ),
]

QUOTING = [case for case in CASES if any("characters)" in f for f in case[3])]


test_the_table_is_big_enough = table_size_test(CASES, minimum=40)


def _no_rule_armed(emulator):
    assert emulator.faults.pending == 0  # a refused rule is not armed


test_bad_input_gets_a_clear_error = clear_error_test(CASES, after=_no_rule_armed)


@pytest.mark.parametrize(
    ("name", "call", "error", "fragments"), QUOTING, ids=[c[0] for c in QUOTING]
)
def test_a_quoted_input_is_an_excerpt(emulator, name, call, error, fragments):
    with pytest.raises(error) as info:
        call(emulator)
    message = info.value.message
    assert len(message) < 700
    assert len(message.encode()) < MAX_STATUS_MESSAGE_BYTES
    assert "…" in message


def test_the_emulator_still_serves_after_all_of_that(emulator):
    for _, call, error, _ in CASES:
        with pytest.raises(error):
            call(emulator)
    assert emulator.running
    page = search(emulator, filter='NOT (lang: ANY("ja") OR group: ANY("odd"))', page_size=3)
    assert [r.document.struct_data["group"] for r in page.results] == ["even"] * 3
    response = knowledge(emulator).search_document_chunks(
        request=dk.SearchDocumentChunksRequest(query="for statement"), **ONCE
    )
    assert response.results
