"""What the pickling tests of the core and of both frameworks share: a table row (how to build a
component and call it), the three ways a component is copied whole, the settings of a component
as plain values (to assert every field equal), the connections a component holds (to see what
each copy shares), and the checks each test runs on its row.

``settings_of`` walks a component the way ``pickle`` does (fields, slots, ``__dict__``), but
reads a connection through ``__getstate__``, pickle's own protocol: what a copy must keep is
what the connection was given, never what it built (channels, Google's clients, locks).
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import threading
import types
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from google.auth.credentials import AnonymousCredentials
from pydantic import BaseModel

from grounding_core import DeveloperKnowledgeConnection, DiscoveryEngineConnection

Connection = DiscoveryEngineConnection | DeveloperKnowledgeConnection

# The copies that must build their own clients (copy.copy shares them: test_pickling.py).
WHOLE_COPIES: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda value: pickle.loads(pickle.dumps(value)),
    "pickle-5": lambda value: pickle.loads(pickle.dumps(value, protocol=5)),
    "deepcopy": copy.deepcopy,
}

_LOCKS = (type(threading.Lock()), type(threading.RLock()))


@dataclass(frozen=True)
class Row:
    """How to build one component on the emulator, and one sync and one async call of it whose
    result is comparable (``connected``: it holds a connection of its own)."""

    build: Callable[[Any], Any]
    call: Callable[[Any], Any]
    acall: Callable[[Any], Awaitable[Any]]
    connected: bool = True


class LockedCredentials(AnonymousCredentials):
    """Credentials holding what cannot be pickled (a lock)."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.refresh_lock = threading.Lock()


_ATOMS = (str, bytes, int, float, bool, type(None), complex, range)


def _children(value: Any) -> Iterator[tuple[str, Any]]:
    """The named parts of ``value`` that pickle would write."""
    if isinstance(value, BaseModel):
        yield from vars(value).items()
        yield from (("private " + k, v) for k, v in (value.__pydantic_private__ or {}).items())
        yield from (("extra " + k, v) for k, v in (value.__pydantic_extra__ or {}).items())
        return
    if dataclasses.is_dataclass(value):
        yield from ((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
        return
    if hasattr(value, "__dict__"):
        yield from vars(value).items()
    for cls in type(value).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name not in ("__dict__", "__weakref__") and hasattr(value, name):
                yield name, getattr(value, name)


def settings_of(value: Any, _path: frozenset[int] = frozenset()) -> Any:
    """``value`` as plain, comparable data: two components with equal settings give equal
    results, whatever either has built."""
    if isinstance(value, _ATOMS):
        return value
    if id(value) in _path:
        return "<cycle>"
    path = _path | {id(value)}
    if isinstance(value, Connection):
        return (type(value).__name__, settings_of(value.__getstate__(), path))
    if isinstance(value, type | types.FunctionType | types.BuiltinFunctionType | types.ModuleType):
        return ("callable", getattr(value, "__qualname__", value.__name__))
    if isinstance(value, types.MethodType):  # its object is the one being walked
        return ("method", value.__func__.__qualname__)
    if isinstance(value, (*_LOCKS, grpc.Channel, grpc.aio.Channel)):
        return type(value).__name__
    if isinstance(value, Mapping):
        return (
            type(value).__name__,
            [(settings_of(k), settings_of(v, path)) for k, v in value.items()],
        )
    if isinstance(value, list | tuple):
        return (type(value).__name__, [settings_of(v, path) for v in value])
    if isinstance(value, set | frozenset):
        return (type(value).__name__, sorted(repr(settings_of(v, path)) for v in value))
    structured = isinstance(value, BaseModel) or dataclasses.is_dataclass(value)
    if not structured and type(value).__eq__ is not object.__eq__:
        return value  # a value with its own equality (an enum, a UUID, a datetime)
    return (type(value).__qualname__, [(k, settings_of(v, path)) for k, v in _children(value)])


def connections_in(value: Any) -> list[Connection]:
    """Every connection inside ``value``."""
    found: dict[int, Connection] = {}
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _ATOMS) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, Connection):
            found[id(item)] = item
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        elif not isinstance(item, type | types.FunctionType | types.ModuleType):
            stack.extend(v for _, v in _children(item))
    return list(found.values())


def _ids(value: Any) -> set[int]:
    return {id(connection) for connection in connections_in(value)}


async def close_all(*values: Any) -> None:
    """Close every connection inside ``values`` (sync channels, and the running loop's)."""
    for value in values:
        for connection in connections_in(value):
            connection.close()
            await connection.aclose()


async def check_a_whole_copy(row: Row, emulator: Any, copy_: Callable[[Any], Any]) -> None:
    """The copy (``copy_``) of a used component has its settings, holds connections of its own,
    gives the same results (sync and async) and leaves the original working when it is closed;
    what a call returns copies too (Celery results, multiprocessing)."""
    original = row.build(emulator)
    expected, expected_async = row.call(original), await row.acall(original)  # both built
    assert expected not in (None, [], "")
    assert expected_async not in (None, [], "")
    copied = copy_(original)
    try:
        assert type(copied) is type(original)
        assert settings_of(copied) == settings_of(original)
        if row.connected:
            assert connections_in(copied), f"{type(copied).__name__} holds no connection"
            assert not _ids(copied) & _ids(original)
        assert row.call(copied) == expected
        assert await row.acall(copied) == expected_async
        if row.connected:
            await close_all(copied)
            assert row.call(original) == expected
            assert await row.acall(original) == expected_async
        assert copy_(expected) == expected
    finally:
        await close_all(original, copied)


async def check_a_shallow_copy(row: Row, emulator: Any) -> None:
    """``copy.copy`` of a used component has its settings, shares its connections (a shallow
    copy shares its parts) and gives the same results; closing them, the original builds
    again."""
    original = row.build(emulator)
    expected = row.call(original)
    copied = copy.copy(original)
    try:
        assert copied is not original
        assert settings_of(copied) == settings_of(original)
        assert _ids(copied) == _ids(original)
        assert row.call(copied) == expected
        assert await row.acall(copied) == await row.acall(original)
        await close_all(copied)
        assert row.call(original) == expected  # closed clients build again at the next call
    finally:
        await close_all(original, copied)
