"""``grounding_core._errors``: the project's errors and the one mapping of Google's.

Covers the hierarchy (which errors are also ``ValueError``), what each error keeps (``field``,
``limit``, ``result``, ``cause``), ``service_error`` (each ``google.api_core`` exception to its
project error, naming the operation, the resource, the gRPC code and what to do; a message over a
size limit is an invalid request), ``message_too_large``, ``translate_errors`` (chains the cause,
leaves success and foreign exceptions alone) and the pickling of every error (a ``ServiceError``
without the gRPC call of its cause). On the emulator, over real gRPC: every status through
Google's sync and async clients, every RPC the components call, retries exhausted and a
recorded error keep the Google exception as ``__cause__`` and ``.cause`` (issue #17).
"""

from __future__ import annotations

import copy
import inspect
import pickle

import pytest
from google.api_core import exceptions as core_exceptions

import grounding_core
from grounding_core import (
    ConfigurationError,
    DeadlineExceededError,
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeChunkSearch,
    DeveloperKnowledgeConnection,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    DiscoveryEngineRanking,
    DiscoveryEngineSearchSummary,
    GroundingCheck,
    GroundingError,
    GroundingSource,
    InputError,
    InvalidRequestError,
    NotFoundError,
    OffsetError,
    PermissionDeniedError,
    RankingRecord,
    RetryPolicy,
    ServiceError,
    ServiceUnavailableError,
    UngroundedAnswerError,
)
from grounding_core._errors import message_too_large, service_error, translate_errors

from .emulated import PROJECT, result_of

# -- the hierarchy and what the errors keep --------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "bases"),
    [
        (ConfigurationError, (GroundingError, ValueError)),
        (InputError, (GroundingError, ValueError)),
        (OffsetError, (GroundingError, ValueError)),
        (UngroundedAnswerError, (GroundingError,)),
        (ServiceError, (GroundingError,)),
        (InvalidRequestError, (ServiceError, ValueError)),
        (NotFoundError, (ServiceError,)),
        (PermissionDeniedError, (ServiceError,)),
        (ServiceUnavailableError, (ServiceError,)),
        (DeadlineExceededError, (ServiceError,)),
    ],
)
def test_the_hierarchy(error, bases):
    assert error.__bases__ == bases
    assert issubclass(error, GroundingError)
    assert issubclass(GroundingError, Exception)


def test_the_errors_keep_what_they_were_given():
    error = InputError("too long", field="query", limit=500)
    assert (str(error), error.args, error.field, error.limit) == (
        "too long",
        ("too long",),
        "query",
        500,
    )
    assert InputError("bad", field="f").limit is None
    result = object()
    ungrounded = UngroundedAnswerError("low", result=result)
    assert (str(ungrounded), ungrounded.result) == ("low", result)
    cause = core_exceptions.NotFound("gone")
    assert (str(NotFoundError("x", cause=cause)), NotFoundError("x", cause=cause).cause) == (
        "x",
        cause,
    )
    assert ServiceError("x").cause is None


# -- service_error: Google's exceptions to ours ----------------------------------------------------


E = core_exceptions
MAPPING = [
    (E.NotFound("no d"), NotFoundError, "NOT_FOUND", "serving config"),
    (E.PermissionDenied("no"), PermissionDeniedError, "PERMISSION_DENIED", "User role"),
    (E.Unauthenticated("who"), PermissionDeniedError, "UNAUTHENTICATED", "gcloud auth"),
    (E.DeadlineExceeded("slow"), DeadlineExceededError, "DEADLINE_EXCEEDED", "raise the timeout"),
    (E.FailedPrecondition("later"), InvalidRequestError, "FAILED_PRECONDITION", "not ready"),
    (E.InvalidArgument("bad"), InvalidRequestError, "INVALID_ARGUMENT", "fix the request"),
    (E.OutOfRange("far"), InvalidRequestError, "OUT_OF_RANGE", "fix the request"),
    (E.ServiceUnavailable("down"), ServiceUnavailableError, "UNAVAILABLE", "emulator"),
    (E.ResourceExhausted("quota"), ServiceUnavailableError, "RESOURCE_EXHAUSTED", "quota"),
    (E.InternalServerError("oops"), ServiceUnavailableError, "INTERNAL", "report it"),
    (E.Cancelled("gone"), ServiceUnavailableError, "CANCELLED", "retry it later"),
    (E.MethodNotImplemented("no"), InvalidRequestError, "UNIMPLEMENTED", "does not support"),
    (E.Aborted("conflict"), ServiceError, "ABORTED", "see the chained exception"),
    (E.Unknown("?"), ServiceError, "UNKNOWN", "see the chained exception"),
    (E.from_http_status(418, "teapot"), ServiceError, "418", "see the chained exception"),
]


