"""``chunk_to_document`` builds the ``Document`` that ``Document(...)`` and ``model_construct``
give, in every respect, and no two documents share anything mutable."""

from __future__ import annotations

import pickle

from langchain_core.documents import Document
from langchain_core.load import dumpd

from grounding_core import SourceChunk, chunk_metadata
from langchain_grounding import chunk_to_document

CHUNK = SourceChunk(
    name="projects/p/documents/d/chunks/c1",
    content="Généralités: 数据 🚀",
    uri="https://example.com/d",
    struct_data={"tags": ["a"], "année": 2024},
)


def _built() -> tuple[Document, Document, Document]:
    metadata = chunk_metadata(CHUNK)
    return (
        chunk_to_document(CHUNK),
        Document(id=CHUNK.name, page_content=CHUNK.content, metadata=metadata),
        Document.model_construct(id=CHUNK.name, page_content=CHUNK.content, metadata=metadata),
    )


def test_the_document_is_the_validated_one():
    ours, validated, constructed = _built()
    for other in (validated, constructed):
        assert ours == other
        assert ours.__dict__ == other.__dict__
        assert ours.model_fields_set == other.model_fields_set
        assert ours.__pydantic_extra__ == other.__pydantic_extra__
        assert ours.__pydantic_private__ == other.__pydantic_private__
        assert ours.model_dump() == other.model_dump()
        assert ours.model_dump(exclude_unset=True) == other.model_dump(exclude_unset=True)
        assert ours.model_dump_json() == other.model_dump_json()
        assert dumpd(ours) == dumpd(other)
    assert ours.type == "Document"
    assert pickle.loads(pickle.dumps(ours)) == validated


def test_two_documents_share_nothing_mutable():
    one, two = chunk_to_document(CHUNK), chunk_to_document(CHUNK)
    assert one == two
    assert one.model_fields_set is not two.model_fields_set
    assert one.metadata is not two.metadata
    one.type = "Document"  # assigning a field adds it to that document's set only
    assert "type" in one.model_fields_set
    assert "type" not in two.model_fields_set
    one.metadata["struct_data"]["année"] = 2025
    assert two.metadata["struct_data"] == {"tags": ["a"], "année": 2024}
    copied = one.model_copy(update={"page_content": "autre"})
    assert copied.page_content == "autre"
    assert copied.id == one.id
