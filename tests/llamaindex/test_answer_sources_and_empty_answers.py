"""Issue 16, point 12 in LlamaIndex: two chunks of one Developer Knowledge document are two
nodes, a declined answer is a result in the engines and the evaluator, and the facts checked are
the text the LLM was given (``MetadataMode.LLM``)."""

from __future__ import annotations

import pytest
from llama_index.core.base.response.schema import Response
from llama_index.core.evaluation import BatchEvalRunner
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

from llamaindex_grounding import (
    DeveloperKnowledgeAnswerQueryEngine,
    DeveloperKnowledgeRetriever,
    GroundedQueryEngine,
    GroundingEvaluator,
)
from llamaindex_grounding.nodes import node_to_source
from tests.developer_corpus import (
    BOTH,
    CREATE,
    DESCRIPTION,
    NOTHING,
    PARENT,
    REMOVE,
    two_chunk_emulator,
)
from tests.schema.test_grounding_metadata_schema import REPORT_KEYS  # every key, every path

from .conftest import PROJECT, ContextEchoLLM
from .test_grounded_query_engine import FixedQueryEngine

__all__ = ["two_chunk_emulator"]

NOTHING_TO_CHECK = "the answer is empty: there is nothing to check"
EMPTY_ANSWER = "EMPTY_ANSWER"  # the skipped reason of an answer sent with no text


@pytest.fixture
def answers(two_chunk_emulator):
    return DeveloperKnowledgeAnswerQueryEngine(emulator_host=two_chunk_emulator.address)


def grounded(server, engine, **kwargs):
    return GroundedQueryEngine(engine, project_id=PROJECT, emulator_host=server.address, **kwargs)


def test_two_chunks_of_one_document_are_two_nodes(answers):
    response = answers.query(BOTH)
    first, second = (n.node for n in response.source_nodes)
    assert first.node_id != second.node_id
    assert first.node_id.startswith(f"{PARENT}#")
    assert second.node_id.startswith(f"{PARENT}#")
    # Both still name their document as their source.
    assert first.ref_doc_id == second.ref_doc_id == PARENT
    citations = response.metadata["citations"]
    assert [c["text"] for c in citations] == [CREATE, REMOVE]
    assert [c["source_ids"] for c in citations] == [[first.node_id], [second.node_id]]
    assert CREATE in first.text
    assert REMOVE in second.text


def test_grounding_the_answer_cites_each_chunk(two_chunk_emulator, answers):
    response = grounded(two_chunk_emulator, answers).query(BOTH)
    ids = [n.node.node_id for n in response.source_nodes]
    claims = response.metadata["grounding"]["claims"]
    assert [c["text"] for c in claims] == [CREATE, REMOVE]
    assert [c["source_ids"] for c in claims] == [[ids[0]], [ids[1]]]


async def test_a_declined_answer_is_a_result_with_its_reason(two_chunk_emulator, answers):
    for response in (answers.query(NOTHING), await answers.aquery(NOTHING)):
        assert response.response == ""
        assert response.source_nodes == []
        assert response.metadata["skipped_reasons"] == [EMPTY_ANSWER]
        assert response.metadata["grounded_answer"].skipped
    engine = grounded(two_chunk_emulator, answers, on_error="raise")
    for response in (engine.query(NOTHING), await engine.aquery(NOTHING)):
        grounding = response.metadata["grounding"]
        assert set(grounding) == REPORT_KEYS
        assert grounding["claims"] == []
        assert grounding["skipped_reason"] == NOTHING_TO_CHECK
        assert (grounding["passed"], grounding["error"]) == (False, None)
        assert response.metadata["skipped_reasons"] == [EMPTY_ANSWER]  # the engine's, kept


@pytest.mark.parametrize("text", [None, "", "  "])
async def test_policies_on_an_empty_answer(two_chunk_emulator, text):
    inner = FixedQueryEngine(Response(response=text))
    raising = grounded(two_chunk_emulator, inner, on_ungrounded="raise")
    assert raising.query("q").metadata["grounding"]["skipped_reason"] == NOTHING_TO_CHECK
    assert (await raising.aquery("q")).metadata["grounding"]["claims"] == []
    fallback = grounded(two_chunk_emulator, inner, on_ungrounded="fallback", fallback_answer="-")
    response = fallback.query("q")
    assert (response.response, response.metadata["original_answer"]) == ("-", text)


def test_the_evaluator_gives_a_result_for_an_empty_answer(two_chunk_emulator):
    evaluator = GroundingEvaluator(project_id=PROJECT, emulator_host=two_chunk_emulator.address)
    for result in (
        evaluator.evaluate(query="q", response="", contexts=[CREATE]),
        evaluator.evaluate_response(query="q", response=Response(response=None)),
    ):
        assert (result.passing, result.score) == (False, None)
        assert result.feedback == f"Nothing was checked: {NOTHING_TO_CHECK}."
        assert set(result.grounding) == REPORT_KEYS
        assert result.grounding["claims"] == []


async def test_batch_eval_runner_over_a_set_with_a_declined_answer(two_chunk_emulator, answers):
    evaluator = GroundingEvaluator(project_id=PROJECT, emulator_host=two_chunk_emulator.address)
    runner = BatchEvalRunner({"grounding": evaluator}, workers=2)
    results = await runner.aevaluate_queries(answers, queries=[BOTH, NOTHING, BOTH])
    grounding = results["grounding"]
    assert [r.passing for r in grounding] == [True, False, True]
    assert [r.grounding["skipped_reason"] for r in grounding] == [None, NOTHING_TO_CHECK, None]
    assert [r.response for r in grounding] == [f"{CREATE} {REMOVE}", "", f"{CREATE} {REMOVE}"]
    strings = runner.evaluate_response_strs(
        queries=["a", "b"], response_strs=[CREATE, ""], contexts_list=[[CREATE], [CREATE]]
    )
    assert [r.passing for r in strings["grounding"]] == [True, False]


def test_a_claim_from_metadata_the_llm_saw_is_supported(two_chunk_emulator):
    retriever = DeveloperKnowledgeRetriever(
        emulator_host=two_chunk_emulator.address, similarity_top_k=1
    )
    inner = RetrieverQueryEngine.from_args(retriever, llm=ContextEchoLLM(extra=DESCRIPTION))
    response = grounded(two_chunk_emulator, inner).query("create a bucket with gcloud")
    node = response.source_nodes[0].node
    assert f"description: {DESCRIPTION}" in node.get_content(metadata_mode=MetadataMode.LLM)
    claims = {c["text"]: c for c in response.metadata["grounding"]["claims"]}
    assert claims[DESCRIPTION]["status"] == "supported"
    assert claims[DESCRIPTION]["source_ids"] == [node.node_id]
    assert response.metadata["grounding"]["passed"] is True


def test_the_fact_is_the_llm_text_with_the_node_templates():
    node = TextNode(
        text="Body.",
        metadata={"title": "T", "secret": "s"},
        excluded_llm_metadata_keys=["secret"],
        metadata_template="{key}={value}",
        text_template="[{metadata_str}] {content}",
    )
    source = node_to_source(NodeWithScore(node=node))
    assert source.text == "[title=T] Body."
    assert source.metadata == {"title": "T", "secret": "s"}  # attributes: all the metadata
