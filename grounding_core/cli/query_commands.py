"""``grounding search`` and ``grounding answer``: chunks and grounded answers, on Discovery
Engine (``--data-store`` / ``--engine``) or the Developer Knowledge API
(``--api developer-knowledge``)."""

from __future__ import annotations

import argparse
from contextlib import closing

from rich.console import Console
from rich.table import Column, Table
from rich.text import Text

from grounding_core import (
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeChunkSearch,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineSearchSummary,
    GroundedAnswer,
    SourceChunk,
    answer_html,
    answer_markdown,
    answer_rich,
)
from grounding_core.search.specs import SearchOptions
from grounding_core.views import format_score
from grounding_core.views.untrusted import one_line

from .connection import (
    developer_knowledge_connection,
    discovery_engine_connection,
    target,
    target_label,
)
from .errors import UsageError
from .output import count, note_console, write_html, write_json, write_text

DEVELOPER_KNOWLEDGE = "developer-knowledge"
_EXCERPT = 300


def _search_options(args: argparse.Namespace, k: int) -> SearchOptions:
    mode, threshold = args.search_mode, args.relevance_threshold
    return {"k": k, "filter": args.filter, "search_mode": mode, "relevance_threshold": threshold}


def search(args: argparse.Namespace, query: str, k: int) -> tuple[list[SourceChunk], str]:
    """The top ``k`` chunks for ``query`` on the API and the target the flags name, and what
    was searched (``target_label``)."""
    if args.api == DEVELOPER_KNOWLEDGE:
        with closing(developer_knowledge_connection(args)) as dk:
            chunks = DeveloperKnowledgeChunkSearch(dk, k=k, filter=args.filter).search(query)
            return chunks, "the Developer Knowledge API"
    with closing(discovery_engine_connection(args)) as connection:
        searching = DiscoveryEngineChunkSearch(
            connection, **target(args), **_search_options(args, k)
        )
        return searching.search(query), target_label(args, searching.target)


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
    title = Text(
        f"{count(len(chunks), 'result')} for {one_line(repr(query))} in {one_line(searched)}"
    )
    right = [Column("#", justify="right"), Column("score", justify="right")]
    table = Table(*right, "title / uri", "content", title=title)
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
        if args.api == DEVELOPER_KNOWLEDGE:
            raise UsageError(
                "--summary needs Discovery Engine (search summaries are a Vertex AI Search "
                "feature): drop --api developer-knowledge, or use `grounding answer`"
            )
        with closing(discovery_engine_connection(args)) as connection:
            options = _search_options(args, args.k)
            summary = DiscoveryEngineSearchSummary(
                connection, **target(args), search=options, result_count=args.k
            )
            _print_answer(args, console, summary.answer(args.query))
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
            answer = DeveloperKnowledgeAnswerQuery(dk, filter=args.filter).answer(args.query)
            return answer, "the Developer Knowledge API"
    with closing(discovery_engine_connection(args)) as connection:
        # Google sends the grounding score only with the supports: the views show the score.
        answering = DiscoveryEngineAnswerQuery(
            connection,
            **target(args),
            filter=args.filter,
            max_return_results=args.max_return_results,
            include_grounding_supports=True,
        )
        return answering.answer(args.query), target_label(args, answering.target)


def run_answer(args: argparse.Namespace, console: Console) -> int:
    """Print a grounded answer with its citations (``--markdown``, ``--json``, ``--html``)."""
    answer, asked = _answer(args)
    _print_answer(args, console, answer)
    notes = note_console(console, json_output=args.json)
    write_text(notes, f"answered from {asked}")
    if args.html:
        write_html(args.html, answer_html(answer, question=args.query), notes)
    return 0
