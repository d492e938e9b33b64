"""The errors grounding_core and the framework adapters raise, and the one mapping of Google's
(``service_error``): each ``ServiceError`` subclass names the gRPC codes it stands for."""

from __future__ import annotations

import contextlib
import copy
import re
from collections.abc import Iterator
from typing import Any

from google.api_core import exceptions as core_exceptions


class GroundingError(Exception):
    """Base class of every error this project raises; each pickles with its attributes (an
    error raised in a worker process reaches the parent)."""

    def __reduce__(self) -> tuple[Any, ...]:
        # Exception's own rebuilds from the message alone, losing the keyword-only arguments.
        return (type(self).__new__, (type(self), *self.args), self.__dict__)


class ConfigurationError(GroundingError, ValueError):
    """The target or connection settings are incomplete or contradictory; ``field`` names the
    setting and ``limit`` its limit where one applies."""

    def __init__(self, message: str, *, field: str | None = None, limit: object = None) -> None:
        super().__init__(message)
        self.field, self.limit = field, limit

    @classmethod
    def of(cls, error: InputError) -> ConfigurationError:
        """``error`` (a setting's value refused by a spec) as a configuration error."""
        return cls(str(error), field=error.field, limit=error.limit)


class InputError(GroundingError, ValueError):
    """A request breaks a documented API limit; nothing was sent. ``field`` names the request
    field, ``limit`` the documented limit (if any)."""

    def __init__(self, message: str, *, field: str, limit: object = None) -> None:
        super().__init__(message)
        self.field, self.limit = field, limit


class OffsetError(GroundingError, ValueError):
    """A UTF-8 byte offset lies outside the text or inside a multi-byte character."""


class UngroundedAnswerError(GroundingError):
    """The answer's support score is below the required minimum (raised only on request, e.g.
    ``on_ungrounded="raise"``); ``.result`` is the grounding result that failed."""

    def __init__(self, message: str, *, result: object) -> None:
        super().__init__(message)
        self.result = result


class ServiceError(GroundingError):
    """A call to the service failed; ``cause`` is the ``google.api_core`` exception."""

    def __init__(self, message: str, *, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause

    def __reduce__(self) -> tuple[Any, ...]:
        # The cause's gRPC call (its response, and in its errors) cannot be pickled: the cause
        # goes without it (its message, code, details and error info kept).
        cause = self.cause
        if isinstance(cause, core_exceptions.GoogleAPICallError):
            cause = copy.copy(cause)
            cause._response = None
            cause._errors = [e for e in cause.errors if not isinstance(e, BaseException)]
        rebuild, arguments, state = super().__reduce__()
        return (rebuild, arguments, {**state, "cause": cause})


class InvalidRequestError(ServiceError, ValueError):
    """The service refused the request as invalid: INVALID_ARGUMENT, FAILED_PRECONDITION,
    OUT_OF_RANGE, RESOURCE_EXHAUSTED for a message over gRPC's size limit, or UNIMPLEMENTED:
    it does not support what the request asks for (the emulator: Google Search grounding)."""


class NotFoundError(ServiceError):
    """NOT_FOUND: the data store, engine, serving config or document does not exist."""


class PermissionDeniedError(ServiceError):
    """PERMISSION_DENIED, UNAUTHENTICATED: the credentials may not call this method here."""


class ServiceUnavailableError(ServiceError):
    """UNAVAILABLE, RESOURCE_EXHAUSTED (quota) or CANCELLED by the server, not retried
    (``retry=None``, a host name that does not resolve, an emulator that is not running);
    INTERNAL (never retried). Retried until the retry deadline, they end in
    ``DeadlineExceededError``."""


class DeadlineExceededError(ServiceError):
    """DEADLINE_EXCEEDED, or the retry deadline ran out (the last attempt's error in the
    message)."""


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
    (
        _E.MethodNotImplemented,
        InvalidRequestError,
        "the service does not support what the request asks for: leave it out, or send it "
        "to Google's service (the emulator refuses what it cannot stand in for)",
    ),
    (_E.ServiceUnavailable, ServiceUnavailableError, "is the endpoint (the emulator) running?"),
    (_E.TooManyRequests, ServiceUnavailableError, "the quota is exhausted; slow down"),
    # Not retried: Google's clients do not retry INTERNAL (AIP-194).
    (_E.InternalServerError, ServiceUnavailableError, "report it if it persists"),
    (_E.Cancelled, ServiceUnavailableError, "the server cancelled the call; retry it later"),
)

