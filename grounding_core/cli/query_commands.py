"""``grounding search`` and ``grounding answer``: chunks and grounded answers, on Discovery
Engine (``--data-store`` / ``--engine``) or the Developer Knowledge API
(``--api developer-knowledge``)."""

from __future__ import annotations

import argparse
from contextlib import closing

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from grounding_core.answering import DeveloperKnowledgeAnswerQuery, DiscoveryEngineAnswerQuery
from grounding_core.html_report import answer_html
from grounding_core.records import GroundedAnswer, SourceChunk
from grounding_core.render import answer_markdown
from grounding_core.retrieval import DeveloperKnowledgeChunkSearch, DiscoveryEngineChunkSearch
from grounding_core.specs import AnswerSpec, ChunkSearchSpec
from grounding_core.summaries import DiscoveryEngineSearchSummary, SummarySpec
from grounding_core.terminal import answer_rich

from .connection import developer_knowledge_connection, discovery_engine_connection, target
from .errors import UsageError
from .output import note_console, write_html, write_json

__all__ = ["DEVELOPER_KNOWLEDGE", "run_answer", "run_search", "search"]

DEVELOPER_KNOWLEDGE = "developer-knowledge"
_EXCERPT = 300


def _search_spec(args: argparse.Namespace, k: int) -> ChunkSearchSpec:
    return ChunkSearchSpec(
        k=k,
        filter=args.filter,
        search_mode=args.search_mode,
        relevance_threshold=args.relevance_threshold,
    )


def search(args: argparse.Namespace, query: str, k: int) -> list[SourceChunk]:
    """The top ``k`` chunks for ``query`` on the API and the target the flags name."""
    if args.api == DEVELOPER_KNOWLEDGE:
        with closing(developer_knowledge_connection(args)) as dk:
            return DeveloperKnowledgeChunkSearch.create(dk, k=k, filter=args.filter).search(query)
    with closing(discovery_engine_connection(args)) as connection:
        spec = _search_spec(args, k)
        return DiscoveryEngineChunkSearch(connection, target(args, connection), spec).search(query)


def _summary(args: argparse.Namespace) -> GroundedAnswer:
    """The search summary of the top ``-k`` results (Discovery Engine only)."""
    if args.api == DEVELOPER_KNOWLEDGE:
        raise UsageError(
            "--summary needs Discovery Engine (search summaries are a Vertex AI Search "
            "feature): drop --api developer-knowledge, or use `grounding answer`"
        )
    with closing(discovery_engine_connection(args)) as connection:
        summarizing = DiscoveryEngineSearchSummary(
            connection,
            target(args, connection),
            SummarySpec(result_count=args.k),
            _search_spec(args, args.k),
        )
        return summarizing.answer(args.query)


def _print_answer(args: argparse.Namespace, console: Console, answer: GroundedAnswer) -> None:
    """A grounded answer or summary as ``--json``, ``--markdown`` or a terminal view."""
    if args.json:
        write_json(answer.to_dict())
    elif args.markdown:
        console.print(answer_markdown(answer), markup=False, highlight=False, soft_wrap=True)
    else:
        console.print(answer_rich(answer))


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
    """Print the top ``-k`` chunks for the query (a table, or JSON with ``--json``); with
    ``--summary``, the search summary of those results with its citations instead."""
    if args.summary:
        _print_answer(args, console, _summary(args))
        return 0
    chunks = search(args, args.query, args.k)
    if args.json:
        write_json([c.to_dict() for c in chunks])
    else:
        console.print(_chunk_table(args.query, chunks))
    return 0


def _answer(args: argparse.Namespace) -> GroundedAnswer:
    if args.api == DEVELOPER_KNOWLEDGE:
        with closing(developer_knowledge_connection(args)) as dk:
            return DeveloperKnowledgeAnswerQuery(dk, args.filter).answer(args.query)
    with closing(discovery_engine_connection(args)) as connection:
        # Google sends the grounding score only with the supports: the views show the score.
        spec = AnswerSpec(
            filter=args.filter,
            max_return_results=args.max_return_results,
            include_grounding_supports=True,
        )
        answering = DiscoveryEngineAnswerQuery(connection, target(args, connection), spec)
        return answering.answer(args.query)


def run_answer(args: argparse.Namespace, console: Console) -> int:
    """Print a grounded answer with its citations (``--markdown``, ``--json``, ``--html``)."""
    answer = _answer(args)
    _print_answer(args, console, answer)
    if args.html:
        html = answer_html(answer, question=args.query)
        write_html(args.html, html, note_console(console, json_output=args.json))
    return 0
