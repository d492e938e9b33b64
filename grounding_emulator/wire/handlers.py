"""The one place where faults are injected and emulator errors become gRPC statuses: the
generic handlers the server serves the method table (``servicers/registry.py``) through, and
:func:`serve_call`, which serves one call for every transport (gRPC here, REST in ``rest/``),
so that both check sizes, inject faults, drain and map errors alike.

Requests arrive as bytes and are parsed inside the handler, so that a garbage message gets
``INVALID_ARGUMENT`` (gRPC's own deserializer hook would answer ``INTERNAL``), and so does one
over the request size limit, with the text Google's API front end answers an oversized request
with ("Request payload size exceeds the limit: N bytes."; Google documents no size for these
APIs); so does an enum number the request's proto does not define (``enum_values.py``). The
servicer runs inside ``call_state.serving``: a call whose deadline passed, or that was
cancelled, before or during its work stops at the next check with ``DEADLINE_EXCEEDED`` or
``CANCELLED``. Errors are classified once, here: an ``EmulatorError`` becomes the status its
``code`` names; a ``RecursionError`` is input nested deeper than a reader measured
(``INVALID_ARGUMENT``: the input caused it, and a retry cannot succeed); anything else is the
emulator's own bug, ``INTERNAL``. A server-streaming method builds all its responses before the
first is sent, so that every error is a status with no partial stream before it. A bidirectional
method serves each request of the client's stream as one call (size check, fault, servicer) and
sends its responses before reading the next; an error ends the stream with its status. Every
status message is bounded (:func:`status_message`), so that no error text outgrows gRPC's header
limit and reaches the client as ``RESOURCE_EXHAUSTED``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from grounding_emulator.call_state import CallContext, check_call, serving
from grounding_emulator.errors import EmulatorError
from grounding_emulator.wire.drain import CallGate
from grounding_emulator.wire.enum_values import check_enum_values
from grounding_emulator.wire.faults import FaultInjector
from grounding_emulator.wire.servicers.registry import Method

__all__ = [
    "MAX_STATUS_MESSAGE_BYTES",
    "Refused",
    "admitted",
    "generic_handlers",
    "serve_call",
    "status_code",
    "status_message",
]

logger = logging.getLogger(__name__)

# UTF-8 bytes of a status message. gRPC sends it percent-encoded (a non-ASCII byte takes 3) in
# the trailing metadata, whose default soft limit at the receiver is 8 KiB: 3 x 2048 fits.
MAX_STATUS_MESSAGE_BYTES = 2048


def status_message(message: str, limit: int = MAX_STATUS_MESSAGE_BYTES) -> str:
    """``message`` cut to at most ``limit`` UTF-8 bytes, never inside a character, with a note
    of its whole size when cut; characters UTF-8 cannot encode (lone surrogates) are escaped."""
    data = message.encode("utf-8", "backslashreplace")
    if len(data) <= limit:
        return data.decode("utf-8")
    note = f"… (message cut at {limit} of {len(data)} bytes)"
    room = max(0, limit - len(note.encode("utf-8")))
    # The cut may split the last character: "ignore" drops its partial bytes, nothing else
    # (the rest is valid UTF-8, just encoded).
    return data[:room].decode("utf-8", "ignore") + note


class Refused(Exception):
    """A call answered with a status instead of a response: ``code`` (a ``grpc.StatusCode``)
    and its ``message``, bounded (:func:`status_message`). Every transport answers it in its
    own form: gRPC as the status, REST as Google's error JSON (``rest/``)."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = status_message(message)


def status_code(error: EmulatorError) -> grpc.StatusCode:
    """The gRPC status of an emulator error (by its ``code`` name)."""
    code: grpc.StatusCode = getattr(grpc.StatusCode, error.code, grpc.StatusCode.UNKNOWN)
    return code


@contextmanager
def admitted(gate: CallGate) -> Iterator[None]:
    """The call inside the ``with`` block, counted by ``gate`` while in flight; ``Refused``
    (``UNAVAILABLE``, which clients retry) once the gate is closed."""
    if not gate.enter():
        raise Refused(
            grpc.StatusCode.UNAVAILABLE, "the emulator is stopping: retry when it is serving again"
        )
    try:
        yield
    finally:
        gate.leave()


