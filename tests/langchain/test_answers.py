"""DiscoveryEngineAnswer and DeveloperKnowledgeAnswer against the emulator."""

import pytest
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda

from grounding_core import InputError, answer_markdown
from langchain_grounding import DeveloperKnowledgeAnswer, DiscoveryEngineAnswer

PROJECT = "test-project"


def check_citations(out):
    answer = out["answer"]
    assert out["citations"]
    for citation in out["citations"]:
        assert answer[citation["start"] : citation["end"]] == citation["text"]
        assert (
            answer.encode()[citation["byte_start"] : citation["byte_end"]].decode()
            == (citation["text"])
        )
        assert citation["reference_indices"]
        for index in citation["reference_indices"]:
            assert isinstance(out["documents"][index], Document)
        ids = [out["documents"][i].id for i in citation["reference_indices"]]
        assert citation["source_ids"] == ids
    record = out["grounded_answer"]
    assert record.answer_text == answer
    assert [d.id for d in out["documents"]] == [r.name for r in record.references]
    assert out["grounding_score"] == record.grounding_score
    assert out["skipped_reasons"] == list(record.skipped_reasons) == []


def test_discovery_engine_answer(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT, engine_id="python-docs-app", emulator_host=emulator.address
    )
    out = answerer.invoke("What does the with statement do?")
    assert out["query"] == "What does the with statement do?"
    assert "with" in out["answer"]
    check_citations(out)
    assert all(
        d.metadata["source"].startswith("https://docs.python.org/") for d in out["documents"]
    )
    record = out["grounded_answer"]
    assert record.grounding_score is not None
    assert out["grounding_supports"] == []  # only with include_grounding_supports
    assert out["state"] == "SUCCEEDED"
    assert "**Sources**" in answer_markdown(record)


def test_grounding_supports_on_request(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        include_grounding_supports=True,
        filter="rank = 3",
    )
    out = answerer.invoke("lighthouse keeper logbook")
    check_citations(out)
    assert out["grounding_supports"]
    for support in out["grounding_supports"]:
        assert out["answer"][support["start"] : support["end"]] == support["text"]
        assert support["source_ids"] == [
            out["documents"][i].id for i in support["reference_indices"]
        ]
        assert 0.0 <= support["score"] <= 1.0


def test_discovery_engine_answer_non_ascii(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )
    out = answerer.invoke({"question": "東京都は日本の首都ですか"})
    assert "東京" in out["answer"]
    check_citations(out)


async def test_discovery_engine_answer_async_in_a_chain(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT, engine_id="test-app", emulator_host=emulator.address
    )
    chain = RunnableLambda(lambda q: {"query": q}) | answerer
    out = await chain.ainvoke("Which keeper has number 245?")
    assert "245" in out["answer"]
    check_citations(out)


def test_no_answer_found(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )
    out = answerer.invoke("zeppelin quasar xylophone")
    assert out["grounded_answer"].skipped
    assert out["skipped_reasons"] == list(out["grounded_answer"].skipped_reasons)
    assert out["skipped_reasons"]
    assert out["citations"] == []
    assert out["documents"] == []


def test_developer_knowledge_answer(emulator):
    out = DeveloperKnowledgeAnswer(emulator_host=emulator.address).invoke(
        "How does a for loop iterate over a sequence?"
    )
    check_citations(out)
    assert out["documents"][0].id.startswith("documents/docs.python.org/")


async def test_developer_knowledge_answer_async(emulator):
    out = await DeveloperKnowledgeAnswer(emulator_host=emulator.address).ainvoke(
        {"input": "What is a lambda expression?"}
    )
    check_citations(out)


@pytest.mark.parametrize("value", [42, {"nothing": "here"}, None])
def test_bad_queries(emulator, value):
    with pytest.raises(InputError, match="expected the query"):
        DeveloperKnowledgeAnswer(emulator_host=emulator.address).invoke(value)
