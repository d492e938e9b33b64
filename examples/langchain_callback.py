"""Grounding as a LangChain callback: attach it to any chain run, get a report per run.

The chain is not changed: ``GroundingCallbackHandler`` collects what the run's retrievers
return and checks the run's final answer with checkGrounding when the run ends. Here it checks
two questions in one ``batch`` (each run gets its own report, by run id), then an async run
with ``AsyncGroundingCallbackHandler``. Runs offline on the emulator's built-in corpus.

    python -m examples.langchain_callback
"""

from __future__ import annotations

import asyncio
import uuid

from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable, RunnablePassthrough

from grounding_core import GroundingReport
from grounding_emulator import EmulatorServer
from langchain_grounding import (
    AsyncGroundingCallbackHandler,
    DiscoveryEngineRetriever,
    ExtractiveChatModel,
    GroundingCallbackHandler,
)

QUESTIONS = ["How does the with statement work?", "What does the yield statement do?"]
INVENTED = "It was designed by Guido van Rossum in 1989."

PROMPT = ChatPromptTemplate.from_template(
    "Answer from the context only.\n\nContext:\n{context}\n\nQuestion: {question}"
)


def format_docs(documents: list[Document]) -> str:
    return "\n\n".join(d.page_content for d in documents)


def summary(question: str, report: GroundingReport[Document | str]) -> str:
    if report.error is not None:  # a failed check never breaks the chain: it is recorded
        return f"{question} -> check failed: {report.error}"
    verdict = "passed" if report.passed else "FAILED"
    line = f"{question} -> support {report.support_score:.2f} ({verdict})"
    caught = [f"\n  unsupported: {claim.text!r}" for claim in report.unsupported_claims]
    return line + "".join(caught)


def main() -> str:
    lines: list[str] = []
    with EmulatorServer() as emulator:  # offline; on Google Cloud, omit emulator_host
        connection = {"project_id": "my-project", "emulator_host": emulator.address}
        retriever = DiscoveryEngineRetriever(data_store_id="python-docs", k=3, **connection)
        llm = ExtractiveChatModel(invent=INVENTED)
        rag: Runnable[str, str] = (
            {"context": retriever | format_docs, "question": RunnablePassthrough()}
            | PROMPT
            | llm
            | StrOutputParser()
        )

        # Sync runs. on_report is called as each run's check finishes (e.g. to log it).
        checked: list[uuid.UUID] = []
        handler = GroundingCallbackHandler(
            on_report=lambda run_id, report: checked.append(run_id), **connection
        )
        run_ids = [uuid.uuid4() for _ in QUESTIONS]  # to find each run's report
        rag.batch(
            QUESTIONS,
            config=[{"callbacks": [handler], "run_id": run_id} for run_id in run_ids],
        )
        lines.append(f"on_report called for {len(checked)} runs")
        for question, run_id in zip(QUESTIONS, run_ids, strict=True):
            lines.append(summary(question, handler.reports[run_id]))

        # Async runs: the check runs on Google's async client.
        async_handler = AsyncGroundingCallbackHandler(**connection)
        question = "What is a context manager?"
        asyncio.run(rag.ainvoke(question, config={"callbacks": [async_handler]}))
        report = async_handler.latest
        if report is not None:
            lines.append(summary(question, report) + "  [async]")
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
