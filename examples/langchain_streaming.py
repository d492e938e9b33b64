"""A LangChain RAG chain streamed through the grounding checker: each sentence of the answer is
checked as soon as it is complete, while the rest is still streaming; then Google's streamed
answers (StreamAnswerQuery).

Runs offline on the local emulator (built-in corpus: the Python language reference). The model
is an offline stand-in that streams a word every 20 ms and adds a made-up sentence; with your
chat model, only the ``llm`` line changes.

    python -m examples.langchain_streaming "How does the with statement work?"
"""

from __future__ import annotations

import asyncio
import sys

from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableParallel, RunnablePassthrough

from grounding_emulator import EmulatorServer
from langchain_grounding import (
    DiscoveryEngineAnswer,
    DiscoveryEngineRetriever,
    ExtractiveChatModel,
    GroundingChecker,
)

PROMPT = ChatPromptTemplate.from_template(
    "Answer from the context only.\n\nContext:\n{context}\n\nQuestion: {question}"
)
MADE_UP = "The with statement was added in Python 1.0."


def format_docs(documents: list[Document]) -> str:
    return "\n\n".join(d.page_content for d in documents)


async def check_while_streaming(address: str, question: str) -> list[str]:
    """The chain's stream as lines: tokens counted, each verdict when it arrives, the report."""
    retriever = DiscoveryEngineRetriever(
        project_id="my-project", data_store_id="python-docs", k=3, emulator_host=address
    )
    llm = ExtractiveChatModel(invent=MADE_UP, token_delay=0.02)
    answer = (
        RunnablePassthrough.assign(context=lambda x: format_docs(x["context"]))
        | PROMPT
        | llm
        | StrOutputParser()
    )
    rag = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(answer=answer)
    checker = GroundingChecker(
        project_id="my-project", emulator_host=address, check_while_streaming=True
    )
    lines, tokens = [], 0
    async for event in (rag | checker).astream_events(question, version="v2"):
        if event["event"] == "on_custom_event" and event["name"] == "grounding_claim":
            verdict = event["data"]
            lines.append(
                f"after {tokens} tokens: {verdict['status']} [{verdict['start']}:"
                f"{verdict['end']}] {verdict['text']!r}"
            )
        elif event["event"] == "on_chain_stream" and event["name"] == "GroundingChecker":
            chunk = event["data"]["chunk"]
            tokens += "answer" in chunk
            if "grounding" in chunk:
                report = chunk["grounding"]
                lines.append(
                    f"{tokens} tokens streamed; final report: support "
                    f"{report.support_score:.2f}, passed: {report.passed}"
                )
    return lines


def streamed_answer(address: str, question: str) -> list[str]:
    """Google's StreamAnswerQuery through DiscoveryEngineAnswer.stream."""
    answerer = DiscoveryEngineAnswer(
        project_id="my-project", engine_id="python-docs-app", emulator_host=address
    )
    chunks = list(answerer.stream(question))
    parts = [c["answer"] for c in chunks if c.get("answer")]
    last = chunks[-1]
    return [
        f"{len(parts)} parts streamed, then the citations:",
        *(f"  part: {part.strip()}" for part in parts),
        *(f"  cited [{c['start']}:{c['end']}] -> {c['source_ids']}" for c in last["citations"]),
    ]


def main(question: str) -> str:
    with EmulatorServer() as emulator:  # offline; on Google Cloud, omit emulator_host
        lines = ["1. Claims checked while the answer streams"]
        lines += asyncio.run(check_while_streaming(emulator.address, question))
        lines += ["2. A streamed grounded answer (StreamAnswerQuery)"]
        lines += streamed_answer(emulator.address, question)
    return "\n".join(lines)


if __name__ == "__main__":
    print(main(" ".join(sys.argv[1:]) or "How does the with statement work?"))
