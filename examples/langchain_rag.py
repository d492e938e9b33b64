"""A LangChain RAG chain on Vertex AI Search chunks, its answer checked with checkGrounding.

Runs offline: it starts the local emulator on its built-in corpus (the Python language
reference). To use Google Cloud instead, drop the emulator and pass your project and data
store (see examples/google_cloud.py).

    python -m examples.langchain_rag "How does the with statement work?"
"""

from __future__ import annotations

import sys

from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableParallel, RunnablePassthrough

from grounding_emulator import EmulatorServer
from langchain_grounding import DiscoveryEngineRetriever, ExtractiveChatModel, GroundingChecker

PROMPT = ChatPromptTemplate.from_template(
    "Answer from the context only.\n\nContext:\n{context}\n\nQuestion: {question}"
)


def format_docs(documents: list[Document]) -> str:
    return "\n\n".join(d.page_content for d in documents)


def main(question: str) -> str:
    with EmulatorServer() as emulator:  # offline; on Google Cloud, omit emulator_host
        retriever = DiscoveryEngineRetriever(
            project_id="my-project",
            data_store_id="python-docs",
            k=3,
            emulator_host=emulator.address,
        )
        checker = GroundingChecker(project_id="my-project", emulator_host=emulator.address)
        llm = ExtractiveChatModel(invent="The with statement was added in Python 1.0.")
        answer = (
            RunnablePassthrough.assign(context=lambda x: format_docs(x["context"]))
            | PROMPT
            | llm
            | StrOutputParser()
        )
        chain = (
            RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
                answer=answer
            )
            | checker
        )
        result = chain.invoke(question)
        report = result["grounding"]
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
