"""The errors grounding_core and the framework adapters raise, and the one mapping of Google's.

Hierarchy::

    GroundingError
    ├── ConfigurationError        the target or connection settings are incomplete or contradictory
    ├── InputError                a request breaks a documented API limit; nothing was sent
    ├── OffsetError               a UTF-8 byte offset is outside the text or inside a character
    ├── UngroundedAnswerError     the answer failed the grounding check (raised only on request)
    └── ServiceError              a call to Google's service (or the emulator) failed
        ├── InvalidRequestError       INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE, and
        │                             RESOURCE_EXHAUSTED for a message over gRPC's size limit
        ├── NotFoundError             NOT_FOUND
        ├── PermissionDeniedError     PERMISSION_DENIED, UNAUTHENTICATED
        ├── ServiceUnavailableError   UNAVAILABLE, RESOURCE_EXHAUSTED (quota), CANCELLED by the
        │                             server (retries exhausted); INTERNAL (not retried)
        └── DeadlineExceededError     DEADLINE_EXCEEDED, or the retry deadline ran out

Every ``ServiceError`` chains the ``google.api_core.exceptions`` error that caused it
(``raise ... from exc``) and keeps it in ``.cause``. The configuration and input errors also
subclass ``ValueError`` so that code catching ``ValueError`` keeps working.
"""

from __future__ import annotations

import contextlib
import copy
import re
from collections.abc import Iterator
from typing import Any

from google.api_core import exceptions as core_exceptions

class GroundingError(Exception):
    """Base class of every error this project raises. Each pickles (an error raised in a
    worker process reaches the parent) with its message and attributes."""

    def __reduce__(self) -> tuple[Any, ...]:
        # Exception's own rebuilds from the message alone, which misses keyword-only
        # arguments (``field``, ``result``, ``cause``): build without __init__, then restore.
        return (type(self).__new__, (type(self), *self.args), self.__dict__)


class ConfigurationError(GroundingError, ValueError):
    """The target or connection settings are incomplete or contradictory; ``field`` names the
    setting and ``limit`` its limit where one applies (as ``InputError``'s do)."""

    def __init__(self, message: str, *, field: str | None = None, limit: object = None) -> None:
        super().__init__(message)
        self.field = field
        self.limit = limit

    @classmethod
    def of(cls, error: InputError) -> ConfigurationError:
        """``error`` (a setting's value refused by a spec) as a configuration error."""
        return cls(str(error), field=error.field, limit=error.limit)


class InputError(GroundingError, ValueError):
    """A request breaks a documented API limit; it was refused before any call was made.

    ``field`` names the offending request field, ``limit`` the documented limit (if any).
    """

    def __init__(self, message: str, *, field: str, limit: object = None) -> None:
        super().__init__(message)
        self.field = field
        self.limit = limit


class OffsetError(GroundingError, ValueError):
    """A UTF-8 byte offset lies outside the text or inside a multi-byte character."""


class UngroundedAnswerError(GroundingError):
    """The answer's support score is below the required minimum.

    Raised only when a caller asked for it (for example ``on_ungrounded="raise"``); the
    grounding result that failed is attached as ``.result``.
    """

    def __init__(self, message: str, *, result: object) -> None:
        super().__init__(message)
        self.result = result