# A message over a size limit, which no retry can fix: gRPC's RESOURCE_EXHAUSTED ("Received
# message larger than max (20971520 vs. 16777216)", "Sent message ...") and the INVALID_ARGUMENT
# of Google's API front end ("Request payload size exceeds the limit: 10485760 bytes.").
_TOO_LARGE = re.compile(
    r"message larger than max \((?P<size>\d+) vs\. (?P<limit>\d+)\)"
    r"|Request payload size exceeds the limit: (?P<payload_limit>\d+) bytes"
)


def message_too_large(exc: BaseException) -> tuple[int | None, int] | None:
    """``(size or None, limit)`` in bytes when ``exc`` says a message is over a size limit,
    else ``None``."""
    if not isinstance(exc, core_exceptions.ResourceExhausted | core_exceptions.InvalidArgument):
        return None
    found = _TOO_LARGE.search(exc.message or "")
    if found is None:
        return None
    size = found["size"]
    return (int(size) if size else None), int(found["limit"] or found["payload_limit"])


# gRPC's words for a host name that does not resolve: "DNS resolution failed for HOST" (the
# c-ares resolver), "errors resolving HOST" (the EventEngine resolver of recent grpcio).
_UNRESOLVED = re.compile(r"DNS resolution failed for |errors resolving ")


def unresolved_host(exc: BaseException) -> bool:
    """Whether ``exc`` is an UNAVAILABLE saying the service's host name does not resolve: no
    network, DNS or a wrong endpoint, which a minute of retries does not fix."""
    if not isinstance(exc, core_exceptions.ServiceUnavailable):
        return False
    return _UNRESOLVED.search(exc.message or "") is not None


def _describe(exc: BaseException) -> str:
    if isinstance(exc, core_exceptions.RetryError) and exc.cause is not None:
        return f"{exc.message}; last error: {_describe(exc.cause)}"
    if isinstance(exc, core_exceptions.GoogleAPICallError):
        code = exc.grpc_status_code.name if exc.grpc_status_code is not None else exc.code
        return f"{code}: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


def service_error(exc: BaseException, *, operation: str, resource: str) -> ServiceError:
    """The project error for a failed call, naming the operation, resource and cause."""
    failed = f"{operation} on {resource} failed"
    too_large = message_too_large(exc)
    if too_large is not None:
        size, limit = too_large
        given = f" of {size:,} bytes" if size is not None else ""
        return InvalidRequestError(
            f"{failed}: a message{given} is larger than the {limit:,} bytes allowed "
            f"({_describe(exc)}): send fewer or smaller facts or metadata, or ask for fewer "
            "results per page",
            cause=exc,
        )
    if unresolved_host(exc):
        return ServiceUnavailableError(
            f"{failed}: {_describe(exc)} (the host name does not resolve, so the call was not "
            "retried: check the network connection, DNS and proxy settings, and the endpoint: "
            "the location, or client_options.api_endpoint)",
            cause=exc,
        )
    error_type, hint = next(
        ((error, hint) for google, error, hint in _MAPPING if isinstance(exc, google)),
        (ServiceError, "see the chained exception"),
    )
    return error_type(f"{failed}: {_describe(exc)} ({hint})", cause=exc)


@contextlib.contextmanager
def translate_errors(operation: str, resource: str) -> Iterator[None]:
    """Turn ``google.api_core`` errors raised inside the block into ``ServiceError``s."""
    try:
        yield
    except (core_exceptions.GoogleAPIError, core_exceptions.RetryError) as exc:
        raise service_error(exc, operation=operation, resource=resource) from exc
