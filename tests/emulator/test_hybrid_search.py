"""Hybrid retrieval: rank fusion, chunk and sentence vectors (built, persisted, reloaded),
document evidence, the semantic rank signal, the answer generator's use of the sentence vectors,
all with a tiny fake embedder (the real model is tested in ``test_semantic_model.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_emulator import CorpusStore, DataStore, EmulatorServer, LexicalJudge
from grounding_emulator.answer.engine import AnswerParams, generate_answer
from grounding_emulator.corpus.embeddings import CachingEmbedder, passage_text, sentence_texts
from grounding_emulator.corpus.reading import document_from_mapping
from grounding_emulator.search.engine import SearchParams, chunk_hits, search
from grounding_emulator.search.fusion import (
    COSINE_CEILING,
    COSINE_FLOOR,
    DOCUMENT_WEIGHT,
    RERANK_DEPTH,
    SEMANTIC_WEIGHT,
    SENTENCE_WEIGHT,
    fuse,
    hybrid,
    semantic_scale,
    with_documents,
    with_sentences,
)
from tests.emulator.conftest import ONCE, serving_config, versioned_client
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


def test_with_documents_mixes_in_the_document_relevance():
    mixed = with_documents(np.array([0.6, 0.6, 0.2]), np.array([1.0, 0.0]), np.array([0, 1, 0]))
    expected = [(1 - DOCUMENT_WEIGHT) * c + DOCUMENT_WEIGHT * d for c, d in [(0.6, 1), (0.6, 0)]]
    assert mixed[:2].tolist() == pytest.approx(expected)
    assert mixed[2] == pytest.approx((1 - DOCUMENT_WEIGHT) * 0.2 + DOCUMENT_WEIGHT)


def test_with_sentences_only_raises_a_cosine():
    raised = with_sentences(np.array([0.3, 0.5, 0.4]), np.array([0.7, 0.2, np.nan]))
    assert raised.tolist() == pytest.approx([0.3 + SENTENCE_WEIGHT * 0.4, 0.5, 0.4])


def test_hybrid_looks_again_at_the_best_candidates_only():
    size = RERANK_DEPTH + 20
    keyword = np.linspace(1.0, 0.01, size).astype(np.float32)  # all match, best first
    cosine = np.full(size, 0.3, dtype=np.float32)
    asked: list[np.ndarray] = []

    def best_sentences(chunks):
        asked.append(chunks)
        return np.full(len(chunks), 0.9, dtype=np.float32)

    ranked = hybrid(keyword, cosine, None, np.zeros(size, np.int32), best_sentences)
    assert asked[0].tolist() == list(range(RERANK_DEPTH))
    assert ranked.cosine[:RERANK_DEPTH] == pytest.approx(0.3 + SENTENCE_WEIGHT * 0.6)
    assert ranked.cosine[RERANK_DEPTH:].tolist() == pytest.approx([0.3] * 20)
    assert ranked.candidate.all()
    expected = fuse(keyword, ranked.cosine).relevance
    assert ranked.relevance.tolist() == pytest.approx(expected.tolist())
    # A filter keeps ineligible chunks out of the second look.
    asked.clear()
    eligible = np.arange(size) % 2 == 1
    hybrid(keyword, cosine, None, np.zeros(size, np.int32), best_sentences, eligible=eligible)
    assert all(i % 2 == 1 for i in asked[0].tolist())


def test_hybrid_with_document_evidence():
    keyword = np.array([0.4, 0.4], dtype=np.float32)
    cosine = np.array([0.3, 0.3], dtype=np.float32)
    ranked = hybrid(
        keyword,
        cosine,
        np.array([0.9, 0.1], dtype=np.float32),
        np.array([0, 1], dtype=np.int32),
        lambda chunks: np.full(len(chunks), np.nan, dtype=np.float32),
    )
    assert ranked.relevance[0] > ranked.relevance[1]
    chunk = fuse(keyword, cosine).relevance[0]
    assert ranked.relevance[0] == pytest.approx(with_documents(np.array([chunk]), [0.9], [0])[0])


def test_bm25_misses_the_paraphrase_and_hybrid_finds_it():
    assert hits(build(), PARAPHRASE) == []
    embedder = FakeEmbedder()
    snapshot = build(embedder)
    found = hits(snapshot, PARAPHRASE)
    assert [h.document.id for h in found] == ["halt"]
    top = found[0]
    assert top.keyword_score == 0.0
    cosine = float(snapshot.semantic.vectors[top.index] @ embedder.embed_query(PARAPHRASE))
    assert cosine > 0.45
    # Raised by the chunk's best sentence, never lowered.
    assert top.semantic_score >= cosine - 1e-6
    chunk = SEMANTIC_WEIGHT * float(semantic_scale(top.semantic_score))
    assert 0 < top.relevance <= 1
    assert top.relevance >= (1 - DOCUMENT_WEIGHT) * chunk - 1e-6


def test_hybrid_keeps_keyword_matches_and_ranks_meaning_first():
    snapshot = build(FakeEmbedder())
    found = hits(snapshot, "break the loop and release the file")
    assert [h.document.id for h in found][:2] == ["halt", "cleanup"]
    assert all(h.keyword_score > 0 for h in found)
    assert [h.relevance for h in found] == sorted((h.relevance for h in found), reverse=True)


def test_filter_applies_to_semantic_matches():
    snapshot = build(FakeEmbedder())
    assert hits(snapshot, PARAPHRASE, filter='topic: ANY("art")') == []


def test_vectors_are_built_from_passage_text_and_sentences():
    embedder = FakeEmbedder()
    snapshot = build(embedder)
    sentences = [t for c in snapshot.chunks for t in sentence_texts(c)]
    assert len(snapshot.chunks) == 3
    assert len(sentences) == snapshot.semantic.sentence_count == 3
    assert embedder.passages_embedded == 6
    expected = embedder.embed_passages(
        [passage_text(snapshot.documents[c.document_index], c) for c in snapshot.chunks]
    )
    assert np.allclose(snapshot.semantic.vectors, expected)
    assert snapshot.manifest()["embedding_model"] == "fake-concepts-v1"
    assert build().manifest()["embedding_model"] == ""
    # The document evidence of hybrid ranking: a whole-document index and mean vectors.
    assert len(snapshot.document_text_index) == len(snapshot.documents)
    assert snapshot.document_vectors.shape == (3, snapshot.semantic.vectors.shape[1])
    assert build().document_vectors is None


def test_sentence_similarities_are_the_best_sentence_per_chunk():
    embedder = FakeEmbedder()
    snapshot = build(embedder)
    vector = embedder.embed_query("stop the loop")
    best = snapshot.semantic.sentence_similarities(vector, np.array([0, 2]))
    own = embedder.embed_passages(sentence_texts(snapshot.chunks[0])) @ vector
    assert best[0] == pytest.approx(float(own.max()), abs=1e-3)
    assert best[1] < best[0]


def test_answers_use_the_sentence_vectors_instead_of_the_model():
    embedder = FakeEmbedder()
    snapshot = build(embedder)
    embedded = embedder.passages_embedded
    answer = generate_answer(snapshot, AnswerParams(query=PARAPHRASE), LexicalJudge())
    assert "break statement" in answer.text
    assert embedder.passages_embedded == embedded  # no sentence was embedded again
    vector = embedder.embed_query(PARAPHRASE)
    texts = ["The break statement terminates the nearest enclosing loop.", "Something new."]
    scores = snapshot.semantic.text_similarities(texts, vector)
    assert embedder.passages_embedded == embedded + 1  # only the unknown text
    assert scores.tolist() == pytest.approx(
        (embedder.embed_passages(texts) @ vector).tolist(), abs=1e-3
    )


def test_vectors_persist_with_the_snapshot(tmp_path):
    embedder = FakeEmbedder()
    snapshot = build(embedder)
    snapshot.save(tmp_path / "v1")
    assert (tmp_path / "v1" / "vectors" / "vectors.npy").is_file()
    assert (tmp_path / "v1" / "vectors" / "sentences.npy").is_file()
    same = DataStore.load(tmp_path / "v1", embedder=embedder)
    assert np.allclose(same.semantic.vectors, snapshot.semantic.vectors, atol=1e-3)
    assert same.semantic.sentence_count == snapshot.semantic.sentence_count
    assert len(same.document_text_index) == len(snapshot.documents)
    assert [h.document.id for h in hits(same, PARAPHRASE)] == ["halt"]
    vector = embedder.embed_query(PARAPHRASE)
    chunks = np.arange(len(snapshot.chunks))
    assert np.allclose(
        same.semantic.sentence_similarities(vector, chunks),
        snapshot.semantic.sentence_similarities(vector, chunks),
        atol=1e-3,
    )
    # Without the model, or with another model, the snapshot searches with BM25 alone.
    assert DataStore.load(tmp_path / "v1").semantic is None
    assert DataStore.load(tmp_path / "v1", embedder=FakeEmbedder("other")).semantic is None


def test_store_reuses_a_persisted_snapshot_only_for_the_same_model(tmp_path):
    embedder = FakeEmbedder()
    first = CorpusStore(tmp_path, semantic=embedder).ingest("mini", sources(), fingerprint="f")
    assert first.embedding_model == "fake-concepts-v1"
    assert embedder.passages_embedded == 6  # 3 chunks, 3 sentences
    again = CorpusStore(tmp_path, semantic=embedder).ingest("mini", sources(), fingerprint="f")
    assert embedder.passages_embedded == 6  # reloaded, not embedded again
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
    client = versioned_client(de, "SearchServiceClient", server.address)
    request = de.SearchRequest(
        serving_config=serving_config(data_store),
        query=query,
        content_search_spec={"search_result_mode": "CHUNKS"},
        relevance_score_spec={"return_relevance_score": True},
    )
    try:
        return next(iter(client.search(request=request, **ONCE).pages))
    finally:
        client.transport.close()


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
