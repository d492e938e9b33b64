"""``run``: the ``grounding`` command in this process, with what it wrote."""

from __future__ import annotations

import pytest

from grounding_core.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``main(argv)``: its exit status, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
