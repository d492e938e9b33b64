"""``grounding check``: check an answer against facts with CheckGrounding: ``--fact TEXT``,
``--facts FILE`` and ``--search QUERY`` (the top ``-k`` chunks), in that order. Fact files:

- ``.jsonl``: one fact per line, ``{"text": ..., "title": ..., "source": ...}`` (any other keys
  become the fact's attributes);
- ``.json``: a list of such objects, or of strings;
- anything else: plain text, one fact per paragraph (blank-line separated), titled
  ``{file name} ¶{n}``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

from rich.console import Console

from grounding_core import (
    DEFAULT_MIN_SUPPORT_SCORE,
    GroundingCheck,
    GroundingSource,
    chunk_metadata,
    grounding_rich,
    grounding_source,
)

from .connection import discovery_engine_connection
from .errors import UsageError
from .output import note_console, write_html, write_json, write_text
from .query_commands import search

_PARAGRAPHS = re.compile(r"\n\s*\n")


def read_text(flag: str, value: str | Path) -> str:
    """The UTF-8 text of the file ``flag`` names, or a ``UsageError`` naming the flag
    (``--answer-file ./nope: no such file or directory``, not a bare ``[Errno 2]``)."""
    try:
        return Path(value).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise UsageError(f"{flag} {value}: {reason[:1].lower()}{reason[1:]}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{flag} {value}: not UTF-8 text ({exc.reason})") from exc


def read_answer(args: argparse.Namespace) -> str:
    """The answer to check: the argument, ``--answer-file`` (``-`` = stdin) or stdin."""
    if args.answer_file is not None and args.answer is not None:
        raise UsageError("give the answer once: as an argument or with --answer-file, not both")
    if args.answer_file not in (None, "-"):
        text = read_text("--answer-file", args.answer_file)
    elif args.answer is not None and args.answer != "-":
        text = args.answer
    elif args.answer == "-" or args.answer_file == "-" or not sys.stdin.isatty():
        text = sys.stdin.read()
    else:
        raise UsageError("no answer: give it as an argument, with --answer-file FILE, or on stdin")
    if not text.strip():
        raise UsageError("the answer to check is empty")
    return text.strip()


def _fact(value: Any, where: str) -> GroundingSource:
    if isinstance(value, str):
        return GroundingSource(value)
    if isinstance(value, dict):
        text = value.get("text", value.get("content"))
        if isinstance(text, str):
            metadata = {k: v for k, v in value.items() if k not in ("text", "content")}
            return grounding_source(text, metadata)
    raise UsageError(f'{where}: expected a string or an object with a "text" string')


def _json(text: str, path: Path, line: int | None = None) -> Any:
    """``text``, line ``line`` of ``path`` (all of it if ``None``), parsed as JSON; a
    ``UsageError`` naming ``--facts``, the file and the line, and saying why it cannot be."""
    where = f"--facts {path}" + (f", line {line}" if line is not None else "")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno if line is None else line}, column {exc.colno}"
        raise UsageError(f"--facts {path}, {at}: not JSON ({exc.msg})") from exc
    except RecursionError as exc:
        raise UsageError(
            f"{where}: nested too deeply to parse; a fact is a string, or an object of a "
            '"text" string and its metadata: flatten it'
        ) from exc
    except ValueError as exc:  # Python's words (an integer of over 4,300 digits) name a setting
        raise UsageError(
            f"{where}: a number has more digits than Python reads ({str(exc).split(';')[0]}): "
            "write it as a string"
        ) from exc


def facts_from_file(path: Path) -> list[GroundingSource]:
    """The facts of one file (see the module docstring for the formats); a file that cannot be
    read is a ``UsageError`` naming ``--facts``, the file and the line."""
    text = read_text("--facts", path)
    if path.suffix == ".jsonl":
        facts = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                facts.append(_fact(_json(line, path, number), f"--facts {path}, line {number}"))
        return facts
    if path.suffix == ".json":
        values = _json(text, path)
        if not isinstance(values, list):
            raise UsageError(f"--facts {path}: expected a JSON list of facts")
        return [_fact(v, f"--facts {path}, fact {i}") for i, v in enumerate(values)]
    uri = path.resolve().as_uri()
    paragraphs = [p.strip() for p in _PARAGRAPHS.split(text) if p.strip()]
    return [
        GroundingSource(p, {"title": f"{path.name} ¶{n}", "source": uri})
        for n, p in enumerate(paragraphs, start=1)
    ]


def _sources(args: argparse.Namespace) -> list[GroundingSource]:
    sources = [
        GroundingSource(text, {"title": f"fact {n}"})
        for n, text in enumerate(args.fact or [], start=1)
    ]
    for name in args.facts or []:
        sources += facts_from_file(Path(name))
    if args.search:
        chunks, _ = search(args, args.search, args.k)
        sources += [grounding_source(c.content, chunk_metadata(c)) for c in chunks]
    if not sources:
        raise UsageError("no facts to check against: give --fact TEXT, --facts FILE or --search")
    return sources


def run_check(args: argparse.Namespace, console: Console) -> int:
    """Check the answer; print the report; exit 1 if it fails the pass mark (as a linter does:
    every checked claim supported, or ``--fail-under SCORE`` reached; ``--fail-under 0`` never
    fails)."""
    answer = read_answer(args)
    sources = _sources(args)
    minimum = DEFAULT_MIN_SUPPORT_SCORE if args.fail_under is None else args.fail_under
    with closing(discovery_engine_connection(args)) as connection:
        check = GroundingCheck(
            connection,
            grounding_config=args.grounding_config,
            citation_threshold=args.citation_threshold,
            enable_claim_level_score=True,
            min_support_score=minimum,
        )
        report = check.check(answer, sources, sources)
    result = report.result
    assert result is not None  # check() raises rather than return a failed report
    if args.json:
        write_json(
            {"answer": answer, **report.metadata(), "sources": [s.to_dict() for s in sources]}
        )
    elif args.markdown:
        write_text(console, report.markdown())
    else:
        console.print(
            grounding_rich(result, sources, weak_below=args.weak_below, min_support_score=minimum)
        )
    if args.html:
        html = report.html(question=args.question or args.search, weak_below=args.weak_below)
        write_html(args.html, html, note_console(console, json_output=args.json))
    return 0 if report.passed else 1
