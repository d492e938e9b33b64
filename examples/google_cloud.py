"""The same code on Google Cloud: what changes is the settings, not the code.

``build`` creates a retriever, a grounding checker and an answerer from ``Settings``; ``ask``
uses them. By default the script runs offline: it prints the Google Cloud configuration the
settings would use (endpoints, resource names, credentials), then runs the very same
``build``/``ask`` on the local emulator. With ``--cloud`` it calls Google Cloud:

    python -m examples.google_cloud                       # offline, on the emulator
    gcloud auth application-default login                 # once, for --cloud
    python -m examples.google_cloud --cloud --project my-project --location eu \\
        --data-store my-docs --engine my-app "How do I rotate a key?"

On Google Cloud you need a Vertex AI Search data store (chunk mode) for search, an app
(engine) on it for answerQuery, and the Discovery Engine API enabled; checkGrounding needs
neither. See docs/google-cloud.md.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, replace
from typing import Any

from grounding_core import DiscoveryEngineConnection, DiscoveryEngineTarget
from grounding_emulator import BUILTIN_DATA_STORE, BUILTIN_ENGINE, EmulatorServer
from langchain_grounding import DiscoveryEngineAnswer, DiscoveryEngineRetriever, GroundingChecker


@dataclass(frozen=True)
class Settings:
    """Everything that differs between the emulator and Google Cloud."""

    project: str
    location: str = "global"  # "us" or "eu" use the regional endpoint (picked for you)
    data_store: str = BUILTIN_DATA_STORE
    engine: str = BUILTIN_ENGINE
    emulator_host: str | None = None  # None: Google Cloud (unless the env var names one)


def describe(settings: Settings) -> str:
    """Where the calls of ``settings`` go, and as what."""
    connection = DiscoveryEngineConnection(
        project_id=settings.project,
        location=settings.location,
        emulator_host=settings.emulator_host,
    )
    store = DiscoveryEngineTarget(
        project=settings.project, data_store=settings.data_store, location=settings.location
    )
    app = store.replace(data_store=None, engine=settings.engine)
    credentials = (
        "none (the emulator takes anonymous calls)"
        if connection.uses_emulator
        else "application default credentials (gcloud auth application-default login)"
    )
    return "\n".join(
        [
            f"endpoint:        {connection.endpoint}",
            f"credentials:     {credentials}",
            f"search:          {store.serving_config_path}",
            f"answerQuery:     {app.serving_config_path}",
            f"checkGrounding:  {store.grounding_config_path}",
        ]
    )


def build(settings: Settings) -> dict[str, Any]:
    """The same three components, whatever the settings."""
    connection = {
        "project_id": settings.project,
        "location": settings.location,
        "emulator_host": settings.emulator_host,
        "timeout": 30.0,  # seconds per attempt; retries on UNAVAILABLE etc. are on by default
    }
    return {
        "retriever": DiscoveryEngineRetriever(data_store_id=settings.data_store, k=3, **connection),
        "checker": GroundingChecker(**connection),
        "answerer": DiscoveryEngineAnswer(engine_id=settings.engine, **connection),
    }


def ask(components: dict[str, Any], question: str) -> str:
    """Retrieve, answer (answerQuery) and check that answer against the retrieved chunks."""
    documents = components["retriever"].invoke(question)
    answer = components["answerer"].invoke(question)["answer"]
    checked = components["checker"].invoke({"answer": answer, "documents": documents})
    score = checked["grounding"].support_score
    lines = [f"retrieved: {d.metadata['source']}" for d in documents]
    lines.append(f"answer: {answer}")
    lines.append(f"support score against the retrieved chunks: {score:.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description="The same code, on Google Cloud or offline.")
    parser.add_argument("question", nargs="*", default=["What does the yield statement do?"])
    parser.add_argument("--cloud", action="store_true", help="call Google Cloud for real")
    parser.add_argument("--project", default=os.environ.get("GOOGLE_CLOUD_PROJECT", "my-project"))
    parser.add_argument("--location", default="global")
    parser.add_argument("--data-store", default="my-docs")
    parser.add_argument("--engine", default="my-app")
    args = parser.parse_args(argv)
    question = " ".join(args.question)
    cloud = Settings(args.project, args.location, args.data_store, args.engine)

    lines = ["Google Cloud configuration:", describe(cloud), ""]
    if args.cloud:
        return "\n".join([*lines, ask(build(cloud), question)])

    with EmulatorServer() as emulator:
        # The emulator accepts any project and location; it serves the built-in corpus as the
        # data store "python-docs" and the engine "python-docs-app".
        offline = replace(
            cloud,
            data_store=BUILTIN_DATA_STORE,
            engine=BUILTIN_ENGINE,
            emulator_host=emulator.address,
        )
        lines += ["Offline run (same code, emulator settings):", describe(offline), ""]
        lines.append(ask(build(offline), question))
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
