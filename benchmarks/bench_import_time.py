"""Import time of our packages against the true floor: the modules they stand on, alone.

Each case is an import statement (``from langchain_grounding import DiscoveryEngineRetriever``,
``from llamaindex_grounding import *``, ...). Its floor is every module that the statement's own
code imports outside our packages: the framework's base classes, Google's clients, the standard
library. They are found by reading, with ``ast``, the module-level imports (in ``try`` and ``if``
blocks too) of each of our modules the statement loaded. A floor is what the statement cannot
cost less than; the ratio is what our code adds.

Each import runs in a fresh interpreter (``python -c``), timed inside it around the statement
(interpreter start-up excluded); a case and its floor take turns, the first round warms the
disk cache and writes the bytecode cache, the median of the rest is reported.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

from benchmarks.common import Row

NAME = "import_time"
OURS = ("grounding_core", "langchain_grounding", "llamaindex_grounding")
CASES = (
    ("LangChain retriever", "from langchain_grounding import DiscoveryEngineRetriever"),
    ("LangChain, every public name", "from langchain_grounding import *"),
    ("LlamaIndex retriever", "from llamaindex_grounding import DiscoveryEngineRetriever"),
    ("LlamaIndex, every public name", "from llamaindex_grounding import *"),
    ("core, every public name", "from grounding_core import *"),
)
ROUNDS = 7
_TIMED = (
    "import time\nstart = time.perf_counter()\n{statement}\nprint(time.perf_counter() - start)\n"
)
# Run after the statement: the top-level imports of each of our modules it loaded.
_FLOOR = """
import ast, json, sys
{statement}
ours = {ours!r}
floor = []
for name in sorted(m for m in sys.modules if m.split(".")[0] in ours):
    path = getattr(sys.modules[name], "__file__", None) or ""
    if not path.endswith(".py"):
        continue
    nodes = list(ast.parse(open(path, encoding="utf-8").read()).body)
    while nodes:  # module level, inside try and if blocks too (not if TYPE_CHECKING)
        node = nodes.pop()
        if isinstance(node, ast.Try):
            nodes += node.body + node.orelse + node.finalbody
            nodes += [n for handler in node.handlers for n in handler.body]
        elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
            nodes += node.body + node.orelse
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in ours or node.module == "__future__":
                continue
            names = ", ".join(a.name for a in node.names)
            floor.append(f"from {{node.module}} import {{names}}")
        elif isinstance(node, ast.Import):
            floor += [f"import {{a.name}}" for a in node.names if a.name.split(".")[0] not in ours]
print(json.dumps(sorted(set(floor))))
"""


# An installed package has its bytecode cached (pip compiles it), and so do the frameworks here:
# without this, with PYTHONDONTWRITEBYTECODE set, only our modules would compile on every run.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(program: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, env=_ENV
    )
    return done.stdout.strip().splitlines()[-1]


def import_seconds(statement: str) -> float:
    """Seconds ``statement`` takes in a fresh interpreter."""
    return float(_run(_TIMED.format(statement=statement)))


def floor_of(statement: str) -> str:
    """The import statements of the floor of ``statement`` (one line each)."""
    floor: list[str] = json.loads(_run(_FLOOR.format(statement=statement, ours=OURS)))
    return "\n".join(floor)


def run(quick: bool = False) -> list[Row]:
    """One row per case, against its floor."""
    rounds = 1 if quick else ROUNDS
    cases = CASES[:1] if quick else CASES
    floors = {statement: floor_of(statement) for _, statement in cases}
    times: dict[str, list[float]] = {}
    for number in range(rounds + 1):
        for _, statement in cases:
            for key, program in ((statement, statement), (f"floor {statement}", floors[statement])):
                seconds = import_seconds(program)
                if number:
                    times.setdefault(key, []).append(seconds)
    return [
        Row(NAME, f"{label}: {statement}", "median, fresh interpreter",
            statistics.median(times[statement]) * 1000, "ms",
            statistics.median(times[f"floor {statement}"]) * 1000,
            f"its floor ({len(floors[statement].splitlines())} imports)", "<= 1.1x")
        for label, statement in cases
    ]  # fmt: skip
