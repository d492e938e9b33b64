"""GroundingEvaluator alone, in BatchEvalRunner and in RetryQueryEngine, against the emulator."""

import json

import pytest
from llama_index.core import Settings
from llama_index.core.evaluation import BaseEvaluator, BatchEvalRunner, EvaluationResult
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine, RetryQueryEngine
from llama_index.core.schema import MetadataMode
from pydantic import Field

from grounding_core import ConfigurationError, InputError, ServiceUnavailableError
from llamaindex_grounding import (
    DiscoveryEngineRetriever,
    GroundingEvaluationResult,
    GroundingEvaluator,
)

from .conftest import PROJECT, UNSUPPORTED, ContextEchoLLM

KEEPER = "Section 1 of document 13 talks about the lighthouse keeper number 131."
CHUNK = (
    "Section 1 of document 13 talks about the lighthouse keeper number 131. It describes the "
    "lamp, the stairs and the logbook entry 13-1 in plain words."
)


@pytest.fixture
def evaluator(emulator):
    return GroundingEvaluator(project_id=PROJECT, emulator_host=emulator.address)


@pytest.fixture
def retriever(emulator):
    return DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        similarity_top_k=2,
    )


def test_class():
    assert BaseEvaluator in GroundingEvaluator.__mro__
    assert EvaluationResult in GroundingEvaluationResult.__mro__


def test_evaluate_with_contexts(evaluator):
    result = evaluator.evaluate(
        query="Who is keeper 131?",
        response=f"{KEEPER} {UNSUPPORTED}",
        contexts=["", CHUNK],
    )
    assert isinstance(result, GroundingEvaluationResult)
    assert result.passing is False
    assert result.score == pytest.approx(0.5)
    assert result.query == "Who is keeper 131?"
    assert result.response == f"{KEEPER} {UNSUPPORTED}"
    assert result.contexts == ["", CHUNK]
    assert result.feedback == (
        "Support score 0.50, below the minimum 1.00: 1 of 2 checked claims have no support:\n"
        f"- {UNSUPPORTED}"
    )
    claims = result.grounding["claims"]
    assert [c["status"] for c in claims] == ["supported", "unsupported"]
    # the empty context is skipped as a fact, yet citations point at the right context
    assert claims[0]["source_indices"] == [1]
    assert claims[0]["source_ids"] == ["1"]
    assert result.report.claims[0].sources == (CHUNK,)
    dumped = result.model_dump()
    assert "report" not in dumped
    json.dumps(dumped)


async def test_aevaluate_equals_evaluate(evaluator):
    sync = evaluator.evaluate(response=KEEPER, contexts=[CHUNK])
    asynchronous = await evaluator.aevaluate(response=KEEPER, contexts=[CHUNK])
    assert asynchronous.passing is sync.passing is True
    assert asynchronous.score == sync.score == pytest.approx(1.0)
    assert (
        asynchronous.feedback
        == sync.feedback
        == (
            "Support score 1.00, passed (minimum 1.00): every checked claim is supported by the "
            "sources."
        )
    )
    assert asynchronous.grounding == sync.grounding


def test_non_ascii_spans(evaluator):
    answer = "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month."
    result = evaluator.evaluate(
        response=answer,
        contexts=["Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. The crew 👩‍🚀 trains."],
    )
    (claim,) = result.grounding["claims"]
    assert answer[claim["start"] : claim["end"]] == claim["text"] == answer
    assert (claim["byte_start"], claim["byte_end"]) == (0, len(answer.encode()))
    assert claim["end"] < claim["byte_end"]
    assert result.passing


def test_evaluate_response_cites_the_source_nodes(evaluator, retriever):
    engine = RetrieverQueryEngine.from_args(retriever, llm=ContextEchoLLM(extra=UNSUPPORTED))
    response = engine.query("lighthouse keeper number 131")
    result = evaluator.evaluate_response(query="lighthouse keeper number 131", response=response)
    assert result.passing is False
    assert result.score == pytest.approx(0.5)
    assert result.report.claims[0].sources == (response.source_nodes[0],)
    assert result.grounding["claims"][0]["source_ids"] == [response.source_nodes[0].node.node_id]
    # The contexts as checked: the text the LLM was given (node text with its LLM metadata).
    assert result.contexts == [
        n.node.get_content(metadata_mode=MetadataMode.LLM) for n in response.source_nodes
    ]
    assert result.contexts[0] != response.source_nodes[0].node.text
    assert result.response == response.response


def test_min_support_score_decides_passing(emulator):
    lenient = GroundingEvaluator(
        project_id=PROJECT, emulator_host=emulator.address, min_support_score=0.5
    )
    result = lenient.evaluate(response=f"{KEEPER} {UNSUPPORTED}", contexts=[CHUNK])
    assert result.passing is True
    assert result.feedback.startswith("Support score 0.50, passed (minimum 0.50): 1 of 2 ")


