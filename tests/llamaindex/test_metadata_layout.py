"""``DiscoveryEngineRetriever(metadata_layout="flat")`` and ``document_text`` in LlamaIndex,
against the emulator: the flat layout's keys, the clash rule, and what reaches the LLM and the
embeddings (the prose keys only: ``id`` and the struct keys are excluded, as every non-prose key
is)."""

from __future__ import annotations

import copy
import functools
import pickle

import pytest
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import MetadataMode

from grounding_core import InputError
from llamaindex_grounding import DiscoveryEngineRetriever
from tests.content_corpus import (
    FLAT_STRUCT,
    MANUAL_STRUCT,
    QUERY,
    STRUCT,
    TITLES,
    content_retriever,
    content_server_fixture,
    default_metadata,
)

server = content_server_fixture()
retriever = functools.partial(content_retriever, DiscoveryEngineRetriever)


def test_class():
    assert BaseRetriever in DiscoveryEngineRetriever.__mro__


def test_the_flat_layout_has_every_key_in_documents_mode(server):
    options = {"search_mode": "documents", "max_extractive_segment_count": 1}
    default = retriever(server, **options).retrieve(QUERY)
    flat_retriever = retriever(server, **options, metadata_layout="flat")
    assert flat_retriever.metadata_layout == "flat"
    flat = flat_retriever.retrieve(QUERY)
    assert [n.node.node_id for n in flat] == [n.node.node_id for n in default]
    assert [n.node.metadata["document_id"] for n in flat] == list(FLAT_STRUCT)
    for plain, hit in zip(default, flat, strict=True):
        node = hit.node
        document_id = plain.node.metadata["document_id"]
        expected = default_metadata(document_id, plain.node.metadata)
        assert plain.node.metadata == expected
        segment = plain.node.metadata["derived_struct_data"]["extractive_segments"][0]
        neighbours = {k: segment.get(k, []) for k in ("previous_segments", "next_segments")}
        assert node.metadata == {**expected, **neighbours, **FLAT_STRUCT[document_id]}
        assert node.text == plain.node.text
        assert hit.score == plain.score
        # Only the prose keys reach the LLM and the embeddings, in the flat layout too.
        assert node.excluded_llm_metadata_keys == node.excluded_embed_metadata_keys
        assert set(node.metadata) - set(node.excluded_llm_metadata_keys) == {"title", "source"}
        title, uri = TITLES[document_id]
        shown = f"source: {uri}\ntitle: {title}\n\n{node.text}"
        assert node.get_content(metadata_mode=MetadataMode.LLM) == shown
        assert node.get_content(metadata_mode=MetadataMode.EMBED) == shown


def test_our_keys_win_a_clash(server):
    (hit, *_) = retriever(server, search_mode="documents", metadata_layout="flat").retrieve(QUERY)
    metadata = hit.node.metadata
    assert (metadata["id"], metadata["title"], metadata["source"]) == (
        "keeper-manual",
        "Keeper manual",
        "https://example.com/manual",
    )
    assert metadata["struct_data"] == MANUAL_STRUCT
    assert (metadata["category"], metadata["nested"]) == ("manual", {"level": 2})


async def test_the_flat_layout_in_chunk_mode_async(server):
    default = await retriever(server, similarity_top_k=10).aretrieve(QUERY)
    flat = await retriever(server, similarity_top_k=10, metadata_layout="flat").aretrieve(QUERY)
    assert {n.node.metadata["document_id"] for n in flat} == set(FLAT_STRUCT)
    for plain, hit in zip(default, flat, strict=True):
        document_id = plain.node.metadata["document_id"]
        assert plain.node.metadata["struct_data"] == STRUCT[document_id]
        assert hit.node.metadata == {
            **plain.node.metadata,
            "id": document_id,
            **FLAT_STRUCT[document_id],
        }


def test_the_layout_survives_a_new_similarity_top_k(server):
    flat = retriever(server, search_mode="documents", metadata_layout="flat")
    flat.similarity_top_k = 1
    (hit,) = flat.retrieve(QUERY)
    assert hit.node.metadata["id"] == "keeper-manual"


def test_the_default_layout_is_the_default(server):
    plain = retriever(server, search_mode="documents")
    assert plain.metadata_layout == "default"
    (hit, *_) = plain.retrieve(QUERY)
    assert hit.node.metadata["id"] == hit.node.metadata["document_id"]
    assert "category" not in hit.node.metadata


def test_document_text_is_the_node_text(server):
    answers = retriever(
        server,
        search_mode="documents",
        document_text="extractive_answers",
        max_extractive_answer_count=1,
    )
    assert answers.spec.document_text == "extractive_answers"
    assert [n.node.text for n in answers.retrieve(QUERY)] == [
        "Keeper manual",
        "",  # the title-only document has no extractive answer: still a result, no text
        "A keeper climbs the stairs.",
        "The keeper 👩‍🚀 waves a flag 🇯🇵 at night.",
    ]


def test_a_bad_layout_fails_at_construction(server):
    with pytest.raises(InputError, match="metadata_layout must be 'default' or 'flat'") as info:
        retriever(server, metadata_layout="flatten")
    assert info.value.field == "metadata_layout"


def test_the_layout_survives_pickling_and_copying(server):
    flat = retriever(
        server, search_mode="documents", metadata_layout="flat", document_text="snippets"
    )
    for copied in (pickle.loads(pickle.dumps(flat)), copy.deepcopy(flat)):
        assert (copied.metadata_layout, copied.spec.document_text) == ("flat", "snippets")
        assert copied.retrieve(QUERY)[0].node.metadata["id"] == "keeper-manual"


@pytest.mark.parametrize("layout", ["default", "flat"])
async def test_two_chunks_of_one_document_share_no_metadata(server, layout):
    # keeper-manual's two chunks: its struct data is read once per response, yet each node's
    # metadata is its own, nested values included.
    for hits in (
        retriever(server, similarity_top_k=10, metadata_layout=layout).retrieve(QUERY),
        await retriever(server, similarity_top_k=10, metadata_layout=layout).aretrieve(QUERY),
    ):
        first, second = (h.node for h in hits if h.node.metadata["document_id"] == "keeper-manual")
        assert first.metadata["struct_data"] == second.metadata["struct_data"] == MANUAL_STRUCT
        before = copy.deepcopy(second.metadata)
        first.metadata["struct_data"]["tags"].append("changed")
        first.metadata["struct_data"]["nested"]["level"] = 3
        first.metadata["rank_signals"]["changed"] = True
        first.metadata["next_chunks"].append("changed")
        if layout == "flat":
            first.metadata["tags"].append("changed")
            first.metadata["nested"]["level"] = 3
        assert second.metadata == before
        assert second.metadata["struct_data"] == MANUAL_STRUCT
