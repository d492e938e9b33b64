"""docs/emulator.md's Python examples run as written, in order (offline, on the emulator)."""

from __future__ import annotations

import re
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "emulator.md"


def test_the_guides_python_examples_run(monkeypatch, tmp_path):
    monkeypatch.setenv("GROUNDING_EMULATOR_SEMANTIC", "off")  # start in seconds
    monkeypatch.chdir(tmp_path)  # blocks write files (a corpus folder)
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) >= 4
    namespace: dict[str, object] = {"__name__": "guide"}
    for number, block in enumerate(blocks):
        exec(compile(block, f"docs/emulator.md python block {number}", "exec"), namespace)
    judge = namespace["judge"]
    assert repr(judge).startswith("ScriptedJudge(0 rules, 0 queued checks")
