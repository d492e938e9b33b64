"""The offline demo (``make demo``): a LangChain RAG chain whose answers are grounded.

It starts the local emulator on its built-in corpus (the Python language reference) and,
through Google's unmodified client libraries:

1. retrieves chunks with ``DiscoveryEngineRetriever`` (Vertex AI Search, chunk mode);
2. answers with a RAG chain, a ``GroundingCallbackHandler`` attached: the callback checks the
   answer against what the retriever returned (checkGrounding) and every claim is supported;
3. asks a model that makes one claim up: the callback catches the unsupported claim;
4. writes that check as an HTML report (claims highlighted, click one to see its sources).

Nothing is downloaded and no Google Cloud project is needed; the "LLM" is a deterministic
offline stand-in (``langchain_grounding.ExtractiveChatModel``): swap in ``ChatVertexAI`` or
any chat model.

    python -m examples.demo [--out DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable, RunnablePassthrough
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from grounding_emulator import EmulatorServer
from langchain_grounding import (
    DiscoveryEngineRetriever,
    ExtractiveChatModel,
    GroundingCallbackHandler,
)

PROJECT = "demo-project"  # any project id works on the emulator
QUESTION = "How does the with statement work?"
INVENTED = "The with statement was added in Python 1.0."
DEFAULT_OUT = Path("build") / "demo"

PROMPT = ChatPromptTemplate.from_template(
    "Answer from the context only.\n\nContext:\n{context}\n\nQuestion: {question}"
)


def format_docs(documents: list[Document]) -> str:
    return "\n\n".join(d.page_content for d in documents)


def rag_chain(retriever: DiscoveryEngineRetriever, llm: BaseChatModel) -> Runnable[str, str]:
    """question -> retrieved context -> prompt -> model -> answer text."""
    return (
        {"context": retriever | format_docs, "question": RunnablePassthrough()}
        | PROMPT
        | llm
        | StrOutputParser()
    )


def show_documents(console: Console, documents: list[Document]) -> None:
    table = Table(title=f"Retrieved for {QUESTION!r}")
    for column in ("#", "score", "title"):
        table.add_column(column)
    table.add_column("source", overflow="fold")
    for number, doc in enumerate(documents, start=1):
        score = doc.metadata["relevance_score"]
        table.add_row(
            str(number),
            f"{score:.2f}" if score is not None else "",
            escape(doc.metadata["title"]),  # text, not rich markup
            escape(doc.metadata["source"]),
        )
    console.print(table)


def main(out_dir: Path = DEFAULT_OUT) -> Path:
    """Run the story; return the path of the HTML report."""
    console = Console()
    with EmulatorServer() as emulator:
        python_docs = emulator.store.get("python-docs")
        console.rule(
            f"Emulator on {emulator.address}: python-docs, {len(python_docs.documents)} "
            f"documents, {len(python_docs.chunks)} chunks"
        )
        connection = {"project_id": PROJECT, "emulator_host": emulator.address}
        retriever = DiscoveryEngineRetriever(data_store_id="python-docs", k=3, **connection)

        console.print("\n[bold]1. Retrieve[/] chunks with DiscoveryEngineRetriever")
        show_documents(console, retriever.invoke(QUESTION))

        # The callback checks the final answer of every run against what its retrievers found.
        # Claim-level scores show weak support. The default pass mark (min_support_score=1.0)
        # fails an answer with any unsupported claim.
        grounding = GroundingCallbackHandler(enable_claim_level_score=True, **connection)

        console.print("\n[bold]2. Answer[/] with a RAG chain, the grounding callback attached")
        honest = rag_chain(retriever, ExtractiveChatModel())
        honest.invoke(QUESTION, config={"callbacks": [grounding]})
        console.print(grounding.latest)

        console.print("\n[bold]3. Catch[/] a made-up claim (this model adds one sentence)")
        inventive = rag_chain(retriever, ExtractiveChatModel(invent=INVENTED))
        inventive.invoke(QUESTION, config={"callbacks": [grounding]})
        report = grounding.latest
        assert report is not None  # the callback records a report for every run
        console.print(report)
        for claim in report.unsupported_claims:
            console.print(f"Unsupported claim caught: {claim.text!r}", style="red", markup=False)

        out_dir.mkdir(parents=True, exist_ok=True)
        path = (out_dir / "grounding-report.html").resolve()
        path.write_text(report.html(question=QUESTION), encoding="utf-8")
        console.print("\n[bold]4. HTML report[/] (open it; click a claim to see its sources):")
        console.print(str(path), soft_wrap=True, highlight=False)
    return path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the report")
    main(parser.parse_args().out)
