"""What the commands write: JSON on stdout, HTML reports to files, notes beside them; text
from the service or a user's file only through ``grounding_core.views.untrusted``."""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from grounding_core.views.untrusted import json_escaped, printable


def count(number: int, noun: str) -> str:
    """``1 result``, ``2 results``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def wire_float(value: float) -> float:
    """``value`` as written: Google's scores are 32-bit floats, read as the nearest double, so
    one that is a float32 is written as the shortest decimal of that float32 (``0.6666667``,
    not ``0.6666666865348816``); any other float is written as it is.

    >>> wire_float(0.6666666865348816), wire_float(0.1)
    (0.6666667, 0.1)
    """
    try:
        packed = struct.pack("<f", value)
    except OverflowError:  # beyond a float32's range: a double
        return value
    if struct.unpack("<f", packed)[0] != value:
        return value
    for digits in range(1, 9):  # 9 significant digits tell every float32 apart
        short = float(f"{value:.{digits}g}")
        if struct.pack("<f", short) == packed:
            return short
    return float(f"{value:.9g}")


def _wire_floats(value: Any) -> Any:
    if isinstance(value, float):
        return wire_float(value)
    if isinstance(value, dict):
        return {key: _wire_floats(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_wire_floats(item) for item in value]
    return value


def write_json(value: Any) -> None:
    """``value`` as indented JSON on stdout (plain text, for pipes and ``jq``), its scores as
    ``wire_float`` writes them."""
    text = json.dumps(_wire_floats(value), ensure_ascii=False, indent=2)
    sys.stdout.write(json_escaped(text) + "\n")


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
