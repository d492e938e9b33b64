"""What an install of ``grounding-kit`` with some extras would hold, from the installed metadata.

A real ``pip install`` into a fresh virtualenv per extra takes minutes; this is the fast and
faithful stand-in. ``distributions(extras)`` follows the requirements of the installed
``grounding-kit`` (``importlib.metadata``), recursively and with their markers, to the set of
distributions that ``pip install "grounding-kit[extras]"`` brings. ``run_installed(extras,
code)`` runs ``code`` in a fresh interpreter of this environment in which every module that
belongs only to other distributions cannot be imported (``ModuleNotFoundError``, as if it were
not installed), and returns what the code put in ``result``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PROJECT = "grounding-kit"
ROOT = Path(__file__).resolve().parents[2]
# A fresh virtualenv holds pip (and nothing else) before the project is installed.
_VIRTUALENV = frozenset({"pip"})
_MODULE_SUFFIXES = (".py", ".so", ".pyd")
_TIMEOUT = 120

# Refuses the modules of the distributions that the extras would not install; prepended to
# the code run by ``run_installed``, which reads the refused names on stdin.
_PRELUDE = '''
import json
import sys

_REFUSED = frozenset(json.loads(sys.stdin.readline()))


class _NotInstalled:
    """Finds every refused module (and its submodules) missing, as an absent one is."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        parts = name.split(".")
        if any(".".join(parts[:i]) in _REFUSED for i in range(1, len(parts) + 1)):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled)
result = None
'''
_EPILOGUE = "\nprint(json.dumps(result))\n"


def distributions(extras: Iterable[str] = ()) -> frozenset[str]:
    """The canonical names of the distributions that ``grounding-kit[extras]`` pulls in, itself
    included (in this environment: markers are evaluated here)."""
    found: set[str] = set()
    pending = [(PROJECT, frozenset(extras))]
    done: set[tuple[str, str]] = set()
    while pending:
        name, wanted = pending.pop()
        found.add(canonicalize_name(name))
        for extra in {"", *wanted}:
            if (canonicalize_name(name), extra) in done:
                continue
            done.add((canonicalize_name(name), extra))
            for requirement in _requirements(name):
                if requirement.marker is None or requirement.marker.evaluate({"extra": extra}):
                    pending.append((requirement.name, frozenset(requirement.extras)))
    return frozenset(found)


def _requirements(name: str) -> list[Requirement]:
    try:
        return [Requirement(raw) for raw in metadata.requires(name) or ()]
    except metadata.PackageNotFoundError:
        return []  # not installed here (an optional dependency of a dependency)


@cache
def _module_owners() -> dict[str, frozenset[str]]:
    """Every module and package path an installed distribution holds -> the distributions that
    hold it (several for namespace packages such as ``google``)."""
    owners: dict[str, set[str]] = {}
    for dist in metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"])
        for module in _modules_of(dist):
            owners.setdefault(module, set()).add(name)
    return {module: frozenset(names) for module, names in owners.items()}


def _modules_of(dist: metadata.Distribution) -> set[str]:
    modules: set[str] = set()
    if dist.files is None:
        top_level = dist.read_text("top_level.txt") or ""
        return {line.strip() for line in top_level.splitlines() if line.strip()}
    for file in dist.files:
        if not file.name.endswith(_MODULE_SUFFIXES):
            continue
        parts = [*file.parts[:-1], file.name.split(".", 1)[0]]
        if parts[-1] == "__init__":
            parts.pop()
        if not parts or not all(part.isidentifier() for part in parts):
            continue  # outside site-packages (scripts), or data such as numpy.libs
        modules.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return modules


def refused_modules(extras: Iterable[str] = ()) -> frozenset[str]:
    """The outermost modules that only distributions outside ``grounding-kit[extras]`` hold."""
    allowed = distributions(extras) | _VIRTUALENV
    owners = _module_owners()
    refused = {module for module, names in owners.items() if not names & allowed}
    return frozenset(
        module
        for module in refused
        if not any(module.startswith(outer + ".") for outer in _parents(module) & refused)
    )


def _parents(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def run_installed(extras: Iterable[str], code: str, *args: str) -> Any:
    """Run ``code`` (which sets ``result`` to something JSON can hold) as if only
    ``grounding-kit[extras]`` were installed; ``args`` are its ``sys.argv[1:]``."""
    return _run(code, sorted(refused_modules(extras)), args)


def run_fresh(code: str) -> Any:
    """Run ``code`` like ``run_installed``, in this environment as it is (nothing refused)."""
    return _run(code, [], ())


def _run(code: str, refused: list[str], args: Iterable[str]) -> Any:
    completed = subprocess.run(
        [sys.executable, "-c", _PRELUDE + code + _EPILOGUE, *args],
        input=json.dumps(refused) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=_TIMEOUT,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.splitlines()[-1])
