"""HTTP/JSON transcoding: a request's path, query and JSON body into the method's request
message; a response, a stream or an error into JSON, as Google's REST front end does it.

Requests (``google/api/http.proto``): the path binds the template's fields; with ``body: "*"``
the JSON body holds every other field (and the query only system parameters); with
``body: "field"`` the body is that field, the query the rest; with no body, the query holds
every field not bound by the path (``?pageSize=5&names=a&names=b``, dotted names for the fields
of a message field, ``?contentSearchSpec.snippetSpec.returnSnippet=true``). Names are the JSON
(camelCase) or the proto (snake_case) names; a field bound by the path wins over the same field
in the body. A name the request message does not have is ``INVALID_ARGUMENT`` as Google words
it ("Invalid JSON payload received. Unknown name "x" at 'content_search_spec': Cannot find
field."); so is JSON that does not parse or does not fit the message.

System parameters ("System parameters" page): ``$alt``/``alt`` (``json``; the client libraries'
``json;enum-encoding=int`` answers enums as numbers), ``$prettyPrint``/``prettyPrint``
(``true``, the default, indents the JSON), and the others accepted and not applied (``fields``:
the emulator sends the whole response; ``key``, ``access_token``, ``quotaUser``...: no
authentication or quota).

Responses are proto3 JSON (camelCase, default values left out, 64-bit integers as strings); a
server-streaming method's responses are one JSON array, the shape Google's REST transport reads
(``google.api_core.rest_streaming``). An error is ``{"error": {"code", "message", "status"}}``
with the HTTP status of its gRPC code (``google/rpc/code.proto``).

A method served under several API versions by one servicer (``v1beta`` by the ``v1`` one) reads
and writes the JSON of the path's version: the message of the same name in the service's proto
package, converted through the wire format as gRPC converts it (fields the servicer's version
lacks are ignored, as over gRPC).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import grpc
from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from grounding_emulator.wire.handlers import Refused
from grounding_emulator.wire.rest.routes import Route

__all__ = [
    "HTTP_STATUS",
    "SystemParameters",
    "error_json",
    "read_request",
    "response_json",
]

# google/rpc/code.proto: the HTTP status each gRPC code maps to.
HTTP_STATUS = {
    "OK": 200,
    "CANCELLED": 499,
    "UNKNOWN": 500,
    "INVALID_ARGUMENT": 400,
    "DEADLINE_EXCEEDED": 504,
    "NOT_FOUND": 404,
    "ALREADY_EXISTS": 409,
    "PERMISSION_DENIED": 403,
    "UNAUTHENTICATED": 401,
    "RESOURCE_EXHAUSTED": 429,
    "FAILED_PRECONDITION": 400,
    "ABORTED": 409,
    "OUT_OF_RANGE": 400,
    "UNIMPLEMENTED": 501,
    "INTERNAL": 500,
    "UNAVAILABLE": 503,
    "DATA_LOSS": 500,
}

# "System parameters": accepted in the query of any method; only alt and prettyPrint change
# what the emulator answers.
_SYSTEM_PARAMETERS = frozenset(
    {
        "$alt", "alt", "$.xgafv", "$callback", "callback", "$ct", "$fields", "fields",
        "$key", "key", "access_token", "oauth_token", "$prettyPrint", "prettyPrint",
        "$quotaUser", "quotaUser", "$userProject", "upload_protocol", "uploadType",
    }
)  # fmt: skip
# Message types a query parameter binds as their JSON string (or, for a wrapper, its value).
_STRING_MESSAGES = frozenset(
    {"google.protobuf.FieldMask", "google.protobuf.Timestamp", "google.protobuf.Duration"}
)
_WRAPPERS = frozenset(
    f"google.protobuf.{kind}Value"
    for kind in ("Bool", "Bytes", "Double", "Float", "Int32", "Int64", "String", "UInt32", "UInt64")
)
# Messages whose JSON is not an object of their fields: not walked for unknown names.
_OPAQUE = (
    _STRING_MESSAGES
    | _WRAPPERS
    | {
        "google.protobuf.Any",
        "google.protobuf.ListValue",
        "google.protobuf.Struct",
        "google.protobuf.Value",
    }
)
_INVALID = "Invalid JSON payload received."


def _invalid(message: str) -> Refused:
    return Refused(grpc.StatusCode.INVALID_ARGUMENT, f"{_INVALID} {message}")


@dataclass(frozen=True, slots=True)
class SystemParameters:
    """What the system parameters of a query ask of the response: enums as numbers
    (``alt=json;enum-encoding=int``), indented JSON (``prettyPrint``, true by default)."""

    enums_as_numbers: bool = False
    pretty: bool = True

    @classmethod
    def split(
        cls, query: Sequence[tuple[str, str]]
    ) -> tuple[SystemParameters, list[tuple[str, str]]]:
        """The system parameters of ``query``, and the rest of it."""
        parameters, rest = cls(), []
        for name, value in query:
            if name not in _SYSTEM_PARAMETERS:
                rest.append((name, value))
            elif name.lstrip("$") == "alt":
                form, _, options = value.partition(";")
                if form != "json" or options not in ("", "enum-encoding=int"):
                    raise _invalid(
                        f"{name}={value!r}: the emulator answers JSON only (alt=json, or "
                        "alt=json;enum-encoding=int for enums as numbers)"
                    )
                parameters = cls(bool(options), parameters.pretty)
            elif name.lstrip("$") == "prettyPrint":
                parameters = cls(parameters.enums_as_numbers, value.lower() != "false")
        return parameters, rest


@cache
def _fields(descriptor: Descriptor) -> Mapping[str, FieldDescriptor]:
    """A message's fields by JSON name and by proto name."""
    return {
        **{field.name: field for field in descriptor.fields},
        **{field.json_name: field for field in descriptor.fields},
    }


