"""The apps of docs/migrating.md: the peers' code as the guide shows it, and its port to ours.

A Python block of the guide says in its fence's info string what it is and for which framework:

- ```` ```python setup langchain ````: shared by both sides (names, a stand-in for the LLM);
- ```` ```python peer langchain ````: the peer's code, as its documentation writes it; it runs
  only in the peer's virtualenv (``record_peers``), the docs test skips it;
- ```` ```python ported langchain ````: ours, which must be ``port()`` of the peer's block:
  the import and the class names changed, nothing else.

(``llamaindex`` in place of ``langchain`` for the LlamaIndex peer.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.documentation.test_doc_blocks import Block, python_blocks

__all__ = ["FRAMEWORKS", "GUIDE", "PORTS", "Port", "blocks_of", "port"]

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "migrating.md"
FRAMEWORKS = ("langchain", "llamaindex")


@dataclass(frozen=True)
class Port:
    """What porting a peer's code changes: its module, and its class names (``peer_package``:
    the peer's distribution, as our warnings name it)."""

    peer_package: str
    peer_module: str
    our_module: str
    classes: tuple[tuple[str, str], ...]


PORTS = {
    "langchain": Port(
        "langchain-google-community",
        "langchain_google_community",
        "langchain_grounding",
        (
            ("VertexAISearchRetriever", "DiscoveryEngineRetriever"),
            ("VertexAICheckGroundingWrapper", "GroundingChecker"),
            ("VertexAIMultiTurnSearchRetriever", "DiscoveryEngineMultiTurnRetriever"),
            ("VertexAISearchSummaryTool", "DiscoveryEngineSummaryTool"),
            ("VertexAIRank", "DiscoveryEngineReranker"),
        ),
    ),
    "llamaindex": Port(
        "llama-index-retrievers-vertexai-search",
        "llama_index.retrievers.vertexai_search",
        "llamaindex_grounding",
        (("VertexAISearchRetriever", "DiscoveryEngineRetriever"),),
    ),
}


def blocks_of(role: str, framework: str, guide: Path = GUIDE) -> list[Block]:
    """The guide's blocks whose info string names ``role`` and ``framework``, in page order."""
    return [
        block
        for block in python_blocks(guide, guide.parents[1])
        if {role, framework} <= set(block.info.split())
    ]


def port(code: str, framework: str) -> str:
    """The peer's ``code`` with the peer's module and class names replaced by ours."""
    rule = PORTS[framework]
    code = re.sub(rf"\b{re.escape(rule.peer_module)}\b", rule.our_module, code)
    for peer_name, our_name in rule.classes:
        code = re.sub(rf"\b{peer_name}\b", our_name, code)
    return code
