"""What the commands write: JSON on stdout, HTML reports to files, notes beside them; text
from the service or a user's file only through ``grounding_core.views.untrusted``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from grounding_core.views.untrusted import json_escaped, printable


def write_json(value: Any) -> None:
    """``value`` as indented JSON on stdout (plain text, for pipes and ``jq``)."""
    sys.stdout.write(json_escaped(json.dumps(value, ensure_ascii=False, indent=2)) + "\n")


def write_text(console: Console, text: str) -> None:
    """``text`` (Markdown, a note) as it is: never read as markup, controls made visible."""
    console.print(printable(text), markup=False, highlight=False, emoji=False, soft_wrap=True)


def note_console(console: Console, *, json_output: bool) -> Console:
    """Where notes go: stderr when stdout carries JSON, else ``console``."""
    return Console(stderr=True, soft_wrap=True) if json_output else console


def write_html(path: str, html: str, console: Console) -> None:
    """Write an HTML report to ``path`` (folders created) and say where it is."""
    target = Path(path).expanduser().resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(html, encoding="utf-8")
    write_text(console, f"HTML report: {target}")
