"""The core's connections and targets from the command line's flags.

The flags mirror the Python settings (``project_id`` -> ``--project``, ``data_store_id`` ->
``--data-store``, ``emulator_host`` -> ``--emulator-host``...) and go to the same
``DiscoveryEngineConnection.create`` the adapters use, with the same defaults (timeout, retry
policy, project resolution). An emulator address (the flag, else
``$DISCOVERYENGINE_EMULATOR_HOST`` / ``$DEVELOPERKNOWLEDGE_EMULATOR_HOST``) is probed first, so
that a stopped emulator is one clear error instead of a minute of retries.
"""

from __future__ import annotations

import argparse
import os
import socket

from grounding_core.clients import DEVELOPERKNOWLEDGE_EMULATOR_HOST, DISCOVERYENGINE_EMULATOR_HOST
from grounding_core.connection import DeveloperKnowledgeConnection, DiscoveryEngineConnection
from grounding_core.errors import ConfigurationError
from grounding_core.settings import DEFAULT_RETRY, DiscoveryEngineTarget, RetryPolicy

__all__ = [
    "BUILTIN_DATA_STORE",
    "developer_knowledge_connection",
    "discovery_engine_connection",
    "probe_emulator",
    "target",
]

_PROBE_SECONDS = 3.0
BUILTIN_DATA_STORE = "python-docs"
"""The emulator's built-in data store, the default target on the emulator (the core does not
import the emulator: tests/distribution checks that this agrees with ``grounding_emulator``'s)."""


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


def _retry(args: argparse.Namespace) -> RetryPolicy | None:
    return None if args.no_retry else DEFAULT_RETRY


def discovery_engine_connection(args: argparse.Namespace) -> DiscoveryEngineConnection:
    """The Discovery Engine connection of ``--project``, ``--location``, ``--emulator-host``,
    ``--timeout`` and ``--no-retry``."""
    return DiscoveryEngineConnection.create(
        project_id=args.project,
        location=args.location,
        emulator_host=_emulator_host(args, DISCOVERYENGINE_EMULATOR_HOST),
        timeout=args.timeout,
        retry=_retry(args),
    )


def developer_knowledge_connection(args: argparse.Namespace) -> DeveloperKnowledgeConnection:
    """The Developer Knowledge connection of ``--emulator-host``, ``--timeout``, ``--no-retry``."""
    return DeveloperKnowledgeConnection.create(
        emulator_host=_emulator_host(args, DEVELOPERKNOWLEDGE_EMULATOR_HOST),
        timeout=args.timeout,
        retry=_retry(args),
    )


def target(
    args: argparse.Namespace, connection: DiscoveryEngineConnection
) -> DiscoveryEngineTarget:
    """The data store (``--data-store``) or engine (``--engine``) to search or ask.

    On the emulator the default is its built-in ``python-docs`` data store; on Google Cloud one
    of the two flags is required.
    """
    data_store = args.data_store
    if data_store is None and args.engine_id is None:
        if not connection.clients.uses_emulator:
            raise ConfigurationError(
                "give --data-store ID or --engine ID (the data store or app to use)"
            )
        data_store = BUILTIN_DATA_STORE
    return connection.target(
        data_store_id=data_store,
        engine_id=args.engine_id,
        collection=args.collection,
        serving_config_id=args.serving_config,
    )
