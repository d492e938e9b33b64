"""Every Python block of README.md and docs/*.md runs as written, offline, on the emulator's
built-in corpus, as a reader would run them: a page's blocks in order, in one namespace (a later
block may use an earlier block's names), with top-level ``await`` allowed.

The test starts the emulator and sets ``DISCOVERYENGINE_EMULATOR_HOST`` and
``DEVELOPERKNOWLEDGE_EMULATOR_HOST``, so blocks need no ``emulator_host=``. A block that needs
Google Cloud says so in its fence's info string, ```` ```python google-cloud ````, and is
skipped with that reason; so is a peer's code in docs/migrating.md (```` ```python peer ... ````),
which runs in the peer's own virtualenv (tests/migration). Its port to ours
(```` ```python ported ... ````) keeps the peer's argument names, so it must warn that they are
deprecated (tests/migration checks each warning's text). Each block runs in a fresh working
directory of its page (blocks may write files). A few blocks' printed output is checked too
(``PRINTS``).
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import inspect
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from grounding_emulator import EmulatorServer

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```$", re.DOTALL | re.MULTILINE)
NEEDS_GOOGLE_CLOUD = "google-cloud"
PEER_CODE = "peer"  # docs/migrating.md: the peers' code, run by tests/migration
PORTED = "ported"  # docs/migrating.md: the peers' code ported to ours, the peers' names kept

# What some blocks print: (page, a line of the block) -> a regular expression the printed
# output must match in full.
PRINTS = {
    ("README.md", "report = checker.invoke("): r"1\.0 .*\[1\].*https://docs\.python\.org/.*\n",
    ("README.md", "GroundedQueryEngine("): r'1\.0 The "with" statement is used to wrap .*\n',
    ("README.md", "ScriptedJudge()"): r"0\.5 \['supported', 'unsupported'\]\n",
    ("docs/core.md", "get_session("): (
        r"True \['What does the with statement do\?', 'and how does it handle exceptions\?'\]\n"
        r"What does the with statement do\? 2\n"  # a session is named after its first query
    ),
    ("docs/langchain.md", "DiscoveryEngineAnswer(engine_id="): r"True .+\n",
    ("docs/langchain.md", "DeveloperKnowledgeAnswer("): (
        r"What does the yield statement do\? and how does it differ from return\?\n"
    ),
    ("docs/llamaindex.md", "DiscoveryEngineChatEngine("): r"True .+\n",
    ("docs/migrating.md", "GroundingChecker(project_id=PROJECT_ID)\nresult ="): (
        r'1\.0 The "with" statement is used to wrap .*\)\.\[0\]\[1\]\n'  # the peer's output
    ),
    ("docs/migrating.md", 'metadata_layout="flat"'): r"with statements statements\n",
    ("docs/migrating.md", "DiscoveryEngineMultiTurnRetriever("): (
        r"with https://docs\.python\.org/3\.11/reference/compound_stmts\.html#with\n"
        r'The "with" statement is used to wrap the\n'
        r"\[\('1', True\), \('0', True\)\]\n"
    ),
    ("docs/migrating.md", "except NotFoundError"): r"NotFound True\n",
    ("docs/migrating.md", "retriever.document_text ="): r"with with statements\n5 2\n",
    ("docs/llamaindex.md", "DeveloperKnowledgeChatEngine("): (
        r"What does the yield statement do\? and how does it differ from return\?\n"
    ),
}


@dataclass(frozen=True)
class Block:
    """One Python block of a page: where it starts, its info string and its code."""

    page: str
    line: int
    info: str
    code: str

    @property
    def needs_google_cloud(self) -> bool:
        return NEEDS_GOOGLE_CLOUD in self.info.split()

    @property
    def is_peer_code(self) -> bool:
        return PEER_CODE in self.info.split()

    @property
    def is_ported(self) -> bool:
        return PORTED in self.info.split()

    def expected_output(self) -> str | None:
        found = [
            out for (page, text), out in PRINTS.items() if page == self.page and text in self.code
        ]
        assert len(found) <= 1, f"{self}: more than one PRINTS entry matches"
        return found[0] if found else None

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def python_blocks(path: Path, root: Path = ROOT) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    page = str(path.relative_to(root))
    return [
        Block(page, text.count("\n", 0, match.start(2)) + 1, match.group(1), match.group(2))
        for match in FENCE.finditer(text)
    ]


BLOCKS = [block for page in PAGES for block in python_blocks(page)]


@dataclass
class PageRun:
    """A page's namespace and how far its blocks have run."""

    namespace: dict[str, Any] = field(default_factory=lambda: {"__name__": "docs"})
    done: set[int] = field(default_factory=set)  # the lines of the blocks run, failed or not


