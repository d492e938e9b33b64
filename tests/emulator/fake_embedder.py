"""A tiny deterministic embedder for tests: one dimension per concept of a small lexicon.

A word counts for its concept ("terminates" and "stop" both for ``stop``); any other word adds a
little to a shared ``other`` dimension, so that unrelated texts are far apart but never zero.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

CONCEPTS = {
    "stop": {"break", "breaks", "stop", "stops", "leave", "exit", "terminate", "terminates"},
    "loop": {"loop", "loops", "iterate", "iterating", "iteration", "repeat", "cycle"},
    "cleanup": {"cleanup", "release", "releases", "close", "closed", "tidy", "finalize"},
    "resource": {"resource", "resources", "file", "files", "handle", "handles"},
    "paint": {"paint", "painting", "watercolour", "watercolours", "brush", "canvas"},
}
_NAMES = list(CONCEPTS)
_OTHER = 0.1


class FakeEmbedder:
    """``Embedder`` over ``CONCEPTS``; counts the texts it embeds."""

    def __init__(self, model_id: str = "fake-concepts-v1") -> None:
        self._model_id = model_id
        self.passages_embedded = 0

    @property
    def model_id(self) -> str:
        return self._model_id

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(len(_NAMES) + 1, dtype=np.float32)
        for word in re.findall(r"[a-z]+", text.lower()):
            hits = [i for i, name in enumerate(_NAMES) if word in CONCEPTS[name]]
            if hits:
                vector[hits[0]] += 1.0
            else:
                vector[-1] += _OTHER
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.passages_embedded += len(texts)
        if not texts:
            return np.zeros((0, len(_NAMES) + 1), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)
