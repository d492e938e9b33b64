"""The long-running operations (``google.longrunning.Operation``) of the resource RPCs, kept for
``GetOperation`` and ``ListOperations``.

Every operation is done when the call that starts it returns (``done=true``, with its response
and metadata): ``ImportDocuments``' reference says "Request processing may be synchronous", and
Google's own ``CreateDataStore`` and ``CreateEngine`` answer with a done operation. So a
client's ``operation.result()`` returns at once, without polling.

Operations are named as Google names them (``{collection}/operations/create-data-store-{n}``,
``{data store}/branches/0/operations/import-documents-{n}``; always in a collection, the default
branch as ``0``), and kept in memory, the most recent ``MAX_OPERATIONS`` of them (Google keeps
them for a while and does not say how long). The response and metadata are packed as the
messages of the API version the call came in (``google.cloud.discoveryengine.v1beta...`` for a
v1beta client), whose wire format the v1 messages share.
"""

from __future__ import annotations

import datetime as _dt
import random
import threading
from collections import OrderedDict
from typing import Any

from google.longrunning import operations_pb2

from grounding_emulator.wire.names import canonical_name

__all__ = ["MAX_OPERATIONS", "OperationStore", "pack"]

MAX_OPERATIONS = 1000
_TYPE_URL = "type.googleapis.com/"
_V1 = ".v1."


def pack(target: Any, message: Any, version: str) -> None:
    """Pack ``message`` (a v1 Discovery Engine message, or any other) into the ``Any``
    ``target`` as the message of API ``version``."""
    full_name = message.DESCRIPTOR.full_name
    if full_name.startswith("google.cloud.discoveryengine.v1.") and version != "v1":
        full_name = full_name.replace(_V1, f".{version}.", 1)
    target.type_url = _TYPE_URL + full_name
    target.value = message.SerializeToString()


class OperationStore:
    """The operations of one emulator, most recent last."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._operations: OrderedDict[str, Any] = OrderedDict()
        self._random = random.Random()

    def __repr__(self) -> str:
        return f"OperationStore({len(self._operations)} operations)"

    def finish(
        self,
        parent: str,
        kind: str,
        version: str,
        response: Any,
        metadata: Any,
        started: _dt.datetime,
        ended: _dt.datetime | None = None,
    ) -> Any:
        """A done operation named ``{parent}/operations/{kind}-{number}`` with ``response`` and
        ``metadata``, kept for GetOperation and ListOperations. The metadata's ``create_time``
        is ``started`` and its ``update_time`` ``ended`` (``started`` when not given: a create
        or delete is done in an instant)."""
        metadata.create_time.FromDatetime(started)
        metadata.update_time.FromDatetime(ended or started)
        with self._lock:
            number = self._random.getrandbits(63)
        operation = operations_pb2.Operation(
            name=f"{canonical_name(parent)}/operations/{kind}-{number}", done=True
        )
        pack(operation.response, response, version)
        pack(operation.metadata, metadata, version)
        with self._lock:
            self._operations[operation.name] = operation
            while len(self._operations) > MAX_OPERATIONS:
                self._operations.popitem(last=False)
        return operation

    def get(self, name: str) -> Any | None:
        """The operation of that name (in any form ``canonical_name`` reads), if it is kept."""
        with self._lock:
            return self._operations.get(canonical_name(name))

    def under(self, name: str) -> list[Any]:
        """The operations kept under resource ``name`` (its own and its children's), oldest
        first."""
        prefix = canonical_name(name).rstrip("/") + "/"
        with self._lock:
            return [op for key, op in self._operations.items() if key.startswith(prefix)]

    def clear(self) -> None:
        """Forget every operation."""
        with self._lock:
            self._operations.clear()
