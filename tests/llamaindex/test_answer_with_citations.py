"""LlamaIndex gets ``answer_with_citations`` through the core report that ``GroundedQueryEngine``
merges into ``response.metadata["grounding_report"]`` (issue #17), sync and async."""

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.query_engine import RetrieverQueryEngine

from llamaindex_grounding import DiscoveryEngineRetriever, GroundedQueryEngine

from .conftest import PROJECT, UNSUPPORTED, ContextEchoLLM

QUESTION = "lighthouse keeper number 131"
KEEPER = "Section 1 of document 13 talks about the lighthouse keeper number 131."


def engine(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        similarity_top_k=2,
    )
    inner = RetrieverQueryEngine.from_args(retriever, llm=ContextEchoLLM(extra=UNSUPPORTED))
    return GroundedQueryEngine(inner, project_id=PROJECT, emulator_host=emulator.address)


def assert_marked(response):
    report = response.metadata["grounding_report"]
    # The sources given to the check are the response's source nodes; the first is cited.
    assert report.sources == tuple(response.source_nodes)
    assert report.claims[0].sources == (response.source_nodes[0],)
    assert response.response == f"{KEEPER} {UNSUPPORTED}"
    assert report.answer_with_citations == f"{KEEPER}[0] {UNSUPPORTED}"
    assert "answer_with_citations" not in response.metadata["grounding"]


def test_class():
    assert BaseQueryEngine in GroundedQueryEngine.__mro__


def test_the_query_engines_report_has_the_answer_with_citations(emulator):
    assert_marked(engine(emulator).query(QUESTION))


async def test_async(emulator):
    assert_marked(await engine(emulator).aquery(QUESTION))
