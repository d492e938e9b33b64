"""GroundingChecker in langchain-google-community's call shape (the answer alone, the documents
in ``config["configurable"]["documents"]``): every bad call refused before anything is sent,
with an error naming what to fix, in the style of test_bad_inputs.py's table."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage

from grounding_core import ConfigurationError, InputError
from langchain_grounding import GroundingChecker
from tests.reliability.bad_input_table import clear_error_test, table_size_test

PROJECT = "test-project"
ANSWER = "Paris is the capital of France."
DOC = Document(page_content=ANSWER)
FIELD = "configurable['documents']"
ALONE = ["got the answer alone (a string)", "with_grounding(chain, checker)"]
PEER = "checker.with_config(configurable={'documents': docs}).invoke(answer)"


def checker(emulator, **fields):
    return GroundingChecker(project_id=PROJECT, emulator_host=emulator.address, **fields)


def peer_call(emulator, documents, answer=ANSWER, **fields):
    configured = checker(emulator, **fields).with_config(configurable={"documents": documents})
    return configured.invoke(answer)


# (id, callable taking the emulator, expected exception, message fragments)
CASES = [
    # -- no documents at all: the existing error, which now names configurable ----------------
    ("string, no config", lambda e: checker(e).invoke(ANSWER), InputError, [*ALONE, PEER]),
    (
        "string, configurable without documents",
        lambda e: checker(e).invoke(ANSWER, config={"configurable": {"thread_id": "t"}}),
        InputError,
        [*ALONE, "configurable"],
    ),
    (
        "string, empty config",
        lambda e: checker(e).invoke(ANSWER, config={}),
        InputError,
        [*ALONE, PEER],
    ),
    (
        "message, no documents",
        lambda e: checker(e).invoke(AIMessage(ANSWER)),
        InputError,
        ["got the answer alone (a message, AIMessage)", PEER],
    ),
    (
        "string, no documents, async",
        lambda e: asyncio.run(checker(e).ainvoke(ANSWER)),
        InputError,
        [*ALONE, PEER],
    ),
    # -- documents that are not a list -------------------------------------------------------
    (
        "documents: one Document",
        lambda e: peer_call(e, DOC),
        InputError,
        [f"{FIELD} must be a list of Documents (or strings), got Document", PEER],
    ),
    (
        "documents: a string",
        lambda e: peer_call(e, ANSWER),
        InputError,
        [f"{FIELD} must be a list of Documents (or strings), got str"],
    ),
    (
        "documents: None",
        lambda e: peer_call(e, None),
        InputError,
        [f"{FIELD} must be a list of Documents (or strings), got NoneType"],
    ),
    (
        "documents: a dict",
        lambda e: peer_call(e, {"page_content": ANSWER}),
        InputError,
        [f"{FIELD} must be a list of Documents (or strings), got dict"],
    ),
    (
        "documents: a generator",
        lambda e: peer_call(e, (d for d in [DOC])),
        InputError,
        [f"{FIELD} must be a list of Documents (or strings), got generator"],
    ),
    (
        "documents: a set",
        lambda e: peer_call(e, {ANSWER}),
        InputError,
        [f"{FIELD} must be a list of Documents (or strings), got set"],
    ),
    # -- empty -----------------------------------------------------------------------------
    (
        "documents: empty list",
        lambda e: peer_call(e, []),
        InputError,
        [f"{FIELD} is empty: give the documents the answer is to be checked against"],
    ),
    (
        "documents: empty tuple",
        lambda e: peer_call(e, ()),
        InputError,
        [f"{FIELD} is empty"],
    ),
    (
        "documents: empty, async",
        lambda e: asyncio.run(
            checker(e).with_config(configurable={"documents": []}).ainvoke(ANSWER)
        ),
        InputError,
        [f"{FIELD} is empty"],
    ),
    # -- an item that is not a Document ------------------------------------------------------
    (
        "documents: a dict item",
        lambda e: peer_call(e, [DOC, {"page_content": "x"}]),
        InputError,
        [f"{FIELD}[1] must be a Document or str, got dict"],
    ),
    ("documents: an int item", lambda e: peer_call(e, [7]), InputError, [f"{FIELD}[0]", "int"]),
    (
        "documents: a None item",
        lambda e: peer_call(e, [DOC, DOC, None]),
        InputError,
        [f"{FIELD}[2] must be a Document or str, got NoneType"],
    ),
    (
        "documents: a message item",
        lambda e: peer_call(e, [AIMessage("x")]),
        InputError,
        [f"{FIELD}[0] must be a Document or str, got AIMessage"],
    ),
    (
        "documents: a bad item in a batch",
        lambda e: checker(e).with_config(configurable={"documents": [b"x"]}).batch([ANSWER]),
        InputError,
        [f"{FIELD}[0] must be a Document or str, got bytes"],
    ),
    # -- the policy that cannot apply, and the documented limits -----------------------------
    (
        "fallback policy",
        lambda e: peer_call(e, [DOC], on_ungrounded="fallback"),
        ConfigurationError,
        ["on_ungrounded='fallback' replaces", "has no answer to replace", "pass a dict"],
    ),
    (
        "fallback policy, async",
        lambda e: asyncio.run(
            checker(e, on_ungrounded="fallback")
            .with_config(configurable={"documents": [DOC]})
            .ainvoke(ANSWER)
        ),
        ConfigurationError,
        ["has no answer to replace"],
    ),
    ("201 documents", lambda e: peer_call(e, ["f"] * 201), InputError, ["201 non-empty sources"]),
    (
        "a document over 10k characters",
        lambda e: peer_call(e, ["f" * 20_000]),
        InputError,
        ["20,000 characters"],
    ),
    (
        "answer: not text",
        lambda e: checker(e).with_config(configurable={"documents": [DOC]}).invoke(42),
        InputError,
        ["takes a dict"],
    ),
]

test_the_table_is_big_enough = table_size_test(CASES, minimum=24)
test_bad_input_gets_a_clear_error = clear_error_test(CASES)


@pytest.mark.parametrize(
    "documents", [DOC, None, [], [DOC, 3]], ids=["document", "none", "empty", "int-item"]
)
def test_the_error_names_the_field_and_nothing_is_sent(emulator, documents):
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE")  # consumed by any call
    with pytest.raises(InputError) as info:
        peer_call(emulator, documents)
    assert info.value.field == FIELD
    assert emulator.faults.pending == 1


def test_only_documents_is_read_from_configurable(emulator):
    # LangChain's own configurable keys (and a misspelt "document") are not documents.
    configured = checker(emulator).with_config(
        configurable={"document": [DOC], "thread_id": "t", "checkpoint_ns": ""}
    )
    with pytest.raises(InputError, match="got the answer alone") as info:
        configured.invoke(ANSWER)
    assert info.value.field == "input"
