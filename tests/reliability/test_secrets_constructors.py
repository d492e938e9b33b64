"""No secret in any constructor error of any component of either framework, nor of the CLI.

Every public class of ``langchain_grounding`` and ``llamaindex_grounding`` (read from their
``__all__``: a new one fails ``test_every_public_name_is_covered`` until it has a row here) is
built with the marker credential in its secret-bearing arguments and each kind of mistake; the
marker must appear in no error text (``str``, ``repr``, pydantic's ``errors()``/``json()``),
no chained cause or context, no traceback, no log record (DEBUG), and in the ``repr`` of what
was built when the mistake is one the component accepts.
"""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from google.api_core.client_options import ClientOptions
from langchain_core.runnables import RunnableLambda
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.query_engine import CustomQueryEngine
from pydantic import ValidationError

import langchain_grounding as lc
import llamaindex_grounding as li
from grounding_core import ConfigurationError
from grounding_core.cli import main

from .test_secrets import MARKER, MarkedCredentials


class _EchoEngine(CustomQueryEngine):
    """The smallest LlamaIndex query engine, for ``GroundedQueryEngine`` to wrap."""

    def custom_query(self, query_str: str) -> str:
        return query_str


@dataclass(frozen=True)
class Component:
    """How to build one public class: ``build(**kwargs)`` with the fewest valid arguments;
    ``connection``: it takes the connection's arguments (credentials, client_options, ...);
    ``project``/``target``: a Discovery Engine project / a data store or engine;
    ``typed``: a field that is not a string (the marker given there is a wrong type)."""

    build: Callable[..., Any]
    connection: bool = True
    project: bool = False
    target: bool = False
    typed: str = "timeout"


def _checker(**kwargs: Any) -> lc.GroundingChecker:
    return lc.GroundingChecker(**{"project_id": "p", **kwargs})


def _chain(**kwargs: Any) -> lc.GroundedChain:
    # Its secrets are those of its checker, given as a dict (validated as a nested model).
    checker = kwargs.pop("checker", {"project_id": "p"})
    return lc.GroundedChain(chain=RunnableLambda(lambda x: x), checker=checker, **kwargs)


def _lc_tool(**kwargs: Any) -> lc.DiscoveryEngineSearchTool:
    retriever = lc.DiscoveryEngineRetriever(project_id="p", data_store_id="d")
    return lc.DiscoveryEngineSearchTool(retriever=retriever, **kwargs)


def _lc_dk_tool(**kwargs: Any) -> lc.DeveloperKnowledgeSearchTool:
    return lc.DeveloperKnowledgeSearchTool(retriever=lc.DeveloperKnowledgeRetriever(), **kwargs)


def _lc_answer_tool(**kwargs: Any) -> lc.AnswerQueryTool:
    answerer = lc.DiscoveryEngineAnswer(project_id="p", engine_id="e")
    return lc.AnswerQueryTool(**{"answerer": answerer, **kwargs})


def _middleware(**kwargs: Any) -> Any:
    return lc.GroundingMiddleware(**{"project_id": "p", **kwargs})


def _li_search_tool(**kwargs: Any) -> li.DiscoveryEngineSearchTool:
    retriever = li.DiscoveryEngineRetriever(project_id="p", data_store_id="d")
    return li.DiscoveryEngineSearchTool(retriever=retriever, **kwargs)


def _li_dk_tool(**kwargs: Any) -> li.DeveloperKnowledgeSearchTool:
    return li.DeveloperKnowledgeSearchTool(retriever=li.DeveloperKnowledgeRetriever(), **kwargs)


def _li_answer_tool(**kwargs: Any) -> li.AnswerQueryTool:
    engine = li.DiscoveryEngineAnswerQueryEngine(project_id="p", engine_id="e")
    return li.AnswerQueryTool(**{"query_engine": engine, **kwargs})


def _li_agent_workflow(**kwargs: Any) -> li.GroundedAgentWorkflow:
    agent = FunctionAgent(tools=[], llm=MockFunctionCallingLLM())
    return li.GroundedAgentWorkflow(agent, **{"project_id": "p", **kwargs})


