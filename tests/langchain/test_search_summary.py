"""DiscoveryEngineSummary (a search summary as a Runnable) against the emulator."""

import pytest
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda, RunnableSerializable
from pydantic import ValidationError

from grounding_core import (
    ChunkSearchSpec,
    DiscoveryEngineSearchSummary,
    InputError,
    SummarySpec,
    answer_markdown,
)
from langchain_grounding import DiscoveryEngineAnswer, DiscoveryEngineSummary

from .conftest import core_error

PROJECT = "test-project"
FALLBACK = "A summary could not be generated for your search query. Here are some search results."


def check_citations(out):
    answer = out["answer"]
    encoded = answer.encode()
    assert out["citations"]
    for citation in out["citations"]:
        assert answer[citation["start"] : citation["end"]] == citation["text"]
        assert encoded[citation["byte_start"] : citation["byte_end"]].decode() == citation["text"]
        assert citation["reference_indices"]
        ids = [out["documents"][i].id for i in citation["reference_indices"]]
        assert citation["source_ids"] == ids
    record = out["grounded_answer"]
    assert record.answer_text == answer
    assert all(isinstance(d, Document) for d in out["documents"])
    assert [d.id for d in out["documents"]] == [r.name for r in record.references]
    assert out["skipped_reasons"] == []


def test_class():
    assert RunnableSerializable in DiscoveryEngineSummary.__mro__


def test_summary_output_is_the_answer_output(emulator):
    summarizer = DiscoveryEngineSummary(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )
    assert isinstance(summarizer.answering, DiscoveryEngineSearchSummary)
    assert summarizer.answering.spec == SummarySpec()
    assert summarizer.target.data_store == "test-docs"
    out = summarizer.invoke("東京 首都")
    assert out["query"] == "東京 首都"
    assert out["answer"] == (
        "東京都は日本の首都です。 東京タワーは一九五八年に完成しました。 北京是中国的首都。"
    )
    check_citations(out)
    assert [(c["start"], c["byte_start"]) for c in out["citations"]] == [(0, 0), (13, 37), (33, 95)]
    assert [d.metadata["source"] for d in out["documents"]] == [
        "https://example.jp/tokyo",
        "https://example.cn/beijing",
    ]
    # The same keys as DiscoveryEngineAnswer's output: one schema for both.
    answer_out = DiscoveryEngineAnswer(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    ).invoke("東京 首都")
    assert out.keys() == answer_out.keys()
    assert out["grounding_score"] is None
    assert answer_markdown(out["grounded_answer"]).startswith("東京都は日本の首都です。[1]")


async def test_async_in_a_chain_with_options(emulator):
    summarizer = DiscoveryEngineSummary(
        project_id=PROJECT,
        engine_id="test-app",
        emulator_host=emulator.address,
        search={"search_mode": "documents", "filter": 'lang: ANY("en")'},
        result_count=3,
    )
    assert summarizer.answering.search == ChunkSearchSpec(
        search_mode="documents", filter='lang: ANY("en")'
    )
    chain = RunnableLambda(lambda q: {"question": q}) | summarizer
    out = await chain.ainvoke("Rockets launch crew")
    check_citations(out)
    assert "👩‍🚀👨‍🚀" in out["answer"]
    assert out["documents"][0].metadata["source"] == "https://example.com/rockets"


def test_skipped_summary(emulator):
    summarizer = DiscoveryEngineSummary(
        project_id=PROJECT,
        data_store_id="python-docs",
        emulator_host=emulator.address,
        ignore_non_summary_seeking_query=True,
    )
    out = summarizer.invoke("hello")
    assert out["answer"] == FALLBACK
    assert out["skipped_reasons"] == ["NON_SUMMARY_SEEKING_QUERY_IGNORED"]
    assert (out["citations"], out["documents"]) == ([], [])


@pytest.mark.parametrize(
    ("kwargs", "field", "limit"),
    [
        ({"result_count": 51}, "result_count", 50),
        ({"result_count": 11, "search": {"search_mode": "documents"}}, "result_count", 10),
        ({"search": {"k": 0}}, "k", None),
        ({"search": {"filtre": "x"}}, "search.filtre", None),
        ({"search": "lang"}, "search", None),
    ],
)
def test_bad_options(emulator, kwargs, field, limit):
    with pytest.raises(ValidationError) as info:
        DiscoveryEngineSummary(
            project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address, **kwargs
        )
    error = core_error(info.value)
    assert (type(error), error.field, error.limit) == (InputError, field, limit)


def test_bad_query(emulator):
    summarizer = DiscoveryEngineSummary(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )
    with pytest.raises(InputError, match="expected the query") as info:
        summarizer.invoke(42)
    assert info.value.field == "query"


def test_every_summary_and_search_option_reaches_the_core(emulator):
    search = ChunkSearchSpec(search_mode="documents", return_snippet=True, language_code="en")
    summarizer = DiscoveryEngineSummary(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        model_version="preview",
        use_semantic_chunks=True,
        language_code="fr",
        search=search,
    )
    assert summarizer.answering.spec == SummarySpec(
        model_version="preview", use_semantic_chunks=True, language_code="fr"
    )
    assert summarizer.answering.search is search
