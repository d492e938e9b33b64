"""The ``grounding`` argument parser: one sub-command per job, flags named as the Python
settings are (``--project``, ``--data-store``, ``--engine``, ``--emulator-host``...).

Other packages add sub-commands through the ``grounding.commands`` entry points (the emulator's
``serve`` and ``ingest``), listed first: each is a function that takes the sub-parsers and adds
its package's, each with ``run(args, console) -> int`` as a default and raising ``ValueError``
for what the user must change. Every sub-command's parser is a ``_CommandParser``.
"""

from __future__ import annotations

import argparse
import inspect
import re
from importlib import metadata
from typing import Any

from grounding_core import (
    DEFAULT_CITATION_THRESHOLD,
    DEFAULT_COLLECTION,
    DEFAULT_GROUNDING_CONFIG,
    DEFAULT_LOCATION,
    DEFAULT_SEARCH_K,
    DEFAULT_SERVING_CONFIG,
    DEFAULT_TIMEOUT,
    GROUNDING_DATA_STORE,
)
from grounding_core.answers.answer_query import DEFAULT_MAX_RETURN_RESULTS
from grounding_core.search.specs import SEARCH_MODES, THRESHOLDS
from grounding_core.views import DEFAULT_WEAK_BELOW

from .check_command import run_check
from .query_commands import DEVELOPER_KNOWLEDGE, run_answer, run_search

# The entry points whose functions add sub-commands (the emulator's serve and ingest).
COMMANDS_GROUP = "grounding.commands"

