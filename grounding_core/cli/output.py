"""What the commands write: JSON on stdout, HTML reports to files, notes beside them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

__all__ = ["note_console", "write_html", "write_json"]


def write_json(value: Any) -> None:
    """``value`` as indented JSON on stdout (plain text, for pipes and ``jq``)."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def note_console(console: Console, *, json_output: bool) -> Console:
    """Where notes go: stderr when stdout carries JSON, else ``console``."""
    return Console(stderr=True, soft_wrap=True) if json_output else console


def write_html(path: str, html: str, console: Console) -> Path:
    """Write an HTML report to ``path`` (folders created) and say where it is."""
    target = Path(path).expanduser().resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(html, encoding="utf-8")
    console.print(f"HTML report: {target}", soft_wrap=True, highlight=False, markup=False)
    return target
