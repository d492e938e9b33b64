"""``DiscoveryEngineRetriever(metadata_layout="flat")`` and ``document_text`` in LangChain, against
the emulator: the flat layout is the default metadata (``id`` = the document id among it) plus
every top-level struct data key (ours win on a clash) and the first extractive segment's
neighbours, as langchain-google-community's documents."""

from __future__ import annotations

import copy
import functools
import pickle

import pytest

from langchain_grounding import DiscoveryEngineRetriever
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


def test_the_flat_layout_has_every_key_in_documents_mode(server):
    options = {"search_mode": "documents", "max_extractive_segment_count": 1}
    default = retriever(server, **options).invoke(QUERY)
    flat = retriever(server, **options, metadata_layout="flat").invoke(QUERY)
    assert [d.id for d in flat] == [d.id for d in default]
    assert [d.metadata["document_id"] for d in flat] == list(FLAT_STRUCT)
    for plain, document in zip(default, flat, strict=True):
        document_id = plain.metadata["document_id"]
        expected = default_metadata(document_id, plain.metadata)
        assert plain.metadata == expected
        segment = plain.metadata["derived_struct_data"]["extractive_segments"][0]
        neighbours = {k: segment.get(k, []) for k in ("previous_segments", "next_segments")}
        assert document.metadata == {**expected, **neighbours, **FLAT_STRUCT[document_id]}
        assert document.page_content == plain.page_content
        assert plain.metadata["derived_struct_data"]["link"] == TITLES[document_id][1]
        assert plain.metadata["rank_signals"]  # the emulator sends them: compared, not assumed
        assert "relevance_score" in plain.metadata["model_scores"]


def test_our_keys_win_a_clash_and_the_struct_value_stays_in_struct_data(server):
    (manual, *_) = retriever(server, search_mode="documents", metadata_layout="flat").invoke(QUERY)
    metadata = manual.metadata
    assert metadata["document_id"] == "keeper-manual"
    assert (metadata["id"], metadata["title"], metadata["source"]) == (
        "keeper-manual",  # not the struct's "struct-id"
        "Keeper manual",  # not "Struct title"
        "https://example.com/manual",  # not "struct-source"
    )
    assert metadata["struct_data"] == MANUAL_STRUCT  # the struct's own "struct_data" key too
    assert (metadata["category"], metadata["year"]) == ("manual", 2024)


def test_the_flat_layout_in_chunk_mode(server):
    default = retriever(server, k=10).invoke(QUERY)
    flat = retriever(server, k=10, metadata_layout="flat").invoke(QUERY)
    assert {d.metadata["document_id"] for d in flat} == set(FLAT_STRUCT)
    for plain, document in zip(default, flat, strict=True):
        document_id = plain.metadata["document_id"]
        assert plain.metadata["struct_data"] == STRUCT[document_id]
        assert document.metadata == {**plain.metadata, **FLAT_STRUCT[document_id]}
        assert document.id == plain.id == plain.metadata["chunk_name"]
        assert "/chunks/" in document.id


async def test_the_flat_layout_async(server):
    flat = await retriever(server, metadata_layout="flat", search_mode="documents").ainvoke(QUERY)
    assert [(d.metadata["id"], d.metadata.get("city")) for d in flat] == [
        ("keeper-manual", None),
        ("title-only", None),
        ("no-struct", None),
        ("tokyo-tower", "東京"),
    ]


def test_the_default_layout_is_the_default(server):
    assert DiscoveryEngineRetriever.model_fields["metadata_layout"].get_default() == "default"
    (document, *_) = retriever(server, search_mode="documents").invoke(QUERY)
    assert document.metadata["id"] == document.metadata["document_id"] == "keeper-manual"
    assert "category" not in document.metadata


@pytest.mark.parametrize(
    ("options", "texts"),
    [
        (
            {"document_text": "extractive_answers", "max_extractive_answer_count": 1},
            ["Keeper manual", "", "A keeper climbs the stairs."],
        ),
        (
            {"document_text": "struct_data"},
            [
                "category: manual\nid: struct-id\nnested: {'level': 2}\nsource: struct-source\n"
                "struct_data: a key named like ours\ntags: ['lamp', 'log']\ntitle: Struct title\n"
                "year: 2024",
                "shelf: 3",
                "",
            ],
        ),
        (
            {"document_text": "snippets"},
            ["Keeper manual Lamp The keeper trims the lamp wick at dusk."],
        ),
    ],
    ids=["answers", "struct-data", "snippets"],
)
def test_document_text_is_the_page_content(server, options, texts):
    documents = retriever(server, search_mode="documents", **options).invoke(QUERY)
    assert [d.page_content for d in documents[: len(texts)]] == texts
    assert len(documents) == 4  # one per result, with the chosen content or without


def test_the_layout_survives_pickling_and_copying(server):
    flat = retriever(
        server, search_mode="documents", metadata_layout="flat", document_text="snippets"
    )
    for copied in (pickle.loads(pickle.dumps(flat)), copy.deepcopy(flat)):
        assert (copied.metadata_layout, copied.search.spec.document_text) == ("flat", "snippets")
        assert copied.invoke(QUERY)[0].metadata["id"] == "keeper-manual"


@pytest.mark.parametrize("layout", ["default", "flat"])
async def test_two_chunks_of_one_document_share_no_metadata(server, layout):
    # keeper-manual's two chunks: its struct data is read once per response, yet each
    # document's metadata is its own, nested values included.
    for docs in (
        retriever(server, k=10, metadata_layout=layout).invoke(QUERY),
        await retriever(server, k=10, metadata_layout=layout).ainvoke(QUERY),
    ):
        first, second = (d for d in docs if d.metadata["document_id"] == "keeper-manual")
        assert first.metadata["struct_data"] == second.metadata["struct_data"] == MANUAL_STRUCT
        before = copy.deepcopy(second.metadata)
        first.metadata["struct_data"]["tags"].append("changed")
        first.metadata["struct_data"]["nested"]["level"] = 3
        first.metadata["rank_signals"]["changed"] = True
        first.metadata["previous_chunks"].append("changed")
        if layout == "flat":
            first.metadata["tags"].append("changed")
            first.metadata["nested"]["level"] = 3
        assert second.metadata == before
        assert second.metadata["struct_data"] == MANUAL_STRUCT
