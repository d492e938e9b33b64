"""Every LangChain component of ours round-trips through LangChain's serialization
(``dumpd``/``dumps``, then ``load``/``loads`` with ``valid_namespaces=["langchain_grounding"]``,
issue #38): the same settings and the same results on the emulator; the connection objects
(credentials, client options, a given client) are secrets, never in the dump, given back
through ``secrets_map``. Callback handlers and the agent middleware are not LangChain
``Serializable``s; every other exported component is."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1alpha
from langchain_core.documents import Document
from langchain_core.load import Serializable, dumpd, dumps, load, loads
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, HumanMessagePromptTemplate, PromptTemplate
from langchain_core.runnables import RunnableParallel, RunnablePassthrough, RunnableSequence

import langchain_grounding
from langchain_grounding import (
    DiscoveryEngineReranker,
    DiscoveryEngineRetriever,
    ExtractiveChatModel,
    GroundedChain,
    GroundingChecker,
)
from langchain_grounding._serialization import SECRET_IDS
from tests.core.copies import Row

from .conftest import PROMPT
from .test_pickling import NOT_COMPONENTS, PROJECT, QUESTION, ROWS, checker, invoking

NOT_SERIALIZABLE = {
    "GroundingCallbackHandler": "a callback handler: LangChain serializes no handler",
    "AsyncGroundingCallbackHandler": "a callback handler: LangChain serializes no handler",
    "GroundingMiddleware": "an agent middleware, not a Runnable",
}
# What the dumps of the rows hold besides our components (a chain's parts, a prompt).
CORE = [
    Document,
    ChatPromptTemplate,
    HumanMessagePromptTemplate,
    PromptTemplate,
    RunnableParallel,
    RunnablePassthrough,
    RunnableSequence,
    StrOutputParser,
]
OURS = [
    getattr(langchain_grounding, name)
    for name in langchain_grounding.__all__
    if name not in NOT_COMPONENTS and name not in NOT_SERIALIZABLE and name != "with_grounding"
]
ALLOWED = [*OURS, *CORE]
NAMESPACES = ["langchain_grounding"]


def settings(component: Any) -> dict[str, Any]:
    """The component's fields, without what a tool builds for itself (a new schema class)."""
    return component.model_dump(exclude={"args_schema", "handle_validation_error"})


def serializable_rag(emulator: Any) -> GroundedChain:
    """A grounded RAG chain of serializable parts only (no function, no lambda)."""
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="test-docs", k=2, emulator_host=emulator.address
    )
    context = RunnableParallel(context=retriever, question=RunnablePassthrough())
    chain = context | PROMPT | ExtractiveChatModel(sentences=1) | StrOutputParser()
    return GroundedChain(chain=chain, checker=checker(emulator))


# The pickling table's rows, but a grounded chain of serializable parts.
SERIALIZED_ROWS: dict[str, Row] = {
    name: row
    for name, row in ROWS.items()
    if name not in NOT_SERIALIZABLE and name not in ("GroundedChain", "with_grounding")
} | {"GroundedChain": Row(serializable_rag, **invoking(QUESTION))}


def test_every_exported_component_serializes_but_handlers_and_middleware():
    for component in OURS:
        assert issubclass(component, Serializable), component
        assert component.is_lc_serializable()
        assert component.lc_id() == ["langchain_grounding", component.__name__]
    for name in NOT_SERIALIZABLE:
        assert not issubclass(getattr(langchain_grounding, name), Serializable)
    assert set(SERIALIZED_ROWS) == {component.__name__ for component in OURS}


@pytest.mark.parametrize("name", list(SERIALIZED_ROWS))
async def test_a_dump_loads_as_the_same_component(emulator, name):
    row = SERIALIZED_ROWS[name]
    component = row.build(emulator)
    dumped = dumpd(component)
    assert dumped["type"] == "constructor"
    assert dumped["id"] == ["langchain_grounding", type(component).__name__]
    assert "not_implemented" not in json.dumps(dumped)
    loaded = load(dumped, valid_namespaces=NAMESPACES, allowed_objects=ALLOWED)
    assert type(loaded) is type(component)
    assert settings(loaded) == settings(component)
    secrets = {name: value for name, value in dumped["kwargs"].items() if name in SECRET_IDS}
    assert dumpd(loaded)["kwargs"] == {
        name: value for name, value in dumped["kwargs"].items() if name not in secrets
    }
    assert row.call(loaded) == row.call(component)
    assert await row.acall(loaded) == await row.acall(component)
    text = loads(dumps(component), valid_namespaces=NAMESPACES, allowed_objects=ALLOWED)
    assert settings(text) == settings(component)


def test_connection_objects_are_secrets_never_in_the_dump(emulator):
    credentials = AnonymousCredentials()  # type: ignore[no-untyped-call]
    options = {"api_key": "AIza-secret-key", "quota_project_id": "quota-project"}
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        credentials=credentials,
        client_options=options,
    )
    dumped = dumps(retriever)
    assert "AIza-secret-key" not in dumped
    assert "quota-project" not in dumped
    for name in ("credentials", "client_options"):
        assert json.loads(dumped)["kwargs"][name] == {
            "lc": 1,
            "type": "secret",
            "id": [SECRET_IDS[name]],
        }
    # Given back through secrets_map, else left to their defaults.
    secrets = {SECRET_IDS["credentials"]: credentials, SECRET_IDS["client_options"]: options}
    loaded = loads(dumped, valid_namespaces=NAMESPACES, allowed_objects=OURS, secrets_map=secrets)
    assert (loaded.credentials, loaded.client_options) == (credentials, options)
    bare = loads(dumped, valid_namespaces=NAMESPACES, allowed_objects=OURS)
    assert (bare.credentials, bare.client_options) == (None, None)


@pytest.mark.parametrize(
    ("component", "client_class"),
    [
        (GroundingChecker, "GroundedGenerationServiceClient"),
        (DiscoveryEngineReranker, "RankServiceClient"),
    ],
)
def test_a_given_client_is_a_secret_too(emulator, component, client_class):
    client = getattr(discoveryengine_v1alpha, client_class)(
        credentials=AnonymousCredentials()  # type: ignore[no-untyped-call]
    )
    built = component(project_id=PROJECT, client=client)
    dumped = dumpd(built)
    assert dumped["kwargs"]["client"]["id"] == [SECRET_IDS["client"]]
    loaded = load(
        dumped,
        valid_namespaces=NAMESPACES,
        allowed_objects=OURS,
        secrets_map={SECRET_IDS["client"]: client},
    )
    assert loaded.client is client


def test_the_peers_native_serialization_test_passes_renamed(emulator):
    # langchain-google-community's test_native_serialization, its class and package renamed.
    boost_spec = {"condition_boost_specs": [{"condition": "true", "boost": 0.5}]}
    for spec in (None, boost_spec):
        retriever = DiscoveryEngineRetriever(
            data_store_id="test-data-store", project_id="test-project", boost_spec=spec
        )
        serialized = json.dumps(retriever.to_json())
        retriever_loaded = load(
            json.loads(serialized),
            valid_namespaces=["langchain_grounding"],
            allowed_objects=[DiscoveryEngineRetriever],
        )
        assert retriever.model_dump() == retriever_loaded.model_dump()
