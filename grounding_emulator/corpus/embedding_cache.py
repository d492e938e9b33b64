"""A persistent, cross-process cache of passage vectors, keyed by (model id, text hash).

Embedding a corpus is the slow part of a hybrid ingest (the built-in corpus takes seconds, a
large one minutes); a process that has no state dir (a default ``EmulatorServer()``, the tests,
the demo) would embed the same texts again on every start. The cache keeps every vector the
model made, so that the next process reads it back instead.

Where: ``$GROUNDING_EMULATOR_EMBEDDING_CACHE`` when set (a folder; ``off`` turns the cache off),
else ``$XDG_CACHE_HOME/grounding-kit/embeddings``, else ``~/.cache/grounding-kit/embeddings``.

Layout: one folder per model (``model_id`` made safe as a file name), holding **shards**: each
``{digest}.npy`` is a structured array of ``(key, vector)`` rows, ``key`` the first 16 bytes of
the SHA-256 of the UTF-8 text, ``vector`` float16. Safe under concurrent processes without
locks:

- a shard is written under a temporary name and renamed into place (``os.replace``, atomic), so a
  reader sees whole shards or none; shards are never modified;
- when a folder holds more than ``MAX_SHARDS`` shards, the writer merges the small ones into one
  (written the same way) and deletes them; a reader that misses a shard deleted under it only
  embeds those texts again. When the folder outgrows ``max_bytes`` every shard is merged,
  keeping the newest vectors up to that size.

A shard that cannot be read (truncated by a crash, another format) is skipped with a warning.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

__all__ = [
    "BIG_SHARD_BYTES",
    "CACHE_ENV",
    "DEFAULT_MAX_BYTES",
    "MAX_SHARDS",
    "EmbeddingCache",
    "default_cache_dir",
    "text_key",
]

logger = logging.getLogger(__name__)

CACHE_ENV = "GROUNDING_EMULATOR_EMBEDDING_CACHE"
MAX_SHARDS = 32
BIG_SHARD_BYTES = 8 * 2**20
DEFAULT_MAX_BYTES = 512 * 2**20
_OFF = frozenset({"0", "off", "false", "no", "none"})
_SHARD = re.compile(r"^[0-9a-f]{32}\.npy$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def text_key(text: str) -> bytes:
    """The cache key of a text: the first 16 bytes of its SHA-256 (UTF-8).

    >>> text_key("for").hex()
    '10c22bcf4c768b515be4e94bcafc71bf'
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:16]


def default_cache_dir() -> Path | None:
    """The cache folder from the environment (see the module docstring); ``None`` when off."""
    configured = os.environ.get(CACHE_ENV, "").strip()
    if configured.lower() in _OFF:
        return None
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    root = Path(base).expanduser() if base else Path.home() / ".cache"
    return root / "grounding-kit" / "embeddings"


def _dtype(dimension: int) -> np.dtype:
    return np.dtype([("key", "V16"), ("vector", "<f2", (dimension,))])