class ServiceError(GroundingError):
    """A call to the service failed; ``cause`` is the ``google.api_core`` exception."""

    def __init__(self, message: str, *, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause

    def __reduce__(self) -> tuple[Any, ...]:
        # The cause's gRPC call (its ``response``, and in its ``errors``) belongs to this
        # process and cannot be pickled: the cause goes without it (its message, code, details
        # and error info kept).
        cause = self.cause
        if isinstance(cause, core_exceptions.GoogleAPICallError):
            cause = copy.copy(cause)
            cause._response = None
            cause._errors = [e for e in cause.errors if not isinstance(e, BaseException)]
        rebuild, arguments, state = super().__reduce__()
        return (rebuild, arguments, {**state, "cause": cause})


class InvalidRequestError(ServiceError, ValueError):
    """The service refused the request as invalid (INVALID_ARGUMENT and kin)."""


class NotFoundError(ServiceError):
    """The data store, engine, serving config or document does not exist."""


class PermissionDeniedError(ServiceError):
    """The credentials may not call this method on this resource."""


class ServiceUnavailableError(ServiceError):
    """The service stayed unavailable or overloaded until the retries gave up."""


class DeadlineExceededError(ServiceError):
    """The call (with its retries) did not finish within its timeout."""


_E = core_exceptions
# Google's error -> ours, and what to do (the first match wins).
_MAPPING: tuple[tuple[type[BaseException], type[ServiceError], str], ...] = (
    (_E.NotFound, NotFoundError, "check the project, location, ids and serving config"),
    (_E.PermissionDenied, PermissionDeniedError, "grant the Discovery Engine User role"),
    (_E.Unauthenticated, PermissionDeniedError, "run `gcloud auth application-default login`"),
    (_E.DeadlineExceeded, DeadlineExceededError, "raise the timeout or retry the call later"),
    (_E.RetryError, DeadlineExceededError, "the retry deadline ran out; raise the timeout"),
    (_E.FailedPrecondition, InvalidRequestError, "the resource is not ready for this call"),
    (_E.BadRequest, InvalidRequestError, "fix the request field named above"),
    (_E.ServiceUnavailable, ServiceUnavailableError, "is the endpoint (the emulator) running?"),
    (_E.TooManyRequests, ServiceUnavailableError, "the quota is exhausted; slow down"),
    # Not retried: Google's clients do not retry INTERNAL (AIP-194).
    (_E.InternalServerError, ServiceUnavailableError, "report it if it persists"),
    (_E.Cancelled, ServiceUnavailableError, "the server cancelled the call; retry it later"),
)

# The texts of a message over a size limit: gRPC's own ("Received message larger than max
# (20971520 vs. 16777216)", "Sent message larger than max (...)", RESOURCE_EXHAUSTED) and that
# of Google's API front end ("Request payload size exceeds the limit: 10485760 bytes.",
# INVALID_ARGUMENT). No retry can fix either: the same request is as large next time.
_TOO_LARGE = re.compile(
    r"message larger than max \((?P<size>\d+) vs\. (?P<limit>\d+)\)"
    r"|Request payload size exceeds the limit: (?P<payload_limit>\d+) bytes"
)
_TOO_LARGE_HINT = "send fewer or smaller facts or metadata, or ask for fewer results per page"


def message_too_large(exc: BaseException) -> tuple[int | None, int] | None:
    """``(size or None, limit)`` in bytes when ``exc`` says a message is over a size limit
    (gRPC's RESOURCE_EXHAUSTED or the API front end's INVALID_ARGUMENT), else ``None``."""
    if not isinstance(exc, core_exceptions.ResourceExhausted | core_exceptions.InvalidArgument):
        return None
    found = _TOO_LARGE.search(exc.message or "")
    if found is None:
        return None
    if found["payload_limit"] is not None:
        return None, int(found["payload_limit"])
    return int(found["size"]), int(found["limit"])


def _describe(exc: BaseException) -> str:
    if isinstance(exc, core_exceptions.RetryError) and exc.cause is not None:
        return f"{exc.message}; last error: {_describe(exc.cause)}"
    if isinstance(exc, core_exceptions.GoogleAPICallError):
        code = exc.grpc_status_code.name if exc.grpc_status_code is not None else exc.code
        return f"{code}: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


def service_error(exc: BaseException, *, operation: str, resource: str) -> ServiceError:
    """The project error for a failed call, naming the operation, resource and cause."""
    too_large = message_too_large(exc)
    if too_large is not None:
        size, limit = too_large
        given = f" of {size:,} bytes" if size is not None else ""
        return InvalidRequestError(
            f"{operation} on {resource} failed: a message{given} is larger than the {limit:,} "
            f"bytes allowed ({_describe(exc)}): {_TOO_LARGE_HINT}",
            cause=exc,
        )
    error_type, hint = next(
        ((error, hint) for google, error, hint in _MAPPING if isinstance(exc, google)),
        (ServiceError, "see the chained exception"),
    )
    return error_type(f"{operation} on {resource} failed: {_describe(exc)} ({hint})", cause=exc)


@contextlib.contextmanager
def translate_errors(operation: str, resource: str) -> Iterator[None]:
    """Turn ``google.api_core`` errors raised inside the block into ``ServiceError``s.

    >>> with translate_errors("Search", serving_config):  # doctest: +SKIP
    ...     client.search(request)
    """
    try:
        yield
    except (core_exceptions.GoogleAPIError, core_exceptions.RetryError) as exc:
        raise service_error(exc, operation=operation, resource=resource) from exc