def _repeated(field: FieldDescriptor) -> bool:
    """Whether ``field`` is repeated (``is_repeated`` since protobuf 6, ``label`` before 7)."""
    repeated = getattr(field, "is_repeated", None)
    if repeated is None:
        return bool(field.label == FieldDescriptor.LABEL_REPEATED)
    return bool(repeated)


@cache
def _message_class(package: str, like: Descriptor) -> type[Message]:
    """The message named as ``like`` in the proto ``package`` (``like``'s own class when the
    package has none)."""
    try:
        descriptor = descriptor_pool.Default().FindMessageTypeByName(f"{package}.{like.name}")
    except KeyError:
        descriptor = like
    found: type[Message] = message_factory.GetMessageClass(descriptor)
    return found


def _converted(message: Message, target: type[Message]) -> Message:
    """``message`` as a ``target`` (through the wire format, as gRPC would convert it)."""
    if isinstance(message, target):
        return message
    return target.FromString(message.SerializeToString())


def _unknown_name(value: object, descriptor: Descriptor, at: str) -> tuple[str, str] | None:
    """The first name in the JSON ``value`` that the message has no field for, with the path
    of the message it is in (``content_search_spec.snippet_spec``, ``facts[2]``)."""
    if not isinstance(value, dict) or descriptor.full_name in _OPAQUE:
        return None
    for name, item in value.items():
        field = _fields(descriptor).get(name)
        if field is None:
            return name, at
        inner = field.message_type
        if inner is None:
            continue
        where = f"{at}.{field.name}" if at else field.name
        if inner.GetOptions().map_entry:
            inner = inner.fields_by_name["value"].message_type
            items: Iterable[tuple[str, object]] = (
                ((f"{where}[{key!r}]", v) for key, v in item.items())
                if isinstance(item, dict) and inner is not None
                else ()
            )
        elif _repeated(field):
            items = (
                ((f"{where}[{i}]", v) for i, v in enumerate(item)) if isinstance(item, list) else ()
            )
        else:
            items = ((where, item),)
        for path, element in items:
            found = _unknown_name(element, inner, path)
            if found is not None:
                return found
    return None


def _query_value(field: FieldDescriptor, value: str) -> object:
    """A query parameter's string as the JSON value ``json_format`` reads for ``field``."""
    if field.message_type is not None and field.message_type.full_name in _WRAPPERS:
        field = field.message_type.fields_by_name["value"]  # a wrapper: its value's type
    if field.type == FieldDescriptor.TYPE_BOOL:
        return {"true": True, "false": False}.get(value, value)
    return value