@pytest.mark.parametrize(
    ("google_error", "project_error", "code", "advice"), MAPPING, ids=[row[2] for row in MAPPING]
)
def test_each_google_error_becomes_a_project_error_naming_resource_code_and_advice(
    google_error, project_error, code, advice
):
    error = service_error(google_error, operation="Search", resource="projects/p/r")
    assert type(error) is project_error
    assert error.cause is google_error
    message = str(error)
    assert message.startswith(f"Search on projects/p/r failed: {code}: {google_error.message} (")
    assert advice in message


SIZE_ERRORS = [
    (
        E.ResourceExhausted("Received message larger than max (20971520 vs. 16777216)"),
        (20_971_520, 16_777_216),
        "a message of 20,971,520 bytes is larger than the 16,777,216 bytes allowed "
        "(RESOURCE_EXHAUSTED: Received message larger than max (20971520 vs. 16777216))",
    ),
    (
        core_exceptions.ResourceExhausted("Sent message larger than max (5 vs. 4)"),
        (5, 4),
        "a message of 5 bytes is larger than the 4 bytes allowed "
        "(RESOURCE_EXHAUSTED: Sent message larger than max (5 vs. 4))",
    ),
    (
        core_exceptions.InvalidArgument("Request payload size exceeds the limit: 10485760 bytes."),
        (None, 10_485_760),
        "a message is larger than the 10,485,760 bytes allowed (INVALID_ARGUMENT: Request "
        "payload size exceeds the limit: 10485760 bytes.)",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("google_error", "sizes", "words"), SIZE_ERRORS)
def test_a_message_over_a_size_limit_is_an_invalid_request_with_its_sizes_and_what_to_cut(
    google_error, sizes, words
):
    assert message_too_large(google_error) == sizes
    error = service_error(google_error, operation="Search", resource="r")
    assert type(error) is InvalidRequestError
    assert error.cause is google_error
    assert str(error).startswith(f"Search on r failed: {words}: ")
    assert str(error).endswith(
        ": send fewer or smaller facts or metadata, or ask for fewer results per page"
    )


@pytest.mark.parametrize(
    "google_error",
    [
        core_exceptions.ResourceExhausted("quota exceeded"),
        core_exceptions.InvalidArgument("filter is malformed"),
        # Only these two codes carry it: the same text under another code is something else.
        core_exceptions.Unknown("Received message larger than max (7 vs. 6)"),
        core_exceptions.ServiceUnavailable("Request payload size exceeds the limit: 9 bytes."),
        core_exceptions.ResourceExhausted(None),  # type: ignore[arg-type]
        core_exceptions.ResourceExhausted("message larger than max (x vs. 6)"),
    ],
)
def test_other_errors_carry_no_size(google_error):
    assert message_too_large(google_error) is None


def test_a_retry_error_describes_its_last_cause_or_itself():
    last = core_exceptions.NotFound("gone")
    error = service_error(
        core_exceptions.RetryError("out of time", last), operation="O", resource="r"
    )
    assert type(error) is DeadlineExceededError
    assert str(error).startswith("O on r failed: out of time; last error: NOT_FOUND: gone (")
    assert "retry deadline" in str(error)
    bare = service_error(
        core_exceptions.RetryError("out of time", None), operation="O", resource="r"
    )
    assert type(bare) is DeadlineExceededError
    assert str(bare).startswith("O on r failed: RetryError: out of time")  # fmt: skip


def test_a_foreign_error_is_described_by_its_type():
    error = service_error(KeyError("k"), operation="O", resource="r")
    assert type(error) is ServiceError
    assert str(error).startswith("O on r failed: KeyError: 'k' (see the chained exception")


# -- translate_errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cause",
    [core_exceptions.RetryError("late", None), core_exceptions.NotFound("gone")],
    ids=["retry-error", "api-error"],
)
def test_translate_errors_chains_the_cause(cause):
    with (
        pytest.raises(ServiceError, match=r"^Check on g failed: ") as info,
        translate_errors("Check", "g"),
    ):
        raise cause
    assert info.value.__cause__ is cause
    assert info.value.cause is cause


