"""The REST transport: Google's unmodified clients built with ``transport="rest"``, and plain
HTTP/JSON, get what gRPC gets from the same servicers."""

from __future__ import annotations

import copy
import itertools
import json
import socket
import threading
import urllib.error
import urllib.request
from http.client import HTTPConnection

import pytest
from google import developer_knowledge_v1 as dk
from google.api_core import exceptions as core_exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1beta
from google.protobuf import field_mask_pb2

from grounding_emulator import CorpusStore, EmulatorServer, LexicalJudge
from grounding_emulator.errors import ListenError
from tests.emulator.conftest import GROUNDING_CONFIG, ONCE, assert_error, serving_config

ENGINE = serving_config("python-docs-app", kind="engines")
ENGINE_PARENT = ENGINE.rpartition("/servingConfigs/")[0]
DATA_STORE = serving_config("python-docs")
QUESTION = "What does the with statement do?"
RANKING_CONFIG = "projects/test-project/locations/global/rankingConfigs/default_ranking_config"


def rest_client(server: EmulatorServer, client_class):
    """Google's client of ``client_class``, on the emulator's REST transport."""
    return client_class(
        transport="rest",
        credentials=AnonymousCredentials(),
        client_options={"api_endpoint": server.rest_url},
    )


def http(server, verb, path, body=None, headers=()):
    """A plain HTTP call: ``(status, JSON body)``."""
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        server.rest_url + path, data=data, method=verb, headers=dict(headers)
    )
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def without(message, *fields):
    """``message`` with ``fields`` (dotted) cleared: what differs between two calls."""
    cleared = copy.deepcopy(type(message).pb(message))
    for field in fields:
        *parents, leaf = field.split(".")
        target = cleared
        for part in parents:
            target = getattr(target, part)
        target.ClearField(leaf)
    return cleared


# -- Google's clients, transport="rest" -------------------------------------------------------


def test_search_over_rest_answers_what_grpc_answers(emulator, search_client):
    request = de.SearchRequest(
        serving_config=DATA_STORE,
        query="with statement",
        page_size=3,
        content_search_spec={
            "search_result_mode": "CHUNKS",
            "chunk_spec": {"num_previous_chunks": 1},
        },
        relevance_score_spec={"return_relevance_score": True},
    )
    over_rest = rest_client(emulator, de.SearchServiceClient).search(request=request, **ONCE)
    over_grpc = search_client.search(request=request, **ONCE)
    assert over_rest.total_size > 0
    assert without(over_rest.raw_page, "attribution_token") == without(
        over_grpc.raw_page, "attribution_token"
    )
    # the pager fetches the next page over REST too (its page token in the body)
    chunks = [r.chunk.name for r in itertools.islice(over_rest, 5)]
    assert chunks == [r.chunk.name for r in itertools.islice(over_grpc, 5)]
    assert len(set(chunks)) == 5


def test_check_grounding_over_rest_answers_what_grpc_answers(emulator, grounding_client):
    request = de.CheckGroundingRequest(
        grounding_config=GROUNDING_CONFIG,
        answer_candidate="Paris is the capital of France. Zürich is in Spain.",
        facts=[{"fact_text": "Paris is the capital of France."}, {"fact_text": "Zürich."}],
        grounding_spec={"enable_claim_level_score": True},
    )
    client = rest_client(emulator, de.GroundedGenerationServiceClient)
    over_rest = client.check_grounding(request=request, **ONCE)
    assert over_rest == grounding_client.check_grounding(request=request, **ONCE)
    assert over_rest.claims[-1].end_pos == len(request.answer_candidate.encode())  # bytes


def test_answer_query_over_rest_answers_what_grpc_answers(emulator, answer_client):
    request = de.AnswerQueryRequest(
        serving_config=ENGINE,
        query={"text": QUESTION},
        answer_generation_spec={"include_citations": True},
        search_spec={"search_params": {"search_result_mode": "CHUNKS"}},
    )
    client = rest_client(emulator, de.ConversationalSearchServiceClient)
    over_rest = client.answer_query(request=request, **ONCE)
    over_grpc = answer_client.answer_query(request=request, **ONCE)
    volatile = ("answer.name", "answer.create_time", "answer.complete_time", "answer_query_token")
    assert without(over_rest, *volatile) == without(over_grpc, *volatile)
    assert over_rest.answer.citations
    assert over_rest.answer.references[0].chunk_info.content


