"""DiscoveryEngineReranker: a node postprocessor over the Ranking API, in a query engine over
our retriever, sync and async, against the emulator."""

import pytest
from google.cloud import discoveryengine_v1 as de
from llama_index.core.llms import MockLLM
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from grounding_core import ConfigurationError, InputError
from llamaindex_grounding import DiscoveryEngineReranker, DiscoveryEngineRetriever

PROJECT = "test-project"
QUERY = "How does the with statement work?"
WITH = "https://docs.python.org/3.11/reference/compound_stmts.html#with"


def reranker(emulator, **kwargs):
    return DiscoveryEngineReranker(project_id=PROJECT, emulator_host=emulator.address, **kwargs)


def test_class():
    assert BaseNodePostprocessor in DiscoveryEngineReranker.__mro__
    assert DiscoveryEngineReranker.class_name() == "DiscoveryEngineReranker"


async def test_in_a_query_engine(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="python-docs",
        similarity_top_k=20,
        emulator_host=emulator.address,
    )
    postprocessor = reranker(emulator, top_n=3)
    assert isinstance(postprocessor, BaseNodePostprocessor)
    engine = RetrieverQueryEngine.from_args(
        retriever, llm=MockLLM(), node_postprocessors=[postprocessor]
    )
    response = engine.query(QUERY)
    nodes = response.source_nodes
    assert len(nodes) == 3
    assert nodes[0].node.metadata["source"] == WITH
    scores = [n.score for n in nodes]
    assert scores == sorted(scores, reverse=True)
    originals = {n.node.node_id: n.node for n in retriever.retrieve(QUERY)}
    for item in nodes:
        assert item.node.metadata == originals[item.node.node_id].metadata
    aresponse = await engine.aquery(QUERY)
    assert [(n.node.node_id, n.score) for n in aresponse.source_nodes] == [
        (n.node.node_id, n.score) for n in nodes
    ]


async def test_async_runs_on_the_async_client(emulator, monkeypatch):
    nodes = [
        NodeWithScore(node=TextNode(text="Birds sing.", id_="b", metadata={"title": "Birds"})),
        NodeWithScore(node=TextNode(text="Use open() to open a file.", id_="f")),
    ]

    def no_sync(*args, **kwargs):
        raise AssertionError("the sync client was used by apostprocess_nodes")

    monkeypatch.setattr(de.RankServiceClient, "rank", no_sync)
    ranked = await reranker(emulator).apostprocess_nodes(nodes, query_str="open a file")
    assert [n.node.node_id for n in ranked] == ["f", "b"]
    assert ranked[1].node.metadata == {"title": "Birds"}


def test_bad_settings_and_inputs(emulator):
    with pytest.raises(ConfigurationError, match="top_n must be at least 1"):
        reranker(emulator, top_n=0)
    with pytest.raises(TypeError, match="top_k"):
        reranker(emulator, top_k=3)
    node = NodeWithScore(node=TextNode(text="x"))
    with pytest.raises(InputError, match="needs the query") as info:
        reranker(emulator).postprocess_nodes([node])
    assert info.value.field == "query_bundle"
    assert reranker(emulator).postprocess_nodes([], query_str="q") == []


def test_title_fields_are_metadata_keys(emulator):
    for bad in ("title", ["title", 3]):
        with pytest.raises(
            ConfigurationError, match="title_fields must be a sequence of metadata keys"
        ):
            reranker(emulator, title_fields=bad)
