"""Which fields of a retrieved chunk survive into the framework object a retriever returns.

The truth is the chunk itself, as a chunk-mode search returns it (``SourceChunk``). A returned
object (``benchmarks.peer_driver.plain_object``: id, text, metadata, score, relationships) is
matched to the chunk whose content it carries; a field survives when its value appears in the
object as a value of its own (a URI inside a longer string does not count). An object that
carries no chunk's content keeps nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from grounding_core import SourceChunk

__all__ = ["FIELDS", "kept_fields", "survival"]


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _mappings(value: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(value, Mapping):
        yield value
        for item in value.values():
            yield from _mappings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _mappings(item)


def _has_number(leaves: list[Any], number: float | None) -> bool:
    if number is None:
        return False
    return any(
        isinstance(leaf, int | float) and not isinstance(leaf, bool) and abs(leaf - number) < 1e-6
        for leaf in leaves
    )


def _has_items(mappings: list[Mapping[str, Any]], items: Mapping[str, Any]) -> bool:
    return bool(items) and any(
        all(key in mapping and mapping[key] == value for key, value in items.items())
        for mapping in mappings
    )


class _Object:
    def __init__(self, plain: Mapping[str, Any]) -> None:
        self.text = plain.get("text")
        self.leaves = list(_leaves(plain))
        self.mappings = list(_mappings(plain.get("metadata") or {}))


def _has(found: _Object, value: str) -> bool:
    return bool(value) and value in found.leaves


def _keyword_score(chunk: SourceChunk) -> float | None:
    signals = chunk.rank_signals
    return signals.keyword_similarity_score if signals else None


FIELDS: dict[str, Callable[[_Object, SourceChunk], bool]] = {
    "chunk name": lambda o, c: _has(o, c.name),
    "chunk id": lambda o, c: _has(o, c.id),
    "content": lambda o, c: o.text == c.content,
    "document id": lambda o, c: _has(o, c.document_id),
    "document name": lambda o, c: _has(o, c.document_name),
    "uri": lambda o, c: _has(o, c.uri),
    "title": lambda o, c: _has(o, c.title),
    "struct data": lambda o, c: _has_items(o.mappings, c.struct_data),
    "relevance score": lambda o, c: _has_number(o.leaves, c.relevance_score),
    "rank signals": lambda o, c: _has_number(o.leaves, _keyword_score(c)),
}
"""The chunk fields checked, and how each is recognized in an object."""


def kept_fields(plain: Mapping[str, Any], chunks_by_content: Mapping[str, SourceChunk]) -> set[str]:
    """The fields of the chunk that ``plain`` carries which survive in it."""
    chunk = chunks_by_content.get(plain.get("text") or "")
    if chunk is None:
        return set()
    found = _Object(plain)
    return {name for name, check in FIELDS.items() if check(found, chunk)}


def survival(
    objects: Sequence[Mapping[str, Any]], chunks: Sequence[SourceChunk]
) -> tuple[list[str], list[str]]:
    """``(kept, lost)``: the fields that survive in at least half of ``objects``, the others."""
    by_content = {chunk.content: chunk for chunk in chunks}
    counts = dict.fromkeys(FIELDS, 0)
    for plain in objects:
        for name in kept_fields(plain, by_content):
            counts[name] += 1
    kept = [name for name, count in counts.items() if objects and count * 2 >= len(objects)]
    return kept, [name for name in FIELDS if name not in kept]
