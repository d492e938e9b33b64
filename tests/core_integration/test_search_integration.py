"""The core's search functions against the emulator, over real gRPC (sync and async)."""

from __future__ import annotations

from grounding_core import (
    ChunkSearchSpec,
    DeveloperKnowledgeSearchSpec,
    DiscoveryEngineTarget,
    asearch_chunks,
    asearch_developer_knowledge,
    search_chunks,
    search_developer_knowledge,
)
from tests.conftest import PROJECT


def test_search_chunks_fills_every_record_field(de_clients, test_target):
    chunks = search_chunks(
        de_clients,
        test_target,
        "ordinal marker step 3",
        ChunkSearchSpec(k=1, filter='group = "sequence"', num_previous_chunks=1, num_next_chunks=2),
    )
    (chunk,) = chunks
    assert chunk.name.endswith(
        "/dataStores/test-docs/branches/default_branch/documents/sequence/chunks/c3"
    )
    assert chunk.id == "c3"
    assert chunk.document_id == "sequence"
    assert chunk.document_name.endswith("/documents/sequence")
    assert chunk.uri == "https://example.com/sequence"
    assert chunk.title == "Sequence"
    assert chunk.struct_data == {"lang": "en", "group": "sequence"}
    assert [c.id for c in chunk.previous_chunks] == ["c2"]
    assert [c.id for c in chunk.next_chunks] == ["c4", "c5"]
    assert "Step 4" in chunk.next_chunks[0].content
    assert 0 < chunk.relevance_score <= 1
    assert chunk.rank_signals.keyword_similarity_score > 0
    assert chunk.page_span is None


def test_k_beyond_one_page_collects_several_pages(de_clients, test_target):
    chunks = search_chunks(de_clients, test_target, "lighthouse", ChunkSearchSpec(k=230))
    assert len(chunks) == 230
    assert len({c.name for c in chunks}) == 230


def test_engine_target_and_documents_mode(de_clients):
    target = DiscoveryEngineTarget(project=PROJECT, engine="test-app")
    documents = search_chunks(
        de_clients, target, "Cape Canaveral", ChunkSearchSpec(k=2, search_mode="documents")
    )
    assert documents[0].document_id == "emoji"
    assert documents[0].uri == "https://example.com/rockets"
    assert documents[0].title == "Rockets 🚀"
    assert "Cape Canaveral 🇺🇸" in documents[0].content


def test_boost_and_filter_through_the_core(de_clients, test_target):
    spec = ChunkSearchSpec(
        k=5,
        filter='tags: ANY("t2")',
        boost_spec={"condition_boost_specs": [{"condition": "rank = 17", "boost": 1.0}]},
    )
    chunks = search_chunks(de_clients, test_target, "lighthouse", spec)
    assert {c.document_id for c in chunks} == {"page-17"}
    assert chunks[0].rank_signals.boosting_factor == 2.0


async def test_asearch_chunks(de_async_clients, builtin_target):
    chunks = await asearch_chunks(
        de_async_clients, builtin_target, "assert statement", ChunkSearchSpec(k=3)
    )
    assert chunks[0].uri.endswith("/reference/simple_stmts.html#assert")
    assert chunks[0].struct_data["topic"] == "assert"


def test_search_developer_knowledge(dk_clients):
    chunks = search_developer_knowledge(
        dk_clients,
        "context manager with statement",
        DeveloperKnowledgeSearchSpec(k=7, filter='data_source = "docs.python.org"'),
    )
    assert len(chunks) == 7
    top = chunks[0]
    assert top.data_source == "docs.python.org"
    assert top.name == f"{top.document_name}/chunks/{top.id}"
    assert top.document_name == "documents/" + top.uri.removeprefix("https://")
    assert top.update_time is not None
    assert 0 < top.relevance_score <= 1


async def test_asearch_developer_knowledge(dk_async_clients):
    chunks = await asearch_developer_knowledge(
        dk_async_clients, "yield statement", DeveloperKnowledgeSearchSpec(k=3)
    )
    assert any(c.uri.endswith("simple_stmts.html#yield") for c in chunks)
