"""Servicers register themselves; the method table is built from the registry."""

from __future__ import annotations

from typing import Any

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_emulator import CorpusStore, LexicalJudge
from grounding_emulator.wire.servicers import (
    Backend,
    ConversationalSearchServicer,
    ConversationServicer,
    DeveloperKnowledgeServicer,
    GroundedGenerationServicer,
    SearchServicer,
    Servicer,
    SessionServicer,
    method_table,
)
from grounding_emulator.wire.servicers.registry import registered, rpc

SESSION_RPCS = ["CreateSession", "GetSession", "ListSessions", "UpdateSession", "DeleteSession"]
CONVERSATION_RPCS = [
    "CreateConversation",
    "ConverseConversation",
    "GetConversation",
    "ListConversations",
    "UpdateConversation",
    "DeleteConversation",
]
DISCOVERY_ENGINE = {
    "SearchService": ["Search", "SearchLite"],
    "GroundedGenerationService": [
        "CheckGrounding",
        "GenerateGroundedContent",
        "StreamGenerateGroundedContent",
    ],
    "ConversationalSearchService": [
        "AnswerQuery",
        "StreamAnswerQuery",
        "GetAnswer",
        *SESSION_RPCS,
        *CONVERSATION_RPCS,
    ],
    "SessionService": SESSION_RPCS,
    "RankService": ["Rank"],
    "DataStoreService": [
        "CreateDataStore",
        "GetDataStore",
        "ListDataStores",
        "UpdateDataStore",
        "DeleteDataStore",
    ],
    "EngineService": ["CreateEngine", "GetEngine", "ListEngines", "UpdateEngine", "DeleteEngine"],
    "DocumentService": [
        "CreateDocument",
        "GetDocument",
        "ListDocuments",
        "UpdateDocument",
        "DeleteDocument",
        "ImportDocuments",
        "PurgeDocuments",
    ],
}
OPERATIONS = ["GetOperation", "ListOperations", "CancelOperation"]
DEVELOPER_KNOWLEDGE = ["SearchDocumentChunks", "GetDocument", "BatchGetDocuments", "AnswerQuery"]


def test_the_method_table_serves_every_rpc_under_every_version():
    backend = Backend(CorpusStore(), LexicalJudge(), "python-docs")
    methods = method_table(backend)
    expected = {
        f"/google.cloud.discoveryengine.{version}.{service}/{name}"
        for version in ("v1", "v1beta", "v1alpha")
        for service, names in DISCOVERY_ENGINE.items()
        for name in names
    } | {f"/google.developers.knowledge.v1.DeveloperKnowledge/{n}" for n in DEVELOPER_KNOWLEDGE}
    expected |= {f"/google.longrunning.Operations/{n}" for n in OPERATIONS}
    assert sorted(m.path for m in methods) == sorted(expected)
    assert len(methods) == 133
    streaming = {m.path for m in methods if m.streaming}
    assert streaming == {
        f"/google.cloud.discoveryengine.{v}.{rpc}"
        for v in ("v1", "v1beta", "v1alpha")
        for rpc in (
            "ConversationalSearchService/StreamAnswerQuery",
            "GroundedGenerationService/StreamGenerateGroundedContent",
        )
    }
    assert {m.path for m in methods if m.bidi} == {
        f"/google.cloud.discoveryengine.{v}.GroundedGenerationService/StreamGenerateGroundedContent"
        for v in ("v1", "v1beta", "v1alpha")
    }
    # a versioned RPC (one that starts an operation) is bound to its version
    calls = [getattr(m.call, "func", m.call) for m in methods]
    servicers = {call.__self__ for call in calls}  # type: ignore[attr-defined]
    # one servicer per service, shared by its versions; SessionServicer also serves the session
    # RPCs of ConversationalSearchService, ConversationServicer its conversation RPCs
    assert len(servicers) == 11
    imports = {
        m.path: m.call.keywords  # type: ignore[attr-defined]
        for m in methods
        if m.name == "ImportDocuments"
    }
    assert imports == {
        f"/google.cloud.discoveryengine.{v}.DocumentService/ImportDocuments": {"version": v}
        for v in ("v1", "v1beta", "v1alpha")
    }
    assert {s.backend for s in servicers} == {backend}
    check = next(
        m for m in methods if m.path.endswith("v1beta.GroundedGenerationService/CheckGrounding")
    )
    assert check.request_type is de.CheckGroundingRequest.pb()
    assert check.call.__func__ is GroundedGenerationServicer.check_grounding  # type: ignore[attr-defined]


def test_every_servicer_is_registered_with_its_rpcs():
    assert set(registered()) >= {
        SearchServicer,
        GroundedGenerationServicer,
        ConversationalSearchServicer,
        ConversationServicer,
        DeveloperKnowledgeServicer,
        SessionServicer,
    }
    assert {n: r.name for n, r in DeveloperKnowledgeServicer.rpcs.items()} == {
        "search_document_chunks": "SearchDocumentChunks",
        "get_document": "GetDocument",
        "batch_get_documents": "BatchGetDocuments",
        "answer_query": "AnswerQuery",
    }
    assert SearchServicer.services == (
        "google.cloud.discoveryengine.v1.SearchService",
        "google.cloud.discoveryengine.v1beta.SearchService",
        "google.cloud.discoveryengine.v1alpha.SearchService",
    )


def test_a_servicer_without_a_service_or_an_rpc_is_refused():
    before = registered()
    with pytest.raises(TypeError, match="names no service or no @rpc method"):

        class NoService(Servicer):
            @rpc("Ping", de.SearchRequest.pb())
            def ping(self, request: Any) -> Any:
                return request

    with pytest.raises(TypeError, match="NoRpc names no service"):

        class NoRpc(Servicer):
            services = ("test.Ping",)

    assert registered() == before