def test_translate_errors_leaves_success_and_foreign_exceptions_alone():
    with translate_errors("Check", "g"):
        value = 1
    assert value == 1
    with pytest.raises(KeyError), translate_errors("Search", "r"):
        raise KeyError("x")


# -- pickling --------------------------------------------------------------------------------------

COPIES = {
    "pickle": lambda value: pickle.loads(pickle.dumps(value)),
    "pickle-5": lambda value: pickle.loads(pickle.dumps(value, protocol=5)),
    "deepcopy": copy.deepcopy,
    "copy": copy.copy,
}
# A value per keyword-only argument of the errors (a new argument without one fails below).
ERROR_ARGUMENTS = {"field": "k", "limit": 10, "result": ("a", 0.5), "cause": None}
ERRORS = [
    getattr(grounding_core, name)
    for name in grounding_core.__all__
    if inspect.isclass(getattr(grounding_core, name))
    and issubclass(getattr(grounding_core, name), GroundingError)
]


def test_every_exported_error_is_in_the_hierarchy():
    assert len(ERRORS) == 11


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("error", ERRORS, ids=lambda error: error.__name__)
def test_every_error_copies_with_its_message_and_attributes(error, how):
    keywords = {
        name: ERROR_ARGUMENTS[name]
        for name, parameter in inspect.signature(error.__init__).parameters.items()
        if parameter.kind is parameter.KEYWORD_ONLY
    }
    raised = error("a message", **keywords)
    copied = COPIES[how](raised)
    assert type(copied) is error
    assert (copied.args, str(copied), vars(copied)) == (("a message",), "a message", keywords)


def _google_cause(emulator, connections) -> NotFoundError:
    search = DiscoveryEngineChunkSearch(connections[0], data_store_id="missing")
    with pytest.raises(NotFoundError) as caught:
        search.search("lighthouse")
    return caught.value


@pytest.mark.parametrize("how", ["pickle", "pickle-5", "deepcopy"])
def test_a_service_error_copies_without_the_grpc_call_of_its_cause(emulator, connections, how):
    raised = _google_cause(emulator, connections)
    assert raised.cause.response is not None  # the gRPC call, which cannot be pickled
    copied = COPIES[how](raised)
    assert type(copied) is NotFoundError
    assert str(copied) == str(raised)
    cause = copied.cause
    assert type(cause) is core_exceptions.NotFound
    assert (cause.code, cause.message, cause.details) == (
        raised.cause.code,
        raised.cause.message,
        raised.cause.details,
    )
    assert (cause.response, cause.errors) == (None, [])
    assert raised.cause.response is not None  # the original keeps its cause whole
    assert len(raised.cause.errors) == 1


# -- on the emulator: every path keeps Google's exception ------------------------------------------

# (gRPC status injected, its message, Google's exception class, ours).
STATUSES = [
    ("INVALID_ARGUMENT", "bad", core_exceptions.InvalidArgument, InvalidRequestError),
    ("FAILED_PRECONDITION", "not ready", core_exceptions.FailedPrecondition, InvalidRequestError),
    ("OUT_OF_RANGE", "too far", core_exceptions.OutOfRange, InvalidRequestError),
    ("RESOURCE_EXHAUSTED", "Received message larger than max (20971530 vs. 16777216)",
     core_exceptions.ResourceExhausted, InvalidRequestError),
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
    ("UNIMPLEMENTED", "not here", core_exceptions.MethodNotImplemented, InvalidRequestError),
    ("DATA_LOSS", "lost", core_exceptions.DataLoss, ServiceError),
]  # fmt: skip
STATUS_IDS = [
    "invalid-argument", "failed-precondition", "out-of-range", "size-limit", "not-found",
    "permission-denied", "unauthenticated", "unavailable", "quota", "internal", "cancelled",
    "deadline-exceeded", "aborted", "already-exists", "unknown", "unimplemented", "data-loss",
]  # fmt: skip


