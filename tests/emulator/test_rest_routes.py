"""The REST routes come from Google's ``google.api.http`` rules, for any method of the table."""

from __future__ import annotations

import json

import pytest
from google.cloud import discoveryengine_v1 as de
from google.cloud.discoveryengine_v1.services.search_service.transports import rest_base
from google.longrunning import operations_pb2

from grounding_emulator.corpus.store import CorpusStore
from grounding_emulator.grounding.lexical.judge import LexicalJudge
from grounding_emulator.wire.drain import CallGate
from grounding_emulator.wire.faults import FaultInjector
from grounding_emulator.wire.rest.gateway import HttpCall, HttpRequest, RestGateway
from grounding_emulator.wire.rest.routes import PathTemplate, RouteTable
from grounding_emulator.wire.servicers import Backend, method_table
from grounding_emulator.wire.servicers.registry import Method

ENGINE = "projects/p/locations/global/collections/default_collection/engines/e"
BRANCH = "projects/p/locations/global/collections/default_collection/dataStores/d/branches/b"


@pytest.fixture(scope="module")
def methods():
    return method_table(Backend(CorpusStore(), LexicalJudge(), "python-docs"))


def get_engine(request):
    return de.Engine.pb(de.Engine(name=request.name, display_name="added later"))


ENGINE_SERVICE = "google.cloud.discoveryengine.v1.EngineService"
GET_ENGINE = Method(ENGINE_SERVICE, "GetEngine", de.GetEngineRequest.pb(), get_engine)


@pytest.mark.parametrize(
    ("template", "path", "values"),
    [
        ("/v1/{name=documents/**}", "/v1/documents/a.org/b/c", {"name": "documents/a.org/b/c"}),
        (
            "/v1/{parent=projects/*}/sessions",
            "/v1/projects/p%20q/sessions",
            {"parent": "projects/p q"},
        ),
        ("/v1/{a}/x/{b.c=y/*}:go", "/v1/one/x/y/two:go", {"a": "one", "b.c": "y/two"}),
        ("/v1:answerQuery", "/v1:answerQuery", {}),
        ("/v1/{name=s/*}", "/v1/s/a:search", None),  # the verb is not part of the segment
        ("/v1/{name=s/*}", "/v1/s/a/b", None),
    ],
)
def test_a_path_template_binds_the_fields_it_matches(template, path, values):
    assert PathTemplate.parse(template).match(path) == values


def test_every_served_method_has_the_routes_of_its_google_rules(methods):
    table = RouteTable(methods)
    table.load_all()
    for method in methods:
        routed = [r for r in table.routes if r.method is not None and r.method.call == method.call]
        # a bidirectional stream has no HTTP rule (Google's REST transports have none either)
        assert bool(routed) != method.bidi, method.path
    search = [r for r in table.routes if r.rpc.endswith(".v1.SearchService/Search")]
    rules = rest_base._BaseSearchServiceRestTransport._BaseSearch._get_http_options()
    assert sorted((r.verb, r.template.text, r.body) for r in search) == sorted(
        ("POST", rule["uri"], "*") for rule in rules
    )


def test_a_method_added_to_the_table_gets_its_routes_and_json_with_no_code_of_its_own():
    gateway = RestGateway([GET_ENGINE], FaultInjector(), 1000, CallGate())
    reply = gateway.handle(HttpRequest("GET", f"/v1/{ENGINE}"), HttpCall())
    assert reply.status == 200
    assert json.loads(reply.body) == {"name": ENGINE, "displayName": "added later"}
    # a method of the same service it does not serve is UNIMPLEMENTED, as over gRPC
    reply = gateway.handle(HttpRequest("DELETE", f"/v1/{ENGINE}"), HttpCall())
    assert reply.status == 501
    assert "EngineService/DeleteEngine" in json.loads(reply.body)["error"]["message"]


def test_a_mixin_takes_the_paths_the_served_apis_give_it(methods):
    get_operation = Method(
        "google.longrunning.Operations",
        "GetOperation",
        operations_pb2.GetOperationRequest,
        lambda request: operations_pb2.Operation(name=request.name, done=True),
    )
    apis = [m for m in methods if m.service != "google.longrunning.Operations"]
    table = RouteTable([*apis, get_operation])
    route, values = table.match("GET", f"/v1/{BRANCH}/operations/o1")
    assert (route.method, values) == (get_operation, {"name": f"{BRANCH}/operations/o1"})
    assert table.match("GET", "/v1/operations/o1") is None
    # served alone, with no API beside it: the rule of its own descriptor
    alone = RouteTable([get_operation])
    route, values = alone.match("GET", "/v1/operations/o1")
    assert (route.method, values) == (get_operation, {"name": "operations/o1"})


def test_the_more_literal_template_wins(methods):
    table = RouteTable(methods)
    route, _ = table.match("GET", "/v1/documents:batchGet")
    assert route.rpc.endswith("/BatchGetDocuments")
    route, values = table.match("GET", "/v1/documents/docs.python.org/3/x")
    assert (route.rpc.rpartition("/")[2], values) == (
        "GetDocument",
        {"name": "documents/docs.python.org/3/x"},
    )
