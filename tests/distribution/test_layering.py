"""What the layers share: the adapters use only the core's root names and its public modules
(never its private machinery, the ``grounding_core._*`` modules), and the names of the client
side's environment variables that the emulator keeps (it imports nothing of the client side)
agree with the core's.

The import rules themselves are import-linter contracts (``[tool.importlinter]`` in
``pyproject.toml``), checked by ``make lint``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import tomllib

import grounding_core
from grounding_emulator import commands

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = ("langchain_grounding", "llamaindex_grounding")
# The core's public modules (docs/architecture.md), with what is below them: what an adapter may
# import besides the root's names. Not the `grounding` command (`cli`), nor a private module.
PUBLIC_MODULES = frozenset(
    {
        "search",
        "grounding",
        "answers",
        "ranking",
        "metadata",
        "citations",
        "agents",
        "peers",
        "views",
        "extractive",
    }
)
# The core's modules an adapter has no use for, though they are not private.
NOT_FOR_ADAPTERS = frozenset({"cli"})


def is_public(module: str, name: str = "") -> bool:
    """Whether ``from module import name`` (``import module`` when ``name`` is empty) takes
    what the core offers the adapters: a root name (``grounding_core.__all__``), a public
    module, or a public name of one."""
    parts = module.split(".")[1:]
    if not parts and name:  # from grounding_core import X: a root name or a public module
        return name in grounding_core.__all__ or name in PUBLIC_MODULES
    return (
        bool(parts)
        and parts[0] in PUBLIC_MODULES
        and not any(part.startswith("_") for part in [*parts, name])
    )


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
    """The package's imports from the core that take what the core does not offer: a name
    outside ``grounding_core.__all__`` from the root, a private module or name, or a module
    that is not one of ``PUBLIC_MODULES``."""
    return [
        f"{where}: {module}.{name}" if name else f"{where}: import {module}"
        for where, module, name in core_imports(package)
        if not is_public(module, name)
    ]


@pytest.mark.parametrize("package", ADAPTERS)
def test_adapters_import_only_what_the_core_offers(package):
    assert core_imports(package), "the adapter imports nothing from the core?"
    violations = private_imports(package)
    assert violations == [], "\n".join(violations)


def test_the_check_names_a_private_import(tmp_path, monkeypatch):
    package = tmp_path / "adapter"
    package.mkdir()
    (package / "glue.py").write_text(
        "from grounding_core import GroundingReport\n"
        "from grounding_core import metadata\n"
        "from grounding_core.search.specs import ChunkSearchSpec\n"
        "import grounding_core.views.untrusted\n"
        "from grounding_core.offsets import Utf8Offsets\n"
        "from grounding_core import _private\n"
        "import grounding_core.records\n"
        "from grounding_core._records import RankSignals\n"
        "from grounding_core.search._paging import first_pages\n"
        "from grounding_core.metadata import _layout\n"
        "from grounding_core.cli import main\n"
        "from grounding_core import search_chunks\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    assert private_imports("adapter") == [
        "adapter/glue.py: grounding_core.offsets.Utf8Offsets",
        "adapter/glue.py: grounding_core._private",
        "adapter/glue.py: import grounding_core.records",
        "adapter/glue.py: grounding_core._records.RankSignals",
        "adapter/glue.py: grounding_core.search._paging.first_pages",
        "adapter/glue.py: grounding_core.metadata._layout",
        "adapter/glue.py: grounding_core.cli.main",
        "adapter/glue.py: grounding_core.search_chunks",
    ]


def core_modules() -> tuple[set[str], set[str]]:
    """The core's top-level modules and packages: ``(public, private)``."""
    names = {
        path.stem if path.suffix == ".py" else path.name
        for path in (ROOT / "grounding_core").iterdir()
        if (path.suffix == ".py" or (path / "__init__.py").exists()) and path.name != "__init__.py"
    }
    private = {name for name in names if name.startswith("_")}
    return names - private, private


def test_the_public_modules_are_the_cores_modules_that_are_not_private():
    public, _ = core_modules()
    assert public == PUBLIC_MODULES | NOT_FOR_ADAPTERS


def test_the_import_contract_forbids_every_private_module_of_the_core():
    # import-linter holds the adapters to the same rule: a new private module goes there too.
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = settings["tool"]["importlinter"]["contracts"]
    forbidden = {
        module
        for contract in contracts
        if contract["type"] == "forbidden" and set(contract["source_modules"]) == set(ADAPTERS)
        for module in contract["forbidden_modules"]
    }
    _, private = core_modules()
    assert {f"grounding_core.{name}" for name in private} <= forbidden


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
