"""Each install works with only what it declares: an adapter with its own extra plus the
emulator's, and the base install (the core and its command line) with no extra at all.

Each case runs in a fresh interpreter in which the modules of every distribution that the
install would not bring cannot be imported (see ``installed.py``).
"""

from __future__ import annotations

import json

import pytest

from .installed import distributions, refused_modules, run_installed

ANSWER = "Paris is the capital of France. The Moon is made of cheese."
DOCUMENTS = [
    {
        "id": "paris",
        "title": "Paris",
        "uri": "https://example.com/paris",
        "content": "# Paris\n\nParis is the capital of France. It lies on the Seine.",
    },
    {
        "id": "moon",
        "title": "The Moon",
        "uri": "https://example.com/moon",
        "content": "# The Moon\n\nThe Moon orbits the Earth in about 27 days.",
    },
]

# Serves DOCUMENTS (the JSONL file in argv[1]) as data store "facts"; the code that follows
# runs inside ``with EmulatorServer(...) as emulator``.
SERVE = """
from grounding_emulator import CorpusStore, EmulatorServer

store = CorpusStore()
store.ingest("facts", sys.argv[1])
with EmulatorServer(store) as emulator:
"""

LANGCHAIN = (
    """
from langchain_grounding import DiscoveryEngineRetriever, GroundingChecker
"""
    + SERVE
    + """
    retriever = DiscoveryEngineRetriever(
        project_id="p", data_store_id="facts", k=2, emulator_host=emulator.address
    )
    documents = retriever.invoke("capital of France")
    checker = GroundingChecker(project_id="p", emulator_host=emulator.address)
    report = checker.invoke({"answer": sys.argv[2], "documents": documents})["grounding"]
result = {
    "sources": [d.metadata["source"] for d in documents],
    "first": documents[0].page_content,
    "support_score": report.support_score,
    "passed": report.passed,
    "claims": [
        [c.text, c.status, [documents.index(s) for s in c.sources]] for c in report.claims
    ],
    "llama_index loaded": any(m.startswith("llama_index") for m in sys.modules),
}
"""
)

LLAMAINDEX = (
    """
from llama_index.core.base.response.schema import Response
from llamaindex_grounding import DiscoveryEngineRetriever, GroundingEvaluator
"""
    + SERVE
    + """
    retriever = DiscoveryEngineRetriever(
        project_id="p", data_store_id="facts", similarity_top_k=2, emulator_host=emulator.address
    )
    nodes = retriever.retrieve("capital of France")
    evaluator = GroundingEvaluator(project_id="p", emulator_host=emulator.address)
    evaluation = evaluator.evaluate_response(
        response=Response(response=sys.argv[2], source_nodes=nodes)
    )
report = evaluation.report
result = {
    "sources": [n.node.metadata["source"] for n in nodes],
    "first": nodes[0].node.text,
    "support_score": evaluation.score,
    "passed": evaluation.passing,
    "claims": [[c.text, c.status, [nodes.index(s) for s in c.sources]] for c in report.claims],
    "langchain loaded": any(m.startswith("langchain") for m in sys.modules),
}
"""
)

