"""The core's connections and targets from the command line's flags, which mirror the Python
settings (``project_id`` -> ``--project``, ``data_store_id`` -> ``--data-store``...), with the
adapters' defaults (timeout, retry policy, project resolution). An emulator address (the flag,
else ``$DISCOVERYENGINE_EMULATOR_HOST`` / ``$DEVELOPERKNOWLEDGE_EMULATOR_HOST``) is read by the
core's ``emulator_address``: a stopped emulator is one clear error within seconds."""

from __future__ import annotations

import argparse
import os

from grounding_core import (
    DEFAULT_RETRY,
    DEVELOPERKNOWLEDGE_EMULATOR_HOST,
    DISCOVERYENGINE_EMULATOR_HOST,
    GROUNDING_DATA_STORE,
    ConfigurationError,
    DeveloperKnowledgeConnection,
    DiscoveryEngineConnection,
    DiscoveryEngineTarget,
)
from grounding_core._settings import default_data_store, emulator_address, resolve_project
from grounding_core.search.discovery_engine import DiscoveryEngineTargetArgs


def _emulator_host(args: argparse.Namespace, env_var: str) -> str | None:
    # The core parses the address and fails at once when nothing answers there.
    if args.emulator_host:
        return emulator_address(args.emulator_host, "--emulator-host")
    from_env = os.environ.get(env_var)
    return emulator_address(from_env, f"${env_var}") if from_env else None


def discovery_engine_connection(args: argparse.Namespace) -> DiscoveryEngineConnection:
    """The Discovery Engine connection of ``--project``, ``--location``, ``--emulator-host``,
    ``--timeout`` and ``--no-retry``."""
    emulator_host = _emulator_host(args, DISCOVERYENGINE_EMULATOR_HOST)
    try:
        project = resolve_project(args.project, emulator=emulator_host is not None)
    except ConfigurationError as exc:  # the core's error, in flags
        raise ConfigurationError(
            "no Google Cloud project: give --project ID, set GOOGLE_CLOUD_PROJECT, or run "
            "`gcloud auth application-default login` with a project; or use the emulator "
            "(`grounding serve`, then --emulator-host HOST:PORT)"
        ) from exc
    return DiscoveryEngineConnection(
        project_id=project,
        location=args.location,
        emulator_host=emulator_host,
        timeout=args.timeout,
        retry=None if args.no_retry else DEFAULT_RETRY,
    )


def developer_knowledge_connection(args: argparse.Namespace) -> DeveloperKnowledgeConnection:
    """The Developer Knowledge connection of ``--emulator-host``, ``--timeout``, ``--no-retry``."""
    return DeveloperKnowledgeConnection(
        emulator_host=_emulator_host(args, DEVELOPERKNOWLEDGE_EMULATOR_HOST),
        timeout=args.timeout,
        retry=None if args.no_retry else DEFAULT_RETRY,
    )


def target(args: argparse.Namespace) -> DiscoveryEngineTargetArgs:
    """The keyword arguments that name the data store (``--data-store``) or engine
    (``--engine``) to search or ask; neither given: ``$GROUNDING_DATA_STORE``'s data store (one
    of the three is required, on the emulator too)."""
    if args.data_store is None and args.engine_id is None and default_data_store() is None:
        raise ConfigurationError(
            "no data store or engine named: give --data-store ID or --engine ID (the data store "
            f"or app to use), or set ${GROUNDING_DATA_STORE} (`grounding serve` prints the line "
            "that sets it)",
            field="--data-store",
        )
    return {
        "data_store_id": args.data_store,
        "engine_id": args.engine_id,
        "collection": args.collection,
        "serving_config_id": args.serving_config,
    }


def target_label(args: argparse.Namespace, searched: DiscoveryEngineTarget) -> str:
    """What was searched or asked, and why when no flag named it: ``data store kb
    ($GROUNDING_DATA_STORE)``."""
    if searched.engine is not None:
        return f"engine {searched.engine}"
    why = "" if args.data_store is not None else f" (${GROUNDING_DATA_STORE})"
    return f"data store {searched.data_store}{why}"
