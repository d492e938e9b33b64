"""The one place where faults are injected and emulator errors become gRPC statuses: the
generic handlers the server serves the method table (``servicers/registry.py``) through.

Requests arrive as bytes and are parsed inside the handler, so that a garbage message gets
``INVALID_ARGUMENT`` (gRPC's own deserializer hook would answer ``INTERNAL``). An
``EmulatorError`` becomes the status its ``code`` names; anything else is a bug, ``INTERNAL``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from grounding_emulator.errors import EmulatorError
from grounding_emulator.wire.faults import FaultInjector
from grounding_emulator.wire.servicers.registry import Method

__all__ = ["generic_handlers", "status_code"]

logger = logging.getLogger(__name__)


def status_code(error: EmulatorError) -> grpc.StatusCode:
    """The gRPC status of an emulator error (by its ``code`` name)."""
    code: grpc.StatusCode = getattr(grpc.StatusCode, error.code, grpc.StatusCode.UNKNOWN)
    return code


def _wait(context: grpc.ServicerContext, seconds: float) -> None:
    """Sleep ``seconds``, waking early if the client cancels or its deadline passes."""
    done = threading.Event()
    context.add_callback(done.set)
    done.wait(seconds)


def _handler(method: Method, faults: FaultInjector) -> Callable[[bytes, Any], bytes]:
    path = method.path
    parse = method.request_type.FromString
    type_name = method.request_type.DESCRIPTOR.full_name

    def handle(data: bytes, context: grpc.ServicerContext) -> bytes:
        fault = faults.next_fault(path)
        if fault is not None:
            if fault.delay:
                _wait(context, fault.delay)
            if fault.code is not None:
                context.abort(getattr(grpc.StatusCode, fault.code), fault.message)
        try:
            request = parse(data)
        except DecodeError as exc:
            context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, f"the request is not a valid {type_name}: {exc}"
            )
        try:
            response = method.call(request)
        except EmulatorError as exc:
            # INTERNAL (a bad judge) is the server's fault, not the request's: say it in its log
            level = logging.WARNING if exc.code == "INTERNAL" else logging.DEBUG
            logger.log(level, "%s: %s %s", path, exc.code, exc)
            context.abort(status_code(exc), str(exc))
        except Exception as exc:
            logger.exception("%s failed", path)
            context.abort(grpc.StatusCode.INTERNAL, f"emulator error in {path}: {exc!r}")
        data_out: bytes = response.SerializeToString()
        return data_out

    return handle


def generic_handlers(
    methods: Sequence[Method], faults: FaultInjector
) -> list[grpc.GenericRpcHandler]:
    """``grpc.method_handlers_generic_handler``s for ``methods``, one per service."""
    services: dict[str, dict[str, grpc.RpcMethodHandler]] = {}
    for method in methods:
        services.setdefault(method.service, {})[method.name] = grpc.unary_unary_rpc_method_handler(
            _handler(method, faults)
        )
    return [grpc.method_handlers_generic_handler(name, table) for name, table in services.items()]