def test_a_streamed_answer_over_rest_is_the_grpc_stream(emulator, answer_client):
    request = de.AnswerQueryRequest(serving_config=ENGINE, query={"text": QUESTION})
    client = rest_client(emulator, de.ConversationalSearchServiceClient)
    over_rest = list(client.stream_answer_query(request=request, **ONCE))
    over_grpc = list(answer_client.stream_answer_query(request=request, **ONCE))
    assert len(over_rest) == len(over_grpc) > 2
    assert [r.answer.state for r in over_rest] == [r.answer.state for r in over_grpc]
    assert [r.answer.answer_text for r in over_rest] == [r.answer.answer_text for r in over_grpc]
    assert over_rest[-1].answer.references == over_grpc[-1].answer.references


def test_rank_over_rest_answers_what_grpc_answers(emulator, de_connection):
    request = de.RankRequest(
        ranking_config=RANKING_CONFIG,
        query="capital of France",
        records=[
            {"id": "paris", "title": "Paris", "content": "Paris is the capital of France."},
            {"id": "moon", "content": "The Moon orbits the Earth."},
        ],
    )
    over_grpc = de_connection.client(de.RankServiceClient).rank(request=request, **ONCE)
    over_rest = rest_client(emulator, de.RankServiceClient).rank(request=request, **ONCE)
    assert over_rest == over_grpc
    assert [r.id for r in over_rest.records] == ["paris", "moon"]


def test_a_session_made_over_rest_is_the_one_grpc_reads(emulator, de_connection):
    over_rest = rest_client(emulator, de.SessionServiceClient)
    over_grpc = de_connection.client(de.SessionServiceClient)
    session = over_rest.create_session(
        parent=ENGINE_PARENT, session=de.Session(user_pseudo_id="rest-user"), **ONCE
    )
    assert over_grpc.get_session(name=session.name, **ONCE) == session
    # PATCH with the session in the body, its name in the path and the mask in the query
    updated = over_rest.update_session(
        session=de.Session(name=session.name, user_pseudo_id="renamed"),
        update_mask=field_mask_pb2.FieldMask(paths=["user_pseudo_id"]),
        **ONCE,
    )
    assert updated.user_pseudo_id == "renamed"
    # GET with query parameters
    listed = over_rest.list_sessions(
        request={"parent": ENGINE_PARENT, "filter": 'user_pseudo_id = "renamed"'}, **ONCE
    )
    assert [s.name for s in listed] == [session.name]
    over_rest.delete_session(name=session.name, **ONCE)
    with pytest.raises(core_exceptions.NotFound) as excinfo:
        over_rest.get_session(name=session.name, **ONCE)
    assert_error(excinfo, core_exceptions.NotFound, session.name, "not found")


def test_developer_knowledge_over_rest_answers_what_grpc_answers(emulator, dk_client):
    client = rest_client(emulator, dk.DeveloperKnowledgeClient)
    search = dk.SearchDocumentChunksRequest(query="with statement", page_size=3)
    # GET /v1/documents:searchDocumentChunks?query=...&pageSize=3
    chunks = client.search_document_chunks(request=search, **ONCE)
    assert chunks.results == dk_client.search_document_chunks(request=search, **ONCE).results
    names = [chunk.parent for chunk in chunks.results[:2]]
    # GET /v1/{name=documents/**}: a name with slashes (and a #)
    assert client.get_document(name=names[0], **ONCE) == dk_client.get_document(
        name=names[0], **ONCE
    )
    # GET /v1/documents:batchGet?names=...&names=...: a repeated query parameter
    batch = dk.BatchGetDocumentsRequest(names=names)
    assert client.batch_get_documents(request=batch, **ONCE) == dk_client.batch_get_documents(
        request=batch, **ONCE
    )
    # POST /v1:answerQuery
    question = dk.AnswerQueryRequest(query=QUESTION)
    answer = client.answer_query(request=question, **ONCE)
    assert answer == dk_client.answer_query(request=question, **ONCE)
    assert answer.answer.citations


