"""Every ``ServiceError`` keeps the ``google.api_core`` exception that caused it, as
``__cause__`` and as ``.cause`` (issue #17: ``except`` clauses written for Google's exceptions
port by catching ours and looking at the cause), on every path: each gRPC status through
Google's sync and async clients, each RPC the core calls, retries exhausted, a refused
connection (tests/core/test_emulator_address.py), the recorded-error policy and the
adapters. The errors come from the emulator over a real gRPC channel (injected faults),
never from a mock."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as core_exceptions

from grounding_core import (
    CallOptions,
    DeadlineExceededError,
    DiscoveryEngineTarget,
    GroundingCheck,
    GroundingError,
    GroundingSource,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RetryPolicy,
    ServiceError,
    ServiceUnavailableError,
    UngroundedAnswerError,
    aanswer_developer_query,
    aanswer_query,
    acheck_grounding,
    acreate_session,
    adelete_session,
    aget_session,
    alist_sessions,
    answer_developer_query,
    answer_query,
    asearch_chunks,
    asearch_developer_knowledge,
    asearch_summary,
    check_grounding,
    create_session,
    delete_session,
    get_session,
    grounding_config_path,
    list_sessions,
    search_chunks,
    search_developer_knowledge,
    search_summary,
)

from .emulated import PROJECT, result_of

ONCE = CallOptions(timeout=5.0, retry=None)
CONFIG = grounding_config_path(PROJECT)
TARGET = DiscoveryEngineTarget(project=PROJECT, data_store="test-docs")

# (gRPC status injected, its message, Google's exception class, ours): the mapping table of
# docs/migrating.md. A status not listed in grounding_core.errors is a plain ServiceError.
STATUSES = [
    ("INVALID_ARGUMENT", "bad", core_exceptions.InvalidArgument, InvalidRequestError),
    ("FAILED_PRECONDITION", "not ready", core_exceptions.FailedPrecondition, InvalidRequestError),
    ("OUT_OF_RANGE", "too far", core_exceptions.OutOfRange, InvalidRequestError),
    (
        "RESOURCE_EXHAUSTED",
        "Received message larger than max (20971530 vs. 16777216)",
        core_exceptions.ResourceExhausted,
        InvalidRequestError,
    ),
    ("NOT_FOUND", "no such store", core_exceptions.NotFound, NotFoundError),
    ("PERMISSION_DENIED", "no", core_exceptions.PermissionDenied, PermissionDeniedError),
    ("UNAUTHENTICATED", "who?", core_exceptions.Unauthenticated, PermissionDeniedError),
    ("UNAVAILABLE", "down", core_exceptions.ServiceUnavailable, ServiceUnavailableError),
    ("RESOURCE_EXHAUSTED", "quota", core_exceptions.ResourceExhausted, ServiceUnavailableError),
    ("INTERNAL", "oops", core_exceptions.InternalServerError, ServiceUnavailableError),
    ("CANCELLED", "stopping", core_exceptions.Cancelled, ServiceUnavailableError),
    ("DEADLINE_EXCEEDED", "slow", core_exceptions.DeadlineExceeded, DeadlineExceededError),
    ("ABORTED", "conflict", core_exceptions.Aborted, ServiceError),
    ("ALREADY_EXISTS", "twice", core_exceptions.AlreadyExists, ServiceError),
    ("UNKNOWN", "who knows", core_exceptions.Unknown, ServiceError),
    ("UNIMPLEMENTED", "not here", core_exceptions.MethodNotImplemented, ServiceError),
    ("DATA_LOSS", "lost", core_exceptions.DataLoss, ServiceError),
]
STATUS_IDS = [
    "invalid-argument",
    "failed-precondition",
    "out-of-range",
    "size-limit",
    "not-found",
    "permission-denied",
    "unauthenticated",
    "unavailable",
    "quota",
    "internal",
    "cancelled",
    "deadline-exceeded",
    "aborted",
    "already-exists",
    "unknown",
    "unimplemented",
    "data-loss",
]


def assert_caused_by(error: BaseException, google: type[BaseException], project: type) -> None:
    assert type(error) is project
    assert isinstance(error.__cause__, google)
    assert type(error.__cause__) is google  # the most specific class, as Google raised it
    assert error.cause is error.__cause__


# Every RPC the core calls, sync and async: (fault method, sync call, async call); each call
# takes the Discovery Engine clients and the Developer Knowledge clients.
CALLS = [
    (
        "Search",
        lambda de, dk: search_chunks(de, TARGET, "lighthouse", options=ONCE),
        lambda de, dk: asearch_chunks(de, TARGET, "lighthouse", options=ONCE),
    ),
    (
        "Search",
        lambda de, dk: search_summary(de, TARGET, "lighthouse", options=ONCE),
        lambda de, dk: asearch_summary(de, TARGET, "lighthouse", options=ONCE),
    ),
    (
        "CheckGrounding",
        lambda de, dk: check_grounding(de, CONFIG, "Paris.", ["Paris."], options=ONCE),
        lambda de, dk: acheck_grounding(de, CONFIG, "Paris.", ["Paris."], options=ONCE),
    ),
    (
        "/google.cloud.discoveryengine.v1.ConversationalSearchService/AnswerQuery",
        lambda de, dk: answer_query(de, TARGET, "lighthouse", options=ONCE),
        lambda de, dk: aanswer_query(de, TARGET, "lighthouse", options=ONCE),
    ),
    (
        "/google.developers.knowledge.v1.DeveloperKnowledge/AnswerQuery",
        lambda de, dk: answer_developer_query(dk, "yield", options=ONCE),
        lambda de, dk: aanswer_developer_query(dk, "yield", options=ONCE),
    ),
    (
        "SearchDocumentChunks",
        lambda de, dk: search_developer_knowledge(dk, "yield", options=ONCE),
        lambda de, dk: asearch_developer_knowledge(dk, "yield", options=ONCE),
    ),
    (
        "CreateSession",
        lambda de, dk: create_session(de, TARGET, options=ONCE),
        lambda de, dk: acreate_session(de, TARGET, options=ONCE),
    ),
    (
        "GetSession",
        lambda de, dk: get_session(de, TARGET, "s-1", options=ONCE),
        lambda de, dk: aget_session(de, TARGET, "s-1", options=ONCE),
    ),
    (
        "ListSessions",
        lambda de, dk: list_sessions(de, TARGET, options=ONCE),
        lambda de, dk: alist_sessions(de, TARGET, options=ONCE),
    ),
    (
        "DeleteSession",
        lambda de, dk: delete_session(de, TARGET, "s-1", options=ONCE),
        lambda de, dk: adelete_session(de, TARGET, "s-1", options=ONCE),
    ),
]
CALL_IDS = [
    "search",
    "search-summary",
    "check-grounding",
    "answer-query",
    "developer-answer-query",
    "search-document-chunks",
    "create-session",
    "get-session",
    "list-sessions",
    "delete-session",
]


@pytest.mark.parametrize(("code", "message", "google", "project"), STATUSES, ids=STATUS_IDS)
@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_each_status_keeps_its_google_exception(
    emulator, de_clients, de_async_clients, kind, code, message, google, project
):
    emulator.faults.fail("CheckGrounding", code=code, message=message)
    call = check_grounding if kind == "sync" else acheck_grounding
    clients = de_clients if kind == "sync" else de_async_clients
    with pytest.raises(ServiceError) as info:
        await result_of(call, clients, CONFIG, "Paris.", ["Paris."], options=ONCE)
    assert_caused_by(info.value, google, project)
    assert str(info.value).startswith(f"CheckGrounding on {CONFIG} failed: ")
    assert f"{code}: {message}" in str(info.value)
    assert emulator.faults.pending == 0


@pytest.mark.parametrize(("method", "sync_call", "async_call"), CALLS, ids=CALL_IDS)
@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_every_rpc_keeps_the_cause(
    emulator, de_clients, de_async_clients, dk_clients, dk_async_clients, kind, method, sync_call,
    async_call,
):  # fmt: skip
    emulator.faults.fail(method, code="NOT_FOUND", message="gone")
    if kind == "sync":
        with pytest.raises(NotFoundError) as info:
            sync_call(de_clients, dk_clients)
    else:
        with pytest.raises(NotFoundError) as info:
            await async_call(de_async_clients, dk_async_clients)
    assert_caused_by(info.value, core_exceptions.NotFound, NotFoundError)
    assert "NOT_FOUND: gone" in str(info.value)
    assert emulator.faults.pending == 0


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_retries_exhausted_keep_the_retry_error_and_the_last_attempt(
    emulator, de_clients, de_async_clients, kind
):
    emulator.faults.fail("Search", code="UNAVAILABLE", message="still down", times=10_000)
    retry = RetryPolicy(initial=0.01, maximum=0.02, deadline=0.3)
    options = CallOptions(timeout=1.0, retry=retry)
    call = search_chunks if kind == "sync" else asearch_chunks
    clients = de_clients if kind == "sync" else de_async_clients
    with pytest.raises(DeadlineExceededError) as info:
        await result_of(call, clients, TARGET, "lighthouse", options=options)
    assert_caused_by(info.value, core_exceptions.RetryError, DeadlineExceededError)
    last = info.value.__cause__.cause
    assert isinstance(last, core_exceptions.ServiceUnavailable)
    assert last.message == "still down"
    assert "last error: UNAVAILABLE: still down" in str(info.value)
    assert emulator.faults.injected >= 2  # it was retried before it gave up


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_a_recorded_error_keeps_the_chain(emulator, connections, kind):
    check = GroundingCheck.create(connections[0], on_error="record", on_ungrounded="raise")
    emulator.faults.fail("CheckGrounding", code="PERMISSION_DENIED", message="no")
    run = check.run if kind == "sync" else check.arun
    outcome = await result_of(run, "Paris.", ["Paris."], [GroundingSource("Paris.")])
    assert_caused_by(outcome.error, core_exceptions.PermissionDenied, PermissionDeniedError)
    assert outcome.report.error.startswith("PermissionDeniedError: CheckGrounding on ")
    with pytest.raises(UngroundedAnswerError, match="could not be checked") as info:
        outcome.enforce()
    # UngroundedAnswerError <- PermissionDeniedError <- google's PermissionDenied
    assert info.value.__cause__ is outcome.error


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_the_adapters_pass_the_cause_on(emulator, kind):
    pytest.importorskip("langchain_core")
    pytest.importorskip("llama_index.core")
    import langchain_grounding as lc
    import llamaindex_grounding as li

    address = emulator.address
    checker = lc.GroundingChecker(project_id=PROJECT, emulator_host=address, retry=None)
    calls = [
        ("Search", lc.DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="test-docs", emulator_host=address, retry=None
        ), "lighthouse"),
        ("Search", li.DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="test-docs", emulator_host=address, retry=None
        ), "lighthouse"),
        ("CheckGrounding", checker, {"answer": "Paris.", "documents": ["Paris."]}),
        ("CheckGrounding", checker.with_config(configurable={"documents": ["Paris."]}), "Paris."),
    ]  # fmt: skip
    for method, component, argument in calls:
        emulator.faults.fail(method, code="INTERNAL", message="boom")
        if isinstance(component, li.DiscoveryEngineRetriever):
            call = component.retrieve if kind == "sync" else component.aretrieve
        else:
            call = component.invoke if kind == "sync" else component.ainvoke
        with pytest.raises(GroundingError) as info:
            await result_of(call, argument)
        assert_caused_by(info.value, core_exceptions.InternalServerError, ServiceUnavailableError)
        assert emulator.faults.pending == 0
