"""Spell correction of a search query against a data store's own vocabulary; pure.

Follows ``SearchRequest.SpellCorrectionSpec`` (v1 field docs): ``AUTO`` (the default when the
mode is unspecified) searches with the corrected query and sets ``SearchResponse.corrected_query``;
``SUGGESTION_ONLY`` only sets ``corrected_query``. Google does not document how it corrects; the
emulator's rule, deterministic and bounded:

- a query word is **misspelt** when it is at least ``MIN_WORD`` letters long, has no digit, is no
  stop word, and its search token (stemmed) is in none of the data store's chunks;
- its **correction** is a vocabulary word (a word of the data store's chunk texts, case folded,
  seen in at least ``MIN_FREQUENCY`` chunks) that equals it after at most one deletion on each
  side: one insertion, deletion, substitution or swap of neighbouring letters away (for words of
  ``LONG_WORD`` letters or more, also a letter moved: a deletion and an insertion, distance 2);
  the most frequent candidate first, then the nearest, then the first in alphabetical order; a
  word without a candidate stays as it is.

The vocabulary is built once per data store snapshot, only when a query has a word that is not in
the index (each chunk is read once); candidates come from a deletion index (every vocabulary word
and its one-letter deletions), so a lookup costs a number of dictionary probes linear in the
word's length. Words longer than ``MAX_WORD`` letters are left alone.
"""

from __future__ import annotations

import re
import threading
import unicodedata
import weakref
from collections import Counter
from dataclasses import dataclass

from grounding_emulator.call_state import checked
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.tokens import tokenize

__all__ = ["LONG_WORD", "MIN_FREQUENCY", "MIN_WORD", "correct_query"]

MIN_WORD = 4
LONG_WORD = 8
MAX_WORD = 30
MIN_FREQUENCY = 2
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class _Vocabulary:
    frequency: dict[str, int]
    deletions: dict[str, tuple[str, ...]]


_vocabularies: weakref.WeakKeyDictionary[DataStore, _Vocabulary] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _vocabulary(store: DataStore) -> _Vocabulary:
    with _lock:
        cached = _vocabularies.get(store)
    if cached is not None:
        return cached
    counts: Counter[str] = Counter()
    for chunk in store.chunks:
        text = unicodedata.normalize("NFKC", chunk.content).casefold()
        counts.update(set(_WORD.findall(text)))
    frequency = {
        w: n for w, n in counts.items() if n >= MIN_FREQUENCY and MIN_WORD - 1 <= len(w) <= MAX_WORD
    }
    index: dict[str, list[str]] = {}
    for word in frequency:
        for key in {word, *_deletes(word)}:
            index.setdefault(key, []).append(word)
    vocabulary = _Vocabulary(frequency, {k: tuple(v) for k, v in index.items()})
    with _lock:
        _vocabularies[store] = vocabulary
    return vocabulary


def _distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance of ``a`` and ``b``, or ``limit + 1`` past ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            cost = 0 if ca == cb else 1
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                value = min(value, previous2[j - 2] + 1)
            current[j] = value
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def _correction(word: str, vocabulary: _Vocabulary) -> str | None:
    limit = 2 if len(word) >= LONG_WORD else 1
    candidates: set[str] = set()
    for key in {word, *_deletes(word)}:
        candidates.update(vocabulary.deletions.get(key, ()))
    best: tuple[int, int, str] | None = None
    for candidate in candidates:
        distance = _distance(word, candidate, limit)
        if 0 < distance <= limit:
            ranked = (-vocabulary.frequency[candidate], distance, candidate)
            if best is None or ranked < best:
                best = ranked
    return best[2] if best is not None else None


def _misspelt(word: str, store: DataStore) -> bool:
    if not MIN_WORD <= len(word) <= MAX_WORD or any(c.isdigit() for c in word):
        return False
    tokens = tokenize(word)
    # No token: a stop word; several: a script written without spaces (no word to correct).
    return len(tokens) == 1 and not store.index.has_token(tokens[0])


def correct_query(store: DataStore, query: str) -> str | None:
    """The corrected query (each misspelt word replaced by its correction, the rest unchanged),
    or ``None`` when no word needed or found a correction."""
    text = unicodedata.normalize("NFKC", query)
    words = dict.fromkeys(m[0].casefold() for m in _WORD.finditer(text))  # each word looked up once
    misspelt = [w for w in checked(words, "query word spell-checked") if _misspelt(w, store)]
    if not misspelt:
        return None
    vocabulary = _vocabulary(store)
    corrections = {w: _correction(w, vocabulary) for w in checked(misspelt, "query word corrected")}
    parts: list[str] = []
    position = 0
    for match in _WORD.finditer(text):
        correction = corrections.get(match[0].casefold())
        if correction is not None:
            parts.append(text[position : match.start()])
            parts.append(correction)
            position = match.end()
    if not parts:
        return None
    parts.append(text[position:])
    return "".join(parts)
