"""The README and docs/ name only what exists: imports, public names, CLI flags and links.
(test_doc_blocks.py runs their Python blocks.)"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

from grounding_core.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PACKAGES = [
    "grounding_core",
    "grounding_emulator",
    "langchain_grounding",
    "llamaindex_grounding",
]

# Names from Google's APIs, the frameworks and Python that the docs mention in backticks.
EXTERNAL = {
    # Google's Developer Knowledge API and auth (Discovery Engine's names: google_names())
    "BatchGetDocuments", "DeveloperKnowledge", "DocumentChunk", "GetDocument",
    "SearchDocumentChunks", "DocumentReference", "ClientOptions", "Credentials",
    # gRPC, and the errors and messages of Google's client libraries
    "StatusCode", "BadRequest", "ServiceUnavailable", "ResourceExhausted", "RetryError",
    "FieldMask", "MethodNotImplemented",
    # LangChain and LlamaIndex
    "AIMessage", "AsyncStreamingResponse", "BaseEvaluator", "BaseQueryEngine", "BaseRetriever",
    "BatchEvalRunner", "CondenseQuestionChatEngine", "CustomQueryEngine", "Document",
    "ContextChatEngine", "CondensePlusContextChatEngine",
    "EvaluationResult", "MockLLM", "NodeWithScore",
    "PydanticResponse", "QueryEndEvent", "QueryStartEvent", "Response", "RetrieverQueryEngine",
    "RetrieversIntegrationTests", "RetryQueryEngine", "Runnable", "RunnableConfig",
    "StreamingResponse", "TextNode", "AgentWorkflow", "FunctionAgent", "ReActAgent", "ToolMessage",
    # Python and pydantic
    "KeyboardInterrupt", "TypeError", "ValidationError", "ValueError",
    "DeprecationWarning", "RuntimeError",
    # The peers and their docs' names (docs/migrating.md)
    "VertexAISearchRetriever", "VertexAICheckGroundingWrapper", "VertexAIMultiTurnSearchRetriever",
    "VertexAISearchSummaryTool", "VertexAIRank", "GoogleRerank", "ChatVertexAI", "BaseTool",
}  # fmt: skip

CODE_BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)
FROM_IMPORT = re.compile(r"^from ([\w.]+) import \(?([\w, \n]+?)\)?$", re.MULTILINE)
LINK = re.compile(r"\]\(([^)\s]+)\)")
INLINE = re.compile(r"`([^`\n]+)`")
COMMAND = re.compile(r"\bgrounding ((?:-\w+ )*)(serve|ingest|search|answer|check)\b([^\n`|]*)")


def page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def code_blocks(text: str, language: str) -> list[str]:
    return [body for lang, body in CODE_BLOCK.findall(text) if lang == language]


def google_names() -> set[str]:
    """Every message (nested ones too), service and method of Google's Discovery Engine v1 API,
    as its protos name them."""
    from google.cloud import discoveryengine_v1

    names: set[str] = set()

    def walk(descriptor) -> None:
        names.add(descriptor.name)
        for nested in descriptor.nested_types:
            walk(nested)

    for name in discoveryengine_v1.__all__:
        value = getattr(discoveryengine_v1, name)
        if hasattr(value, "pb"):
            walk(value.pb().DESCRIPTOR)
        elif name.endswith("ServiceClient"):
            # A service's client has one method per RPC, in snake case.
            names.add(name.removesuffix("Client"))
            names.update("".join(w.title() for w in attr.split("_")) for attr in vars(value))
    return names


def project_names() -> set[str]:
    """Every name defined at the top level of any module of the project's packages."""
    names: set[str] = set()
    for package in PACKAGES:
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, f"{package}."):
            names.update(vars(importlib.import_module(info.name)))
        names.update(vars(module))
    return names


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_imports_in_examples_exist(page):
    for block in code_blocks(page.read_text(encoding="utf-8"), "python"):
        for module_name, names in FROM_IMPORT.findall(block):
            module = importlib.import_module(module_name)
            for name in (n.strip() for n in names.replace("\n", " ").split(",")):
                if name:
                    assert hasattr(module, name), f"{page_id(page)}: {module_name}.{name}"


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_class_names_exist(page):
    known = project_names() | google_names() | EXTERNAL
    text = CODE_BLOCK.sub("", page.read_text(encoding="utf-8"))
    unknown = set()
    for code in INLINE.findall(text):
        for word in re.findall(r"\b[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+\b", code):
            if word not in known:
                unknown.add(word)
    assert unknown == set(), f"{page_id(page)} names what the code does not have: {unknown}"


def _options(parser: argparse.ArgumentParser, command: str) -> set[str]:
    actions = parser._subparsers._group_actions[0].choices[command]._actions  # type: ignore[union-attr]
    return {option for action in actions for option in action.option_strings}


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_cli_flags_exist(page):
    parser = build_parser()
    text = page.read_text(encoding="utf-8").replace("\\\n", " ")
    for _, command, rest in COMMAND.findall(text):
        options = _options(parser, command)
        for flag in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", rest):
            assert flag in options, f"{page_id(page)}: grounding {command} has no {flag}"


def _anchor(heading: str) -> str:
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_relative_links_resolve(page):
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page_id(page)}: broken link {target}"
        if anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.MULTILINE)
            assert anchor in {_anchor(h) for h in headings}, f"{page_id(page)}: no #{anchor}"


def test_every_flag_of_the_cli_page_exists():
    parser = build_parser()
    known = {o for action in parser._actions for o in action.option_strings}
    for command in ("serve", "ingest", "search", "answer", "check"):
        known |= _options(parser, command)
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    flags = set(re.findall(r"(?<![\w-])(--[a-z][\w-]*)", text))
    assert len(flags) > 30
    assert flags - known == set()
