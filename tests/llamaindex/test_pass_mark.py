"""Every LlamaIndex component takes the core's pass mark: one made-up sentence fails."""

from __future__ import annotations

from llama_index.core.query_engine import CustomQueryEngine

from grounding_core import DEFAULT_MIN_SUPPORT_SCORE
from llamaindex_grounding import GroundedQueryEngine, GroundingEvaluator

PARIS = "Paris is the capital of France."


class _Echo(CustomQueryEngine):
    def custom_query(self, query_str: str) -> str:
        return query_str


def test_every_component_takes_the_cores_default(emulator):
    connection = {"project_id": "p", "emulator_host": emulator.address}
    engine = GroundedQueryEngine(_Echo(), **connection)
    evaluator = GroundingEvaluator(**connection)
    assert engine.min_support_score == evaluator.min_support_score == DEFAULT_MIN_SUPPORT_SCORE
    assert DEFAULT_MIN_SUPPORT_SCORE == 1.0


def test_one_unsupported_claim_fails_by_default(emulator):
    evaluator = GroundingEvaluator(project_id="p", emulator_host=emulator.address)
    result = evaluator.evaluate(
        response=f"{PARIS} {PARIS} The Moon is made of cheese.", contexts=[PARIS]
    )
    assert result.passing is False
    assert result.feedback == (
        "Support score 0.67, below the minimum 1.00: 1 of 3 checked claims have no support:\n"
        "- The Moon is made of cheese."
    )
