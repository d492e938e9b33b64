"""The gRPC method table: service names (every version) -> servicer methods, and the one place
where faults are injected and emulator errors become gRPC statuses.

Discovery Engine methods are served under ``v1``, ``v1beta`` and ``v1alpha`` by the same
handlers: the wire formats share field numbers, and fields a version adds are ignored.
Requests arrive as bytes and are parsed inside the handler, so that a garbage message gets
``INVALID_ARGUMENT`` (gRPC's own deserializer hook would answer ``INTERNAL``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import types as dk
from google.protobuf.message import DecodeError

from grounding_emulator.errors import EmulatorError
from grounding_emulator.wire.faults import FaultInjector
from grounding_emulator.wire.servicers import (
    ConversationalSearchServicer,
    DeveloperKnowledgeServicer,
    GroundedGenerationServicer,
    SearchServicer,
)

__all__ = [
    "DISCOVERY_ENGINE_VERSIONS",
    "Method",
    "generic_handlers",
    "method_table",
    "status_code",
]

logger = logging.getLogger(__name__)

DISCOVERY_ENGINE_VERSIONS = ("v1", "v1beta", "v1alpha")
DEVELOPER_KNOWLEDGE_SERVICE = "google.developers.knowledge.v1.DeveloperKnowledge"


@dataclass(frozen=True, slots=True)
class Method:
    """One gRPC method: ``/{service}/{name}``, its request class and the servicer call."""

    service: str
    name: str
    request_type: Any
    call: Callable[[Any], Any]

    @property
    def path(self) -> str:
        """The full method path, ``/package.Service/Method``."""
        return f"/{self.service}/{self.name}"


def method_table(
    search: SearchServicer,
    grounding: GroundedGenerationServicer,
    conversation: ConversationalSearchServicer,
    developer: DeveloperKnowledgeServicer,
) -> list[Method]:
    """Every method the emulator serves."""
    methods: list[Method] = []
    for version in DISCOVERY_ENGINE_VERSIONS:
        package = f"google.cloud.discoveryengine.{version}"
        methods += [
            Method(f"{package}.SearchService", "Search", de.SearchRequest.pb(), search.search),
            Method(
                f"{package}.GroundedGenerationService",
                "CheckGrounding",
                de.CheckGroundingRequest.pb(),
                grounding.check_grounding,
            ),
            Method(
                f"{package}.ConversationalSearchService",
                "AnswerQuery",
                de.AnswerQueryRequest.pb(),
                conversation.answer_query,
            ),
        ]
    service = DEVELOPER_KNOWLEDGE_SERVICE
    methods += [
        Method(
            service,
            "SearchDocumentChunks",
            dk.SearchDocumentChunksRequest.pb(),
            developer.search_document_chunks,
        ),
        Method(service, "GetDocument", dk.GetDocumentRequest.pb(), developer.get_document),
        Method(
            service,
            "BatchGetDocuments",
            dk.BatchGetDocumentsRequest.pb(),
            developer.batch_get_documents,
        ),
        Method(service, "AnswerQuery", dk.AnswerQueryRequest.pb(), developer.answer_query),
    ]
    return methods


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
            logger.debug("%s: %s %s", path, exc.code, exc)
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