def _query_object(query: Sequence[tuple[str, str]], descriptor: Descriptor) -> dict[str, Any]:
    """The query parameters as the JSON object of the request message (dotted names nested)."""
    tree: dict[str, Any] = {}
    for name, value in query:
        node, message, parts = tree, descriptor, name.split(".")
        for number, part in enumerate(parts):
            field = _fields(message).get(part)
            if field is None:
                raise _invalid(
                    f'Unknown name "{name}": Cannot bind query parameter. Field '
                    f"'{part}' could not be found in request message."
                )
            last = number == len(parts) - 1
            inner = field.message_type
            scalar = inner is None or inner.full_name in _STRING_MESSAGES | _WRAPPERS
            repeated = _repeated(field)
            if scalar and not last:
                raise _invalid(
                    f"Unknown name \"{name}\": Cannot bind query parameter. '{part}' is not a "
                    "message type: it has no fields."
                )
            if not scalar and (last or repeated):
                raise _invalid(
                    f"Unknown name \"{name}\": Cannot bind query parameter. '{part}' is a "
                    f"{'repeated ' if repeated else ''}message type. Parameters can only be "
                    "bound to primitive types (name a field of a message field: "
                    f"{part}.FIELD=VALUE)."
                )
            if not last:
                node = node.setdefault(field.name, {})
                message = inner
            elif repeated:
                node.setdefault(field.name, []).append(_query_value(field, value))
            else:
                node[field.name] = _query_value(field, value)
    return tree


def _body_object(body: bytes, route: Route, descriptor: Descriptor) -> dict[str, Any]:
    """The JSON body as the JSON object of the request message."""
    if not body.strip():
        return {}
    try:
        value = json.loads(body)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested beyond the parser
        raise _invalid(f"the body is not JSON: {exc}") from exc
    if route.body == "*":
        if not isinstance(value, dict):
            raise _invalid(
                f"the body must be a JSON object (a {descriptor.name}), got {type(value).__name__}"
            )
        return value
    return {route.body: value}


def read_request(
    route: Route, values: Mapping[str, str], query: Sequence[tuple[str, str]], body: bytes
) -> Message:
    """The request message of ``route``'s method (``route.method.request_type``) from the
    path's field ``values``, the ``query`` (system parameters taken out) and the ``body``."""
    assert route.method is not None
    json_class = _message_class(route.package, route.method.request_type.DESCRIPTOR)
    descriptor = json_class.DESCRIPTOR
    if route.body != "*":
        from_query = _query_object(query, descriptor)
    elif query:
        raise _invalid(
            f'Unknown name "{query[0][0]}": Cannot bind query parameter. Field '
            f"'{query[0][0]}' could not be found in request message (the body holds every field)."
        )
    else:
        from_query = {}
    from_body = _body_object(body, route, descriptor) if route.body else {}
    unknown = _unknown_name(from_body, descriptor, "")
    if unknown is not None:
        name, at = unknown
        where = f" at '{at}'" if at else ""
        raise _invalid(f'Unknown name "{name}"{where}: Cannot find field.')
    request = json_class()
    try:
        json_format.ParseDict(from_body, request)
        json_format.ParseDict(from_query, request)
    except (json_format.ParseError, RecursionError) as exc:
        raise _invalid(str(exc)) from exc
    for path, value in values.items():
        *parents, leaf = path.split(".")
        target = request
        for part in parents:
            target = getattr(target, part)
        setattr(target, leaf, value)
    return _converted(request, route.method.request_type)


def _json(message: Message, route: Route, parameters: SystemParameters) -> str:
    shown = _converted(message, _message_class(route.package, message.DESCRIPTOR))
    text: str = json_format.MessageToJson(
        shown,
        indent=2 if parameters.pretty else None,
        use_integers_for_enums=parameters.enums_as_numbers,
        ensure_ascii=False,
    )
    return text


def response_json(response: Any, route: Route, parameters: SystemParameters) -> bytes:
    """A method's response as JSON: one object, or a streaming method's responses as one JSON
    array."""
    assert route.method is not None
    if route.method.streaming:
        text = "[" + ",\n".join(_json(message, route, parameters) for message in response) + "]"
    else:
        text = _json(response, route, parameters)
    return text.encode("utf-8")


def error_json(code: grpc.StatusCode, message: str, pretty: bool = True) -> tuple[int, bytes]:
    """Google's error JSON for a gRPC status, and its HTTP status."""
    status = HTTP_STATUS.get(code.name, 500)
    error = {"error": {"code": status, "message": message, "status": code.name}}
    text = json.dumps(error, indent=2 if pretty else None, ensure_ascii=False)
    return status, text.encode("utf-8")
