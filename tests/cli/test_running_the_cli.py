"""The ways README.md and docs/cli.md give to run the command after `make demo`/`make test`:
``.venv/bin/grounding`` (the console script pyproject.toml declares), and ``make serve``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_the_console_script_is_declared_and_runs():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "scripts"
    ]
    assert scripts == {"grounding": "grounding_core.cli:main"}
    # The environment running the tests is the one `make test` builds: .venv/bin/grounding.
    script = Path(sys.executable).parent / "grounding"
    assert script.is_file(), f"{script}: the package is not installed in this environment"
    done = subprocess.run(
        [str(script), "search", "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("usage: grounding search")


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_serve_runs_grounding_serve_from_the_venv():
    def dry_run(*variables: str) -> str:
        done = subprocess.run(
            ["make", "--no-print-directory", "-n", "-C", str(ROOT), "serve", *variables],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        return done.stdout.splitlines()[-1].strip()

    assert dry_run() == ".venv/bin/grounding serve"
    assert dry_run("CORPUS=./my notes", "ARGS=--port 0") == (
        ".venv/bin/grounding serve --corpus './my notes' --port 0"
    )


def test_the_readme_and_the_cli_guide_show_them():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    guide = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for text in (readme, guide):
        assert "make serve CORPUS=./kb" in text
        assert ".venv/bin/grounding" in text
        assert "source .venv/bin/activate" in text
    assert readme.index("Run the CLI:") < readme.index("## LangChain")  # in "Two commands"