def test_the_v1beta_paths_serve_the_same_methods(emulator, search_client):
    client = rest_client(emulator, discoveryengine_v1beta.SearchServiceClient)
    request = discoveryengine_v1beta.SearchRequest(
        serving_config=DATA_STORE, query="with statement", page_size=2
    )
    over_rest = client.search(request=request, **ONCE)
    over_grpc = search_client.search(
        request=de.SearchRequest(serving_config=DATA_STORE, query="with statement", page_size=2),
        **ONCE,
    )
    assert [r.id for r in over_rest.results] == [r.id for r in over_grpc.results]


def test_errors_over_rest_are_googles_for_the_same_status(emulator):
    client = rest_client(emulator, de.SearchServiceClient)
    with pytest.raises(core_exceptions.BadRequest) as excinfo:
        client.search(request={"serving_config": DATA_STORE, "query": "x", "page_size": -1}, **ONCE)
    assert_error(excinfo, core_exceptions.BadRequest, "page_size")
    with pytest.raises(core_exceptions.NotFound) as excinfo:
        client.search(request={"serving_config": serving_config("nope"), "query": "x"}, **ONCE)
    assert_error(excinfo, core_exceptions.NotFound, "nope")


def test_injected_faults_reach_rest_calls(emulator):
    client = rest_client(emulator, de.SearchServiceClient)
    emulator.faults.fail("Search", code="UNAVAILABLE", message="try later")
    with pytest.raises(core_exceptions.ServiceUnavailable) as excinfo:
        client.search(request={"serving_config": DATA_STORE, "query": "with"}, **ONCE)
    assert_error(excinfo, core_exceptions.ServiceUnavailable, "try later")
    emulator.faults.fail("Search", code="RESOURCE_EXHAUSTED")
    with pytest.raises(core_exceptions.TooManyRequests):
        client.search(request={"serving_config": DATA_STORE, "query": "with"}, **ONCE)
    # the rule was consumed: the next call is served
    assert client.search(request={"serving_config": DATA_STORE, "query": "with"}, **ONCE)


# -- plain HTTP/JSON --------------------------------------------------------------------------


def test_json_is_camel_case_as_googles_reference_pages(emulator):
    status, body = http(
        emulator,
        "POST",
        f"/v1/{ENGINE}:answer",
        {
            "query": {"text": QUESTION},
            "answerGenerationSpec": {"includeCitations": True},
            "searchSpec": {"searchParams": {"searchResultMode": "CHUNKS"}},
        },
    )
    assert status == 200
    answer = body["answer"]
    assert answer["state"] == "SUCCEEDED"
    assert answer["answerText"]
    citation = answer["citations"][0]
    # int64 fields are JSON strings (proto3 JSON); a 0 start is left out, as a default
    assert set(citation) <= {"startIndex", "endIndex", "sources"}
    assert int(citation["endIndex"]) > 0
    assert "relevanceScore" in answer["references"][0]["chunkInfo"]
    assert "answer_text" not in json.dumps(body)


def test_query_parameters_bind_a_get_method(emulator):
    status, body = http(emulator, "GET", "/v1/documents:searchDocumentChunks?query=with&pageSize=2")
    assert status == 200
    assert len(body["results"]) == 2
    assert set(body["results"][0]) >= {"parent", "content"}


