"""The two-turn conversation examples of docs/core.md, docs/langchain.md and docs/llamaindex.md
run as written, offline on the emulator, and print what they say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECTION = re.compile(r"^#+ Conversations.*?(?=^## )", re.DOTALL | re.MULTILINE)
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
CONDENSED = "What does the yield statement do? and how does it differ from return?"
EXAMPLES = [
    ("docs/core.md", 0, "True ['What does the with statement do?', 'and how does it handle"),
    ("docs/core.md", 1, ""),
    ("docs/langchain.md", 0, "True "),
    ("docs/langchain.md", 1, CONDENSED),
    ("docs/llamaindex.md", 0, "True "),
    ("docs/llamaindex.md", 1, CONDENSED),
]


def conversation_blocks(page: str) -> list[str]:
    (section,) = SECTION.findall((ROOT / page).read_text(encoding="utf-8"))
    return BLOCK.findall(section)


@pytest.mark.parametrize(("page", "number", "printed"), EXAMPLES)
def test_the_conversation_examples_run(page, number, printed, capsys, monkeypatch):
    monkeypatch.setenv("GROUNDING_EMULATOR_SEMANTIC", "off")  # start in seconds
    monkeypatch.delenv("DISCOVERYENGINE_EMULATOR_HOST", raising=False)
    block = conversation_blocks(page)[number]
    exec(compile(block, f"{page} conversation block {number}", "exec"), {"__name__": "docs"})
    assert capsys.readouterr().out.startswith(printed)


def test_every_conversation_example_is_run():
    for page in {page for page, _, _ in EXAMPLES}:
        numbers = [number for p, number, _ in EXAMPLES if p == page]
        assert numbers == list(range(len(conversation_blocks(page))))
