"""Bad inputs and odd results around answers (issue 16, point 12): a wrong type is a clear
``InputError`` naming the field; an empty or declined answer is a result with its reason, never
an exception, in every component of both frameworks. Against the session emulator."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from llama_index.core.base.response.schema import Response

from grounding_core import (
    EMPTY_ANSWER,
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeConnection,
    DiscoveryEngineConnection,
    GroundingCheck,
    GroundingSource,
    InputError,
)
from grounding_core.grounding.report import NOTHING_TO_CHECK
from langchain_grounding import DeveloperKnowledgeAnswer, GroundingChecker
from llamaindex_grounding import (
    DeveloperKnowledgeAnswerQueryEngine,
    GroundedQueryEngine,
    GroundingEvaluator,
)
from tests.llamaindex.test_grounded_query_engine import FixedQueryEngine
from tests.reliability.bad_input_table import clear_error_test

PROJECT = "test-project"
FACT = "Lighthouses guide ships."
NOTHING = "quantum chromodynamics lattice"


def evaluator(e):
    return GroundingEvaluator(project_id=PROJECT, emulator_host=e.address)


def checker(e, **kwargs):
    return GroundingChecker(project_id=PROJECT, emulator_host=e.address, **kwargs)


def engine(e, response, **kwargs):
    return GroundedQueryEngine(
        FixedQueryEngine(response), project_id=PROJECT, emulator_host=e.address, **kwargs
    )


def sources(e, answer):
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=e.address)
    return GroundingCheck(connection).check(answer, ["d"], [GroundingSource(FACT)])


# (id, callable taking the emulator, expected exception, message fragments)
CASES = [
    (
        "evaluate: response None",
        lambda e: evaluator(e).evaluate(response=None, contexts=[FACT]),
        InputError,
        ["response must be the answer text, got NoneType"],
    ),
    (
        "evaluate_response: text not a string",
        lambda e: evaluator(e).evaluate_response(response=Response(response=5)),
        InputError,
        ["the response text must be a string, got int"],
    ),
    (
        "checker: answer not a string",
        lambda e: checker(e).invoke({"answer": 5, "documents": [FACT]}),
        InputError,
        ["answer must be a str or an AIMessage, got int"],
    ),
    (
        "GroundingCheck.check: answer None",
        lambda e: sources(e, None),
        InputError,
        ["answer_candidate must be a string, got NoneType"],
    ),
    (
        "query engine: text not a string, on_error=raise",
        lambda e: engine(e, Response(response=5), on_error="raise").query("q"),
        InputError,
        ["the response text must be a string, got int"],
    ),
]

# (id, callable taking the emulator, what the result must satisfy): handled, not refused.
ODD_RESULTS = [
    (
        "developer answer declined",
        lambda e: DeveloperKnowledgeAnswerQuery(
            DeveloperKnowledgeConnection(emulator_host=e.address)
        ).answer(NOTHING),
        lambda r: r.skipped_reasons == (EMPTY_ANSWER,) and r.answer_text == "",
    ),
    (
        "langchain developer answer declined",
        lambda e: DeveloperKnowledgeAnswer(emulator_host=e.address).invoke(NOTHING),
        lambda r: r["skipped_reasons"] == [EMPTY_ANSWER] and r["answer"] == "",
    ),
    (
        "llamaindex developer answer declined",
        lambda e: DeveloperKnowledgeAnswerQueryEngine(emulator_host=e.address).query(NOTHING),
        lambda r: r.metadata["skipped_reasons"] == [EMPTY_ANSWER] and r.response == "",
    ),
    (
        "GroundingCheck.check: blank answer",
        lambda e: sources(e, " \n"),
        lambda r: r.skipped_reason == NOTHING_TO_CHECK and r.result.claims == (),
    ),
    (
        "checker: empty answer",
        lambda e: checker(e, on_ungrounded="raise").invoke({"answer": "", "documents": [FACT]}),
        lambda r: r["grounding"].metadata()["skipped_reason"] == NOTHING_TO_CHECK,
    ),
    (
        "checker: empty message",
        lambda e: checker(e).check(
            AIMessage(""),
            [Document(page_content=FACT)],
        ),
        lambda r: r.metadata()["claims"] == [],
    ),
    (
        "evaluate: empty response",
        lambda e: evaluator(e).evaluate(response="", contexts=[FACT]),
        lambda r: r.passing is False and r.grounding["skipped_reason"] == NOTHING_TO_CHECK,
    ),
    (
        "evaluate_response: no text",
        lambda e: evaluator(e).evaluate_response(response=Response(response=None)),
        lambda r: r.passing is False and r.grounding["claims"] == [],
    ),
    (
        "query engine: no text, on_ungrounded=raise",
        lambda e: engine(e, Response(response=None), on_ungrounded="raise").query("q"),
        lambda r: r.metadata["grounding"]["skipped_reason"] == NOTHING_TO_CHECK,
    ),
    (
        "query engine: text not a string is recorded",
        lambda e: engine(e, Response(response=5)).query("q"),
        lambda r: (
            r.metadata["grounding"]["error"].startswith("InputError: the response text")
            and r.metadata["grounding"]["claims"] == []
        ),
    ),
]


test_bad_input_gets_a_clear_error = clear_error_test(CASES)


@pytest.mark.parametrize(("name", "call", "holds"), ODD_RESULTS, ids=[c[0] for c in ODD_RESULTS])
def test_odd_results_are_results(emulator, name, call, holds):
    assert holds(call(emulator)), name


def test_the_tables_are_distinct():
    names = [case[0] for case in CASES + ODD_RESULTS]
    assert len(set(names)) == len(names) == 15
