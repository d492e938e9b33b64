"""``google.longrunning.Operations``: GetOperation, ListOperations, CancelOperation, as Google's
Discovery Engine clients call them (``operation.result()`` polls GetOperation while an
operation runs; the clients' ``get_operation``, ``list_operations`` and ``cancel_operation``
call them directly).

The operations are those of the resource RPCs, done when their call returns
(``wire/operations.py``). ``CancelOperation`` "makes a best effort to cancel the operation, but
success is not guaranteed ... Clients can use Operations.GetOperation ... to check whether the
cancellation succeeded or whether the operation completed despite cancellation": every operation
here has completed, so a cancel leaves it as it is. ``ListOperations`` lists the operations under
a resource (a data store's include its branch's imports and purges), oldest first; Google
documents no filter grammar for Discovery Engine's operations, so a ``filter`` is
``INVALID_ARGUMENT``.
"""

from __future__ import annotations

from typing import Any

from google.longrunning import operations_pb2
from google.protobuf import empty_pb2

from grounding_emulator.errors import InvalidArgument, NotFound, excerpt
from grounding_emulator.page_tokens import fingerprint, page_bounds
from grounding_emulator.wire.servicers.registry import Servicer, rpc

__all__ = ["OperationsServicer"]

# ListOperationsRequest.page_size is "The standard list page size"; Google does not give its
# default or maximum for these APIs.
DEFAULT_OPERATIONS_PAGE_SIZE = 100
MAX_OPERATIONS_PAGE_SIZE = 1000


def _required(value: str, field: str) -> str:
    if not value:
        raise InvalidArgument(f"{field} is required", field=field)
    return value


class OperationsServicer(Servicer):
    """``google.longrunning.Operations`` (the operations of the resource RPCs)."""

    services = ("google.longrunning.Operations",)

    def _operation(self, name: str) -> Any:
        operation = self.backend.operations.get(_required(name, "name"))
        if operation is None:
            raise NotFound(
                f"operation {excerpt(name)} not found (operations are kept in memory while the "
                "emulator runs)"
            )
        return operation

    @rpc("GetOperation", operations_pb2.GetOperationRequest)
    def get_operation(self, request: Any) -> Any:
        """``GetOperation``: the operation of that name; ``NOT_FOUND`` if none."""
        return self._operation(request.name)

    @rpc("ListOperations", operations_pb2.ListOperationsRequest)
    def list_operations(self, request: Any) -> Any:
        """``ListOperations``: the operations under resource ``name``, paged."""
        name = _required(request.name, "name")
        if request.filter:
            raise InvalidArgument(
                f"filter {excerpt(request.filter)}: Google documents no filter for these "
                "operations and the emulator takes none; list them all and select",
                field="filter",
            )
        found = self.backend.operations.under(name)
        start, end, token = page_bounds(
            len(found),
            request.page_size,
            request.page_token,
            fingerprint(["ListOperations", name]),
            default=DEFAULT_OPERATIONS_PAGE_SIZE,
            maximum=MAX_OPERATIONS_PAGE_SIZE,
            fields="name",
        )
        response = operations_pb2.ListOperationsResponse(next_page_token=token)
        response.operations.extend(found[start:end])
        return response

    @rpc("CancelOperation", operations_pb2.CancelOperationRequest)
    def cancel_operation(self, request: Any) -> Any:
        """``CancelOperation``: the operation has completed; it stays as it is."""
        self._operation(request.name)
        return empty_pb2.Empty()
