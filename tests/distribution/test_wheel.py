"""The wheel built from this tree ships the four packages with their data (the eval sets of the
lexical judge and of search, the tokenizer, ``py.typed``) and declares the extras."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser

import pytest
from packaging.requirements import Requirement

from .installed import ROOT

PACKAGES = ("grounding_core", "grounding_emulator", "langchain_grounding", "llamaindex_grounding")
DATA = {
    "grounding_emulator/grounding/lexical/eval/grounding_eval.jsonl",
    "grounding_emulator/search/eval/retrieval_eval.jsonl",
    "grounding_emulator/corpus/minilm_tokenizer.json",
    *(f"{package}/py.typed" for package in PACKAGES),
    # The lazy imports read them at run time.
    *(f"{package}/__init__.pyi" for package in PACKAGES if package != "grounding_emulator"),
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel of a copy of the tree (the build leaves nothing in the working tree)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    out = tmp_path_factory.mktemp("wheel")
    build = f"from setuptools import build_meta; print(build_meta.build_wheel({str(out)!r}))"
    completed = subprocess.run(
        [sys.executable, "-c", build],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    with zipfile.ZipFile(out / completed.stdout.split()[-1]) as archive:
        yield archive


def test_the_wheel_ships_the_packages_and_their_data(wheel):
    names = set(wheel.namelist())
    assert names >= DATA
    assert {name.split("/")[0] for name in names if "/" in name} == {
        *PACKAGES,
        "grounding_kit-0.1.0.dist-info",
    }
    assert not [name for name in names if "__pycache__" in name]


def test_the_wheel_declares_the_base_install_and_the_extras(wheel):
    (meta,) = [name for name in wheel.namelist() if name.endswith(".dist-info/METADATA")]
    message = Parser().parsestr(wheel.read(meta).decode("utf-8"))
    extras = set(message.get_all("Provides-Extra"))
    assert extras == {
        "langchain",
        "langchain-agents",
        "llamaindex",
        "emulator",
        "semantic",
        "all",
        "test",
    }
    base = {r.name for r in map(Requirement, message.get_all("Requires-Dist")) if not r.marker}
    assert base == {
        "google-cloud-discoveryengine",
        "google-developer-knowledge",
        "google-api-core",
        "google-auth",
        "grpcio",
        "protobuf",
        "rich",
        "lazy-loader",
    }
    # numpy is the emulator's (the core's offsets are pure Python).
    emulator = {
        r.name
        for r in map(Requirement, message.get_all("Requires-Dist"))
        if r.marker is not None and r.marker.evaluate({"extra": "emulator"})
    }
    assert "numpy" in emulator
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    assert "grounding = grounding_core.cli:main" in wheel.read(entry_points).decode("utf-8")
