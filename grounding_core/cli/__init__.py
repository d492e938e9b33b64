"""The ``grounding`` command: run the emulator, ingest a corpus, search, answer and check.

::

    grounding serve [--corpus [ID=]PATH]... [--engine E=D]... [--port 8123]
    grounding ingest --corpus PATH --data-store ID [--state-dir DIR]
    grounding search "what is a generator?" [--data-store ID | --engine ID] [-k 5] [--json]
    grounding answer "how do I open a file?" [--api developer-knowledge] [--html FILE]
    grounding check "Paris is in France." --fact "Paris is the capital of France."
    grounding check --answer-file answer.txt --search "with statement" --html report.html

``serve`` and ``ingest`` are the emulator's (``grounding_emulator.commands``, found through the
``grounding.commands`` entry points). ``search``, ``answer`` and ``check`` take the same
connection flags as the Python settings (``--project``, ``--location``, ``--emulator-host``,
``--timeout``) and talk to the emulator named by ``--emulator-host`` or
``$DISCOVERYENGINE_EMULATOR_HOST``, else to Google Cloud.

An error is one line on stderr (``-vv`` logs the details) and exit status 2; ``check`` exits
with 1 when the answer fails the pass mark (an unsupported claim, unless ``--fail-under SCORE``
is reached).

>>> main(["check", "--help"])  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from google.auth.exceptions import GoogleAuthError
from rich.console import Console
from rich.markup import escape

from grounding_core.errors import GroundingError
from grounding_core.untrusted import one_line

from .errors import UsageError
from .parser import build_parser

__all__ = ["build_parser", "main"]

logger = logging.getLogger(__name__)

EXIT_ERROR = 2
EXIT_INTERRUPTED = 130

# What a user can cause and fix: reported in one line. Anything else is a bug: a traceback.
# (The sub-commands of the grounding.commands entry points raise ValueError for theirs.)
_USER_ERRORS = (GroundingError, UsageError, GoogleAuthError, OSError, ValueError)


def _one_line(exc: BaseException) -> str:
    # An error can quote the service or a user's file: its escape sequences are shown.
    return one_line(str(exc)) or type(exc).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``grounding`` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    console = Console()
    try:
        status: int = args.run(args, console)
    except _USER_ERRORS as exc:
        errors = Console(stderr=True, soft_wrap=True, highlight=False)
        errors.print(f"[bold red]error:[/] {escape(_one_line(exc))}", markup=True, emoji=False)
        logger.debug("details of the error", exc_info=True)
        return EXIT_ERROR
    except KeyboardInterrupt:
        Console(stderr=True).print("interrupted")
        return EXIT_INTERRUPTED
    return status


if __name__ == "__main__":
    sys.exit(main())
