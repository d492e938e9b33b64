"""Servicers register themselves; the method table is built from the registry (moto-style).

A servicer is a subclass of :class:`Servicer` that names its gRPC service(s) in ``services`` and
marks each RPC method with :func:`rpc` (``streaming=True`` for a server-streaming RPC, whose
method returns its responses in order; ``bidi=True`` too for a bidirectional one, whose method
is called on each request of the stream in turn and returns that request's responses)::

    class GroundedGenerationServicer(Servicer):
        services = discovery_engine("GroundedGenerationService")

        @rpc("CheckGrounding", de.CheckGroundingRequest.pb())
        def check_grounding(self, request: Any) -> Any: ...

``versioned=True`` passes the method the API version of the service it is called under
(``version="v1beta"``): a long-running operation packs its response as that version's message.
Defining the class registers it; :func:`method_table` gives every RPC of every registered
servicer, under each of its services. Adding an RPC to a service touches only its servicer.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from grounding_emulator.wire.servicers.backend import Backend

__all__ = [
    "DISCOVERY_ENGINE_VERSIONS",
    "Method",
    "Servicer",
    "discovery_engine",
    "method_table",
    "registered",
    "rpc",
    "rpc_paths",
    "service_version",
]

# Discovery Engine RPCs are served under every version by the same servicer: the wire formats
# share field numbers, and fields a version adds are ignored.
DISCOVERY_ENGINE_VERSIONS = ("v1", "v1beta", "v1alpha")

_Call = TypeVar("_Call", bound=Callable[..., Any])


def service_version(service: str) -> str:
    """The API version of a Discovery Engine service name (``v1beta`` of
    ``google.cloud.discoveryengine.v1beta.SearchService``)."""
    return service.rsplit(".", 2)[-2]


def discovery_engine(service: str) -> tuple[str, ...]:
    """``google.cloud.discoveryengine.{version}.{service}`` for every served version."""
    return tuple(f"google.cloud.discoveryengine.{v}.{service}" for v in DISCOVERY_ENGINE_VERSIONS)


@dataclass(frozen=True, slots=True)
class Method:
    """One gRPC method: ``/{service}/{name}``, its request class and the servicer call
    (``streaming``: server-streaming, the call returns a sequence of responses; ``bidi``: the
    client streams its requests too, each served by the call in turn)."""

    service: str
    name: str
    request_type: Any
    call: Callable[[Any], Any]
    streaming: bool = False
    bidi: bool = False

    @property
    def path(self) -> str:
        """The full method path, ``/package.Service/Method``."""
        return f"/{self.service}/{self.name}"


@dataclass(frozen=True, slots=True)
class _Rpc:
    name: str
    request_type: Any
    streaming: bool = False
    versioned: bool = False
    bidi: bool = False


# function -> the RPC it serves; read by Servicer.__init_subclass__ when its class is defined
_RPCS: dict[Callable[..., Any], _Rpc] = {}
_REGISTRY: list[type[Servicer]] = []


def rpc(
    name: str,
    request_type: Any,
    *,
    streaming: bool = False,
    versioned: bool = False,
    bidi: bool = False,
) -> Callable[[_Call], _Call]:
    """Mark a servicer method as the RPC ``name`` taking ``request_type`` (a ``.pb()`` class);
    ``streaming``: a server-streaming RPC (the method returns its responses, in order);
    ``bidi``: a bidirectional one (implies ``streaming``; the method serves one request of the
    stream); ``versioned``: the method takes ``version=`` too (``service_version``)."""

    def mark(method: _Call) -> _Call:
        _RPCS[method] = _Rpc(name, request_type, streaming or bidi, versioned, bidi)
        return method

    return mark


class Servicer:
    """Base of the servicers: one per Google service, sharing one :class:`Backend`.

    A servicer method reads the request (a raw protobuf message), calls one engine and builds
    the response; it raises the engines' ``EmulatorError``s, which ``handlers.py`` turns into
    gRPC statuses.
    """

    services: ClassVar[tuple[str, ...]] = ()
    rpcs: ClassVar[dict[str, _Rpc]] = {}

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.rpcs = {attr: _RPCS[f] for attr, f in vars(cls).items() if f in _RPCS}
        if not cls.services or not cls.rpcs:
            raise TypeError(
                f"{cls.__qualname__} names no service or no @rpc method: set services = (...) "
                "and mark its methods with @rpc(NAME, REQUEST_TYPE)"
            )
        _REGISTRY.append(cls)


def registered() -> tuple[type[Servicer], ...]:
    """Every servicer class defined so far, in definition order."""
    return tuple(_REGISTRY)


def rpc_paths() -> tuple[str, ...]:
    """The full path (``/package.Service/Method``) of every RPC the registered servicers serve,
    in registration order; what :func:`method_table` serves, without building a servicer."""
    return tuple(
        f"/{service}/{spec.name}"
        for cls in registered()
        for spec in cls.rpcs.values()
        for service in cls.services
    )


def method_table(backend: Backend) -> list[Method]:
    """Every RPC of every registered servicer, each servicer built once on ``backend``."""
    methods: dict[str, Method] = {}
    for cls in registered():
        servicer = cls(backend)
        for attr, spec in cls.rpcs.items():
            for service in cls.services:
                call = getattr(servicer, attr)
                if spec.versioned:
                    call = functools.partial(call, version=service_version(service))
                method = Method(
                    service, spec.name, spec.request_type, call, spec.streaming, spec.bidi
                )
                if method.path in methods:
                    raise RuntimeError(f"{method.path} is served twice ({cls.__qualname__})")
                methods[method.path] = method
    return list(methods.values())