LANGCHAIN = {
    # The tools hold a retriever or engine (built above): the connection is theirs.
    "DiscoveryEngineSearchTool": Component(_lc_tool, connection=False, typed="max_k"),
    "DeveloperKnowledgeSearchTool": Component(_lc_dk_tool, connection=False, typed="max_k"),
    "AnswerQueryTool": Component(_lc_answer_tool, connection=False, typed="answerer"),
    # Its connection is its checker's, built from the same keyword arguments.
    "GroundingMiddleware": Component(_middleware, project=True, typed="max_revisions"),
    "AsyncGroundingCallbackHandler": Component(
        lambda **kw: lc.AsyncGroundingCallbackHandler(**{"project_id": "p", **kw}), project=True
    ),
    "ChatDiscoveryEngineGrounded": Component(
        lambda **kw: lc.ChatDiscoveryEngineGrounded(**{"project_id": "p", "engine_id": "e", **kw}),
        project=True,
        target=True,
    ),
    "DeveloperKnowledgeAnswer": Component(lc.DeveloperKnowledgeAnswer),
    "DeveloperKnowledgeRetriever": Component(lc.DeveloperKnowledgeRetriever),
    "DiscoveryEngineAnswer": Component(
        lambda **kw: lc.DiscoveryEngineAnswer(**{"project_id": "p", "engine_id": "e", **kw}),
        project=True,
        target=True,
    ),
    "DiscoveryEngineReranker": Component(
        lambda **kw: lc.DiscoveryEngineReranker(**{"project_id": "p", **kw}), project=True
    ),
    "DiscoveryEngineMultiTurnRetriever": Component(
        lambda **kw: lc.DiscoveryEngineMultiTurnRetriever(
            **{"project_id": "p", "data_store_id": "d", **kw}
        ),
        project=True,
        target=True,
    ),
    # Its summary is built from its other keyword arguments: the connection's too.
    "DiscoveryEngineSummaryTool": Component(
        lambda **kw: lc.DiscoveryEngineSummaryTool(**{"project_id": "p", "engine_id": "e", **kw}),
        project=True,
        target=True,
        typed="result_count",
    ),
    "DiscoveryEngineRetriever": Component(
        lambda **kw: lc.DiscoveryEngineRetriever(**{"project_id": "p", "data_store_id": "d", **kw}),
        project=True,
        target=True,
    ),
    "DiscoveryEngineSummary": Component(
        lambda **kw: lc.DiscoveryEngineSummary(**{"project_id": "p", "engine_id": "e", **kw}),
        project=True,
        target=True,
    ),
    "ExtractiveChatModel": Component(lc.ExtractiveChatModel, connection=False, typed="sentences"),
    "GroundedChain": Component(_chain, connection=False, typed="chain"),
    "GroundingCallbackHandler": Component(
        lambda **kw: lc.GroundingCallbackHandler(**{"project_id": "p", **kw}), project=True
    ),
    "GroundingChecker": Component(_checker, project=True),
    "QuestionCondenser": Component(lc.QuestionCondenser, connection=False, typed="max_questions"),
    "with_grounding": Component(
        lambda **kw: lc.with_grounding(RunnableLambda(lambda x: x), **{"project_id": "p", **kw}),
        project=True,
    ),
}
LLAMAINDEX = {
    "DeveloperKnowledgeAnswerQueryEngine": Component(li.DeveloperKnowledgeAnswerQueryEngine),
    "DeveloperKnowledgeChatEngine": Component(li.DeveloperKnowledgeChatEngine),
    "DeveloperKnowledgeRetriever": Component(li.DeveloperKnowledgeRetriever),
    "DiscoveryEngineAnswerQueryEngine": Component(
        lambda **kw: li.DiscoveryEngineAnswerQueryEngine(
            **{"project_id": "p", "engine_id": "e", **kw}
        ),
        project=True,
        target=True,
    ),
    "DiscoveryEngineChatEngine": Component(
        lambda **kw: li.DiscoveryEngineChatEngine(**{"project_id": "p", "engine_id": "e", **kw}),
        project=True,
        target=True,
    ),
    "DiscoveryEngineGroundedLLM": Component(
        lambda **kw: li.DiscoveryEngineGroundedLLM(**{"project_id": "p", "engine_id": "e", **kw}),
        project=True,
        target=True,
    ),
    "DiscoveryEngineReranker": Component(
        lambda **kw: li.DiscoveryEngineReranker(**{"project_id": "p", **kw}), project=True
    ),
    "DiscoveryEngineRetriever": Component(
        lambda **kw: li.DiscoveryEngineRetriever(**{"project_id": "p", "data_store_id": "d", **kw}),
        project=True,
        target=True,
    ),
    "DiscoveryEngineSearchSummaryQueryEngine": Component(
        lambda **kw: li.DiscoveryEngineSearchSummaryQueryEngine(
            **{"project_id": "p", "engine_id": "e", **kw}
        ),
        project=True,
        target=True,
    ),
    "ExtractiveLLM": Component(li.ExtractiveLLM, connection=False, typed="sentences"),
    "GroundedQueryEngine": Component(
        lambda **kw: li.GroundedQueryEngine(_EchoEngine(), **{"project_id": "p", **kw}),
        project=True,
    ),
    "GroundingEvaluator": Component(
        lambda **kw: li.GroundingEvaluator(**{"project_id": "p", **kw}), project=True
    ),
    "DiscoveryEngineSearchTool": Component(_li_search_tool, connection=False, typed="max_k"),
    "DeveloperKnowledgeSearchTool": Component(_li_dk_tool, connection=False, typed="max_k"),
    "AnswerQueryTool": Component(_li_answer_tool, connection=False, typed="query_engine"),
    "GroundedAgentWorkflow": Component(_li_agent_workflow, project=True, typed="max_revisions"),
}
# Public names that are not components built from arguments: records, errors, events,
# conversion functions.
NOT_COMPONENTS = {
    lc: {"GroundingReport", "UngroundedAnswerError", "chunk_to_document"},
    li: {
        "AgentGroundingEvent",
        "ClaimVerdictEvent",
        "GroundedAgentOutput",
        "GroundingCheckEndEvent",
        "GroundingCheckStartEvent",
        "GroundingEvaluationResult",
        "GroundingReport",
        "SearchResponseEvent",
        "UngroundedAnswerError",
        "chunk_to_node",
        "citation_blocks",
        "cited_chat_message",
        "tool_nodes",
    },
}
COMPONENTS = [("langchain", n, c) for n, c in LANGCHAIN.items()] + [
    ("llamaindex", n, c) for n, c in LLAMAINDEX.items()
]


