"""LlamaIndex's peers side by side: the documented examples and the tested behaviours of
llama-index-retrievers-vertexai-search (``VertexAISearchRetriever``) and
llama-index-postprocessor-google-rerank (``GoogleRerank``), written here (not copied), run
unmodified in each peer's own virtualenv (``benchmarks/peer_venvs.py``, through
``peer_harness.py``) and, ported (the import and the class names changed, nothing else), here,
on one emulator; each test compares what the two give.

The examples: the retriever's README (a structured data store), its notebook (structured,
unstructured and website data stores, and a query engine), its options set as attributes (its
only way to take them); the reranker's README (a query engine over a vector index) and its
unit tests' cases (without their mocks). The LLM and the embeddings of the examples are
LlamaIndex's ``MockLLM`` and ``MockEmbedding``.

Skipped when a peer's virtualenv is missing: ``python -m benchmarks.peer_venvs`` creates them.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

import pytest

from benchmarks.peer_venvs import LLAMAINDEX_PEER, LLAMAINDEX_RERANK_PEER, PeerEnv
from grounding_emulator import EmulatorServer
from tests.core.peer_inputs import STRUCTURED, add_structured_data_store
from tests.migration.peer_harness import plain
from tests.migration.record_peers import run_harness

pytestmark = pytest.mark.skipif(
    not (LLAMAINDEX_PEER.ready and LLAMAINDEX_RERANK_PEER.ready),
    reason="the LlamaIndex peers' virtualenvs are missing: python -m benchmarks.peer_venvs",
)

PROJECT = "my-project"
# The peers' modules and classes, and ours: a port changes these names and nothing else.
PORT = {
    "llama_index.retrievers.vertexai_search": "llamaindex_grounding",
    "llama_index.postprocessor.google_rerank": "llamaindex_grounding",
    "VertexAISearchRetriever": "DiscoveryEngineRetriever",
    "GoogleRerank": "DiscoveryEngineReranker",
}

SETUP = f"""
from llama_index.core.llms import MockLLM
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

PROJECT_ID = "{PROJECT}"
LOCATION_ID = "global"
DATA_STORE_ID = "python-docs"
query = "How does the with statement work?"
llm = MockLLM()  # stands in for the examples' Vertex(model="gemini-1.5-pro")
results = {{}}


def nodes_of(*texts):
    return [NodeWithScore(node=TextNode(id_=str(i), text=t)) for i, t in enumerate(texts, 1)]
"""

RETRIEVER_APP = f"""
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.retrievers.vertexai_search import VertexAISearchRetriever

# The README and the notebook: a structured data store.
struct_retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID,
    data_store_id="{STRUCTURED}",
    location_id=LOCATION_ID,
    engine_data_type=1,
)
results["structured"] = struct_retriever.retrieve("li-meta")

# The notebook: an unstructured data store, and a website one.
unstruct_retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID,
    data_store_id=DATA_STORE_ID,
    location_id=LOCATION_ID,
    engine_data_type=0,
)
results["unstructured"] = unstruct_retriever.retrieve(query)
website_retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID,
    data_store_id=DATA_STORE_ID,
    location_id=LOCATION_ID,
    engine_data_type=2,
)
results["website"] = website_retriever.retrieve(query)

# The notebook's query engine (it sets Settings.llm; the LLM is given here).
query_engine = RetrieverQueryEngine.from_args(struct_retriever, llm=llm)
results["query_engine"] = query_engine.query("Tell me about Gamma")

# The options its constructor refuses, set as attributes.
answers_retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID, data_store_id=DATA_STORE_ID, location_id=LOCATION_ID
)
answers_retriever.get_extractive_answers = True
answers_retriever.max_extractive_answer_count = 2
answers_retriever.max_documents = 3
results["answers"] = answers_retriever.retrieve(query)

filtered_retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID, data_store_id=DATA_STORE_ID, location_id=LOCATION_ID
)
filtered_retriever.filter = 'category: ANY("statements")'
filtered_retriever.max_documents = 2
results["filtered"] = filtered_retriever.retrieve(query)

boosted_retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID, data_store_id=DATA_STORE_ID, location_id=LOCATION_ID
)
boosted_retriever.boost_spec = {{
    "condition_boost_specs": [{{"condition": 'category: ANY("data model")', "boost": 1.0}}]
}}
results["boosted"] = boosted_retriever.retrieve(query)

spelling_retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID, data_store_id=DATA_STORE_ID, location_id=LOCATION_ID
)
results["suggested"] = spelling_retriever.retrieve("wiht statment")
spelling_retriever.spell_correction_mode = 2
spelling_retriever.query_expansion_condition = 2
results["corrected"] = spelling_retriever.retrieve("wiht statment")
"""

RERANK_APP = """
import asyncio

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.postprocessor.google_rerank import GoogleRerank

