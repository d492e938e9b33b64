"""``grounding search`` and ``grounding answer``: chunks and grounded answers, on Discovery
Engine (``--data-store`` / ``--engine``) or the Developer Knowledge API
(``--api developer-knowledge``)."""

from __future__ import annotations

import argparse
from contextlib import closing

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grounding_core.answering import DeveloperKnowledgeAnswerQuery, DiscoveryEngineAnswerQuery
from grounding_core.html_report import answer_html
from grounding_core.pass_mark import format_score
from grounding_core.records import GroundedAnswer, SourceChunk
from grounding_core.render import answer_markdown
from grounding_core.retrieval import DeveloperKnowledgeChunkSearch, DiscoveryEngineChunkSearch
from grounding_core.specs import AnswerSpec, ChunkSearchSpec
from grounding_core.summaries import DiscoveryEngineSearchSummary, SummarySpec
from grounding_core.terminal import answer_rich
from grounding_core.untrusted import one_line

from .connection import (
    developer_knowledge_connection,
    discovery_engine_connection,
    target,
    target_label,
)
from .errors import UsageError
from .output import note_console, write_html, write_json, write_text

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


def search(args: argparse.Namespace, query: str, k: int) -> tuple[list[SourceChunk], str]:
    """The top ``k`` chunks for ``query`` on the API and the target the flags name, and what
    was searched (``target_label``)."""
    if args.api == DEVELOPER_KNOWLEDGE:
        with closing(developer_knowledge_connection(args)) as dk:
            searching = DeveloperKnowledgeChunkSearch.create(dk, k=k, filter=args.filter)
            return searching.search(query), "the Developer Knowledge API"
    with closing(discovery_engine_connection(args)) as connection:
        spec = _search_spec(args, k)
        searched = target(args, connection)
        chunks = DiscoveryEngineChunkSearch(connection, searched, spec).search(query)
        return chunks, target_label(args, searched)


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
        write_text(console, answer_markdown(answer))
    else:
        console.print(answer_rich(answer))


def _chunk_table(query: str, chunks: list[SourceChunk], searched: str) -> Table:
    # Text cells: a title is never read as rich markup or :emoji: codes.
    title = Text(f"{len(chunks)} results for {one_line(repr(query))} in {one_line(searched)}")
    table = Table(title=title)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("title / uri")
    table.add_column("content")
    for number, chunk in enumerate(chunks, start=1):
        score = format_score(chunk.relevance_score) if chunk.relevance_score is not None else ""
        text = one_line(chunk.content)
        excerpt = text[:_EXCERPT] + ("..." if len(text) > _EXCERPT else "")
        name = Text(one_line(chunk.title))
        name.append(f"\n{one_line(chunk.uri)}", style="dim")
        table.add_row(str(number), score, name, Text(excerpt))
    return table


def run_search(args: argparse.Namespace, console: Console) -> int:
    """Print the top ``-k`` chunks for the query (a table, or JSON with ``--json``); with
    ``--summary``, the search summary of those results with its citations instead."""
    if args.summary:
        _print_answer(args, console, _summary(args))
        return 0
    chunks, searched = search(args, args.query, args.k)
    if args.json:
        write_json([c.to_dict() for c in chunks])
    else:
        console.print(_chunk_table(args.query, chunks, searched))
    return 0


def _answer(args: argparse.Namespace) -> tuple[GroundedAnswer, str]:
    if args.api == DEVELOPER_KNOWLEDGE:
        with closing(developer_knowledge_connection(args)) as dk:
            answer = DeveloperKnowledgeAnswerQuery(dk, args.filter).answer(args.query)
            return answer, "the Developer Knowledge API"
    with closing(discovery_engine_connection(args)) as connection:
        # Google sends the grounding score only with the supports: the views show the score.
        spec = AnswerSpec(
            filter=args.filter,
            max_return_results=args.max_return_results,
            include_grounding_supports=True,
        )
        asked = target(args, connection)
        answering = DiscoveryEngineAnswerQuery(connection, asked, spec)
        return answering.answer(args.query), target_label(args, asked)


def run_answer(args: argparse.Namespace, console: Console) -> int:
    """Print a grounded answer with its citations (``--markdown``, ``--json``, ``--html``)."""
    answer, asked = _answer(args)
    _print_answer(args, console, answer)
    notes = note_console(console, json_output=args.json)
    write_text(notes, f"answered from {asked}")
    if args.html:
        html = answer_html(answer, question=args.query)
        write_html(args.html, html, notes)
    return 0