def test_system_parameters_shape_the_json(emulator):
    path = f"/v1/{ENGINE}:answer"
    question = {"query": {"text": QUESTION}}
    status, body = http(emulator, "POST", path + "?alt=json;enum-encoding=int", question)
    assert (status, body["answer"]["state"]) == (200, 3)  # SUCCEEDED as a number
    request = urllib.request.Request(
        emulator.rest_url + path + "?prettyPrint=false",
        data=json.dumps(question).encode(),
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert b"\n" not in response.read()
    status, body = http(emulator, "POST", path + "?alt=proto", question)
    assert status == 400
    assert "JSON only" in body["error"]["message"]


def test_an_error_is_googles_error_json(emulator):
    status, body = http(
        emulator, "POST", f"/v1/{DATA_STORE}:search", {"query": "with", "pageSize": -1}
    )
    assert status == 400
    assert set(body) == {"error"}
    assert body["error"]["code"] == 400
    assert body["error"]["status"] == "INVALID_ARGUMENT"
    assert "page_size" in body["error"]["message"]
    status, body = http(emulator, "POST", f"/v1/{serving_config('nope')}:search", {"query": "x"})
    assert (status, body["error"]["status"]) == (404, "NOT_FOUND")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"query": "with", "pageSiz": 2}, 'Unknown name "pageSiz": Cannot find field.'),
        (
            {"query": "with", "contentSearchSpec": {"snippetSpec": {"returnSnipet": True}}},
            "Unknown name \"returnSnipet\" at 'content_search_spec.snippet_spec': Cannot find "
            "field.",
        ),
        (
            {"query": "with", "facetSpecs": [{"limit": 1}, {"limt": 2}]},
            "Unknown name \"limt\" at 'facet_specs[1]': Cannot find field.",
        ),
    ],
    ids=["top level", "nested", "in a list"],
)
def test_an_unknown_field_is_refused_as_google_refuses_it(emulator, body, message):
    status, answer = http(emulator, "POST", f"/v1/{DATA_STORE}:search", body)
    assert (status, answer["error"]["status"]) == (400, "INVALID_ARGUMENT")
    assert answer["error"]["message"] == f"Invalid JSON payload received. {message}"


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("/v1/documents:searchDocumentChunks?query=with&pageSze=2", 'Unknown name "pageSze"'),
        ("/v1/documents:searchDocumentChunks?query.text=with", "'query' is not a message type"),
    ],
)
def test_a_query_parameter_the_request_has_not_is_refused(emulator, path, fragment):
    status, body = http(emulator, "GET", path)
    assert status == 400
    assert fragment in body["error"]["message"]


def test_a_body_that_is_not_json_is_refused(emulator):
    status, body = http(emulator, "POST", f"/v1/{DATA_STORE}:search", b"{query: with")
    assert (status, body["error"]["status"]) == (400, "INVALID_ARGUMENT")
    assert body["error"]["message"].startswith("Invalid JSON payload received. ")
    status, body = http(emulator, "POST", f"/v1/{DATA_STORE}:search", {"pageSize": "many"})
    assert status == 400
    assert "pageSize" in body["error"]["message"]


def test_an_unknown_path_is_not_found(emulator):
    status, body = http(emulator, "GET", "/v1/nothing/here")
    assert (status, body["error"]["status"]) == (404, "NOT_FOUND")
    assert "/v1/nothing/here" in body["error"]["message"]
    # a path of a method with another verb says which one it takes
    status, body = http(emulator, "GET", f"/v1/{DATA_STORE}:search")
    assert status == 404
    assert body["error"]["message"].endswith("that path takes POST")


def test_a_method_the_emulator_does_not_serve_is_unimplemented(emulator):
    status, body = http(emulator, "POST", f"/v1/{DATA_STORE}:recommend", {"userEvent": {}})
    assert (status, body["error"]["status"]) == (501, "UNIMPLEMENTED")
    assert "RecommendationService/Recommend" in body["error"]["message"]


def test_a_body_over_the_size_limit_is_refused_with_googles_message():
    with EmulatorServer(max_request_bytes=1000) as server:
        body = {"query": "x" * 2000}
        status, answer = http(server, "POST", f"/v1/{DATA_STORE}:search", body)
        assert (status, answer["error"]["status"]) == (400, "INVALID_ARGUMENT")
        assert answer["error"]["message"] == "Request payload size exceeds the limit: 1000 bytes."
        # a body within the limit is served
        status, _ = http(server, "POST", f"/v1/{DATA_STORE}:search", {"query": "with"})
        assert status == 200


def test_x_server_timeout_ends_a_delayed_call_with_deadline_exceeded(emulator):
    emulator.faults.delay("Search", seconds=30, times=1)
    status, body = http(
        emulator,
        "POST",
        f"/v1/{DATA_STORE}:search",
        {"query": "with"},
        headers={"X-Server-Timeout": "0.2"},
    )
    assert (status, body["error"]["status"]) == (504, "DEADLINE_EXCEEDED")
    status, body = http(
        emulator, "POST", f"/v1/{DATA_STORE}:search", {}, headers={"X-Server-Timeout": "soon"}
    )
    assert status == 400
    assert "X-Server-Timeout" in body["error"]["message"]


