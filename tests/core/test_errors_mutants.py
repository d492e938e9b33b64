"""Errors: the whole message of every mapped error, the attributes the errors carry (what
``make mutation`` found unasserted in ``grounding_core.errors``)."""

import pytest
from google.api_core import exceptions as core_exceptions

from grounding_core import (
    DeadlineExceededError,
    InputError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    ServiceError,
    ServiceUnavailableError,
    UngroundedAnswerError,
)
from grounding_core.errors import message_too_large, service_error, translate_errors

PREFIX = "Search on r failed: "


@pytest.mark.parametrize(
    ("google_error", "project_error", "message"),
    [
        (
            core_exceptions.NotFound("no d"),
            NotFoundError,
            "NOT_FOUND: no d (check the project, location, data store or engine id and the "
            "serving config)",
        ),
        (
            core_exceptions.PermissionDenied("no"),
            PermissionDeniedError,
            "PERMISSION_DENIED: no (grant the caller the Discovery Engine User role or use other "
            "credentials)",
        ),
        (
            core_exceptions.Unauthenticated("who"),
            PermissionDeniedError,
            "UNAUTHENTICATED: who (run `gcloud auth application-default login` or pass "
            "credentials)",
        ),
        (
            core_exceptions.DeadlineExceeded("slow"),
            DeadlineExceededError,
            "DEADLINE_EXCEEDED: slow (raise the timeout or retry the call later)",
        ),
        (
            core_exceptions.FailedPrecondition("later"),
            InvalidRequestError,
            "FAILED_PRECONDITION: later (the resource is not ready for this call)",
        ),
        (
            core_exceptions.OutOfRange("far"),
            InvalidRequestError,
            "OUT_OF_RANGE: far (fix the request field named above)",
        ),
        (
            core_exceptions.ServiceUnavailable("down"),
            ServiceUnavailableError,
            "UNAVAILABLE: down (check that the endpoint is reachable (is the emulator running?))",
        ),
        (
            core_exceptions.ResourceExhausted("quota"),
            ServiceUnavailableError,
            "RESOURCE_EXHAUSTED: quota (the quota is exhausted; slow down or ask for more quota)",
        ),
        (
            core_exceptions.InternalServerError("oops"),
            ServiceUnavailableError,
            "INTERNAL: oops (the service failed internally; not retried, as Google's clients do "
            "not retry INTERNAL (AIP-194): report it if it persists)",
        ),
        (
            core_exceptions.Cancelled("gone"),
            ServiceUnavailableError,
            "CANCELLED: gone (the server cancelled the call, e.g. while shutting down; retry it "
            "later)",
        ),
        (
            core_exceptions.from_http_status(418, "teapot"),
            ServiceError,
            "418: teapot (see the chained exception)",
        ),
    ],
)
def test_every_mapping_and_its_whole_message(google_error, project_error, message):
    error = service_error(google_error, operation="Search", resource="r")
    assert type(error) is project_error
    assert str(error) == PREFIX + message
    assert error.cause is google_error


HINT = "send fewer or smaller facts or metadata, or ask for fewer results per page"


@pytest.mark.parametrize(
    ("google_error", "size_and_limit"),
    [
        (
            core_exceptions.ResourceExhausted(
                "Received message larger than max (20971520 vs. 16777216)"
            ),
            "a message of 20,971,520 bytes is larger than the 16,777,216 bytes allowed "
            "(RESOURCE_EXHAUSTED: Received message larger than max (20971520 vs. 16777216))",
        ),
        (
            core_exceptions.ResourceExhausted("Sent message larger than max (5 vs. 4)"),
            "a message of 5 bytes is larger than the 4 bytes allowed "
            "(RESOURCE_EXHAUSTED: Sent message larger than max (5 vs. 4))",
        ),
        (
            core_exceptions.InvalidArgument(
                "Request payload size exceeds the limit: 10485760 bytes."
            ),
            "a message is larger than the 10,485,760 bytes allowed (INVALID_ARGUMENT: Request "
            "payload size exceeds the limit: 10485760 bytes.)",
        ),
    ],
)
def test_a_message_over_the_size_limit_is_an_invalid_request(google_error, size_and_limit):
    error = service_error(google_error, operation="Search", resource="r")
    assert type(error) is InvalidRequestError
    assert str(error) == f"{PREFIX}{size_and_limit}: {HINT}"
    assert error.cause is google_error


def test_message_too_large_reads_sizes_only_from_size_errors():
    assert message_too_large(
        core_exceptions.ResourceExhausted("Received message larger than max (7 vs. 6)")
    ) == (7, 6)
    assert message_too_large(
        core_exceptions.InvalidArgument("Request payload size exceeds the limit: 9 bytes.")
    ) == (None, 9)
    assert message_too_large(core_exceptions.ResourceExhausted("quota exceeded")) is None
    assert message_too_large(core_exceptions.InvalidArgument("filter is malformed")) is None
    # Only these two codes carry it: the same text under another code is something else.
    assert (
        message_too_large(core_exceptions.Unknown("Received message larger than max (7 vs. 6)"))
        is None
    )
    assert message_too_large(core_exceptions.ResourceExhausted(None)) is None  # type: ignore[arg-type]


def test_a_retry_error_describes_its_last_cause_or_itself():
    last = core_exceptions.NotFound("gone")
    error = service_error(
        core_exceptions.RetryError("out of time", last), operation="O", resource="r"
    )
    assert type(error) is DeadlineExceededError
    assert str(error) == (
        "O on r failed: out of time; last error: NOT_FOUND: gone (the retry deadline ran out; "
        "raise the timeout or check the endpoint)"
    )
    bare = service_error(
        core_exceptions.RetryError("out of time", None), operation="O", resource="r"
    )
    assert str(bare) == (
        "O on r failed: RetryError: out of time, last exception: None (the retry deadline ran "
        "out; raise the timeout or check the endpoint)"
    )


def test_a_foreign_error_is_described_by_its_type():
    error = service_error(KeyError("k"), operation="O", resource="r")
    assert type(error) is ServiceError
    assert str(error) == "O on r failed: KeyError: 'k' (see the chained exception)"


def test_translate_errors_chains_the_cause_and_keeps_success():
    cause = core_exceptions.RetryError("late", None)
    with pytest.raises(DeadlineExceededError) as info, translate_errors("Check", "g"):
        raise cause
    assert info.value.__cause__ is cause
    assert str(info.value).startswith("Check on g failed: ")
    with translate_errors("Check", "g"):
        value = 1
    assert value == 1


def test_the_errors_keep_what_they_were_given():
    error = InputError("too long", field="query", limit=500)
    assert (str(error), error.field, error.limit) == ("too long", "query", 500)
    assert InputError("bad", field="f").limit is None
    result = object()
    ungrounded = UngroundedAnswerError("low", result=result)
    assert (str(ungrounded), ungrounded.result) == ("low", result)
    assert ServiceError("x").cause is None
    assert str(ServiceError("x")) == "x"
