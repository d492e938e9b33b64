"""A search response's chunks read their document's metadata once per document
(``chunks_from_search_results``): the records are those of converting each result alone, and no
chunk shares a mutable value with another, in its record or in its metadata."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from google.cloud import discoveryengine_v1 as de
from hypothesis import given
from hypothesis import strategies as st

from grounding_core import chunk_metadata
from grounding_core.convert import (
    _rank_signals_record,
    _slot_builder,
    _source_chunk_record,
    chunk_from_search_result,
    chunks_from_search_results,
)
from grounding_core.records import PageSpan, RankSignals, SourceChunk

DOC = "projects/p/locations/global/collections/default_collection/dataStores/d/branches/0/documents"

NESTED = {
    "langue": "français",
    "année": 2024,
    "ratio": 0.5,
    "étiquettes": ["数据", "🚀", "a"],
    "imbriqué": {"ok": True, "rien": None, "liste": [{"clé": "valeur"}, [1, 2.5]]},
}
FLAT = {"topic": "コルーチン", "words": 3114, "score": -1.5, "draft": False, "none": None}


def _result(document: str, number: int, struct: dict[str, Any], **metadata: Any) -> Any:
    result = de.SearchResponse.SearchResult(
        id=document,
        chunk=de.Chunk(
            name=f"{DOC}/{document}/chunks/c{number}",
            id=f"c{number}",
            content=f"Chunk {number} of {document}: ünïcödé 東京",
            relevance_score=0.25 * number,
            document_metadata=de.Chunk.DocumentMetadata(
                uri=metadata.get("uri", f"https://example.com/{document}"),
                title=metadata.get("title", f"Titre {document} ✓"),
                struct_data=struct,
            ),
        ),
        rank_signals=de.SearchResponse.SearchResult.RankSignals(
            keyword_similarity_score=float(number), default_rank=float(number)
        ),
    )
    return de.SearchResponse.SearchResult.pb(result)


def _results() -> list[Any]:
    # Two documents, their chunks interleaved; one with nested struct data, one flat.
    return [
        _result("doc-1", 0, NESTED),
        _result("doc-2", 0, FLAT),
        _result("doc-1", 1, NESTED),
        _result("doc-2", 1, FLAT),
        _result("doc-1", 2, NESTED),
    ]


def test_the_records_are_those_of_each_result_alone():
    results = _results()
    chunks = chunks_from_search_results(results)
    assert chunks == [chunk_from_search_result(r) for r in results]
    assert [c.struct_data for c in chunks] == [NESTED, FLAT, NESTED, FLAT, NESTED]
    assert [type(c.struct_data.get("année", c.struct_data.get("words"))) for c in chunks] == [
        int
    ] * 5


def _containers(value: Any) -> list[Any]:
    """Every dict and list in ``value``, ``value`` included."""
    if isinstance(value, dict):
        return [value, *(c for v in value.values() for c in _containers(v))]
    if isinstance(value, list):
        return [value, *(c for v in value for c in _containers(v))]
    return []


def test_no_two_chunks_of_a_document_share_a_dict_or_a_list():
    chunks = chunks_from_search_results(_results())
    owned = [id(c) for chunk in chunks for c in _containers(chunk.struct_data)]
    assert len(owned) == len(set(owned))


def test_changing_one_chunk_changes_no_other():
    first, _, second, _, third = chunks_from_search_results(_results())
    first.struct_data["étiquettes"].append("changé")  # type: ignore[index]
    first.struct_data["imbriqué"]["liste"][0]["clé"] = "changé"  # type: ignore[index]
    metadata = chunk_metadata(second)
    metadata["struct_data"]["imbriqué"]["ok"] = False
    metadata["struct_data"]["nouveau"] = 1
    assert third.struct_data == NESTED
    assert chunk_metadata(third)["struct_data"] == NESTED


def test_metadata_dicts_of_two_chunks_are_independent():
    _, first, _, second, _ = chunks_from_search_results(_results())
    one, two = chunk_metadata(first), chunk_metadata(second)
    one["struct_data"]["topic"] = "changed"
    one["rank_signals"]["default_rank"] = 99.0
    assert two["struct_data"] == FLAT
    assert second.struct_data == FLAT
    assert two["rank_signals"] == {"keyword_similarity_score": 1.0, "default_rank": 1.0}


def test_a_document_sent_with_other_metadata_is_read_again():
    results = [
        _result("doc-1", 0, NESTED),
        _result("doc-1", 1, FLAT, title="Autre titre"),
        _result("doc-1", 2, NESTED),
    ]
    chunks = chunks_from_search_results(results)
    assert chunks == [chunk_from_search_result(r) for r in results]
    assert [c.title for c in chunks] == ["Titre doc-1 ✓", "Autre titre", "Titre doc-1 ✓"]
    assert [c.struct_data for c in chunks] == [NESTED, FLAT, NESTED]


def test_a_chunk_without_document_metadata_and_one_without_a_document_name():
    bare = de.SearchResponse.SearchResult.pb(
        de.SearchResponse.SearchResult(chunk=de.Chunk(name="no-document", content="x"))
    )
    results = [bare, _result("doc-1", 0, FLAT), bare]
    chunks = chunks_from_search_results(results)
    assert chunks == [chunk_from_search_result(r) for r in results]
    assert chunks[0].struct_data == {}
    assert chunks[0].struct_data is not chunks[2].struct_data


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
STRUCTS = st.dictionaries(st.text(max_size=6), JSON, max_size=4)


@given(
    structs=st.lists(STRUCTS, min_size=1, max_size=3),
    picks=st.lists(st.integers(0, 2), min_size=1, max_size=8),
)
def test_any_unicode_struct_data_any_order(structs, picks):
    results = [
        _result(f"doc-{pick % len(structs)}", number, structs[pick % len(structs)])
        for number, pick in enumerate(picks)
    ]
    chunks = chunks_from_search_results(results)
    assert chunks == [chunk_from_search_result(r) for r in results]
    owned = [id(c) for chunk in chunks for c in _containers(chunk.struct_data)]
    assert len(owned) == len(set(owned))


def test_the_field_orders_the_conversion_passes_positionally():
    # _chunk and _rank_signals build their records positionally (matching keywords costs
    # for every retrieved chunk): a new or moved field must be placed there too.
    assert [f.name for f in dataclasses.fields(SourceChunk)] == [
        "name",
        "content",
        "id",
        "document_id",
        "document_name",
        "uri",
        "title",
        "mime_type",
        "description",
        "data_source",
        "update_time",
        "struct_data",
        "derived_struct_data",
        "page_span",
        "page_identifier",
        "previous_chunks",
        "next_chunks",
        "relevance_score",
        "rank_signals",
        "model_scores",
        "annotation_contents",
        "annotation_metadata",
        "data_urls",
    ]
    assert [f.name for f in dataclasses.fields(RankSignals)] == [
        "keyword_similarity_score",
        "relevance_score",
        "semantic_similarity_score",
        "pctr_rank",
        "topicality_rank",
        "document_age",
        "boosting_factor",
        "default_rank",
        "custom_signals",
        "precomputed_expression_values",
    ]


def test_every_rank_signal_and_neighbour_lands_in_its_field():
    result = de.SearchResponse.SearchResult(
        chunk=de.Chunk(
            name=f"{DOC}/doc-1/chunks/c1",
            page_span=de.Chunk.PageSpan(page_start=2, page_end=5),
            chunk_metadata=de.Chunk.ChunkMetadata(
                previous_chunks=[de.Chunk(name=f"{DOC}/doc-1/chunks/c0", content="avant")],
                next_chunks=[de.Chunk(name=f"{DOC}/doc-1/chunks/c2", content="après")],
            ),
            derived_struct_data={"clé": "dérivée"},
            annotation_contents=["| a |"],
            data_urls=["data:,x"],
        ),
        model_scores={"m": de.DoubleList(values=[0.5])},
        rank_signals=de.SearchResponse.SearchResult.RankSignals(
            keyword_similarity_score=0.5,
            relevance_score=0.25,
            semantic_similarity_score=0.125,
            pctr_rank=1.5,
            topicality_rank=2.5,
            document_age=3.5,
            boosting_factor=4.5,
            default_rank=5.5,
            custom_signals=[
                de.SearchResponse.SearchResult.RankSignals.CustomSignal(name="s", value=6.5)
            ],
            precomputed_expression_values=[7.5],
        ),
    )
    (chunk,) = chunks_from_search_results([de.SearchResponse.SearchResult.pb(result)])
    assert chunk.rank_signals == RankSignals(
        keyword_similarity_score=0.5,
        relevance_score=0.25,
        semantic_similarity_score=0.125,
        pctr_rank=1.5,
        topicality_rank=2.5,
        document_age=3.5,
        boosting_factor=4.5,
        default_rank=5.5,
        custom_signals={"s": 6.5},
        precomputed_expression_values=(7.5,),
    )
    assert chunk.page_span == PageSpan(2, 5)
    assert [c.content for c in chunk.previous_chunks] == ["avant"]
    assert [c.content for c in chunk.next_chunks] == ["après"]
    assert chunk.derived_struct_data == {"clé": "dérivée"}
    assert chunk.annotation_contents == ("| a |",)
    assert chunk.data_urls == ("data:,x",)
    assert chunk.model_scores == {"m": (0.5,)}
    assert (chunk.description, chunk.data_source, chunk.update_time) == ("", "", None)
    assert (chunk.page_identifier, chunk.mime_type, chunk.relevance_score) == ("", "", None)


@given(
    st.lists(
        st.one_of(st.none(), st.floats(allow_nan=False), st.text(), st.integers()),
        min_size=len(dataclasses.fields(SourceChunk)),
        max_size=len(dataclasses.fields(SourceChunk)),
    )
)
def test_a_record_set_slot_by_slot_is_the_one_its_constructor_makes(values):
    made = _source_chunk_record(*values)
    expected = SourceChunk(*values)
    assert made == expected
    assert type(made) is SourceChunk
    assert [getattr(made, f.name) for f in dataclasses.fields(SourceChunk)] == values
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.content = "changed"  # type: ignore[misc]
    signals = values[: len(dataclasses.fields(RankSignals))]
    assert _rank_signals_record(*signals) == RankSignals(*signals)


def test_a_record_set_slot_by_slot_takes_every_field_and_no_more():
    values = ["n"] * len(dataclasses.fields(SourceChunk))
    with pytest.raises(ValueError, match="zip"):
        _source_chunk_record(*values[:-1])
    with pytest.raises(ValueError, match="zip"):
        _source_chunk_record(*values, "one too many")


def test_only_a_slots_record_without_post_init_is_set_slot_by_slot():
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            if self.a < 0:
                raise ValueError("a")

    for cls in (NoSlots, Checked):
        with pytest.raises(TypeError, match=f"{cls.__name__} is not a slots dataclass"):
            _slot_builder(cls)
