"""The ``grounding`` command: run the emulator, ingest a corpus, search, answer and check.

::

    grounding search "what is a generator?" [--data-store ID | --engine ID] [-k 5] [--json]
    grounding check --answer-file answer.txt --search "with statement" --html report.html

``serve`` and ``ingest`` are the emulator's (the ``grounding.commands`` entry points); the
others talk to the emulator of ``--emulator-host`` or ``$DISCOVERYENGINE_EMULATOR_HOST``, else
to Google Cloud. An error is one line on stderr (``-vv``: the details) and exit status 2;
``check`` exits with 1 when the answer fails the pass mark (``--fail-under SCORE``).

>>> main(["check", "--help"])  # doctest: +SKIP
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from google.auth.exceptions import GoogleAuthError
from rich.console import Console
from rich.markup import escape

from grounding_core import GroundingError
from grounding_core.views.untrusted import one_line

from .errors import UsageError
from .parser import build_parser

__all__ = ["build_parser", "main"]

logger = logging.getLogger(__name__)

EXIT_ERROR = 2
EXIT_INTERRUPTED = 130

# What a user can cause and fix: reported in one line. Anything else is a bug: a traceback.
# (The sub-commands of the grounding.commands entry points raise ValueError for theirs.)
_USER_ERRORS = (GroundingError, UsageError, GoogleAuthError, OSError, ValueError)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``grounding`` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    console = Console()
    try:
        status: int = args.run(args, console)
    except _USER_ERRORS as exc:
        # An error can quote the service or a user's file: its escape sequences are shown.
        message = escape(one_line(str(exc)) or type(exc).__name__)
        errors = Console(stderr=True, soft_wrap=True, highlight=False)
        errors.print(f"[bold red]error:[/] {message}", markup=True, emoji=False)
        logger.debug("details of the error", exc_info=True)
        return EXIT_ERROR
    except KeyboardInterrupt:
        Console(stderr=True).print("interrupted")
        return EXIT_INTERRUPTED
    return status