def _secrets() -> dict[str, Any]:
    return {"credentials": MarkedCredentials(), "client_options": {"api_key": MARKER}}


# (id, applies to, the arguments added to the component's own, given its Component)
MISTAKES: list[tuple[str, Callable[[Component], bool], Callable[[Component], dict[str, Any]]]] = [
    ("misspelt argument", lambda c: c.connection, lambda c: {**_secrets(), "kk": 3}),
    ("the key as an unknown argument", lambda c: True, lambda c: {"api_key": MARKER}),
    ("the key in a typed field", lambda c: True, lambda c: {c.typed: MARKER}),
    ("a wrong type", lambda c: c.connection, lambda c: {**_secrets(), "timeout": [1]}),
    ("out of range", lambda c: c.connection, lambda c: {**_secrets(), "timeout": -1}),
    ("project with a slash", lambda c: c.project, lambda c: {**_secrets(), "project_id": "a/b"}),
    ("unknown location", lambda c: c.project, lambda c: {**_secrets(), "location": "mars"}),
    (
        "both data store and engine",
        lambda c: c.target,
        lambda c: {**_secrets(), "data_store_id": "d", "engine_id": "e"},
    ),
    (
        "client_options with an unknown key",
        lambda c: c.connection,
        lambda c: {"client_options": {"api_key": MARKER, "api_kee": 1}},
    ),
    (
        "client_options as the key itself",
        lambda c: c.connection,
        lambda c: {"client_options": MARKER},
    ),
    (
        "ClientOptions with a key and an emulator endpoint too",
        lambda c: c.connection,
        lambda c: {
            "client_options": ClientOptions(api_key=MARKER, api_endpoint="127.0.0.1:2"),
            "emulator_host": "127.0.0.1:1",
        },
    ),
    (
        "credentials as the key itself and a bad timeout",
        lambda c: c.connection,
        lambda c: {"credentials": MARKER, "timeout": -1},
    ),
    (
        "the key in headers",
        lambda c: True,
        lambda c: {"headers": {"x-goog-api-key": MARKER}, "transport": MARKER},
    ),
    (
        "emulator address with a password",
        lambda c: c.connection,
        lambda c: {"emulator_host": f"http://user:{MARKER}@127.0.0.1:1"},
    ),
]
CASES = [
    pytest.param(
        build,
        mistake,
        id=f"{framework}-{name}-{label}",
    )
    for framework, name, build in COMPONENTS
    for label, applies, mistake in MISTAKES
    if applies(build)
]


