"""One metadata schema for chunks: the same search through LangChain and LlamaIndex gives the
same ids, texts and metadata, key by key, and the keys docs/metadata.md lists."""

import json
import re
from pathlib import Path

import pytest

import langchain_grounding as lc
import llamaindex_grounding as li
from grounding_core import SourceChunk, chunk_metadata

from .same import assert_same, node_id

PROJECT = "test-project"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "metadata.md"


def documented_chunk_keys() -> set[str]:
    """The keys of the "Retrieved chunks" table of docs/metadata.md."""
    section = DOCS.read_text(encoding="utf-8").split("## Retrieved chunks", 1)[1]
    section = section.split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return {key for row in rows for key in re.findall(r"`(\w+)`", row.split("|")[1])}


CHUNK_KEYS = documented_chunk_keys()


def test_the_documented_schema_is_the_core_schema():
    assert set(chunk_metadata(SourceChunk(name="n", content="c"))) == CHUNK_KEYS
    assert {"source", "id", "chunk_name", "previous_chunks", "next_chunks"} <= CHUNK_KEYS


def assert_one_schema(documents, nodes):
    """LangChain's documents and LlamaIndex's nodes of the same chunks agree key by key."""
    assert documents, "the search found nothing: the comparison would prove nothing"
    assert [node_id(d) for d in documents] == [n.node.node_id for n in nodes]
    for document, hit in zip(documents, nodes, strict=True):
        node = hit.node
        assert document.page_content == node.text
        assert_same(document.metadata, node.metadata, f"chunk {document.id}")
        assert set(document.metadata) == CHUNK_KEYS
        assert document.id == document.metadata["chunk_name"]
        assert hit.score == document.metadata["relevance_score"]
        assert json.loads(json.dumps(document.metadata)) == document.metadata
        # LlamaIndex's own additions: what reaches its prompts, and the links between nodes
        assert set(node.excluded_llm_metadata_keys) == set(node.excluded_embed_metadata_keys)
        assert set(node.metadata) - set(node.excluded_llm_metadata_keys) <= {
            "title",
            "source",
            "description",
        }


@pytest.mark.parametrize(
    ("target", "options", "query"),
    [
        (
            {"data_store_id": "test-docs"},
            {"num_previous_chunks": 1, "num_next_chunks": 2},
            "ordinal marker number 3 of six",
        ),
        ({"data_store_id": "test-docs"}, {"filter": 'group: ANY("odd")'}, "lighthouse keeper"),
        ({"data_store_id": "test-docs"}, {}, "東京都は日本の首都"),
        ({"engine_id": "test-app"}, {"search_mode": "documents"}, "Cape Canaveral 🚀"),
        ({"data_store_id": "python-docs"}, {}, "How does the with statement work?"),
    ],
    ids=["neighbours", "filter", "non-ascii", "documents-mode", "python-docs"],
)
def test_discovery_engine_chunks_have_one_schema(emulator, target, options, query):
    connection = {"project_id": PROJECT, "emulator_host": emulator.address, **target, **options}
    documents = lc.DiscoveryEngineRetriever(k=3, **connection).invoke(query)
    nodes = li.DiscoveryEngineRetriever(similarity_top_k=3, **connection).retrieve(query)
    assert_one_schema(documents, nodes)


def test_the_schema_holds_what_the_options_asked_for(emulator):
    connection = {"project_id": PROJECT, "emulator_host": emulator.address}
    options = {"data_store_id": "test-docs", "num_previous_chunks": 1, "num_next_chunks": 2}
    (document,) = lc.DiscoveryEngineRetriever(k=1, **connection, **options).invoke(
        "ordinal marker number 3 of six"
    )
    metadata = document.metadata
    assert metadata["document_id"] == metadata["id"] == "sequence"
    assert metadata["chunk_id"] == "c3"
    assert [c["id"] for c in metadata["previous_chunks"]] == ["c2"]
    assert [c["id"] for c in metadata["next_chunks"]] == ["c4", "c5"]
    assert metadata["struct_data"] == {"lang": "en", "group": "sequence"}


async def test_async_retrieval_has_the_same_schema(emulator):
    connection = {"project_id": PROJECT, "emulator_host": emulator.address}
    documents = await lc.DiscoveryEngineRetriever(
        data_store_id="test-docs", k=4, **connection
    ).ainvoke("lighthouse keeper number 241")
    nodes = await li.DiscoveryEngineRetriever(
        data_store_id="test-docs", similarity_top_k=4, **connection
    ).aretrieve("lighthouse keeper number 241")
    assert_one_schema(documents, nodes)
    assert documents[0].metadata["document_id"] == "page-24"


@pytest.mark.parametrize(
    ("filter", "query"),
    [("", "How does the for statement iterate?"), ('data_source = "docs.python.org"', "yield")],
)
def test_developer_knowledge_chunks_have_one_schema(emulator, filter, query):
    host = emulator.address
    documents = lc.DeveloperKnowledgeRetriever(k=3, filter=filter, emulator_host=host).invoke(query)
    nodes = li.DeveloperKnowledgeRetriever(
        similarity_top_k=3, filter=filter, emulator_host=host
    ).retrieve(query)
    assert len(documents) == 3
    assert_one_schema(documents, nodes)
    assert {d.metadata["data_source"] for d in documents} == {"docs.python.org"}
    assert all(d.metadata["update_time"] for d in documents)
