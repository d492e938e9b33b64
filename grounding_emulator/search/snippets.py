"""Snippets of DOCUMENTS-mode results, with hit highlighting; pure.

Google's "Get snippets and extracted content" page: "Snippets are short pieces of extracted
verbatim from each search result document. They include hit highlighting in bold HTML tags",
and its example result carries ``"snippet": "Google Chrome. Google Chrome is an open-source
<b>browser</b> that combines ..."`` with ``"snippet_status": "SUCCESS"``. Google does not say
how it picks the extract or which words it highlights; the emulator's rule, deterministic:

- the text is the result's best chunk with its whitespace runs made single spaces;
- the extract is at most ``SNIPPET_CHARS`` characters of it (without the tags), cut at a space
  and ended with ``...`` when cut (as the page's "... gen apps such as bots, ..."): from its
  start when the first hit fits in that, else from the start of the sentence that holds the
  first hit (from the hit itself when that sentence is too long);
- a hit is a word of the extract that has a search token of the query (the tokenizer the index
  uses: case, accents and stems are treated as a search treats them), other than an English
  stop word (bm25s' list: the search keeps "is", "in", "with"... as Python keywords, a snippet
  does not bold them); in scripts
  written without spaces, each pair of neighbouring characters that is a pair of the query, or
  a query's one-character run; neighbouring hits separated by spaces only share one ``<b>``
  (the page bolds "AI Applications" as one);
- the text is not HTML-escaped (Google's page does not say whether it escapes it).
"""

from __future__ import annotations

import itertools
import re
import unicodedata

from bm25s.stopwords import STOPWORDS_EN

from grounding_emulator.corpus.chunking import safe_cut
from grounding_emulator.corpus.tokens import UNSPACED, tokenize
from grounding_emulator.grounding.claims import split_claims

__all__ = ["SNIPPET_CHARS", "snippet"]

SNIPPET_CHARS = 250
_ELLIPSIS = "..."
# A word: letters and digits with the combining marks that follow them (a decomposed "é").
_WORD = re.compile(r"[^\W_](?:[^\W_]|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff])*")
# The English stop words the search keeps (those that are Python keywords), as search tokens.
_STOP_TOKENS = frozenset(tokenize(" ".join(sorted(STOPWORDS_EN))))


def _folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _unspaced_hits(run: str, pairs: frozenset[str], singles: frozenset[str]) -> list[bool]:
    """Which characters of ``run`` (a run of a script without spaces) are hits."""
    chars = [_folded(c) for c in run]
    hit = [c in singles for c in chars]
    for i, (a, b) in enumerate(itertools.pairwise(chars)):
        if a + b in pairs:
            hit[i] = hit[i + 1] = True
    return hit


def _hit_spans(text: str, query: str) -> list[tuple[int, int]]:
    """``[start, end)`` spans of the hits of ``query`` in ``text``, in order."""
    wanted = frozenset(tokenize(query)) - _STOP_TOKENS
    runs = UNSPACED.findall(_folded(query))
    pairs = frozenset(a + b for run in runs for a, b in itertools.pairwise(run))
    singles = frozenset(run for run in runs if len(run) == 1)
    if not (wanted or pairs or singles):
        return []  # an empty query (a listing) highlights nothing: no need to read the text
    marked = [False] * len(text)
    for word in _WORD.finditer(text):
        base, letters, position = word.start(), word.group(), 0
        for run in [*UNSPACED.finditer(letters), None]:
            end = run.start() if run is not None else len(letters)
            if position < end and wanted.intersection(tokenize(letters[position:end])):
                marked[base + position : base + end] = [True] * (end - position)
            if run is not None:
                marked[base + run.start() : base + run.end()] = _unspaced_hits(
                    run.group(), pairs, singles
                )
                position = run.end()
    spans: list[tuple[int, int]] = []
    for is_hit, group in itertools.groupby(enumerate(marked), key=lambda item: item[1]):
        if is_hit:
            indices = [i for i, _ in group]
            spans.append((indices[0], indices[-1] + 1))
    return spans


def _merged(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """``spans`` with neighbours separated by spaces only joined."""
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and not text[merged[-1][1] : start].strip(" "):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _window(text: str, first_hit: tuple[int, int] | None) -> tuple[int, int, bool]:
    """``(start, end, cut)``: the extract of ``text`` (module docstring)."""
    limit = SNIPPET_CHARS - len(_ELLIPSIS)
    if len(text) <= SNIPPET_CHARS:
        return 0, len(text), False
    start = 0
    if first_hit is not None and first_hit[1] > limit:
        sentence = max((s for s, _ in split_claims(text) if s <= first_hit[0]), default=0)
        start = sentence if first_hit[1] - sentence <= limit else first_hit[0]
    if len(text) - start <= SNIPPET_CHARS:
        return start, len(text), False
    end = text.rfind(" ", start, start + limit + 1)
    if end <= start:
        end = safe_cut(text, start + limit)
    return start, end, True


def snippet(text: str, query: str) -> str:
    """The snippet of ``text`` for ``query`` (module docstring)."""
    flat = " ".join(text.split())
    spans = _hit_spans(flat, query)
    start, end, cut = _window(flat, spans[0] if spans else None)
    extract = flat[start:end].rstrip()
    parts: list[str] = []
    position = 0
    for hit_start, hit_end in _merged(_hit_spans(extract, query), extract):
        parts += [extract[position:hit_start], "<b>", extract[hit_start:hit_end], "</b>"]
        position = hit_end
    parts.append(extract[position:])
    return "".join(parts) + (_ELLIPSIS if cut else "")
