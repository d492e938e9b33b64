"""What the layers share: the adapters use only the core's public names, and the names of the
client side's environment variables that the emulator keeps (it imports nothing of the client
side) agree with the core's.

The import rules themselves are import-linter contracts (``[tool.importlinter]`` in
``pyproject.toml``), checked by ``make lint``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import grounding_core
from grounding_emulator import commands

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = ("langchain_grounding", "llamaindex_grounding")


def core_imports(package: str) -> list[tuple[str, str, str]]:
    """``(file, module, name)`` for every name the package's modules import from the core."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        where = str(path.relative_to(ROOT))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.split(".")[0] == "grounding_core":
                    found.extend((where, node.module, alias.name) for alias in node.names)
            elif isinstance(node, ast.Import):
                found.extend(
                    (where, alias.name, "")
                    for alias in node.names
                    if alias.name.split(".")[0] == "grounding_core"
                )
    return found


def private_imports(package: str) -> list[str]:
    """The package's imports from the core that are not ``from grounding_core import <name in
    grounding_core.__all__>``."""
    exported = set(grounding_core.__all__)
    return [
        f"{where}: {module}.{name}" if name else f"{where}: import {module}"
        for where, module, name in core_imports(package)
        if module != "grounding_core" or name not in exported
    ]


@pytest.mark.parametrize("package", ADAPTERS)
def test_adapters_import_only_what_the_core_exports(package):
    assert core_imports(package), "the adapter imports nothing from the core?"
    violations = private_imports(package)
    assert violations == [], "\n".join(violations)


def test_the_check_names_a_private_import(tmp_path, monkeypatch):
    package = tmp_path / "adapter"
    package.mkdir()
    (package / "glue.py").write_text(
        "from grounding_core import GroundingReport\n"
        "from grounding_core.offsets import Utf8Offsets\n"
        "from grounding_core import _private\n"
        "import grounding_core.records\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    assert private_imports("adapter") == [
        "adapter/glue.py: grounding_core.offsets.Utf8Offsets",
        "adapter/glue.py: grounding_core._private",
        "adapter/glue.py: import grounding_core.records",
    ]


def test_the_emulator_prints_the_environment_variables_the_core_reads():
    # `grounding serve` prints them in its export line; the core's clients and CLI read them.
    assert (
        commands.DISCOVERYENGINE_EMULATOR_HOST,
        commands.DEVELOPERKNOWLEDGE_EMULATOR_HOST,
        commands.GROUNDING_DATA_STORE,
    ) == (
        grounding_core.DISCOVERYENGINE_EMULATOR_HOST,
        grounding_core.DEVELOPERKNOWLEDGE_EMULATOR_HOST,
        grounding_core.GROUNDING_DATA_STORE,
    )
