"""The flat layout is one schema too: the same search through LangChain and LlamaIndex with
``metadata_layout="flat"`` gives the same ids, texts and metadata, key by key."""

from __future__ import annotations

import pytest

import langchain_grounding as lc
import llamaindex_grounding as li
from grounding_core import SourceChunk, chunk_metadata
from tests.content_corpus import CONTENT_DATA_STORE, FLAT_STRUCT, QUERY, content_server_fixture

from .same import assert_same, node_id
from .test_chunk_metadata_schema import CHUNK_KEYS

server = content_server_fixture()


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"search_mode": "documents", "document_text": "snippets"},
        {"search_mode": "documents", "max_extractive_answer_count": 1},
    ],
    ids=["chunks", "documents-snippets", "documents-answers"],
)
def test_both_frameworks_give_the_same_flat_metadata(server, options):
    connection = {
        "project_id": "test-project",
        "data_store_id": CONTENT_DATA_STORE,
        "emulator_host": server.address,
        "metadata_layout": "flat",
        **options,
    }
    documents = lc.DiscoveryEngineRetriever(k=4, **connection).invoke(QUERY)
    nodes = li.DiscoveryEngineRetriever(similarity_top_k=4, **connection).retrieve(QUERY)
    assert len(documents) == 4
    assert [node_id(d) for d in documents] == [n.node.node_id for n in nodes]
    for document, hit in zip(documents, nodes, strict=True):
        assert document.page_content == hit.node.text
        assert_same(document.metadata, hit.node.metadata, f"chunk {document.id}")
        document_id = document.metadata["document_id"]
        assert set(document.metadata) == CHUNK_KEYS | {"id"} | set(FLAT_STRUCT[document_id])


def test_the_flat_keys_are_the_documented_keys_plus_id():
    chunk = SourceChunk(name="n", content="c", struct_data={"extra": 1, "title": "t"})
    assert set(chunk_metadata(chunk, "flat")) == CHUNK_KEYS | {"id", "extra"}