DESCRIPTION = """\
Google's grounding APIs from the command line, on the local emulator or on Google Cloud.

  grounding serve                                   run the emulator (built-in Python docs)
  grounding search "what is a generator?"           chunks of a data store or engine
  grounding answer "how do I open a file?"          a grounded answer with citations
  grounding check "Paris is in France." --fact "Paris is the capital of France."
  echo "$ANSWER" | grounding check --search "with statement" --html report.html

search, answer and check use the emulator named by --emulator-host or
$DISCOVERYENGINE_EMULATOR_HOST, else Google Cloud (application default credentials), and the
data store named by --data-store, --engine or $GROUNDING_DATA_STORE (grounding serve prints the
export line that sets the variables).
Exit status: 0 ok, 1 check failed the pass mark, 2 error, 130 interrupted.
"""


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions as written; every option's default after its help (``(default: 5)``),
    unless the help says it or there is none to say (``None``, a flag's ``False``)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        to_say = action.default not in (None, False, argparse.SUPPRESS) and "default" not in text
        return text + " (default: %(default)s)" if action.option_strings and to_say else text


class _CommandParser(argparse.ArgumentParser):
    """A sub-command's parser, the core's and those the entry points add alike: its
    description is a docstring, shown without reST literals, and every option its default."""

    def __init__(self, *, description: str | None = None, **options: Any) -> None:
        options.setdefault("formatter_class", _HelpFormatter)
        if description is not None:
            description = re.sub(r"``(.+?)``", r"\1", inspect.cleandoc(description))
        super().__init__(description=description, **options)


def _version() -> str:
    try:
        return metadata.version("grounding-kit")
    except metadata.PackageNotFoundError:
        return "unknown"


def _score(value: str) -> float:
    try:
        number = float(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {value!r}") from exc
    if not 0.0 <= number <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {value}")
    return number


def _common_args(parser: argparse.ArgumentParser, *, api: bool, markdown: bool) -> None:
    """The flags of the target, of the connection and of the output."""
    group = parser.add_argument_group("what to search")
    which = group.add_mutually_exclusive_group()
    which.add_argument(
        "--data-store",
        metavar="ID",
        help=f"data store id (default: ${GROUNDING_DATA_STORE}, which `grounding serve` prints; "
        "one of --data-store, --engine and the variable is required)",
    )
    which.add_argument("--engine", dest="engine_id", metavar="ID", help="engine (app) id")
    group.add_argument(
        "--collection", default=DEFAULT_COLLECTION, metavar="ID", help="collection id"
    )
    group.add_argument(
        "--serving-config", default=DEFAULT_SERVING_CONFIG, metavar="ID", help="serving config id"
    )
    group.add_argument(
        "--filter", default="", help='a filter expression, e.g. category: ANY("statements")'
    )
    if api:
        group.add_argument(
            "--api",
            choices=("discovery-engine", DEVELOPER_KNOWLEDGE),
            default="discovery-engine",
            help="Discovery Engine (default) or Google's Developer Knowledge API",
        )
    group = parser.add_argument_group("connection (as in the Python settings)")
    group.add_argument(
        "--emulator-host",
        "--emulator",
        dest="emulator_host",
        metavar="HOST:PORT",
        help="the emulator (default: $DISCOVERYENGINE_EMULATOR_HOST; unset: Google Cloud)",
    )
    group.add_argument(
        "--project",
        help="Google Cloud project (default: $GOOGLE_CLOUD_PROJECT, else the credentials'; "
        "any on the emulator)",
    )
    group.add_argument("--location", default=DEFAULT_LOCATION, help="global, us or eu")
    group.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per attempt")
    group.add_argument("--no-retry", action="store_true", help="do not retry transient failures")
    group = parser.add_argument_group("output")
    formats = group.add_mutually_exclusive_group()
    formats.add_argument("--json", action="store_true", help="print JSON (for scripts)")
    if markdown:
        formats.add_argument("--markdown", action="store_true", help="print Markdown")
        group.add_argument("--html", metavar="FILE", help="also write an HTML report to FILE")


def _add_commands(commands: argparse._SubParsersAction[_CommandParser]) -> None:
    search = commands.add_parser("search", description=run_search.__doc__, help="search chunks")
    search.add_argument("query", help="what to search for")
    search.add_argument("-k", "--k", type=int, default=DEFAULT_SEARCH_K, help="number of results")
    search.add_argument(
        "--search-mode",
        "--mode",
        choices=SEARCH_MODES,
        default="chunks",
        help="return chunks or whole documents",
    )
    search.add_argument(
        "--relevance-threshold",
        choices=THRESHOLDS,
        default=None,
        help="drop results below this relevance (default: the service's)",
    )
    search.add_argument(
        "--summary",
        action="store_true",
        help="print the search summary of the top -k results, with its citations (Discovery "
        "Engine; -k at most 50 in chunk mode, 10 in documents mode)",
    )
    _common_args(search, api=True, markdown=False)
    search.set_defaults(run=run_search, markdown=False)

    answer = commands.add_parser(
        "answer", description=run_answer.__doc__, help="answer a question with citations"
    )
    answer.add_argument("query", help="the question")
    answer.add_argument(
        "--max-return-results",
        type=int,
        default=DEFAULT_MAX_RETURN_RESULTS,
        help="chunks the answer may use",
    )
    _common_args(answer, api=True, markdown=True)
    answer.set_defaults(run=run_answer)

    check = commands.add_parser(
        "check",
        description=run_check.__doc__,
        help="check an answer against facts",
        epilog="Fact files: .jsonl (one {text, title, source} per line), .json (a list), "
        "or text (one fact per paragraph).",
    )
    check.add_argument("answer", nargs="?", help="the answer; '-' or omitted: read stdin")
    check.add_argument("--answer-file", metavar="FILE", help="read the answer from FILE")
    facts = check.add_argument_group("facts")
    facts.add_argument("--fact", action="append", metavar="TEXT", help="a fact; repeatable")
    facts.add_argument(
        "--facts",
        "--facts-file",
        dest="facts",
        action="append",
        metavar="FILE",
        help="facts from a .jsonl, .json or text file; repeatable",
    )
    facts.add_argument(
        "--search", metavar="QUERY", help="facts: the top -k chunks of a search for QUERY"
    )
    facts.add_argument("-k", "--k", type=int, default=DEFAULT_SEARCH_K, help="chunks for --search")
    check.add_argument(
        "--citation-threshold",
        type=_score,
        default=DEFAULT_CITATION_THRESHOLD,
        help="cite facts scoring at least this",
    )
    check.add_argument(
        "--weak-below",
        type=_score,
        default=DEFAULT_WEAK_BELOW,
        help="supported claims scoring below this show as weak",
    )
    check.add_argument(
        "--fail-under",
        type=_score,
        metavar="SCORE",
        help="pass the answer when its support score reaches SCORE (default: only when every "
        "checked claim is supported); a failing answer exits with status 1, so 0 never fails",
    )
    check.add_argument("--question", help="the question the answer answers (for the report)")
    check.add_argument(
        "--grounding-config",
        default=DEFAULT_GROUNDING_CONFIG,
        metavar="ID",
        help="grounding config id",
    )
    _common_args(check, api=False, markdown=True)
    check.set_defaults(
        run=run_check, api="discovery-engine", search_mode="chunks", relevance_threshold=None
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``grounding``."""
    parser = argparse.ArgumentParser(
        prog="grounding",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (-vv: debug)")
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_CommandParser
    )
    for entry_point in metadata.entry_points(group=COMMANDS_GROUP):
        entry_point.load()(commands)
    _add_commands(commands)
    return parser
