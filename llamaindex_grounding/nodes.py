"""Records <-> LlamaIndex objects: chunks become ``TextNode``s, nodes become grounding sources,
grounded answers become ``Response``s.

A chunk's node has ``id_`` = the chunk's resource name (a retriever in documents mode gives the
document id instead), ``text`` = its content and
``metadata`` = every chunk field (``grounding_core.chunk_metadata``, the schema shared with
the LangChain documents). Only the prose keys (``title``, ``source``, ``description``) reach
the LLM prompt and the embedding text; every other key is listed in
``excluded_llm_metadata_keys`` and ``excluded_embed_metadata_keys``: in the ``"flat"``
layout too, whose ``id`` and struct data keys are data, not prose known to help a prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llama_index.core.base.response.schema import Response
from llama_index.core.schema import (
    BaseNode,
    MetadataMode,
    NodeRelationship,
    NodeWithScore,
    ObjectType,
    RelatedNodeInfo,
    TextNode,
)

from grounding_core import (
    GroundedAnswer,
    GroundingSource,
    SourceChunk,
    answer_metadata,
    chunk_metadata,
    grounding_source,
)
from grounding_core.metadata import CHUNK_PROSE_KEYS, DEFAULT_METADATA_LAYOUT, MetadataLayout

__all__ = [
    "answer_response",
    "chunk_to_node",
    "chunk_to_node_with_score",
    "excluded_metadata_keys",
    "node_to_source",
]


def excluded_metadata_keys(metadata: Mapping[str, Any]) -> list[str]:
    """The keys kept out of LLM and embedding text: every non-prose key, and empty prose."""
    return [
        key for key, value in metadata.items() if key not in CHUNK_PROSE_KEYS or value in (None, "")
    ]


def _relationships(chunk: SourceChunk) -> dict[NodeRelationship, RelatedNodeInfo]:
    relationships: dict[NodeRelationship, RelatedNodeInfo] = {}
    document = chunk.document_name or chunk.document_id
    if document:
        info = {"document_id": chunk.document_id, "uri": chunk.uri, "title": chunk.title}
        relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(
            node_id=document,
            node_type=ObjectType.DOCUMENT,
            metadata={key: value for key, value in info.items() if value},
        )
    # Neighbours come in document order: the nearest previous chunk is the last one.
    if chunk.previous_chunks:
        relationships[NodeRelationship.PREVIOUS] = RelatedNodeInfo(
            node_id=chunk.previous_chunks[-1].name, node_type=ObjectType.TEXT
        )
    if chunk.next_chunks:
        relationships[NodeRelationship.NEXT] = RelatedNodeInfo(
            node_id=chunk.next_chunks[0].name, node_type=ObjectType.TEXT
        )
    return relationships


def chunk_to_node(
    chunk: SourceChunk, layout: MetadataLayout = DEFAULT_METADATA_LAYOUT, id_: str | None = None
) -> TextNode:
    """A chunk as a ``TextNode``: ``id_`` (default: the chunk's resource name), every field in
    metadata (laid out as ``layout`` says: ``grounding_core.chunk_metadata``), ``SOURCE`` = its
    document, ``PREVIOUS``/``NEXT`` = its nearest neighbours (when the search asked for
    neighbours).

    >>> node = chunk_to_node(SourceChunk(name="c-1", content="Hi.", uri="https://x", title="X"))
    >>> node.node_id, node.metadata["source"], node.get_content(metadata_mode=MetadataMode.LLM)
    ('c-1', 'https://x', 'source: https://x\\ntitle: X\\n\\nHi.')
    """
    metadata = chunk_metadata(chunk, layout)
    excluded = excluded_metadata_keys(metadata)
    return TextNode(
        id_=chunk.name if id_ is None else id_,
        text=chunk.content,
        metadata=metadata,
        excluded_llm_metadata_keys=excluded,
        excluded_embed_metadata_keys=list(excluded),
        relationships=_relationships(chunk),
    )


def chunk_to_node_with_score(
    chunk: SourceChunk, layout: MetadataLayout = DEFAULT_METADATA_LAYOUT, id_: str | None = None
) -> NodeWithScore:
    """A chunk as a ``NodeWithScore`` (``chunk_to_node``) whose score is the chunk's relevance
    score."""
    return NodeWithScore(node=chunk_to_node(chunk, layout, id_), score=chunk.relevance_score)


def node_to_source(node: NodeWithScore | BaseNode | str) -> GroundingSource:
    """A node (or plain text) as a grounding source: the text the LLM is given
    (``get_content(metadata_mode=MetadataMode.LLM)``: the node's text with the metadata it
    shows the LLM, through its templates and ``excluded_llm_metadata_keys``), and its
    metadata as the fact's attributes (bulky chunk fields left out).

    >>> node = chunk_to_node(SourceChunk(name="c", content="Hi.", description="A greeting."))
    >>> node_to_source(node).text
    'description: A greeting.\\n\\nHi.'
    """
    if isinstance(node, str):
        return GroundingSource(node)
    base = node.node if isinstance(node, NodeWithScore) else node
    return grounding_source(base.get_content(metadata_mode=MetadataMode.LLM), base.metadata)


def answer_response(answer: GroundedAnswer) -> Response:
    """A grounded answer as a LlamaIndex ``Response``.

    ``response`` is the answer text and ``source_nodes`` its references. ``metadata`` holds
    ``grounding_core.answer_metadata`` as it is (grounding score; citations and grounding
    supports with char and byte spans, the positions of their references and their node ids,
    ``source_ids``; skipped reasons; session: the keys LangChain's answer output has too) and
    the full record under ``grounded_answer`` (``grounding_core.answer_markdown`` renders it).
    """
    nodes = [chunk_to_node_with_score(reference) for reference in answer.references]
    metadata = {**answer_metadata(answer), "grounded_answer": answer}
    return Response(response=answer.answer_text, source_nodes=nodes, metadata=metadata)
