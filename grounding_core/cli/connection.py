"""The core's connections and targets from the command line's flags.

The flags mirror the Python settings (``project_id`` -> ``--project``, ``data_store_id`` ->
``--data-store``, ``emulator_host`` -> ``--emulator-host``...) and go to the same
``DiscoveryEngineConnection.create`` the adapters use, with the same defaults (timeout, retry
policy, project resolution). An emulator address (the flag, else
``$DISCOVERYENGINE_EMULATOR_HOST`` / ``$DEVELOPERKNOWLEDGE_EMULATOR_HOST``) is read by the core's
``emulator_address`` (``http://`` and ``grpc://`` prefixes accepted), and a stopped emulator is
one clear error within seconds (``grounding_core.clients``), not a minute of retries.
"""

from __future__ import annotations

import argparse
import os

from grounding_core.clients import DEVELOPERKNOWLEDGE_EMULATOR_HOST, DISCOVERYENGINE_EMULATOR_HOST
from grounding_core.connection import (
    GROUNDING_DATA_STORE,
    DeveloperKnowledgeConnection,
    DiscoveryEngineConnection,
    default_data_store,
)
from grounding_core.errors import ConfigurationError
from grounding_core.settings import (
    DEFAULT_RETRY,
    DiscoveryEngineTarget,
    RetryPolicy,
    emulator_address,
    resolve_project,
)

__all__ = [
    "developer_knowledge_connection",
    "discovery_engine_connection",
    "target",
    "target_label",
]


def _emulator_host(args: argparse.Namespace, env_var: str) -> str | None:
    # The core parses the address and fails at once when nothing answers there.
    if args.emulator_host:
        return emulator_address(args.emulator_host, "--emulator-host")
    from_env = os.environ.get(env_var)
    return emulator_address(from_env, f"${env_var}") if from_env else None


def _retry(args: argparse.Namespace) -> RetryPolicy | None:
    return None if args.no_retry else DEFAULT_RETRY


def _project(args: argparse.Namespace, emulator_host: str | None) -> str:
    """``--project``, else the core's resolution, whose error is reworded in flags."""
    try:
        return resolve_project(args.project, emulator=emulator_host is not None)
    except ConfigurationError as exc:
        raise ConfigurationError(
            "no Google Cloud project: give --project ID, set GOOGLE_CLOUD_PROJECT, or run "
            "`gcloud auth application-default login` with a project; or use the emulator "
            "(`grounding serve`, then --emulator-host HOST:PORT)"
        ) from exc


def discovery_engine_connection(args: argparse.Namespace) -> DiscoveryEngineConnection:
    """The Discovery Engine connection of ``--project``, ``--location``, ``--emulator-host``,
    ``--timeout`` and ``--no-retry``."""
    emulator_host = _emulator_host(args, DISCOVERYENGINE_EMULATOR_HOST)
    return DiscoveryEngineConnection.create(
        project_id=_project(args, emulator_host),
        location=args.location,
        emulator_host=emulator_host,
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

    Neither given: the data store ``$GROUNDING_DATA_STORE`` names (``grounding serve`` prints
    the line that sets it); one of the three is required, on the emulator too.
    """
    if args.data_store is None and args.engine_id is None and default_data_store() is None:
        raise ConfigurationError(
            "no data store or engine named: give --data-store ID or --engine ID (the data store "
            f"or app to use), or set ${GROUNDING_DATA_STORE} (`grounding serve` prints the line "
            "that sets it)"
        )
    return connection.target(
        data_store_id=args.data_store,
        engine_id=args.engine_id,
        collection=args.collection,
        serving_config_id=args.serving_config,
    )


def target_label(args: argparse.Namespace, searched: DiscoveryEngineTarget) -> str:
    """What was searched or asked, and why when no flag named it: ``data store kb
    ($GROUNDING_DATA_STORE)``."""
    if searched.engine is not None:
        return f"engine {searched.engine}"
    label = f"data store {searched.data_store}"
    if args.data_store is not None:
        return label
    return f"{label} (${GROUNDING_DATA_STORE})"