def test_stopping_lets_a_rest_call_in_flight_complete():
    server = EmulatorServer().start()
    server.faults.delay("Search", seconds=0.5, times=1)
    replies = []
    call = threading.Thread(
        target=lambda: replies.append(
            http(server, "POST", f"/v1/{DATA_STORE}:search", {"query": "with"})
        )
    )
    call.start()
    while not server.faults.injected:  # the call has started
        threading.Event().wait(0.01)
    server.stop(grace=10)
    call.join()
    assert replies[0][0] == 200
    assert replies[0][1]["results"]


def test_stopping_closes_an_idle_keep_alive_connection_at_once():
    server = EmulatorServer().start()
    pooled = HTTPConnection(server.rest_url.removeprefix("http://"), timeout=30)
    pooled.request("GET", f"/v1/{DATA_STORE}")  # a pooled connection, left open after its call
    pooled.getresponse().read()
    stopping = threading.Thread(target=server.stop, kwargs={"grace": 120})
    stopping.start()
    stopping.join(timeout=60)  # before the fix: the whole grace, for the idle connection
    closed_by_server = pooled.sock.recv(1) == b""
    pooled.close()
    assert not stopping.is_alive()
    assert closed_by_server


def test_a_client_that_hangs_up_cancels_its_call():
    judged = []
    lexical = LexicalJudge()

    def judge(claims, facts, citation_threshold):
        judged.extend(claims)  # a cancelled call stops before the first claim
        return lexical(claims, facts, citation_threshold)

    server = EmulatorServer(CorpusStore(), judge=judge).start()
    server.faults.delay("CheckGrounding", seconds=60, times=1)
    body = json.dumps(
        {"answerCandidate": "Paris is in France.", "facts": [{"factText": "Paris is in France."}]}
    ).encode()
    with socket.create_connection(("127.0.0.1", server.rest_port)) as client:
        client.sendall(
            f"POST /v1/{GROUNDING_CONFIG}:check HTTP/1.1\r\nHost: emulator\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        while not server.faults.injected:  # the call is waiting out its delay
            threading.Event().wait(0.01)
    server.stop(grace=120)  # returns once the call has ended
    assert judged == []


def test_a_busy_rest_port_is_reported_as_the_rest_port():
    with EmulatorServer(CorpusStore()) as first:
        second = EmulatorServer(CorpusStore(), rest_port=first.rest_port)
        with pytest.raises(ListenError, match=rf":{first.rest_port} \(REST\): .*in use"):
            second.start()
        assert not second.running


def test_rest_on_the_ipv6_loopback():
    try:
        server = EmulatorServer(CorpusStore(), host="::1").start()
    except ListenError:
        pytest.skip("no IPv6 loopback on this machine")
    try:
        assert server.rest_url == f"http://[::1]:{server.rest_port}"
        status, body = http(server, "GET", "/v1/nothing")
        assert (status, body["error"]["code"]) == (404, 404)
    finally:
        server.stop()


def test_rest_can_be_left_out():
    with EmulatorServer(rest_port=None) as server:
        with pytest.raises(RuntimeError, match="no REST"):
            server.rest_url  # noqa: B018
        assert server.address


def test_a_data_store_made_over_rest_is_waited_on_filled_and_searched():
    collection = "projects/p/locations/global/collections/default_collection"
    with EmulatorServer(CorpusStore()) as server:
        data_stores = rest_client(server, de.DataStoreServiceClient)
        documents = rest_client(server, de.DocumentServiceClient)
        search = rest_client(server, de.SearchServiceClient)
        made = data_stores.create_data_store(
            parent=collection,
            data_store=de.DataStore(display_name="Atlas", content_config="CONTENT_REQUIRED"),
            data_store_id="atlas",
        ).result()
        content = {"mime_type": "text/plain", "raw_bytes": "北京是中国的首都。".encode()}
        imported = documents.import_documents(
            request={
                "parent": f"{made.name}/branches/default_branch",
                "inline_source": {"documents": [{"id": "beijing", "content": content}]},
            }
        ).result()
        found = search.search(
            request={
                "serving_config": f"{made.name}/servingConfigs/default_search",
                "query": "北京",
            }
        )
        assert made.name == f"{collection}/dataStores/atlas"
        assert list(imported.error_samples) == []
        assert [result.id for result in found] == ["beijing"]
