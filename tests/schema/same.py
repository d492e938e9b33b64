"""``assert_same``: two metadata values equal key by key, naming the first path that differs."""

from __future__ import annotations

from typing import Any


def assert_same(left: Any, right: Any, path: str = "metadata") -> None:
    """``left == right`` with the same keys, lengths and value types all the way down."""
    if isinstance(left, dict) and isinstance(right, dict):
        assert set(left) == set(right), f"{path}: keys {sorted(set(left) ^ set(right))} differ"
        for key in left:
            assert_same(left[key], right[key], f"{path}[{key!r}]")
    elif isinstance(left, list) and isinstance(right, list):
        assert len(left) == len(right), f"{path}: {len(left)} != {len(right)} items"
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            assert_same(a, b, f"{path}[{index}]")
    else:
        assert left == right, f"{path}: {left!r} != {right!r}"
        assert type(left) is type(right), f"{path}: {type(left)} != {type(right)}"


def node_id(document: Any) -> str:
    """The LlamaIndex node id of the search result that LangChain's ``document`` is: in documents
    mode its document id (as llama-index-retrievers-vertexai-search gives it), else its
    resource name (``document.id``)."""
    metadata = document.metadata
    in_documents_mode = metadata["chunk_name"] == metadata["document_name"]
    return str(metadata["document_id"]) if in_documents_mode else str(document.id)
