"""The offline demo (``make demo``): Google's grounding APIs on the local emulator.

Starts the emulator on the built-in corpus (the Python language reference), then, through
Google's unmodified client libraries and this project's core functions:

1. searches chunks of the ``python-docs`` data store;
2. asks the ``python-docs-app`` engine a question and prints the cited answer;
3. checks an answer against the search results with CheckGrounding.

Nothing is downloaded and no Google Cloud project is needed.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from grounding_core import (
    ChunkSearchSpec,
    DiscoveryEngineTarget,
    GroundingSource,
    answer_query,
    check_grounding,
    grounding_config_path,
    search_chunks,
)
from grounding_core.emulator import EmulatorServer

PROJECT = "demo-project"
QUESTION = "What does the yield statement do?"


def main() -> None:
    console = Console()
    with EmulatorServer() as server:
        console.rule(f"emulator on {server.address}")
        clients = server.discovery_engine_clients()

        store = DiscoveryEngineTarget(project=PROJECT, data_store="python-docs")
        chunks = search_chunks(clients, store, "yield statement generator", ChunkSearchSpec(k=3))
        console.print("[bold]1. Chunk search[/]: 'yield statement generator'")
        for chunk in chunks:
            console.print(f"  {chunk.relevance_score:.2f}  {escape(chunk.title)}  [dim]{chunk.uri}")

        engine = DiscoveryEngineTarget(project=PROJECT, engine="python-docs-app")
        answer = answer_query(clients, engine, QUESTION)
        console.print(f"\n[bold]2. Answer[/] to {QUESTION!r}:")
        text = answer.answer_text
        marked = []
        position = 0
        for number, citation in enumerate(answer.citations, start=1):
            marked.append(escape(text[position : citation.end]) + f" [cyan][{number}][/]")
            position = citation.end
        marked.append(escape(text[position:]))
        console.print("  " + "".join(marked))
        for number, citation in enumerate(answer.citations, start=1):
            uris = ", ".join(dict.fromkeys(r.uri for r in citation.references))
            console.print(f"  [cyan][{number}][/] {uris}")

        claimed = (
            "A yield statement is semantically equivalent to a yield expression. "
            "Generators were invented in 1970 by the Python Software Foundation."
        )
        sources = [GroundingSource(c.content, {"uri": c.uri, "title": c.title}) for c in chunks]
        result = check_grounding(clients, grounding_config_path(PROJECT), claimed, sources)
        console.print(f"\n[bold]3. Grounding check[/] (support score {result.support_score:.2f}):")
        for claim in result.claims:
            mark = (
                "[green]supported[/]" if claim.status == "supported" else f"[red]{claim.status}[/]"
            )
            sources = ", ".join(chunks[i].title for i in claim.source_indices)
            console.print(
                f"  {mark}: {escape(claim.text)}" + (f"  [dim]({sources})" if sources else "")
            )


if __name__ == "__main__":
    main()