def _chain_of(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    todo = [error]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        todo += [e for e in (current.__cause__, current.__context__) if e is not None]


def error_texts(error: BaseException) -> list[str]:
    """Every text an error shows: its own, its causes' and contexts', its traceback, and for a
    pydantic error its ``errors()`` and ``json()``."""
    texts = ["".join(traceback.format_exception(error))]
    for link in _chain_of(error):
        texts += [str(link), repr(link), str(link.args)]
        if isinstance(link, ValidationError):
            texts += [str(link.errors()), link.json()]
    return texts


@pytest.fixture
def debug_logs(caplog, monkeypatch):
    caplog.set_level(logging.DEBUG)
    for name in ("DISCOVERYENGINE_EMULATOR_HOST", "DEVELOPERKNOWLEDGE_EMULATOR_HOST"):
        monkeypatch.delenv(name, raising=False)
    return caplog


def test_every_public_name_is_covered():
    for module, table in ((lc, LANGCHAIN), (li, LLAMAINDEX)):
        assert set(module.__all__) == set(table) | NOT_COMPONENTS[module]


def test_the_table_covers_each_kind_of_mistake():
    assert len(CASES) >= 200
    used = {p.id.rsplit("-", 1)[-1] for p in CASES}
    assert used == {label for label, _, _ in MISTAKES}


@pytest.mark.parametrize(("component", "mistake"), CASES)
def test_no_secret_in_a_constructor_error(debug_logs, component, mistake):
    # pydantic's error (LangChain's components), the core's (a setting it refuses), or
    # Python's for an argument a plain class does not take.
    with pytest.raises((ValidationError, ConfigurationError, TypeError)) as info:
        component.build(**mistake(component))
    for text in [*error_texts(info.value), debug_logs.text]:
        assert MARKER not in text


# Secret-bearing arguments a component accepts when it is built.
ACCEPTED = {
    "credentials and a key": _secrets,
    "ClientOptions with a key and scopes, and credentials": lambda: {
        # Google's client refuses the pair when it is built, at the first call.
        "client_options": ClientOptions(api_key=MARKER, scopes=[MARKER]),
        "credentials": MarkedCredentials(),
    },
    "credentials of the wrong type": lambda: {"credentials": MARKER},
    "an emulator and credentials": lambda: {**_secrets(), "emulator_host": "127.0.0.1:1"},
}


@pytest.mark.parametrize(
    "component", [pytest.param(c, id=f"{f}-{n}") for f, n, c in COMPONENTS if c.connection]
)
@pytest.mark.parametrize("secrets", list(ACCEPTED.values()), ids=list(ACCEPTED))
def test_no_secret_in_what_is_built(debug_logs, component, secrets):
    built = component.build(**secrets())
    shown = [repr(built), str(built)]
    if hasattr(built, "model_dump"):
        shown.append(json.dumps(built.model_dump(), default=repr))
    for text in [*shown, debug_logs.text]:
        assert MARKER not in text


def test_unknown_argument_errors_name_the_argument_and_a_close_match():
    # Both frameworks: the argument, the closest known name, never its value.
    with pytest.raises(ValidationError) as lc_info:
        lc.DiscoveryEngineRetriever(project_id="p", data_store_id="d", kk=MARKER)
    with pytest.raises(TypeError) as li_info:
        li.DiscoveryEngineRetriever(project_id="p", data_store_id="d", simlarity_top_k=MARKER)
    assert "'kk' (did you mean 'k'?)" in str(lc_info.value)
    assert "'simlarity_top_k' (did you mean 'similarity_top_k'?)" in str(li_info.value)
    for error in (lc_info.value, li_info.value):
        assert all(MARKER not in text for text in error_texts(error))


# -- the command line ------------------------------------------------------------------------

CLI_COMMANDS = [
    ["search", "q"],
    ["answer", "q"],
    ["answer", "q", "--api", "developer-knowledge"],
    ["check", "Paris is in France.", "--fact", "Paris is in France."],
]
ADDRESS = f"http://user:{MARKER}@127.0.0.1:1"
# What google.auth reads from $GOOGLE_APPLICATION_CREDENTIALS: files holding the marker.
CREDENTIAL_FILES = {
    "service account": {"type": "service_account", "private_key": MARKER, "client_email": "a@b"},
    "user": {"type": "authorized_user", "refresh_token": MARKER},
    "not JSON": f"{MARKER} is not JSON",
}


def _address_flag(env, tmp_path):
    return ["--emulator-host", ADDRESS]


def _address_variables(env, tmp_path):
    env.setenv("DISCOVERYENGINE_EMULATOR_HOST", ADDRESS)
    env.setenv("DEVELOPERKNOWLEDGE_EMULATOR_HOST", ADDRESS)
    return []


def _credentials_file(content):
    def given(env, tmp_path):
        path = tmp_path / "credentials.json"
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        env.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
        return ["--project", "p", "--data-store", "d", "--no-retry", "--timeout", "2"]

    return given


CLI_MISTAKES = [
    pytest.param(_address_flag, id="password in --emulator-host"),
    pytest.param(_address_variables, id="password in $*_EMULATOR_HOST"),
    *(
        pytest.param(_credentials_file(content), id=f"{kind} credentials file")
        for kind, content in CREDENTIAL_FILES.items()
    ),
]


@pytest.mark.parametrize("command", CLI_COMMANDS, ids=[" ".join(c[:3]) for c in CLI_COMMANDS])
@pytest.mark.parametrize("mistake", CLI_MISTAKES)
def test_no_secret_in_a_cli_error(debug_logs, monkeypatch, tmp_path, capsys, command, mistake):
    flags = mistake(monkeypatch, tmp_path)
    assert main(["-vv", *command, *flags]) == 2  # -vv: the traceback is logged too
    output = capsys.readouterr()
    assert "error:" in output.err
    for text in (output.out, output.err, debug_logs.text):
        assert MARKER not in text