def assert_caused_by(error: BaseException, google: type[BaseException], project: type) -> None:
    assert type(error) is project
    assert type(error.__cause__) is google  # the most specific class, as Google raised it
    assert error.cause is error.__cause__


@pytest.fixture
async def once(emulator):
    """Both connections to the emulator without retries (a fault is tried once); the async
    channels of the test's loop are closed afterwards."""
    de_connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, retry=None
    )
    dk_connection = DeveloperKnowledgeConnection(emulator_host=emulator.address, retry=None)
    yield de_connection, dk_connection
    for connection in (de_connection, dk_connection):
        connection.close()
        await connection.aclose()


SOURCES = ["Paris is the capital of France."]


@pytest.mark.parametrize(("code", "message", "google", "project"), STATUSES, ids=STATUS_IDS)
@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_each_status_keeps_its_google_exception(
    emulator, once, kind, code, message, google, project
):
    check = GroundingCheck(once[0])
    emulator.faults.fail("CheckGrounding", code=code, message=message)
    call = check.check if kind == "sync" else check.acheck
    grounding = [GroundingSource(text) for text in SOURCES]
    with pytest.raises(ServiceError) as info:
        await result_of(call, "Paris is the capital.", SOURCES, grounding)
    assert_caused_by(info.value, google, project)
    assert str(info.value).startswith(f"CheckGrounding on {check.grounding_config} failed: ")
    assert f"{code}: {message}" in str(info.value)
    assert emulator.faults.pending == 0


def _answers(de_connection):
    return DiscoveryEngineAnswerQuery(de_connection, engine_id="test-app")


def _search(de_, dk_, a):
    return getattr(DiscoveryEngineChunkSearch(de_, data_store_id="test-docs"), a + "search")("q")


def _summary(de_, dk_, a):
    return getattr(DiscoveryEngineSearchSummary(de_, data_store_id="test-docs"), a + "answer")("q")


def _grounding(de_, dk_, a):
    check = GroundingCheck(de_)
    return getattr(check, a + "check")("Paris.", ["Paris."], [GroundingSource("Paris.")])


def _rank(de_, dk_, a):
    return getattr(DiscoveryEngineRanking(de_), a + "rank")("q", [RankingRecord(content="c")])


def _answer(de_, dk_, a):
    return getattr(_answers(de_), a + "answer")("lighthouse")


def _developer_answer(de_, dk_, a):
    return getattr(DeveloperKnowledgeAnswerQuery(dk_), a + "answer")("yield")


def _developer_search(de_, dk_, a):
    return getattr(DeveloperKnowledgeChunkSearch(dk_), a + "search")("yield")


def _session(method, *arguments):
    return lambda de_, dk_, a: getattr(_answers(de_), a + method)(*arguments)


# Every RPC the components call: (fault method, a call taking both connections and the prefix
# of the method's name: "" for the sync one, "a" for the async one).
DE = "/google.cloud.discoveryengine.v1"
CALLS = [
    ("Search", _search),
    ("Search", _summary),
    ("CheckGrounding", _grounding),
    ("Rank", _rank),
    (f"{DE}.ConversationalSearchService/AnswerQuery", _answer),
    ("/google.developers.knowledge.v1.DeveloperKnowledge/AnswerQuery", _developer_answer),
    ("SearchDocumentChunks", _developer_search),
    (f"{DE}.SessionService/CreateSession", _session("create_session")),
    (f"{DE}.SessionService/GetSession", _session("get_session", "s-1")),
    (f"{DE}.SessionService/ListSessions", _session("list_sessions")),
    (f"{DE}.SessionService/DeleteSession", _session("delete_session", "s-1")),
]
CALL_IDS = [
    "search", "search-summary", "check-grounding", "rank", "answer-query",
    "developer-answer-query", "search-document-chunks", "create-session", "get-session",
    "list-sessions", "delete-session",
]  # fmt: skip