def serve_call(
    method: Method,
    size: int,
    parse: Callable[[], Any],
    *,
    faults: FaultInjector,
    max_request_bytes: int,
    context: CallContext,
    wait: Callable[[float], None],
) -> Any:
    """One call of ``method``, as every transport serves it: a request of ``size`` bytes over
    ``max_request_bytes`` is refused before it is read; then the injected fault, if any
    (``wait`` sleeps its delay, waking early when the call ends); then ``parse()`` (which
    raises ``Refused`` for a request it cannot read) and the servicer, inside
    :func:`serving` ``(context)``. Returns the response (a list of them for a streaming
    method); every error is a ``Refused``."""
    path = method.path
    if size > max_request_bytes:
        raise Refused(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"Request payload size exceeds the limit: {max_request_bytes} bytes.",
        )
    fault = faults.next_fault(path)
    if fault is not None:
        if fault.delay:
            wait(fault.delay)
        if fault.code is not None:
            raise Refused(getattr(grpc.StatusCode, fault.code), fault.message)
    type_name = method.request_type.DESCRIPTOR.full_name
    try:
        request = parse()
        check_enum_values(request)  # an undefined enum number: INVALID_ARGUMENT naming it
        with serving(context):  # a cancelled or expired call stops its work (call_state.py)
            check_call("the start of its work")  # e.g. its deadline passed while it waited
            response = method.call(request)
            return list(response) if method.streaming else response
    except Refused:
        raise
    except EmulatorError as exc:
        # INTERNAL (a bad judge) is the server's fault, not the request's: say it in its log
        level = logging.WARNING if exc.code == "INTERNAL" else logging.DEBUG
        logger.log(level, "%s: %s %s", path, exc.code, exc)
        raise Refused(status_code(exc), str(exc)) from exc
    except RecursionError as exc:
        # Only input nests without bound; a reader should have measured it (say so).
        logger.warning("%s: input nested too deeply for a reader: %r", path, exc)
        raise Refused(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the {type_name} nests too deeply to be read: write it flatter",
        ) from exc
    except Exception as exc:
        logger.exception("%s failed", path)
        raise Refused(grpc.StatusCode.INTERNAL, f"emulator error in {path}: {exc!r}") from exc


def _wait(context: grpc.ServicerContext, seconds: float) -> None:
    """Sleep ``seconds``, waking early if the client cancels or its deadline passes."""
    done = threading.Event()
    if context.add_callback(done.set):  # False: the call has already ended, nothing to wait for
        done.wait(seconds)


_Reply = bytes | Iterator[bytes]  # one response, or a stream's responses


def _bidi_handler(
    method: Method, faults: FaultInjector, max_request_bytes: int, gate: CallGate
) -> Callable[[Iterator[bytes], Any], Iterator[bytes]]:
    type_name = method.request_type.DESCRIPTOR.full_name

    def handle(requests: Iterator[bytes], context: grpc.ServicerContext) -> Iterator[bytes]:
        try:
            with admitted(gate):
                for data in requests:

                    def parse(data: bytes = data) -> Any:
                        try:
                            return method.request_type.FromString(data)
                        except DecodeError as exc:
                            raise Refused(
                                grpc.StatusCode.INVALID_ARGUMENT,
                                f"the request is not a valid {type_name}: {exc}",
                            ) from exc

                    responses = serve_call(
                        method,
                        len(data),
                        parse,
                        faults=faults,
                        max_request_bytes=max_request_bytes,
                        context=context,
                        wait=lambda seconds: _wait(context, seconds),
                    )
                    yield from [message.SerializeToString() for message in responses]
        except Refused as exc:
            context.abort(exc.code, exc.message)

    return handle


def _handler(
    method: Method, faults: FaultInjector, max_request_bytes: int, gate: CallGate
) -> Callable[[bytes, Any], _Reply]:
    type_name = method.request_type.DESCRIPTOR.full_name

    def handle(data: bytes, context: grpc.ServicerContext) -> _Reply:
        def parse() -> Any:
            try:
                return method.request_type.FromString(data)
            except DecodeError as exc:
                raise Refused(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"the request is not a valid {type_name}: {exc}",
                ) from exc

        try:
            with admitted(gate):
                response = serve_call(
                    method,
                    len(data),
                    parse,
                    faults=faults,
                    max_request_bytes=max_request_bytes,
                    context=context,
                    wait=lambda seconds: _wait(context, seconds),
                )
                if method.streaming:
                    return iter([message.SerializeToString() for message in response])
                data_out: bytes = response.SerializeToString()
                return data_out
        except Refused as exc:
            context.abort(exc.code, exc.message)
            raise  # not reached: abort raises

    return handle


def generic_handlers(
    methods: Sequence[Method],
    faults: FaultInjector,
    max_request_bytes: int,
    gate: CallGate | None = None,
) -> list[grpc.GenericRpcHandler]:
    """``grpc.method_handlers_generic_handler``s for ``methods``, one per service; a request
    over ``max_request_bytes`` is refused (``INVALID_ARGUMENT``) before it is parsed; every call
    passes ``gate`` (``UNAVAILABLE`` once it is closed)."""
    gate = CallGate() if gate is None else gate
    services: dict[str, dict[str, grpc.RpcMethodHandler]] = {}
    for method in methods:
        if method.bidi:
            services.setdefault(method.service, {})[method.name] = (
                grpc.stream_stream_rpc_method_handler(
                    _bidi_handler(method, faults, max_request_bytes, gate)
                )
            )
            continue
        handle = _handler(method, faults, max_request_bytes, gate)
        make = (
            grpc.unary_stream_rpc_method_handler
            if method.streaming
            else grpc.unary_unary_rpc_method_handler
        )
        services.setdefault(method.service, {})[method.name] = make(handle)
    return [grpc.method_handlers_generic_handler(name, table) for name, table in services.items()]
