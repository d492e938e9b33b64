"""Components whose credentials or client options cannot be pickled: pickling or deep-copying
one is refused with an error naming the setting and saying what to do (the table style of
test_bad_inputs.py), whichever framework and component holds them."""

from __future__ import annotations

import copy
import pickle
from typing import Any

from google.api_core.client_options import ClientOptions
from llama_index.core.query_engine import RetrieverQueryEngine

import langchain_grounding as lc
import llamaindex_grounding as li
from grounding_core import (
    ConfigurationError,
    DeveloperKnowledgeConnection,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    GroundingCheck,
)
from tests.core.copies import LockedCredentials
from tests.reliability.bad_input_table import clear_error_test, table_size_test

PROJECT = "test-project"
CREDENTIALS = [
    "credentials (LockedCredentials) cannot be pickled (cannot pickle '_thread.lock' object)",
    "give credentials that pickle",
    "Application Default Credentials",
    "build the component in the process that uses it",
]
OPTIONS = [
    "client_options (ClientOptions) cannot be pickled",
    "a client_cert_source must be a module-level function, not a lambda or a closure",
]


def locked(emulator: Any) -> dict[str, Any]:
    return {"emulator_host": emulator.address, "credentials": LockedCredentials()}


def lambda_options(emulator: Any) -> dict[str, Any]:
    return {"client_options": ClientOptions(client_cert_source=lambda: (b"c", b"k"))}


def protocol_5(value: Any) -> bytes:
    return pickle.dumps(value, protocol=5)


# (id, callable taking the emulator, expected exception, message fragments)
CASES = [
    (
        "core-connection-credentials",
        lambda e: pickle.dumps(DiscoveryEngineConnection(project_id=PROJECT, **locked(e))),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "core-dk-connection-credentials",
        lambda e: copy.deepcopy(DeveloperKnowledgeConnection(**locked(e))),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "core-search-credentials",
        lambda e: protocol_5(
            DiscoveryEngineChunkSearch(
                DiscoveryEngineConnection(project_id=PROJECT, **locked(e)), data_store_id="d"
            )
        ),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "core-check-credentials-deepcopy",
        lambda e: copy.deepcopy(
            GroundingCheck(DiscoveryEngineConnection(project_id=PROJECT, **locked(e)))
        ),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "core-connection-client-options",
        lambda e: pickle.dumps(DiscoveryEngineConnection(project_id=PROJECT, **lambda_options(e))),
        ConfigurationError,
        OPTIONS,
    ),
    (
        "langchain-retriever-credentials",
        lambda e: pickle.dumps(
            lc.DiscoveryEngineRetriever(project_id=PROJECT, data_store_id="d", **locked(e))
        ),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "langchain-dk-retriever-credentials-protocol-5",
        lambda e: protocol_5(lc.DeveloperKnowledgeRetriever(**locked(e))),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "langchain-checker-credentials-deepcopy",
        lambda e: copy.deepcopy(lc.GroundingChecker(project_id=PROJECT, **locked(e))),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "langchain-handler-credentials",
        lambda e: pickle.dumps(lc.GroundingCallbackHandler(project_id=PROJECT, **locked(e))),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "langchain-grounded-chain-credentials",
        lambda e: pickle.dumps(
            lc.with_grounding(lc.ExtractiveChatModel(), project_id=PROJECT, **locked(e))
        ),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "langchain-answer-client-options",
        lambda e: pickle.dumps(
            lc.DiscoveryEngineAnswer(project_id=PROJECT, data_store_id="d", **lambda_options(e))
        ),
        ConfigurationError,
        OPTIONS,
    ),
    (
        "llamaindex-retriever-credentials",
        lambda e: pickle.dumps(
            li.DiscoveryEngineRetriever(project_id=PROJECT, data_store_id="d", **locked(e))
        ),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "llamaindex-evaluator-credentials-deepcopy",
        lambda e: copy.deepcopy(li.GroundingEvaluator(project_id=PROJECT, **locked(e))),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "llamaindex-grounded-engine-credentials",
        lambda e: pickle.dumps(
            li.GroundedQueryEngine(
                RetrieverQueryEngine.from_args(
                    li.DiscoveryEngineRetriever(
                        project_id=PROJECT, data_store_id="d", emulator_host=e.address
                    ),
                    llm=li.ExtractiveLLM(),
                ),
                project_id=PROJECT,
                **locked(e),
            )
        ),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "llamaindex-chat-engine-credentials",
        lambda e: pickle.dumps(li.DeveloperKnowledgeChatEngine(**locked(e))),
        ConfigurationError,
        CREDENTIALS,
    ),
    (
        "llamaindex-answer-engine-client-options",
        lambda e: pickle.dumps(
            li.DiscoveryEngineAnswerQueryEngine(
                project_id=PROJECT, data_store_id="d", **lambda_options(e)
            )
        ),
        ConfigurationError,
        OPTIONS,
    ),
]

test_the_table_is_big_enough = table_size_test(CASES, minimum=16)
test_bad_input_gets_a_clear_error = clear_error_test(CASES)
