"""Hybrid retrieval: rank fusion, chunk vectors (built, persisted, reloaded), the semantic rank
signal, all with a tiny fake embedder (the real model is tested in ``test_semantic_model.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core.emulator import CorpusStore, DataStore, EmulatorServer
from grounding_core.emulator.corpus import document_from_mapping
from grounding_core.emulator.embeddings import CachingEmbedder, passage_text
from grounding_core.emulator.fusion import (
    COSINE_CEILING,
    COSINE_FLOOR,
    SEMANTIC_WEIGHT,
    fuse,
    semantic_scale,
)
from grounding_core.emulator.search_engine import SearchParams, chunk_hits, search
from tests.emulator.conftest import ONCE, serving_config
from tests.emulator.fake_embedder import FakeEmbedder

RECORDS = [
    {
        "id": "halt",
        "title": "Halting",
        "content": "# Halting\n\nThe break statement terminates the nearest enclosing loop.",
        "mime_type": "text/markdown",
        "struct_data": {"topic": "control"},
    },
    {
        "id": "cleanup",
        "title": "Context managers",
        "content": "# Context managers\n\nA context manager releases its file handles when the "
        "block finishes.",
        "mime_type": "text/markdown",
        "struct_data": {"topic": "resources"},
    },
    {
        "id": "paint",
        "title": "Painting",
        "content": "# Painting\n\nWatercolours dry quickly on paper.",
        "mime_type": "text/markdown",
        "struct_data": {"topic": "art"},
    },
]
PARAPHRASE = "How do I stop iterating early?"  # no word in common with "halt"


def sources():
    return [document_from_mapping(r, where="test", number=n) for n, r in enumerate(RECORDS)]


def build(embedder=None) -> DataStore:
    return DataStore.build("mini", sources(), embedder=embedder)


def hits(snapshot: DataStore, query: str, **fields):
    return chunk_hits(search(snapshot, SearchParams(query=query, mode="chunks", **fields)))


def test_semantic_scale_maps_floor_and_ceiling():
    scaled = semantic_scale(np.array([-1.0, COSINE_FLOOR, 0.35, COSINE_CEILING, 0.9]))
    assert scaled.tolist() == pytest.approx([0.0, 0.0, 0.5, 1.0, 1.0])


def test_fuse_is_a_convex_combination_with_a_semantic_match_floor():
    keyword = np.array([0.6, 0.0, 0.0, 0.2], dtype=np.float32)
    cosine = np.array([0.1, 0.5, 0.3, 0.6], dtype=np.float32)
    fused = fuse(keyword, cosine)
    semantic = np.array([0.0, 0.8, 0.4, 1.0])
    expected = (1 - SEMANTIC_WEIGHT) * keyword + SEMANTIC_WEIGHT * semantic
    assert fused.relevance.tolist() == pytest.approx(expected.tolist())
    # shares a word | close enough in meaning | neither | both
    assert fused.candidate.tolist() == [True, True, False, True]


def test_fuse_without_vectors_is_keyword_relevance():
    keyword = np.array([0.5, 0.0], dtype=np.float32)
    fused = fuse(keyword, None)
    assert fused.relevance.tolist() == [0.5, 0.0]
    assert fused.candidate.tolist() == [True, False]


def test_bm25_misses_the_paraphrase_and_hybrid_finds_it():
    assert hits(build(), PARAPHRASE) == []
    embedder = FakeEmbedder()
    snapshot = build(embedder)
    found = hits(snapshot, PARAPHRASE)
    assert [h.document.id for h in found] == ["halt"]
    top = found[0]
    assert top.keyword_score == 0.0
    cosine = float(snapshot.semantic.vectors[top.index] @ embedder.embed_query(PARAPHRASE))
    assert top.semantic_score == pytest.approx(cosine)
    assert cosine > 0.45
    assert top.relevance == pytest.approx(SEMANTIC_WEIGHT * float(semantic_scale(cosine)))


def test_hybrid_keeps_keyword_matches_and_ranks_meaning_first():
    snapshot = build(FakeEmbedder())
    found = hits(snapshot, "break the loop and release the file")
    assert [h.document.id for h in found][:2] == ["halt", "cleanup"]
    assert all(h.keyword_score > 0 for h in found)
    assert [h.relevance for h in found] == sorted((h.relevance for h in found), reverse=True)


def test_filter_applies_to_semantic_matches():
    snapshot = build(FakeEmbedder())
    assert hits(snapshot, PARAPHRASE, filter='topic: ANY("art")') == []


def test_vectors_are_built_from_passage_text():
    embedder = FakeEmbedder()
    snapshot = build(embedder)
    assert embedder.passages_embedded == len(snapshot.chunks) == 3
    expected = embedder.embed_passages(
        [passage_text(snapshot.documents[c.document_index], c) for c in snapshot.chunks]
    )
    assert np.allclose(snapshot.semantic.vectors, expected)
    assert snapshot.manifest()["embedding_model"] == "fake-concepts-v1"
    assert build().manifest()["embedding_model"] == ""


def test_vectors_persist_with_the_snapshot(tmp_path):
    embedder = FakeEmbedder()
    snapshot = build(embedder)
    snapshot.save(tmp_path / "v1")
    assert (tmp_path / "v1" / "vectors" / "vectors.npy").is_file()
    same = DataStore.load(tmp_path / "v1", embedder=embedder)
    assert np.allclose(same.semantic.vectors, snapshot.semantic.vectors, atol=1e-3)
    assert [h.document.id for h in hits(same, PARAPHRASE)] == ["halt"]
    # Without the model, or with another model, the snapshot searches with BM25 alone.
    assert DataStore.load(tmp_path / "v1").semantic is None
    assert DataStore.load(tmp_path / "v1", embedder=FakeEmbedder("other")).semantic is None


def test_store_reuses_a_persisted_snapshot_only_for_the_same_model(tmp_path):
    embedder = FakeEmbedder()
    first = CorpusStore(tmp_path, semantic=embedder).ingest("mini", sources(), fingerprint="f")
    assert first.embedding_model == "fake-concepts-v1"
    assert embedder.passages_embedded == 3
    again = CorpusStore(tmp_path, semantic=embedder).ingest("mini", sources(), fingerprint="f")
    assert embedder.passages_embedded == 3  # reloaded, not embedded again
    assert again.semantic is not None
    plain = CorpusStore(tmp_path, semantic=False).ingest("mini", sources(), fingerprint="f")
    assert plain.semantic is None
    assert plain.manifest()["embedding_model"] == ""


def test_caching_embedder_embeds_each_text_once():
    inner = FakeEmbedder()
    cached = CachingEmbedder(inner, capacity=10)
    first = cached.embed_passages(["loop", "paint", "loop"])
    second = cached.embed_passages(["paint", "file"])
    assert inner.passages_embedded == 3  # "loop", "paint", then only "file"
    assert np.array_equal(first[1], second[0])
    assert np.array_equal(first[0], first[2])
    assert cached.model_id == inner.model_id


@pytest.fixture(scope="module")
def hybrid_server():
    store = CorpusStore(semantic=FakeEmbedder())
    store.ingest("mini", sources(), fingerprint="mini")
    store.put(DataStore.build("plain", sources()))
    with EmulatorServer(store) as server:
        yield server


def grpc_search(server, data_store: str, query: str):
    client = server.discovery_engine_clients().search()
    request = de.SearchRequest(
        serving_config=serving_config(data_store),
        query=query,
        content_search_spec={"search_result_mode": "CHUNKS"},
        relevance_score_spec={"return_relevance_score": True},
    )
    return next(iter(client.search(request=request, **ONCE).pages))


def test_rank_signals_report_semantic_similarity(hybrid_server):
    page = grpc_search(hybrid_server, "mini", PARAPHRASE)
    top = page.results[0]
    assert top.chunk.name.endswith("/documents/halt/chunks/c1")
    signals = de.SearchResponse.SearchResult.RankSignals.pb(top.rank_signals)
    assert signals.HasField("semantic_similarity_score")
    assert signals.semantic_similarity_score > 0.45
    assert signals.keyword_similarity_score == 0
    assert top.chunk.relevance_score == pytest.approx(signals.relevance_score)


def test_bm25_store_has_no_semantic_signal(hybrid_server):
    page = grpc_search(hybrid_server, "plain", "break loop")
    signals = de.SearchResponse.SearchResult.RankSignals.pb(page.results[0].rank_signals)
    assert not signals.HasField("semantic_similarity_score")
    assert signals.keyword_similarity_score > 0