def execute(block: Block, namespace: dict[str, Any]) -> str:
    """Run one block (top-level ``await`` allowed) and return what it printed. Tracebacks name
    the page and its line numbers."""
    source = "\n" * (block.line - 1) + block.code
    code = compile(source, str(ROOT / block.page), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        if code.co_flags & inspect.CO_COROUTINE:
            asyncio.run(eval(code, namespace))
        else:
            exec(code, namespace)
    return printed.getvalue()


def execute_as_documented(block: Block, namespace: dict[str, Any]) -> str:
    """``execute``; a ported block must warn that the peers' names it keeps are deprecated."""
    if not block.is_ported:
        return execute(block, namespace)
    with pytest.warns(DeprecationWarning, match="the peers' names are deprecated"):
        return execute(block, namespace)


@pytest.fixture(scope="module")
def docs_emulator() -> Any:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GROUNDING_EMULATOR_SEMANTIC", "off")  # start in seconds
        with EmulatorServer() as emulator:  # the built-in corpus only
            yield emulator


@pytest.fixture(scope="module")
def page_runs() -> Any:
    """The pages' runs (``page_runs[page]``, begun at its first block); the event handlers a
    page's blocks add to LlamaIndex's root dispatcher are removed when another page begins and
    after the last block, so that they print nothing in other pages and tests."""
    import llama_index.core.instrumentation as instrument

    dispatcher = instrument.get_dispatcher()
    handlers = list(dispatcher.event_handlers)

    class Runs(dict[str, PageRun]):
        def __missing__(self, page: str) -> PageRun:
            dispatcher.event_handlers = list(handlers)
            run = self[page] = PageRun()
            return run

    yield Runs()
    dispatcher.event_handlers = handlers


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_block_runs_as_written(block, docs_emulator, page_runs, monkeypatch, tmp_path_factory):
    if block.needs_google_cloud:
        pytest.skip(f"needs Google Cloud (```python {NEEDS_GOOGLE_CLOUD}```)")
    if block.is_peer_code:
        pytest.skip("a peer's code: it runs in the peer's virtualenv (tests/migration)")
    monkeypatch.setenv("GROUNDING_EMULATOR_SEMANTIC", "off")
    monkeypatch.setenv("DISCOVERYENGINE_EMULATOR_HOST", docs_emulator.address)
    monkeypatch.setenv("DEVELOPERKNOWLEDGE_EMULATOR_HOST", docs_emulator.address)
    run = page_runs[block.page]
    for earlier in (b for b in BLOCKS if b.page == block.page and b.line < block.line):
        if earlier.line in run.done or earlier.needs_google_cloud or earlier.is_peer_code:
            continue
        # Run alone (pytest -k), or on another pytest-xdist worker than the blocks above it,
        # a block first runs the blocks above it, as a reader would.
        run.done.add(earlier.line)
        monkeypatch.chdir(tmp_path_factory.mktemp("docs"))
        execute_as_documented(earlier, run.namespace)
    run.done.add(block.line)  # a failed block fails its own test only
    monkeypatch.chdir(tmp_path_factory.mktemp("docs"))
    printed = execute_as_documented(block, run.namespace)
    expected = block.expected_output()
    if expected is not None:
        assert re.fullmatch(expected, printed, re.DOTALL), f"{block} printed {printed!r}"


def test_every_expected_output_names_one_block():
    for page, text in PRINTS:
        matches = [b for b in BLOCKS if b.page == page and text in b.code]
        assert len(matches) == 1, f"PRINTS[{page!r}, {text!r}] matches {len(matches)} blocks"


def test_the_collector_reads_fences_lines_and_the_google_cloud_rule(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n```python\nx = 1\n```\n\n```bash\nls\n```\n\n"
        "```python google-cloud\ny = x\n```\n",
        encoding="utf-8",
    )
    blocks = python_blocks(page, tmp_path)
    assert blocks == [
        Block("page.md", 4, "", "x = 1\n"),
        Block("page.md", 12, " google-cloud", "y = x\n"),
    ]
    assert [b.needs_google_cloud for b in blocks] == [False, True]


def test_blocks_share_a_namespace_await_at_the_top_level_and_fail_at_their_line():
    namespace: dict[str, Any] = {}
    first = Block("README.md", 10, "", "import asyncio\nx = 2\n")
    second = Block("README.md", 20, "", "await asyncio.sleep(0)\nprint(x * 21)\n")
    assert execute(first, namespace) == ""
    assert execute(second, namespace) == "42\n"
    with pytest.raises(NameError) as failed:
        execute(Block("README.md", 30, "", "\nundefined_name\n"), namespace)
    frame = failed.traceback[-1]
    assert (Path(frame.path), frame.lineno + 1) == (ROOT / "README.md", 31)


def test_blocks_are_found():
    assert len(BLOCKS) > 30
    assert {b.page for b in BLOCKS} >= {"README.md", "docs/core.md", "docs/langchain.md"}
    assert {b.page for b in BLOCKS if b.is_ported} == {"docs/migrating.md"}