# The README, its essay's documents written here (ranked with distinct scores: the index
# gives them in an order of its own), embedded by MockEmbedding.
documents = [
    Document(text="Sam Altman was asked to become president of Y Combinator."),
    Document(text="We painted the office and bought a used couch."),
    Document(text="Altman later ran OpenAI."),
    Document(text="In this essay Sam Altman did not appear until the end."),
]
index = VectorStoreIndex.from_documents(
    documents=documents, embed_model=MockEmbedding(embed_dim=8)
)
reranker = GoogleRerank(
    top_n=3,
    project_id=PROJECT_ID,
    model="semantic-ranker-default-004",
)
query_engine = index.as_query_engine(
    similarity_top_k=10,
    node_postprocessors=[reranker],
    llm=llm,
)
results["readme"] = query_engine.query("What did Sam Altman do in this essay?")

# Its unit tests' cases, on the emulator.
four = nodes_of("first 1", "first 2", "last 1", "last 2")
reranker = GoogleRerank(project_id=PROJECT_ID, top_n=2)
results["top_n"] = reranker.postprocess_nodes(four, query_bundle=QueryBundle(query_str="last"))
results["default_top_n"] = GoogleRerank(project_id=PROJECT_ID).postprocess_nodes(
    four, query_str="last"
)
defaults = GoogleRerank(project_id=PROJECT_ID)
results["defaults"] = [defaults.model, defaults.top_n]
results["empty"] = reranker.postprocess_nodes([], query_bundle=QueryBundle(query_str="test"))
results["clamped"] = GoogleRerank(project_id=PROJECT_ID, top_n=10).postprocess_nodes(
    nodes_of("only node"), query_str="test"
)
try:
    reranker.postprocess_nodes(nodes_of("test"))
except ValueError as error:
    results["no_query"] = str(error)
results["positional"] = GoogleRerank(
    "semantic-ranker-default-004", 1, PROJECT_ID, "global", "default_ranking_config"
).postprocess_nodes(four, query_str="last")


async def rerank_async():
    # Built in the event loop whose async client it uses.
    reranker = GoogleRerank(project_id=PROJECT_ID, top_n=2)
    nodes = nodes_of("hello world", "goodbye world")
    return await reranker.apostprocess_nodes(nodes, query_bundle=QueryBundle("goodbye"))


results["async"] = asyncio.run(rerank_async())
"""

APPS: dict[str, tuple[PeerEnv, str]] = {
    "retriever": (LLAMAINDEX_PEER, RETRIEVER_APP),
    "rerank": (LLAMAINDEX_RERANK_PEER, RERANK_APP),
}


def port(code: str) -> str:
    """The peer's ``code`` with its modules and class names replaced by ours."""
    for peer_name, ours in PORT.items():
        code = re.sub(rf"\b{re.escape(peer_name)}\b", ours, code)
    return code


@pytest.fixture(scope="module")
def side_by_side(
    builtin_emulator: EmulatorServer,
) -> dict[str, tuple[dict[str, Any], dict[str, Any], list[str]]]:
    """Per app: the peer's ``results`` (plain data), ours (plain data too) and the
    deprecation warnings ours raised."""
    address = builtin_emulator.address
    add_structured_data_store(address, PROJECT)
    runs = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DISCOVERYENGINE_EMULATOR_HOST", address)
        for name, (env, app) in APPS.items():
            blocks = [{"line": 1, "code": SETUP}, {"line": 1, "code": app}]
            command = {"address": address, "blocks": blocks, "file": f"<{name} app>"}
            peer = run_harness(env, command)["results"]
            namespace: dict[str, Any] = {"__name__": f"ported_{name}_app"}
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                exec(compile(SETUP, "<setup>", "exec"), namespace)
                exec(compile(port(app), f"<ported {name} app>", "exec"), namespace)
            ours = plain(namespace["results"])
            warned = [str(w.message) for w in caught if w.category is DeprecationWarning]
            runs[name] = (peer, ours, warned)
    return runs


def _texts(nodes: list[dict[str, Any]]) -> list[str]:
    return [n["text"] for n in nodes]


def test_the_port_changes_the_import_and_the_class_names_only():
    assert port("from llama_index.postprocessor.google_rerank import GoogleRerank") == (
        "from llamaindex_grounding import DiscoveryEngineReranker"
    )
    changed = [
        (peer, ours)
        for peer, ours in zip(
            RETRIEVER_APP.splitlines(), port(RETRIEVER_APP).splitlines(), strict=True
        )
        if peer != ours
    ]
    assert changed
    assert all("llamaindex_grounding" in o or "DiscoveryEngineRetriever" in o for _, o in changed)


