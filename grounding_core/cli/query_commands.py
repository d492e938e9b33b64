"""``grounding search`` and ``grounding answer``: chunks and grounded answers, on Discovery
Engine (``--data-store`` / ``--engine``) or the Developer Knowledge API
(``--api developer-knowledge``)."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from grounding_core.answers import answer_developer_query, answer_query
from grounding_core.html_report import answer_html
from grounding_core.records import GroundedAnswer, SourceChunk
from grounding_core.render import answer_markdown
from grounding_core.search import search_chunks, search_developer_knowledge
from grounding_core.specs import AnswerSpec, ChunkSearchSpec, DeveloperKnowledgeSearchSpec
from grounding_core.terminal import answer_rich

from .connection import (
    call_options,
    developer_knowledge_clients,
    discovery_engine_clients,
    target,
)
from .output import note_console, write_html, write_json

__all__ = ["DEVELOPER_KNOWLEDGE", "run_answer", "run_search", "search"]

DEVELOPER_KNOWLEDGE = "developer-knowledge"
_EXCERPT = 300


def search(args: argparse.Namespace, query: str, k: int) -> list[SourceChunk]:
    """The top ``k`` chunks for ``query`` on the API and the target the flags name."""
    options = call_options(args)
    if args.api == DEVELOPER_KNOWLEDGE:
        dk_clients = developer_knowledge_clients(args)
        try:
            spec = DeveloperKnowledgeSearchSpec(k=k, filter=args.filter)
            return search_developer_knowledge(dk_clients, query, spec, options)
        finally:
            dk_clients.close()
    clients = discovery_engine_clients(args)
    try:
        chunk_spec = ChunkSearchSpec(
            k=k,
            filter=args.filter,
            mode=getattr(args, "mode", "chunks"),
            relevance_threshold=getattr(args, "relevance_threshold", None),
        )
        return search_chunks(clients, target(args, clients), query, chunk_spec, options)
    finally:
        clients.close()


def _chunk_table(query: str, chunks: list[SourceChunk]) -> Table:
    table = Table(title=f"{len(chunks)} results for {escape(repr(query))}")
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("title / uri")
    table.add_column("content")
    for number, chunk in enumerate(chunks, start=1):
        score = f"{chunk.relevance_score:.3f}" if chunk.relevance_score is not None else ""
        text = " ".join(chunk.content.split())
        excerpt = text[:_EXCERPT] + ("..." if len(text) > _EXCERPT else "")
        table.add_row(
            str(number),
            score,
            f"{escape(chunk.title)}\n[dim]{escape(chunk.uri)}",
            escape(excerpt),
        )
    return table


def run_search(args: argparse.Namespace, console: Console) -> int:
    """Print the top ``-k`` chunks for the query (a table, or JSON with ``--json``)."""
    chunks = search(args, args.query, args.k)
    if args.json:
        write_json([c.to_dict() for c in chunks])
    else:
        console.print(_chunk_table(args.query, chunks))
    return 0


def _answer(args: argparse.Namespace) -> GroundedAnswer:
    options = call_options(args)
    if args.api == DEVELOPER_KNOWLEDGE:
        dk_clients = developer_knowledge_clients(args)
        try:
            return answer_developer_query(dk_clients, args.query, args.filter, options)
        finally:
            dk_clients.close()
    clients = discovery_engine_clients(args)
    try:
        spec = AnswerSpec(filter=args.filter, max_return_results=args.max_return_results)
        return answer_query(clients, target(args, clients), args.query, spec, options)
    finally:
        clients.close()


def run_answer(args: argparse.Namespace, console: Console) -> int:
    """Print a grounded answer with its citations (``--markdown``, ``--json``, ``--html``)."""
    answer = _answer(args)
    if args.json:
        write_json(answer.to_dict())
    elif args.markdown:
        console.print(answer_markdown(answer), markup=False, highlight=False, soft_wrap=True)
    else:
        console.print(answer_rich(answer))
    if args.html:
        html = answer_html(answer, question=args.query)
        write_html(args.html, html, note_console(console, json_output=args.json))
    return 0
