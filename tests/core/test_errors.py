import pytest
from google.api_core import exceptions as core_exceptions

from grounding_core import (
    DeadlineExceededError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    ServiceUnavailableError,
)
from grounding_core.errors import translate_errors

RESOURCE = "projects/p/locations/global/collections/c/dataStores/d/servingConfigs/s"


@pytest.mark.parametrize(
    ("google_error", "project_error", "code"),
    [
        (
            core_exceptions.InvalidArgument("page_size must be >= 0"),
            InvalidRequestError,
            "INVALID_ARGUMENT",
        ),
        (
            core_exceptions.FailedPrecondition("not ready"),
            InvalidRequestError,
            "FAILED_PRECONDITION",
        ),
        (core_exceptions.NotFound("no data store d"), NotFoundError, "NOT_FOUND"),
        (core_exceptions.PermissionDenied("no"), PermissionDeniedError, "PERMISSION_DENIED"),
        (core_exceptions.Unauthenticated("who?"), PermissionDeniedError, "UNAUTHENTICATED"),
        (core_exceptions.ServiceUnavailable("down"), ServiceUnavailableError, "UNAVAILABLE"),
        (core_exceptions.ResourceExhausted("quota"), ServiceUnavailableError, "RESOURCE_EXHAUSTED"),
        (core_exceptions.InternalServerError("oops"), ServiceUnavailableError, "INTERNAL"),
        (core_exceptions.DeadlineExceeded("slow"), DeadlineExceededError, "DEADLINE_EXCEEDED"),
        (core_exceptions.Cancelled("gone"), ServiceUnavailableError, "CANCELLED"),
    ],
)
def test_google_errors_become_project_errors_naming_resource_and_cause(
    google_error, project_error, code
):
    with pytest.raises(project_error) as info, translate_errors("Search", RESOURCE):
        raise google_error
    error = info.value
    assert type(error) is project_error
    assert error.__cause__ is google_error
    assert error.cause is google_error
    message = str(error)
    assert message.startswith(f"Search on {RESOURCE} failed: {code}: ")
    assert google_error.message in message


def test_retry_error_names_the_last_cause():
    last = core_exceptions.ServiceUnavailable("connection refused")
    retry_error = core_exceptions.RetryError("Timeout of 1.0s exceeded", last)
    expected = "last error: UNAVAILABLE: connection refused"
    with pytest.raises(DeadlineExceededError, match=expected), translate_errors("Check", "g"):
        raise retry_error


def test_other_exceptions_pass_through_untouched():
    with pytest.raises(KeyError), translate_errors("Search", RESOURCE):
        raise KeyError("x")