BASE = """
import contextlib
import importlib
import io
import pkgutil
from importlib.metadata import entry_points

import grounding_core
from grounding_core import Utf8Offsets
from grounding_core.cli import build_parser

(script,) = entry_points(group="console_scripts", name="grounding")
main = script.load()


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exit:
            status = exit.code
    return [status, out.getvalue(), err.getvalue()]


def missing(module):
    try:  # every public name: the packages import them at first use
        exec(f"from {module} import *", {})
    except ModuleNotFoundError as exc:
        return exc.name
    return None


def unimportable(package):
    # Every module of the package, the private ones too: what its names stand on.
    failed = {}
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        try:
            importlib.import_module(module.name)
        except ImportError as exc:
            failed[module.name] = str(exc)
    return failed


result = {
    "core": missing("grounding_core"),
    "core modules": unimportable(grounding_core),
    "numpy": missing("numpy"),
    "prog": build_parser().prog,
    "help": run("--help"),
    "serve help": run("serve", "--help")[0],
    "serve": run("serve", "--no-state"),
    "ingest": run("ingest", "--corpus", "docs", "--no-state"),
    "offsets": Utf8Offsets("né 世界").char_span(4, 10),
    "missing": {m: missing(m) for m in ["grounding_emulator", "langchain_grounding",
                                        "llamaindex_grounding"]},
}
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "facts.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in DOCUMENTS), encoding="utf-8")
    return str(path)


def test_the_extras_bring_what_they_say():
    base = distributions()
    assert {"google-cloud-discoveryengine", "google-developer-knowledge", "rich"} <= base
    # numpy too: the core's offsets are pure Python.
    emulator = {
        "aiohttp",
        "bm25s",
        "cachetools",
        "numpy",
        "pypdf",
        "lark",
        "pystemmer",
        "grpcio-health-checking",
    }
    assert {"langchain-core", "llama-index-core"}.isdisjoint(base)
    assert emulator.isdisjoint(base)
    assert distributions(["langchain"]) - base >= {"langchain-core"}
    assert "llama-index-core" not in distributions(["langchain", "emulator"])
    assert "langchain-core" not in distributions(["llamaindex", "emulator"])
    assert distributions(["emulator"]) - base >= emulator
    assert distributions(["semantic"]) >= distributions(["emulator"]) | {"onnxruntime"}
    agents = distributions(["langchain-agents"]) - distributions(["langchain"])
    assert {"langchain", "langgraph"} <= agents
    assert "llama-index-core" not in agents
    everything = distributions(["langchain", "langchain-agents", "llamaindex", "emulator"])
    assert distributions(["all"]) == everything
    assert "onnxruntime" not in everything  # the model stays opt-in, [all] included
    assert distributions(["test"]) >= everything | {"pytest", "import-linter"}
    assert "pytest" not in distributions(["all"])


def test_what_an_install_lacks_cannot_be_imported():
    refused = refused_modules(["langchain", "emulator"])
    assert {"llama_index", "pytest"} <= refused
    assert {"langchain_core", "bm25s", "numpy", "google", "grpc", "json"}.isdisjoint(refused)
    assert {"numpy", "bm25s", "langchain_core", "llama_index"} <= refused_modules()


@pytest.mark.parametrize(("extras", "code"), [("langchain", LANGCHAIN), ("llamaindex", LLAMAINDEX)])
def test_an_adapter_works_with_its_own_extra_and_the_emulator(corpus, extras, code):
    result = run_installed([extras, "emulator"], code, corpus, ANSWER)
    assert result.pop(f"{'llama_index' if extras == 'langchain' else 'langchain'} loaded") is False
    assert "Paris is the capital of France." in result.pop("first")
    assert result == {
        "sources": ["https://example.com/paris"],
        "support_score": 0.5,
        "passed": False,
        "claims": [
            ["Paris is the capital of France.", "supported", [0]],
            ["The Moon is made of cheese.", "unsupported", []],
        ],
    }


def test_the_base_install_runs_the_command_line_without_any_extra():
    result = run_installed([], BASE)
    # The whole core (every root name, every module) imports without numpy or any extra.
    assert (result["core"], result["core modules"], result["numpy"]) == (None, {}, "numpy")
    assert result["prog"] == "grounding"
    status, out, err = result["help"]
    assert (status, err) == (0, "")
    assert out.startswith("usage: grounding")
    assert result["serve help"] == 0
    # What the emulator needs first of what its extra brings is named.
    emulator_only = refused_modules() - refused_modules(["emulator"])
    first = result["missing"].pop("grounding_emulator")
    assert first in emulator_only
    for command in ("serve", "ingest"):
        assert result[command] == [
            2,
            "",
            f"error: grounding {command} needs the emulator: pip install "
            f"'grounding-kit[emulator]' (No module named {first!r})\n",
        ]
    assert result["offsets"] == [3, 5]
    assert result["missing"] == {
        "langchain_grounding": "langchain_core",
        "llamaindex_grounding": "llama_index",
    }
