"""Grounded answers from ``answerQuery``: Discovery Engine and the Developer Knowledge API.

Both services write the answer themselves and cite their sources: each citation is a span of
the answer (string and UTF-8 byte offsets) with the documents behind it. The two LangChain
Runnables return the same shape, so the same code prints both. Runs offline: the emulator
serves both APIs over its built-in corpus (the Python language reference).

On Google Cloud: ``DiscoveryEngineAnswer`` needs an engine (app) of your project;
``DeveloperKnowledgeAnswer`` answers from Google's developer documentation and needs only
credentials (enable the Developer Knowledge API). Omit ``emulator_host``.

    python -m examples.answer_query "What does the yield statement do?"
"""

from __future__ import annotations

import sys
from typing import Any

from grounding_core import answer_markdown
from grounding_emulator import EmulatorServer
from langchain_grounding import DeveloperKnowledgeAnswer, DiscoveryEngineAnswer


def describe(name: str, output: dict[str, Any]) -> str:
    """The answer with [n] markers and its sources, then where each citation points."""
    lines = [f"## {name}", "", answer_markdown(output["grounded_answer"]), ""]
    for citation in output["citations"]:
        sources = ", ".join(
            output["documents"][i].metadata["source"] for i in citation["reference_indices"]
        )
        lines.append(
            f"- chars {citation['start']}-{citation['end']} "
            f"(bytes {citation['byte_start']}-{citation['byte_end']}) -> {sources}"
        )
    return "\n".join(lines)


def main(question: str) -> str:
    with EmulatorServer() as emulator:  # offline; on Google Cloud, omit emulator_host
        discovery_engine = DiscoveryEngineAnswer(
            project_id="my-project",
            engine_id="python-docs-app",  # answerQuery runs on an engine (an app)
            emulator_host=emulator.address,
        )
        developer_knowledge = DeveloperKnowledgeAnswer(emulator_host=emulator.address)
        return "\n\n".join(
            [
                f"Question: {question}",
                describe("Discovery Engine answerQuery", discovery_engine.invoke(question)),
                describe("Developer Knowledge answerQuery", developer_knowledge.invoke(question)),
            ]
        )


if __name__ == "__main__":
    print(main(" ".join(sys.argv[1:]) or "What does the yield statement do?"))
