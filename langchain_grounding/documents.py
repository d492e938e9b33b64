"""Records <-> LangChain objects: chunks become ``Document``s; chain outputs give up their
answer and documents for a grounding check."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage

from grounding_core import (
    GroundingSource,
    InputError,
    SourceChunk,
    chunk_metadata,
    grounding_source,
)
from grounding_core.metadata import DEFAULT_METADATA_LAYOUT, MetadataLayout

__all__ = [
    "ANSWER_KEYS",
    "DOCUMENT_KEYS",
    "MESSAGE_DOCUMENTS_KEY",
    "add_new_documents",
    "answer_key",
    "answer_text",
    "chunk_to_document",
    "document_to_source",
    "find_answer",
    "find_documents",
    "message_documents",
]

# Where typical RAG chains put the answer and the retrieved documents in their output dict
# (create_retrieval_chain: "answer"/"context"; RetrievalQA: "result"/"source_documents").
ANSWER_KEYS = ("answer", "output", "result", "response", "text")
DOCUMENT_KEYS = ("documents", "context", "source_documents", "docs")
MESSAGE_DOCUMENTS_KEY = "documents"
"""The ``response_metadata`` key of the documents a model answered from
(``ChatDiscoveryEngineGrounded``: its grounding sources)."""


# ``chunk_to_document`` sets these fields without pydantic's validation (a test compares the
# result with the validated Document); any change to Document's fields turns that off.
_FAST = (
    Document.__pydantic_post_init__ is None
    and Document.model_config.get("extra") != "allow"
    and list(Document.model_fields) == ["id", "metadata", "page_content", "type"]
    and Document.model_fields["type"].default == "Document"
)
_set = object.__setattr__


def chunk_to_document(
    chunk: SourceChunk, layout: MetadataLayout = DEFAULT_METADATA_LAYOUT
) -> Document:
    """A chunk as a ``Document``: ``id`` = chunk resource name, every field in metadata (laid
    out as ``layout`` says: ``grounding_core.chunk_metadata``)."""
    metadata = chunk_metadata(chunk, layout)
    if not _FAST:
        return Document(id=chunk.name, page_content=chunk.content, metadata=metadata)
    # The values are known valid (str, str, a fresh dict): pydantic's validation, which copies
    # the metadata once more, costs as much as building the record (k=100 retrieval benchmark).
    document = Document.__new__(Document)
    _set(
        document,
        "__dict__",
        {"id": chunk.name, "metadata": metadata, "page_content": chunk.content, "type": "Document"},
    )
    _set(document, "__pydantic_fields_set__", {"id", "metadata", "page_content"})
    _set(document, "__pydantic_extra__", None)
    _set(document, "__pydantic_private__", None)
    return document


def add_new_documents(kept: list[Document], documents: Sequence[Document]) -> None:
    """Append to ``kept`` the ``documents`` it does not hold yet (same id and content)."""
    seen = {(d.id, d.page_content) for d in kept}
    kept.extend(d for d in documents if (d.id, d.page_content) not in seen)


def message_documents(message: BaseMessage) -> list[Document]:
    """The documents ``message`` says its answer comes from (``response_metadata["documents"]``,
    as a grounded model gives them); none for any other message."""
    documents = message.response_metadata.get(MESSAGE_DOCUMENTS_KEY)
    if not isinstance(documents, list | tuple):
        return []
    return [d for d in documents if isinstance(d, Document)]


def document_to_source(document: Document | str) -> GroundingSource:
    """A ``Document`` (or plain text) as a grounding source: its ``page_content`` (what
    LangChain's prompts show the model: LangChain has no metadata mode) and its metadata as
    attributes."""
    if isinstance(document, str):
        return GroundingSource(document)
    return grounding_source(document.page_content, document.metadata)


def answer_text(answer: object) -> str:
    """The text of an answer given as ``str`` or a chat message."""
    if isinstance(answer, str):
        return answer
    if isinstance(answer, BaseMessage):
        return answer.text
    raise InputError(
        f"answer must be a str or an AIMessage, got {type(answer).__name__}", field="answer"
    )


def answer_key(output: Mapping[str, Any]) -> str:
    """The key under which a chain's output dict holds its answer."""
    for key in ANSWER_KEYS:
        if key in output:
            return key
    raise InputError(
        f"no answer in the output: expected one of the keys {', '.join(ANSWER_KEYS)}, "
        f"got {', '.join(map(str, output)) or 'none'}",
        field="answer",
    )


def find_answer(output: Any) -> Any:
    """The answer in a chain's output: the output itself, or the value of its answer key."""
    if isinstance(output, Mapping):
        return output[answer_key(output)]
    return output


def find_documents(output: Mapping[str, Any]) -> list[Document | str] | None:
    """The documents in a chain's output dict, or ``None`` if it holds none."""
    for key in DOCUMENT_KEYS:
        if key in output:
            value = output[key]
            if isinstance(value, Document | str):
                return [value]
            if isinstance(value, Sequence):
                documents = list(value)
                for index, item in enumerate(documents):
                    if not isinstance(item, Document | str):
                        raise InputError(
                            f"{key}[{index}] must be a Document or str, got {type(item).__name__}",
                            field=key,
                        )
                return documents
            raise InputError(
                f"{key} must be a list of Documents, got {type(value).__name__}", field=key
            )
    return None
