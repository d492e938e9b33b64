"""Text -> search tokens, the same way for indexed chunks, queries and answer sentences.

NFKC normalization and case folding; words are runs of letters and digits; English stop words are
dropped (except those that are Python keywords, such as ``for``, ``if``, ``with``, ``not``: in a
corpus of developer docs they are what a query is about) and words are stemmed (English Snowball,
via PyStemmer: it leaves other scripts alone); scripts written without spaces (Chinese,
Japanese kana, Korean syllables) give one token per character plus one per pair of neighbouring
characters, so that a query matches inside running text.

>>> tokenize("Generators yield values")
['generat', 'yield', 'valu']
>>> tokenize("東京都")
['東', '京', '都', '東京', '京都']
"""

from __future__ import annotations

import itertools
import keyword
import re
import threading
import unicodedata

import Stemmer
from bm25s.stopwords import STOPWORDS_EN

__all__ = ["TOKENIZER_VERSION", "UNSPACED", "tokenize"]

# Bump when tokenization changes: persisted indexes built with another version are rebuilt.
TOKENIZER_VERSION = "1"

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Runs of the scripts written without spaces.
UNSPACED = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]+"
)
# Words that carry no topic in a question ("how does ... work?") join bm25s' English list.
_QUESTION_WORDS = frozenset(
    {
        "how",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "why",
        "when",
        "where",
        "does",
        "do",
        "did",
        "done",
        "can",
        "could",
        "should",
        "would",
        "i",
        "me",
        "my",
        "you",
        "your",
        "we",
        "our",
        "us",
        "he",
        "she",
        "his",
        "her",
        "him",
        "them",
        "its",
        "has",
        "have",
        "had",
        "been",
        "being",
        "am",
        "were",
        "than",
        "so",
        "too",
        "very",
        "just",
        "about",
        "also",
        "any",
        "some",
        "there",
        "here",
        "work",
        "works",
    }
)
_STOPWORDS = (
    (frozenset(STOPWORDS_EN) | _QUESTION_WORDS)
    - frozenset(keyword.kwlist)
    - frozenset(keyword.softkwlist)
)
# PyStemmer's stemmer objects are not thread-safe: one per thread.
_local = threading.local()


def _stemmer() -> Stemmer.Stemmer:
    stemmer: Stemmer.Stemmer | None = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = Stemmer.Stemmer("english")
    return stemmer


def _unspaced_tokens(run: str) -> list[str]:
    chars = list(run)
    return chars + [a + b for a, b in itertools.pairwise(chars)]


def tokenize(text: str) -> list[str]:
    """The search tokens of ``text`` (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    tokens: list[str] = []
    stem: list[str] = []
    for word in _WORD.findall(text):
        if word in _STOPWORDS:
            continue
        if word.isascii() or not UNSPACED.search(word):
            stem.append(word)
            continue
        position = 0
        for match in UNSPACED.finditer(word):
            if match.start() > position:
                tokens.append(word[position : match.start()])
            tokens.extend(_unspaced_tokens(match.group()))
            position = match.end()
        if position < len(word):
            tokens.append(word[position:])
    if stem:
        tokens = _stemmer().stemWords(stem) + tokens
    return tokens
