"""A search keeps its freed arrays for the next one (``search/heap.py``): on glibc the malloc
thresholds are set once per process; elsewhere nothing is touched."""

from __future__ import annotations

import platform
import sys

from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.search import heap
from grounding_emulator.search.engine import SearchParams, search
from tests.emulator.test_columns import unicode_sources


def test_the_thresholds_are_set_once_on_glibc_only():
    expected = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert heap.keep_freed_memory() is expected
    assert heap.keep_freed_memory() is expected
    assert heap.keep_freed_memory.cache_info().misses <= 1


def test_a_search_sets_them_and_finds_the_same(monkeypatch):
    calls = []
    monkeypatch.setattr(
        "grounding_emulator.search.engine.keep_freed_memory", lambda: calls.append(1)
    )
    snapshot = DataStore.build("heap", unicode_sources())
    page = search(snapshot, SearchParams(query="東京", page_size=3))
    assert calls == [1]
    assert [hit.document.id for hit in page.hits] == ["doc-1-東京-🚀"]
