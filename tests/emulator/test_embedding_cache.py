"""The persistent embedding cache (``embedding_cache.py``), the caching embedder over it, batching
by length, and what is embedded per chunk: all without the real model (a fake embedder)."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from grounding_emulator import DataStore
from grounding_emulator.answer.sentences import sentences_of
from grounding_emulator.corpus import embedding_cache
from grounding_emulator.corpus.builtin import builtin_documents
from grounding_emulator.corpus.embedding_cache import (
    CACHE_ENV,
    MAX_SHARDS,
    EmbeddingCache,
    default_cache_dir,
    text_key,
)
from grounding_emulator.corpus.embeddings import CachingEmbedder, length_batches, sentence_texts
from grounding_emulator.search.engine import ChunkHit
from tests.emulator.fake_embedder import FakeEmbedder

DIMENSION = 6  # the fake embedder's


def unit_rows(count: int, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, DIMENSION)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def shards(cache: EmbeddingCache) -> list[Path]:
    return sorted(p for p in cache.directory.iterdir() if not p.name.startswith("."))


# -- where the cache lives ------------------------------------------------------------------------


def test_default_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv(CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "grounding-kit" / "embeddings"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "grounding-kit" / "embeddings"
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    assert default_cache_dir() == tmp_path / "mine"
    monkeypatch.setenv(CACHE_ENV, "off")
    assert default_cache_dir() is None


def test_text_key_is_a_stable_hash():
    assert text_key("for") == text_key("for")
    assert text_key("for") != text_key("for ")
    assert len(text_key("東京")) == 16


# -- the cache ------------------------------------------------------------------------------------


def test_vectors_survive_to_another_cache_object(tmp_path):
    first = EmbeddingCache(tmp_path, "model/v1", DIMENSION)
    keys = [text_key(t) for t in ("a", "b", "c")]
    returned = first.put(keys, unit_rows(3))
    assert first.get(keys[:1])[0] is not None
    first.flush()
    assert first.directory == tmp_path / "model_v1"
    assert len(shards(first)) == 1

    second = EmbeddingCache(tmp_path, "model/v1", DIMENSION)  # as in a new process
    found = second.get([*keys, text_key("d")])
    assert found[3] is None
    assert np.array_equal(np.stack(found[:3]), returned)
    assert len(second) == 3
    # Another model's vectors are elsewhere.
    assert EmbeddingCache(tmp_path, "model/v2", DIMENSION).get(keys) == [None, None, None]


def test_put_returns_the_vectors_as_the_cache_will(tmp_path):
    cache = EmbeddingCache(tmp_path, "m", DIMENSION)
    rows = unit_rows(2)
    returned = cache.put([text_key("a"), text_key("b")], rows)
    assert returned.dtype == np.float32
    assert np.array_equal(returned, rows.astype(np.float16).astype(np.float32))
    assert np.allclose(returned, rows, atol=1e-3)


def test_flush_writes_whole_shards_only(tmp_path):
    cache = EmbeddingCache(tmp_path, "m", DIMENSION)
    cache.flush()  # nothing pending: nothing written
    assert not cache.directory.exists()
    cache.put([text_key("a")], unit_rows(1))
    cache.flush()
    cache.flush()
    assert [p.suffix for p in shards(cache)] == [".npy"]
    assert not [p for p in cache.directory.iterdir() if p.name.startswith(".tmp-")]


def test_pending_vectors_are_written_when_enough_wait(tmp_path):
    cache = EmbeddingCache(tmp_path, "m", DIMENSION, flush_every=4)
    cache.put([text_key(str(i)) for i in range(3)], unit_rows(3))
    assert not cache.directory.exists()
    cache.put([text_key("3")], unit_rows(1))
    assert len(shards(cache)) == 1


def test_many_shards_are_merged(tmp_path):
    cache = EmbeddingCache(tmp_path, "m", DIMENSION)
    for number in range(MAX_SHARDS + 1):
        cache.put([text_key(f"t{number}")], unit_rows(1, seed=number))
        cache.flush()
    assert len(shards(cache)) == 1
    again = EmbeddingCache(tmp_path, "m", DIMENSION)
    assert len(again) == MAX_SHARDS + 1
    assert all(v is not None for v in again.get([text_key(f"t{n}") for n in range(MAX_SHARDS)]))


def test_a_merge_keeps_the_newest_vectors_within_the_size_limit(tmp_path):
    row_bytes = 16 + 2 * DIMENSION
    cache = EmbeddingCache(tmp_path, "m", DIMENSION, max_bytes=10 * row_bytes)
    for number in range(MAX_SHARDS + 1):
        cache.put([text_key(f"t{number}")], unit_rows(1, seed=number))
        cache.flush()
    again = EmbeddingCache(tmp_path, "m", DIMENSION)
    assert len(again) == 10
    assert again.get([text_key(f"t{MAX_SHARDS}")])[0] is not None  # the newest


def test_an_unreadable_shard_is_skipped(tmp_path, caplog):
    cache = EmbeddingCache(tmp_path, "m", DIMENSION)
    cache.put([text_key("a")], unit_rows(1))
    cache.flush()
    (cache.directory / ("0" * 32 + ".npy")).write_bytes(b"truncated")
    with caplog.at_level(logging.WARNING, logger=embedding_cache.__name__):
        again = EmbeddingCache(tmp_path, "m", DIMENSION)
        assert again.get([text_key("a")])[0] is not None
    assert "unreadable shard" in caplog.text
    other = EmbeddingCache(tmp_path, "m", DIMENSION + 1)  # another format
    with caplog.at_level(logging.WARNING, logger=embedding_cache.__name__):
        assert other.get([text_key("a")]) == [None]


def test_an_unwritable_cache_carries_on_in_memory(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = EmbeddingCache(blocker, "m", DIMENSION)
    with caplog.at_level(logging.WARNING, logger=embedding_cache.__name__):
        cache.put([text_key("a")], unit_rows(1))
        cache.flush()
    assert "cannot write" in caplog.text
    assert cache.get([text_key("a")])[0] is not None


_WRITER = """
import sys
import numpy as np
from grounding_emulator.corpus.embedding_cache import EmbeddingCache, text_key
cache = EmbeddingCache(sys.argv[1], "m", 6, flush_every=3)
for i in range(40):
    texts = [f"{sys.argv[2]}-{i}-{j}" for j in range(3)]
    rows = np.ones((3, 6), dtype=np.float32) * (i + 1)
    cache.put([text_key(t) for t in texts], rows)