def test_the_structured_data_store_gives_the_peers_json_texts_with_the_documents_ids(
    side_by_side,
):
    peer, ours, warned = side_by_side["retriever"]
    # JSON both, the same struct data (its keys in the order of each side's protobuf runtime).
    assert [json.loads(t) for t in _texts(ours["structured"])] == [
        json.loads(t) for t in _texts(peer["structured"])
    ]
    assert [n["id"] for n in ours["structured"]] == ["li-meta-delta", "li-meta-gamma"]
    # llama_index #21933: the document id as the node id and in metadata, the struct data.
    gamma = ours["structured"][1]
    assert (gamma["metadata"]["id"], gamma["metadata"]["title"]) == ("li-meta-gamma", "Gamma")
    assert gamma["metadata"]["case_id"] == "RUN"
    assert gamma["metadata"]["document_name"].endswith("/documents/li-meta-gamma")
    # The peer scores structured results by rank, (n - i) / n; ours have no score: Google
    # gives none to a structured result.
    assert [n["score"] for n in peer["structured"]] == [1.0, 0.5]
    assert [n["score"] for n in ours["structured"]] == [None, None]
    assert any("`engine_data_type=1` is `search_mode='documents'`" in w for w in warned)


@pytest.mark.parametrize("case", ["unstructured", "website", "filtered", "boosted", "corrected"])
def test_the_searches_give_the_peers_texts_and_scores(side_by_side, case):
    peer, ours, _ = side_by_side["retriever"]
    assert peer[case], "the peer found nothing: the comparison would prove nothing"
    assert _texts(ours[case]) == _texts(peer[case])
    assert [n["score"] for n in ours[case]] == pytest.approx([n["score"] for n in peer[case]])


def test_an_unknown_spelling_finds_nothing_under_the_peers_suggestion_only_mode(side_by_side):
    peer, ours, _ = side_by_side["retriever"]
    assert peer["suggested"] == ours["suggested"] == []
    assert ours["corrected"]


def test_the_attributes_configure_the_search_as_the_peers(side_by_side):
    peer, ours, _ = side_by_side["retriever"]
    assert len(peer["filtered"]) == len(ours["filtered"]) == 2
    assert [n["metadata"]["struct_data"]["category"] for n in ours["filtered"]] == [
        "statements"
    ] * 2
    assert ours["boosted"][0]["metadata"]["struct_data"]["category"] == "data model"


def test_extractive_answers_are_the_peers_one_node_per_result(side_by_side):
    peer, ours, _ = side_by_side["retriever"]
    # The peer: one node per answer (two per result here); ours: one per result, its answers
    # joined by a blank line, in the peer's order.
    assert len(peer["answers"]) > len(ours["answers"]) == 3
    assert "\n\n".join(_texts(ours["answers"])) == "\n\n".join(_texts(peer["answers"]))


def test_the_query_engine_answers_from_the_peers_nodes(side_by_side):
    peer, ours, _ = side_by_side["retriever"]
    sources = peer["query_engine"]["source_nodes"]
    assert sources
    ours_sources = ours["query_engine"]["source_nodes"]
    assert [json.loads(t) for t in _texts(ours_sources)] == [json.loads(t) for t in _texts(sources)]


@pytest.mark.parametrize(
    "case", ["readme", "top_n", "default_top_n", "clamped", "positional", "async"]
)
def test_the_reranker_gives_the_peers_nodes_and_scores(side_by_side, case):
    peer, ours, _ = side_by_side["rerank"]
    peer_nodes = peer[case]["source_nodes"] if case == "readme" else peer[case]
    our_nodes = ours[case]["source_nodes"] if case == "readme" else ours[case]
    assert peer_nodes
    assert _texts(our_nodes) == _texts(peer_nodes)
    assert [n["score"] for n in our_nodes] == pytest.approx([n["score"] for n in peer_nodes])
    if case != "readme":  # the index's node ids are random
        assert [n["id"] for n in our_nodes] == [n["id"] for n in peer_nodes]


def test_the_reranker_has_the_peers_defaults_and_error(side_by_side):
    peer, ours, _ = side_by_side["rerank"]
    assert ours["defaults"] == peer["defaults"] == ["semantic-ranker-default-004", 2]
    assert ours["empty"] == peer["empty"] == []
    assert ours["no_query"].startswith(peer["no_query"])
    assert [n["text"] for n in peer["top_n"]] == ["last 1", "last 2"]
