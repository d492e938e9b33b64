"""What this package takes from the core as it is: the names it re-exports (``__init__.pyi``
imports them from here: its lazy imports are relative), and ``connected``, a Discovery Engine
component built from one flat set of keyword arguments (the connection's and its own)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from grounding_core import (
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
    GroundingReport,
    UngroundedAnswerError,
)

__all__ = ["GroundingReport", "UngroundedAnswerError", "connected"]

ComponentT = TypeVar("ComponentT")


def connected(component: Callable[..., ComponentT], arguments: Mapping[str, Any]) -> ComponentT:
    """``component(connection, **rest)``: ``connection`` a new ``DiscoveryEngineConnection`` of
    the keys of ``arguments`` that ``DiscoveryEngineConnectionArgs`` names, ``rest`` the others."""
    keys = DiscoveryEngineConnectionArgs.__optional_keys__
    connection = DiscoveryEngineConnection(**{k: v for k, v in arguments.items() if k in keys})
    return component(connection, **{k: v for k, v in arguments.items() if k not in keys})
