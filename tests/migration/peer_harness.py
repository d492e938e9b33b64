"""Runs the peers' code of docs/migrating.md in a peer's own virtualenv; standalone (it runs
under the peer's interpreter, which has neither our packages nor our pins, and imports nothing
of ours).

Run by ``tests.migration.record_peers`` as ``{venv}/bin/python tests/migration/peer_harness.py``
with one JSON object on stdin: ``{"address": "host:port", "blocks": [{"line": 12, "code":
"..."}, ...]}`` (and ``"file"``, the name tracebacks give the blocks' file: default
``docs/migrating.md``). The blocks
run in order in one namespace, as a reader would run them; the harness then prints one JSON
object: the values the blocks left under ``RECORDED`` names, as plain data. Given ``"cases":
[{"name": ..., "code": ...}, ...]`` instead (``peer_cases.py``), it runs each case in a namespace
of its own and prints ``{name: its result}``, or ``{name: {"error": [type, message]}}`` for a
case that raised.

How the peer reaches the emulator without a change to its code or to the blocks: the Google
client classes the peers build (``discoveryengine_v1.SearchServiceClient`` for
langchain-google-community's retriever, ``discoveryengine_v1alpha.GroundedGenerationServiceClient``
for its checker, ``discoveryengine_v1beta.SearchServiceClient`` for the LlamaIndex retriever,
``discoveryengine_v1.RankServiceClient`` and ``RankServiceAsyncClient`` for LlamaIndex's
``GoogleRerank``) get a transport on ``grpc.insecure_channel(address)`` (``grpc.aio``'s for an
async client, which is then to be built in the event loop that uses it) with anonymous
credentials, in place of
the secure channel to Google they would open; the peer's own arguments (credentials, regional
``client_options``) are dropped, as a channel given to Google's client replaces them. This is
what ``benchmarks/peer_driver.py`` does by replacing the peer's ``_client``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import grpc
from google.auth.credentials import AnonymousCredentials

RECORDED = ("docs", "answer", "result", "answers", "nodes", "response", "results")

CLIENTS = (
    ("google.cloud.discoveryengine_v1", "SearchServiceClient"),
    ("google.cloud.discoveryengine_v1", "ConversationalSearchServiceClient"),
    ("google.cloud.discoveryengine_v1beta", "SearchServiceClient"),
    ("google.cloud.discoveryengine_v1alpha", "GroundedGenerationServiceClient"),
    ("google.cloud.discoveryengine_v1alpha", "RankServiceClient"),
    ("google.cloud.discoveryengine_v1", "RankServiceClient"),
    ("google.cloud.discoveryengine_v1", "RankServiceAsyncClient"),
)


def redirect_clients(address: str) -> None:
    """Every client of ``CLIENTS`` built from now on talks to ``address`` over an insecure
    channel."""
    import importlib

    for module_name, class_name in CLIENTS:
        try:
            client_cls = getattr(importlib.import_module(module_name), class_name)
        except ImportError:  # this peer does not install that API version
            continue
        original = client_cls.__init__

        def init(
            self: Any, *args: Any, _original: Any = original, _cls: Any = client_cls, **kwargs: Any
        ) -> None:
            if not isinstance(kwargs.get("transport"), str | None):
                # An async client builds the sync one on the transport it was given.
                _original(self, *args, **kwargs)
                return
            kwargs.pop("credentials", None)
            kwargs.pop("client_options", None)
            if _cls.__name__.endswith("AsyncClient"):
                kind, channel = "grpc_asyncio", grpc.aio.insecure_channel(address)
            else:
                kind, channel = "grpc", grpc.insecure_channel(address)
            transport_cls = _cls.get_transport_class(kind)
            kwargs["transport"] = transport_cls(channel=channel, credentials=AnonymousCredentials())
            _original(self, *args, **kwargs)

        client_cls.__init__ = init


def plain(value: Any) -> Any:
    """``value`` as JSON data: Documents, nodes and pydantic models by their fields."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if hasattr(value, "page_content"):  # a LangChain Document
        return {"id": value.id, "text": value.page_content, "metadata": plain(value.metadata)}
    if hasattr(value, "node") and hasattr(value, "score"):  # a LlamaIndex NodeWithScore
        return {
            "id": value.node.node_id,
            "text": value.node.get_content(),
            "score": value.score,
            "metadata": plain(value.node.metadata),
        }
    if hasattr(value, "source_nodes"):  # a LlamaIndex Response
        return {"response": str(value.response), "source_nodes": plain(value.source_nodes)}
    if hasattr(value, "model_dump"):  # the LangChain checker's CheckGroundingResponse
        return plain(value.model_dump())
    return repr(value)


def run_cases(cases: list[dict[str, str]]) -> dict[str, Any]:
    """Each case's ``result`` (or its error), each run in a namespace of its own."""
    results = {}
    for case in cases:
        namespace: dict[str, Any] = {"__name__": "peer_case"}
        try:
            exec(compile(case["code"], f"<case {case['name']}>", "exec"), namespace)
        except Exception as exc:  # the peer refusing a case is what is recorded
            results[case["name"]] = {"error": [type(exc).__name__, str(exc)]}
        else:
            results[case["name"]] = plain(namespace["result"])
    return results


def main() -> int:
    # stdout carries the result; whatever the peers print goes to stderr.
    out, sys.stdout = sys.stdout, sys.stderr
    command = json.loads(sys.stdin.read())
    redirect_clients(command["address"])
    if "cases" in command:
        out.write(json.dumps(run_cases(command["cases"])) + "\n")
        return 0
    namespace: dict[str, Any] = {"__name__": "peer_app"}
    for block in command["blocks"]:
        # Padded to its line, a block's traceback names its line of the guide.
        source = "\n" * (block["line"] - 1) + block["code"]
        exec(compile(source, command.get("file", "docs/migrating.md"), "exec"), namespace)
    out.write(json.dumps({name: plain(namespace[name]) for name in RECORDED if name in namespace}))
    out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