@pytest.mark.parametrize(("method", "call"), CALLS, ids=CALL_IDS)
@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_every_rpc_keeps_the_cause(emulator, once, kind, method, call):
    emulator.faults.fail(method, code="NOT_FOUND", message="gone")
    with pytest.raises(NotFoundError) as info:
        await result_of(call, *once, "" if kind == "sync" else "a")
    assert_caused_by(info.value, core_exceptions.NotFound, NotFoundError)
    assert "NOT_FOUND: gone" in str(info.value)
    assert emulator.faults.pending == 0


SHORT_RETRIES = RetryPolicy(initial=0.01, maximum=0.02, deadline=0.2)


@pytest.fixture(scope="module")
def retrying(emulator):
    """A sync connection that gives up retrying after 0.2 s (closed with the module: see
    test_connections.py for a connection closed right after retried UNAVAILABLEs)."""
    connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, timeout=1.0, retry=SHORT_RETRIES
    )
    yield connection
    connection.close()


@pytest.fixture
async def aretrying(emulator):
    """``retrying`` for the async client of the test's event loop."""
    connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, timeout=1.0, retry=SHORT_RETRIES
    )
    yield connection
    await connection.aclose()


async def test_retries_exhausted_keep_the_retry_error_and_the_last_attempt(
    emulator, retrying, aretrying
):
    for connection, method in ((retrying, "search"), (aretrying, "asearch")):
        emulator.faults.fail("Search", code="UNAVAILABLE", message="still down", times=None)
        search = DiscoveryEngineChunkSearch(connection, data_store_id="test-docs")
        injected = emulator.faults.injected
        with pytest.raises(DeadlineExceededError) as info:
            await result_of(getattr(search, method), "lighthouse")
        emulator.faults.clear()
        assert_caused_by(info.value, core_exceptions.RetryError, DeadlineExceededError)
        last = info.value.__cause__.cause
        assert type(last) is core_exceptions.ServiceUnavailable
        assert last.message == "still down"
        assert "last error: UNAVAILABLE: still down" in str(info.value)
        assert emulator.faults.injected - injected >= 2  # it was retried before it gave up


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_a_recorded_error_keeps_the_chain(emulator, once, kind):
    check = GroundingCheck(once[0], on_error="record", on_ungrounded="raise")
    emulator.faults.fail("CheckGrounding", code="PERMISSION_DENIED", message="no")
    run = check.run if kind == "sync" else check.arun
    outcome = await result_of(run, "Paris.", ["Paris."], [GroundingSource("Paris.")])
    assert_caused_by(outcome.error, core_exceptions.PermissionDenied, PermissionDeniedError)
    assert outcome.report.error.startswith("PermissionDeniedError: CheckGrounding on ")
    with pytest.raises(UngroundedAnswerError, match="could not be checked") as info:
        outcome.enforce()
    # UngroundedAnswerError <- PermissionDeniedError <- google's PermissionDenied
    assert info.value.__cause__ is outcome.error


def test_a_missing_data_store_names_the_resource(emulator, once):
    search = DiscoveryEngineChunkSearch(once[0], data_store_id="missing-store")
    with pytest.raises(NotFoundError) as info:
        search.search("x")
    assert search.target.serving_config_path in str(info.value)
    assert "missing-store" in str(info.value)
    assert type(info.value.__cause__) is core_exceptions.NotFound


def test_a_malformed_filter_is_an_invalid_request(emulator, once):
    search = DiscoveryEngineChunkSearch(once[0], data_store_id="test-docs", filter="rank <")
    with pytest.raises(InvalidRequestError, match="filter") as info:
        search.search("x")
    assert type(info.value.__cause__) is core_exceptions.InvalidArgument


async def test_a_missing_grounding_config_is_not_found_async(emulator, once):
    check = GroundingCheck(once[0], grounding_config="nope")
    with pytest.raises(NotFoundError, match="nope") as info:
        await check.acheck("Paris.", ["Paris."], [GroundingSource("Paris.")])
    assert type(info.value.__cause__) is core_exceptions.NotFound
