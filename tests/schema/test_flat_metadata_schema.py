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
        {"search_mode": "documents", "max_extractive_segment_count": 1, "num_next_segments": 1},
    ],
    ids=["chunks", "documents-snippets", "documents-answers", "documents-segments"],
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
        segments = document.metadata["derived_struct_data"].get("extractive_segments")
        neighbours = {"previous_segments", "next_segments"} if segments else set()
        assert set(document.metadata) == CHUNK_KEYS | neighbours | set(FLAT_STRUCT[document_id])
        if segments:
            assert document.metadata["next_segments"] == segments[0].get("next_segments", [])
            assert document.metadata["previous_segments"] == []


def test_the_flat_keys_are_the_documented_keys_and_the_struct_data_keys():
    chunk = SourceChunk(name="n", content="c", struct_data={"extra": 1, "title": "t"})
    assert set(chunk_metadata(chunk, "flat")) == CHUNK_KEYS | {"extra"}


@pytest.mark.parametrize(
    ("segments", "neighbours"),
    [
        ([], {}),
        ([{"content": "s"}], {"previous_segments": [], "next_segments": []}),
        (
            [{"content": "s", "previous_segments": [{"content": "p"}]}, {"content": "t"}],
            {"previous_segments": [{"content": "p"}], "next_segments": []},
        ),
    ],
    ids=["none", "one-without-neighbours", "the-first-of-two"],
)
def test_the_flat_layout_has_the_first_segments_neighbours(segments, neighbours):
    derived = {"extractive_segments": segments} if segments else {}
    chunk = SourceChunk(name="n", content="c", derived_struct_data=derived)
    flat = chunk_metadata(chunk, "flat")
    assert {k: flat[k] for k in ("previous_segments", "next_segments") if k in flat} == neighbours
