"""DiscoveryEngineReranker: a node postprocessor over the Ranking API, in a query engine over
our retriever, sync and async, against the emulator; llama-index-postprocessor-google-rerank's
``GoogleRerank`` arguments (order and defaults), its error without a query and its events."""

import pytest
from google.cloud import discoveryengine_v1 as de
from llama_index.core.llms import MockLLM
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from grounding_core import ConfigurationError, InputError
from llamaindex_grounding import DiscoveryEngineReranker, DiscoveryEngineRetriever
from tests.llamaindex.conftest import span_names

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


def test_bad_settings(emulator):
    with pytest.raises(ConfigurationError, match="top_n must be at least 1"):
        reranker(emulator, top_n=0)
    with pytest.raises(TypeError, match="top_k"):
        reranker(emulator, top_k=3)
    with pytest.raises(TypeError, match="unknown argument 'title_fields'"):
        reranker(emulator, title_fields=("title",))


def test_googlereranks_defaults(emulator):
    built = reranker(emulator)
    assert (built.model, built.top_n) == ("semantic-ranker-default-004", 2)
    assert (built.ranking.spec.model, built.ranking.spec.top_n) == (built.model, built.top_n)
    nodes = [NodeWithScore(node=TextNode(text=f"Open file {i}.")) for i in range(3)]
    assert len(reranker(emulator).postprocess_nodes(nodes, query_str="open a file")) == 2
    assert len(reranker(emulator, top_n=None).postprocess_nodes(nodes, query_str="file")) == 3


def test_googlereranks_positional_arguments(emulator):
    # GoogleRerank(model, top_n, project_id, location, ranking_config, credentials)
    built = DiscoveryEngineReranker(
        "semantic-ranker-fast-004", 1, PROJECT, "eu", "my_config", None,
        emulator_host=emulator.address,
    )  # fmt: skip
    assert (built.ranking.spec.model, built.ranking.spec.top_n) == ("semantic-ranker-fast-004", 1)
    config = f"projects/{PROJECT}/locations/eu/rankingConfigs/my_config"
    assert built.ranking.ranking_config == config
    with pytest.raises(TypeError, match=r"at most 6 positional arguments \(model, top_n, "):
        DiscoveryEngineReranker("m", 1, PROJECT, "eu", "c", None, "extra")
    with pytest.raises(TypeError, match="multiple values for keyword argument 'top_n'"):
        DiscoveryEngineReranker("m", 1, top_n=2)


def test_a_positional_project_is_not_overridden_by_the_peers_variable(emulator, monkeypatch):
    for name in ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PROJECT_ID", "from-the-variable")
    built = DiscoveryEngineReranker(
        "semantic-ranker-default-004", 2, PROJECT, emulator_host=emulator.address
    )
    assert built.ranking.ranking_config.startswith(f"projects/{PROJECT}/")


def test_model_and_top_n_are_settable_as_googlereranks_fields(emulator):
    built = reranker(emulator)
    built.top_n, built.model = 1, "semantic-ranker-fast-004"
    assert (built.ranking.spec.top_n, built.ranking.spec.model) == (1, "semantic-ranker-fast-004")
    nodes = [NodeWithScore(node=TextNode(text=t)) for t in ("Birds sing.", "Open a file.")]
    assert len(built.postprocess_nodes(nodes, query_str="open a file")) == 1
    with pytest.raises(ConfigurationError, match="top_n must be at least 1") as raised:
        built.top_n = 0
    with pytest.raises(ConfigurationError) as constructed:
        reranker(emulator, top_n=0)
    assert str(raised.value) == str(constructed.value)
    assert built.top_n == 1


@pytest.mark.parametrize("nodes", [[], [NodeWithScore(node=TextNode(text="x"))]], ids=len)
async def test_without_a_query_googlereranks_error(emulator, nodes):
    postprocessor = reranker(emulator)
    with pytest.raises(ValueError, match=r"^Missing query bundle in extra info\. ") as info:
        postprocessor.postprocess_nodes(nodes)
    with pytest.raises(ValueError, match=r"^Missing query bundle in extra info\. ") as ainfo:
        await postprocessor.apostprocess_nodes(nodes)
    for error in (info.value, ainfo.value):
        assert isinstance(error, InputError)
        assert error.field == "query_bundle"
        assert "pass query_str= or query_bundle=" in str(error)
    assert postprocessor.postprocess_nodes([], query_str="q") == []


def test_nodes_are_ranked_on_their_embedding_text(emulator):
    # The title reaches the ranking where the node shows it to embeddings, and only there.
    def node(excluded):
        return TextNode(
            text="It was built in 1889.",
            metadata={"title": "Eiffel Tower"},
            excluded_embed_metadata_keys=excluded,
        )

    shown, hidden = node([]), node(["title"])
    ranked = reranker(emulator, top_n=None).postprocess_nodes(
        [NodeWithScore(node=hidden), NodeWithScore(node=shown)], query_str="Eiffel Tower"
    )
    assert [n.node.node_id for n in ranked] == [shown.node_id, hidden.node_id]
    assert ranked[0].score > ranked[1].score
    assert ranked[0].node is shown  # the same node, its metadata untouched


async def test_the_rerank_events_and_spans(emulator, instrumentation):
    events, spans = instrumentation
    nodes = [NodeWithScore(node=TextNode(text=t)) for t in ("Birds sing.", "Open a file.")]
    query = QueryBundle("open a file")
    postprocessor = reranker(emulator, top_n=1)
    ranked = postprocessor.postprocess_nodes(nodes, query_bundle=query)
    aranked = await postprocessor.apostprocess_nodes(nodes, query_bundle=query)
    rerank_events = [e for e in events.events if e.class_name().startswith("ReRank")]
    assert [e.class_name() for e in rerank_events] == ["ReRankStartEvent", "ReRankEndEvent"] * 2
    start, end = rerank_events[:2]
    assert (start.query, start.nodes, start.top_n, start.model_name) == (
        query,
        nodes,
        1,
        "semantic-ranker-default-004",
    )
    assert end.nodes == ranked == aranked
    names = span_names(spans)
    assert "DiscoveryEngineReranker._postprocess_nodes" in names
    assert "DiscoveryEngineReranker._apostprocess_nodes" in names