cache.flush()
"""


def test_concurrent_processes_share_the_cache(tmp_path):
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path), name])
        for name in ("a", "b", "c")
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0]
    cache = EmbeddingCache(tmp_path, "m", DIMENSION)
    keys = [text_key(f"{n}-{i}-{j}") for n in "abc" for i in range(40) for j in range(3)]
    found = cache.get(keys)
    assert all(v is not None for v in found)
    assert found[3].tolist() == [2.0] * DIMENSION  # writer a, i=1
    assert not [p for p in cache.directory.iterdir() if p.name.startswith(".tmp-")]


# -- the caching embedder -------------------------------------------------------------------------


def test_caching_embedder_reads_what_another_process_embedded(tmp_path):
    first_model = FakeEmbedder()
    first = CachingEmbedder(first_model, cache=EmbeddingCache(tmp_path, "fake", DIMENSION))
    texts = [f"the loop number {i} stops" for i in range(70)]  # enough to be written at once
    vectors = first.embed_passages(texts)
    assert first_model.passages_embedded == 70
    assert first.cache is not None

    second_model = FakeEmbedder()
    second = CachingEmbedder(second_model, cache=EmbeddingCache(tmp_path, "fake", DIMENSION))
    again = second.embed_passages([*texts[:5], "paint the canvas"])
    assert second_model.passages_embedded == 1  # only the new text
    assert np.array_equal(again[:5], vectors[:5])


def test_caching_embedder_rounds_fresh_vectors_like_cached_ones():
    model = FakeEmbedder()
    cached = CachingEmbedder(model)
    vector = cached.embed_passages(["stop the loop"])[0]
    assert np.array_equal(vector, vector.astype(np.float16).astype(np.float32))


def test_caching_embedder_remembers_recent_queries():
    model = FakeEmbedder()
    cached = CachingEmbedder(model)
    first = cached.embed_query("stop")
    assert cached.embed_query("stop") is first
    assert np.array_equal(first, model.embed_query("stop"))


def test_a_new_process_reuses_the_vectors_of_an_ingest(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    sources = list(builtin_documents())[:5]
    model = FakeEmbedder()
    cold = DataStore.build("d", sources, embedder=CachingEmbedder(model, cache=_cache()))
    assert model.passages_embedded > 0
    fresh = FakeEmbedder()
    warm = DataStore.build("d", sources, embedder=CachingEmbedder(fresh, cache=_cache()))
    assert fresh.passages_embedded == 0
    assert np.array_equal(warm.semantic.vectors, cold.semantic.vectors)


def _cache() -> EmbeddingCache:
    folder = default_cache_dir()
    assert folder is not None
    return EmbeddingCache(folder, "fake-concepts-v1", DIMENSION)


# -- batching and what is embedded ----------------------------------------------------------------


def test_length_batches_group_similar_lengths_within_the_budget():
    lengths = [5, 100, 6, 90, 7, 8]
    batches = length_batches(lengths, budget=200, most=3)
    assert sorted(i for b in batches for i in b) == list(range(6))
    for batch in batches:
        assert len(batch) <= 3
        assert len(batch) * max(lengths[i] for i in batch) <= 200 or len(batch) == 1
    assert batches[0] == [0, 2, 4]  # the shortest together
    assert length_batches([300], budget=100) == [[0]]  # a long text still gets a batch
    assert length_batches([]) == []


def test_sentence_texts_are_the_answer_generators_sentences():
    snapshot = DataStore.build("python-docs", builtin_documents())
    for index, chunk in enumerate(snapshot.chunks):
        hit = ChunkHit(
            index=index,
            chunk=chunk,
            document=snapshot.documents[chunk.document_index],
            relevance=1.0,
            keyword_score=1.0,
            boost=1.0,
            rank=1,
        )
        assert sentence_texts(chunk) == [s.text for s in sentences_of([hit])]


@pytest.mark.parametrize("size", [0, 1])
def test_with_semantic_adds_the_document_index(size):
    from grounding_emulator.corpus.semantic_index import SemanticIndex

    sources = list(builtin_documents())[: size + 2]
    plain = DataStore.build("d", sources)
    assert plain.semantic is None
    assert len(plain.document_text_index) == 0
    vectors = unit_rows(len(plain.chunks))
    hybrid = plain.with_semantic(SemanticIndex(FakeEmbedder(), vectors))
    assert len(hybrid.document_text_index) == len(plain.documents)
    assert hybrid.document_vectors.shape == (len(plain.documents), DIMENSION)
    assert hybrid.chunks == plain.chunks
