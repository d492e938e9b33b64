"""Every shell block of the README and docs/ that calls the emulator's REST transport with curl
runs as written, against a running emulator (its REST URL in place of the documented
``http://127.0.0.1:8124``), and each of its calls answers JSON that is not an error.
(test_doc_blocks.py runs the Python blocks.)"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from grounding_emulator import EmulatorServer

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```bash\n(.*?)^```$", re.DOTALL | re.MULTILINE)
DOCUMENTED_REST = "http://127.0.0.1:8124"


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    code: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def curl_blocks() -> list[Block]:
    blocks = []
    for path in PAGES:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            if re.search(r"^curl ", match.group(1), re.MULTILINE):
                line = text.count("\n", 0, match.start(1)) + 1
                blocks.append(Block(str(path.relative_to(ROOT)), line, match.group(1)))
    return blocks


BLOCKS = curl_blocks()


def json_values(text: str) -> list[object]:
    """The JSON values printed one after another."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        value, at = decoder.raw_decode(text, at)
        values.append(value)
    return values


@pytest.fixture(scope="module")
def rest_emulator():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GROUNDING_EMULATOR_SEMANTIC", "off")  # start in seconds
        with EmulatorServer() as emulator:  # the built-in corpus only
            yield emulator


def test_the_rest_section_has_curl_blocks():
    assert any(block.page == "docs/emulator.md" for block in BLOCKS)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_curl_block_runs_as_written(block, rest_emulator):
    assert DOCUMENTED_REST in block.code, f"{block}: calls the REST address {DOCUMENTED_REST}"
    script = block.code.replace(DOCUMENTED_REST, rest_emulator.rest_url)
    result = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, f"{block}: {result.stderr}"
    answers = json_values(result.stdout)
    assert len(answers) == len(re.findall(r"^curl ", block.code, re.MULTILINE)), block
    for answer in answers:
        assert not (isinstance(answer, dict) and "error" in answer), f"{block}: {answer}"
