"""Clients, targets and call options from the command line's flags.

The flags mirror the Python settings (``project_id`` -> ``--project``, ``data_store_id`` ->
``--data-store``, ``emulator_host`` -> ``--emulator-host``...). An emulator address (the flag,
else ``$DISCOVERYENGINE_EMULATOR_HOST`` / ``$DEVELOPERKNOWLEDGE_EMULATOR_HOST``) is probed
first, so that a stopped emulator is one clear error instead of a minute of retries.
"""

from __future__ import annotations

import argparse
import os
import socket

from grounding_core.clients import (
    DEVELOPERKNOWLEDGE_EMULATOR_HOST,
    DISCOVERYENGINE_EMULATOR_HOST,
    DeveloperKnowledgeClients,
    DiscoveryEngineClients,
)
from grounding_core.errors import ConfigurationError
from grounding_core.settings import (
    DEFAULT_COLLECTION,
    CallOptions,
    DiscoveryEngineTarget,
    RetryPolicy,
    grounding_config_path,
    resolve_project,
)
from grounding_emulator.corpus.builtin import BUILTIN_DATA_STORE

__all__ = [
    "BUILTIN_DATA_STORE",
    "call_options",
    "developer_knowledge_clients",
    "discovery_engine_clients",
    "grounding_config",
    "probe_emulator",
    "target",
]

_PROBE_SECONDS = 3.0


def probe_emulator(address: str, env_var: str) -> None:
    """Raise ``ConfigurationError`` unless something accepts connections on ``address``."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ConfigurationError(
            f"emulator address {address!r} is not HOST:PORT (for example 127.0.0.1:8123)"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=_PROBE_SECONDS):
            pass
    except OSError as exc:
        raise ConfigurationError(
            f"no emulator answers on {address} ({exc.strerror or exc}): start one with "
            f"`grounding serve`, or unset {env_var} and drop --emulator-host to use Google Cloud"
        ) from exc


def _emulator_host(args: argparse.Namespace, env_var: str) -> str | None:
    host: str | None = args.emulator_host or os.environ.get(env_var) or None
    if host is not None:
        probe_emulator(host, env_var)
    return host


def discovery_engine_clients(args: argparse.Namespace) -> DiscoveryEngineClients:
    """Discovery Engine clients for ``--location`` and ``--emulator-host``."""
    host = _emulator_host(args, DISCOVERYENGINE_EMULATOR_HOST)
    return DiscoveryEngineClients(location=args.location, emulator_host=host)


def developer_knowledge_clients(args: argparse.Namespace) -> DeveloperKnowledgeClients:
    """Developer Knowledge clients for ``--emulator-host``."""
    host = _emulator_host(args, DEVELOPERKNOWLEDGE_EMULATOR_HOST)
    return DeveloperKnowledgeClients(emulator_host=host)


def target(args: argparse.Namespace, clients: DiscoveryEngineClients) -> DiscoveryEngineTarget:
    """The data store (``--data-store``) or engine (``--engine``) to search or ask.

    On the emulator the default is its built-in ``python-docs`` data store; on Google Cloud one
    of the two flags is required.
    """
    project = resolve_project(args.project, emulator=clients.uses_emulator)
    data_store, engine = args.data_store, args.engine_id
    if data_store is None and engine is None:
        if not clients.uses_emulator:
            raise ConfigurationError(
                "give --data-store ID or --engine ID (the data store or app to use)"
            )
        data_store = BUILTIN_DATA_STORE
    return DiscoveryEngineTarget(
        project=project,
        data_store=data_store,
        engine=engine,
        location=args.location,
        collection=args.collection or DEFAULT_COLLECTION,
        serving_config=args.serving_config,
    )


def grounding_config(args: argparse.Namespace, clients: DiscoveryEngineClients) -> str:
    """The grounding config resource name CheckGrounding takes."""
    project = resolve_project(args.project, emulator=clients.uses_emulator)
    return grounding_config_path(project, args.location, args.grounding_config)


def call_options(args: argparse.Namespace) -> CallOptions:
    """``--timeout`` per attempt; retries on transient errors unless ``--no-retry``."""
    retry = None if args.no_retry else RetryPolicy(deadline=max(args.timeout * 2, 10.0))
    return CallOptions(timeout=args.timeout, retry=retry)