async def test_batch_eval_runner_over_a_query_engine(evaluator, retriever):
    numbers = range(20, 26)
    queries = [f"lighthouse keeper number {n * 10 + 3}" for n in numbers]
    runner = BatchEvalRunner({"grounding": evaluator}, workers=3)
    engine = RetrieverQueryEngine.from_args(retriever, llm=ContextEchoLLM())
    results = await runner.aevaluate_queries(engine, queries=queries)
    grounding = results["grounding"]
    assert len(grounding) == len(queries)
    for number, result in zip(numbers, grounding, strict=True):
        assert result.passing is True
        assert result.score == pytest.approx(1.0)
        assert result.response.startswith(f"Section 3 of document {number}")
        cited = result.report.claims[0].sources[0].node.metadata["document_id"]
        assert cited == f"page-{number}"


def test_batch_eval_runner_sync_with_strings(evaluator):
    runner = BatchEvalRunner({"grounding": evaluator}, workers=2)
    results = runner.evaluate_response_strs(
        queries=["q1", "q2"],
        response_strs=[KEEPER, f"{KEEPER} {UNSUPPORTED}"],
        contexts_list=[[CHUNK], [CHUNK]],
    )
    assert [r.passing for r in results["grounding"]] == [True, False]
    assert [r.score for r in results["grounding"]] == [pytest.approx(1.0), pytest.approx(0.5)]


class FirstTimeInventingLLM(ContextEchoLLM):
    """Adds ``extra`` to its first answer only, and keeps every prompt it saw."""

    prompts: list[str] = Field(default_factory=list)

    def answer(self, prompt):
        self.prompts.append(prompt)
        answer = super().answer(prompt)
        self.extra = ""
        return answer


def test_retry_query_engine_retries_with_the_feedback(evaluator, retriever, monkeypatch):
    # RetryQueryEngine's feedback transform reads Settings.llm (it does not call it).
    monkeypatch.setattr(Settings, "_llm", MockLLM())
    llm = FirstTimeInventingLLM(extra=UNSUPPORTED)
    engine = RetrieverQueryEngine.from_args(retriever, llm=llm)
    retrying = RetryQueryEngine(engine, evaluator, max_retries=2)
    response = retrying.query("lighthouse keeper number 131")
    assert len(llm.prompts) == 2
    assert UNSUPPORTED not in llm.prompts[0]  # the first prompt has no feedback yet
    assert f"have no support:\n- {UNSUPPORTED}" in llm.prompts[1]
    assert UNSUPPORTED not in response.response
    assert evaluator.evaluate_response(response=response).passing


@pytest.mark.parametrize(
    ("kwargs", "message", "field", "limit"),
    [
        ({"response": None, "contexts": ["x"]}, "got NoneType", "response", None),
        ({"response": "x"}, "contexts must be a list of source texts", "contexts", None),
        ({"response": "x", "contexts": "one string"}, "contexts must be a list", "contexts", None),
        ({"response": "x", "contexts": [1]}, r"contexts\[0\] must be a string", "contexts", None),
        ({"response": "x", "contexts": ["f" * 10_001]}, "10,001", "facts[0].fact_text", 10_000),
    ],
)
def test_bad_input_is_refused_clearly(evaluator, kwargs, message, field, limit):
    with pytest.raises(InputError, match=message) as info:
        evaluator.evaluate(**kwargs)
    assert (info.value.field, info.value.limit) == (field, limit)


@pytest.mark.parametrize(
    ("response", "message"),
    [
        ("just text", "response must be a LlamaIndex Response"),
        (None, "got NoneType"),
    ],
)
def test_evaluate_response_needs_a_response(evaluator, response, message):
    with pytest.raises(InputError, match=message) as info:
        evaluator.evaluate_response(response=response)
    assert info.value.field == "response"


def test_a_failed_check_raises(emulator):
    evaluator = GroundingEvaluator(project_id=PROJECT, emulator_host=emulator.address, retry=None)
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    with pytest.raises(ServiceUnavailableError, match="CheckGrounding on projects/test-project"):
        evaluator.evaluate(response=KEEPER, contexts=[CHUNK])


def test_bad_configuration(emulator):
    with pytest.raises(ConfigurationError, match="min_support_score must be a number between"):
        GroundingEvaluator(emulator_host=emulator.address, min_support_score=2)
    with pytest.raises(ConfigurationError, match="citation_threshold must be a number between"):
        GroundingEvaluator(emulator_host=emulator.address, citation_threshold=-1)
