"""A LlamaIndex RAG query engine on Vertex AI Search chunks, its answers checked with
checkGrounding.

Runs offline: it starts the local emulator on its built-in corpus (the Python language
reference). To use Google Cloud instead, drop the emulator and pass your project and data
store; replace the offline LLM with yours (e.g. ``GoogleGenAI(model="gemini-2.5-flash")``).

    python -m examples.llamaindex_rag "How does the with statement work?"
"""

from __future__ import annotations

import sys

from llama_index.core.query_engine import RetrieverQueryEngine

from grounding_emulator import EmulatorServer
from llamaindex_grounding import DiscoveryEngineRetriever, ExtractiveLLM, GroundedQueryEngine


def main(question: str) -> str:
    with EmulatorServer() as emulator:  # offline; on Google Cloud, omit emulator_host
        retriever = DiscoveryEngineRetriever(
            project_id="my-project",
            data_store_id="python-docs",
            similarity_top_k=3,
            emulator_host=emulator.address,
        )
        # The offline LLM copies two sentences of the context, then invents one.
        llm = ExtractiveLLM(invent="The with statement was added in Python 1.0.")
        query_engine = GroundedQueryEngine(
            RetrieverQueryEngine.from_args(retriever, llm=llm),
            project_id="my-project",
            emulator_host=emulator.address,
        )
        response = query_engine.query(question)
        report = response.metadata["grounding_report"]
        lines = [
            f"Question: {question}",
            f"Support score: {report.support_score:.2f}",
            "",
            report.markdown(),
        ]
        for claim in report.unsupported_claims:
            lines.append(f"\nUnsupported claim caught: {claim.text!r}")
        return "\n".join(lines)


if __name__ == "__main__":
    print(main(" ".join(sys.argv[1:]) or "How does the with statement work?"))
