"""Every source of every answer has its own id, and a declined answer says so (issue 16,
point 12), through the core against the emulator."""

from __future__ import annotations

import hashlib

from grounding_core import (
    EMPTY_ANSWER,
    AnswerSpec,
    DeveloperKnowledgeClients,
    DiscoveryEngineTarget,
    SummarySpec,
    aanswer_developer_query,
    answer_developer_query,
    answer_query,
    search_summary,
)
from tests.conftest import PROJECT
from tests.developer_corpus import BOTH, CREATE, NOTHING, PARENT, REMOVE, two_chunk_emulator

__all__ = ["two_chunk_emulator"]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_two_chunks_of_one_document_have_two_names(two_chunk_emulator):
    clients = DeveloperKnowledgeClients(emulator_host=two_chunk_emulator.address)
    answer = answer_developer_query(clients, BOTH)
    assert answer.answer_text == f"{CREATE} {REMOVE}"
    first, second = answer.references
    assert (first.document_name, second.document_name) == (PARENT, PARENT)
    assert first.name == f"{PARENT}#{digest(first.content)}"
    assert second.name == f"{PARENT}#{digest(second.content)}"
    assert first.name != second.name
    assert (first.id, second.id) == ("", "")  # Google sends no chunk id in references
    # Each citation resolves to the chunk it cites, told apart by name.
    assert [c.text for c in answer.citations] == [CREATE, REMOVE]
    assert [c.references for c in answer.citations] == [(first,), (second,)]
    assert CREATE in first.content
    assert REMOVE in second.content


async def test_the_names_are_stable_across_calls(two_chunk_emulator):
    clients = DeveloperKnowledgeClients(emulator_host=two_chunk_emulator.address)
    again = await aanswer_developer_query(clients, BOTH)
    once = answer_developer_query(clients, BOTH)
    assert [r.name for r in again.references] == [r.name for r in once.references]
    await clients.aclose()


def test_a_declined_developer_answer_says_so(two_chunk_emulator):
    clients = DeveloperKnowledgeClients(emulator_host=two_chunk_emulator.address)
    answer = answer_developer_query(clients, NOTHING)
    assert (answer.answer_text, answer.citations, answer.references) == ("", (), ())
    assert answer.skipped
    assert answer.skipped_reasons == (EMPTY_ANSWER,)
    assert answer.state == "SUCCEEDED"


def test_a_discovery_engine_answer_keeps_the_service_reasons(de_clients):
    engine = DiscoveryEngineTarget(project=PROJECT, engine="python-docs-app")
    answer = answer_query(de_clients, engine, NOTHING)
    assert answer.skipped_reasons == ("NO_RELEVANT_CONTENT",)  # not EMPTY_ANSWER on top


def test_discovery_engine_answers_and_summaries_name_every_source_once(de_clients, test_target):
    spec = AnswerSpec(search_mode="chunks", max_return_results=6)
    answer = answer_query(de_clients, test_target, "lighthouse keeper logbook stairs", spec)
    names = [r.name for r in answer.references]
    assert len(names) >= 2
    assert len(set(names)) == len(names)
    assert all("/chunks/" in name for name in names)  # the chunk resource names, as sent
    summary = search_summary(
        de_clients, test_target, "lighthouse keeper logbook stairs", SummarySpec(result_count=5)
    )
    summary_names = [r.name for r in summary.references]
    assert summary_names
    assert len(set(summary_names)) == len(summary_names)