class EmbeddingCache:
    """The vectors of one model in one cache folder; thread-safe.

    ``get`` indexes every shard of the model once (lazily; shards are memory-mapped, so only the
    rows asked for are read); ``put`` keeps new vectors in memory and writes them as one shard
    when ``flush`` is called (or when ``flush_every`` of them are pending). Vectors come back as
    float32 rounded through float16, the precision they are stored with: a vector read back
    equals the one first returned.
    """

    def __init__(
        self,
        directory: Path | str,
        model_id: str,
        dimension: int,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        flush_every: int = 256,
    ) -> None:
        self.directory = Path(directory) / (_UNSAFE.sub("_", model_id) or "model")
        self.model_id = model_id
        self.dimension = dimension
        self.max_bytes = max_bytes
        self.flush_every = flush_every
        self._dtype = _dtype(dimension)
        # key -> (float16 rows, row): shards stay on disk (memory-mapped), read row by row.
        self._index: dict[bytes, tuple[np.ndarray, int]] = {}
        self._pending: dict[bytes, np.ndarray] = {}
        self._loaded = False
        self._warned = False
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"EmbeddingCache({str(self.directory)!r}, model_id={self.model_id!r})"

    def __len__(self) -> int:
        with self._lock:
            self._load()
            return len(self._index)

    # -- reading --------------------------------------------------------------------------------

    def _shards(self) -> list[Path]:
        try:
            return [p for p in self.directory.iterdir() if _SHARD.match(p.name)]
        except FileNotFoundError:
            return []
        except OSError as exc:
            logger.warning("embedding cache: cannot read %s (%s)", self.directory, exc)
            return []

    def _read(self, path: Path) -> np.ndarray | None:
        """The rows of a shard, memory-mapped (``None`` when it cannot be read)."""
        try:
            rows = np.load(path, mmap_mode="r", allow_pickle=False)
        except FileNotFoundError:
            return None  # merged away by another process
        except (OSError, ValueError, EOFError) as exc:
            logger.warning("embedding cache: skipping unreadable shard %s (%s)", path, exc)
            return None
        if not isinstance(rows, np.ndarray) or rows.dtype != self._dtype or rows.ndim != 1:
            logger.warning("embedding cache: skipping shard %s of another format", path)
            return None
        return rows

    def _add(self, path: Path) -> int:
        """Index the rows of one shard (called with the lock held); how many it holds."""
        rows = self._read(path)
        if rows is None:
            return 0
        vectors = rows["vector"]
        for row, key in enumerate(rows["key"].tolist()):
            self._index[bytes(key)] = (vectors, row)
        return len(rows)

    def _load(self) -> None:
        """Index every shard once (called with the lock held)."""
        if self._loaded:
            return
        self._loaded = True
        count = sum(self._add(path) for path in self._shards())
        if count:
            logger.debug("embedding cache: %d vectors of %s", count, self.model_id)

    def get(self, keys: Sequence[bytes]) -> list[np.ndarray | None]:
        """The vector of each key (float32), ``None`` where the cache has none."""
        found: list[np.ndarray | None] = []
        with self._lock:
            self._load()
            for key in keys:
                entry = self._index.get(key)
                found.append(None if entry is None else entry[0][entry[1]].astype(np.float32))
        return found

    # -- writing --------------------------------------------------------------------------------

    def put(self, keys: Sequence[bytes], vectors: np.ndarray) -> np.ndarray:
        """Remember ``vectors`` (one row per key); returns them as the cache will return them
        (float32 through float16)."""
        stored = np.asarray(vectors, dtype=np.float16)
        with self._lock:
            self._load()
            for row, key in enumerate(keys):
                if key not in self._index:
                    self._index[key] = (stored, row)
                    self._pending[key] = stored[row]
            due = len(self._pending) >= self.flush_every
        if due:
            self.flush()
        rounded: np.ndarray = stored.astype(np.float32)
        return rounded

    def flush(self) -> None:
        """Write the pending vectors as one shard (and merge shards when there are too many).
        A cache that cannot be written warns once and carries on in memory."""
        with self._lock:
            if not self._pending:
                return
            pending, self._pending = self._pending, {}
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            written = self._write(pending.items())
            with self._lock:  # read the new shard from disk: the memory of ``pending`` is freed
                self._add(written)
            shards = self._shards()
            if len(shards) > MAX_SHARDS:
                self._merge(shards)
        except OSError as exc:
            if not self._warned:
                self._warned = True
                logger.warning("embedding cache: cannot write to %s (%s)", self.directory, exc)

    def _write(self, items: Iterable[tuple[bytes, np.ndarray]]) -> Path:
        pairs = list(items)
        rows = np.empty(len(pairs), dtype=self._dtype)
        rows["key"] = [np.void(k) for k, _ in pairs]
        rows["vector"] = np.stack([v for _, v in pairs]).astype(np.float16)
        digest = hashlib.sha256(rows.tobytes()).hexdigest()[:32]
        target = self.directory / f"{digest}.npy"
        temporary = self.directory / f".tmp-{uuid.uuid4().hex}.npy"
        try:
            with temporary.open("wb") as handle:
                np.save(handle, rows, allow_pickle=False)
            os.replace(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)
        return target

    def _merge(self, shards: list[Path]) -> None:
        """Merge the small shards (under ``BIG_SHARD_BYTES``) into one; when the folder holds
        more than ``max_bytes``, merge them all, keeping the newest vectors up to it. Then
        delete the merged shards."""
        sized = []
        for path in shards:
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            sized.append((stat.st_mtime, stat.st_size, path))
        total = sum(size for _, size, _ in sized)
        chosen = [s for s in sized if s[1] < BIG_SHARD_BYTES]
        if total > self.max_bytes or len(chosen) < 2:
            chosen = sized
        merged: dict[bytes, np.ndarray] = {}
        budget = max(1, self.max_bytes // self._dtype.itemsize)
        for _, _, path in sorted(chosen, key=lambda s: s[0], reverse=True):
            rows = self._read(path)
            if rows is None:
                continue
            for key, vector in zip(rows["key"].tolist(), rows["vector"], strict=True):
                if len(merged) >= budget:
                    break
                merged.setdefault(bytes(key), vector)
        kept = self._write(merged.items()) if merged else None
        if kept is not None:
            with self._lock:
                self._add(kept)
        for _, _, path in chosen:
            if path != kept:
                try:
                    path.unlink(missing_ok=True)
                except OSError:  # still open elsewhere (Windows): merged again next time
                    continue
        logger.debug("embedding cache: merged %d shards (%d vectors)", len(chosen), len(merged))
