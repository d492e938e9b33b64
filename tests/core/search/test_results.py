"""``grounding_core.search.results``: a ``SearchResponse`` as records.

- ``chunks_from_results`` in chunk mode: every field of a chunk result (its document's metadata,
  page span, neighbours, annotations, rank signals, model scores) in its ``SourceChunk`` field,
  unset optional values as ``None`` (not zero), struct numbers as ints only where a double is
  exact, no mutable value shared between two records (Hypothesis, bounded).
- ``chunks_from_results`` in documents mode: uri and title from the derived or the struct data,
  a document's score as its best extractive segment's, and its text as ``document_text``
  chooses (segments, else answers, else snippets without ``<b>``, else struct data; or only the
  chosen content), on hand-built responses and on the emulator's (Unicode included).
- ``search_results``: every response-level value (total size, corrected query, query expansion,
  value and interval facets, attribution token).
- ``first_pages``/``afirst_pages``/``first_results``: only as many pages pulled as ``k`` needs,
  the async pager closed, the first ``k`` results.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest
from google.cloud import discoveryengine_v1 as de
from google.protobuf.json_format import MessageToDict
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_core import (
    DiscoveryEngineConnection,
    SearchResults,
    SourceChunk,
    chunk_metadata,
)
from grounding_core.search.discovery_engine import DiscoveryEngineChunkSearch
from grounding_core.search.results import (
    AnnotationMetadata,
    FacetValue,
    PageSpan,
    RankSignals,
    SearchFacet,
    _slot_setter,
    afirst_pages,
    chunks_from_results,
    first_pages,
    first_results,
    search_results,
)
from grounding_emulator import EmulatorServer
from tests.content_corpus import (
    CONTENT_DATA_STORE,
    MANUAL_STRUCT,
    QUERY,
    TITLE_ONLY_STRUCT,
    TOKYO_STRUCT,
    content_server_fixture,
)
from tests.core.emulated import PROJECT, result_of

DOC = "projects/p/locations/global/collections/default_collection/dataStores/d/branches/0/documents"
Result = de.SearchResponse.SearchResult
Signals = Result.RankSignals


def pb(message: Any) -> Any:
    return type(message).pb(message)


def one(result: Any, document_text: str = "auto") -> SourceChunk:
    (chunk,) = chunks_from_results([pb(result)], document_text)  # type: ignore[arg-type]
    return chunk


# -- chunk results ------------------------------------------------------------------------------


def full_result() -> Any:
    return Result(
        id="doc-1",
        chunk=de.Chunk(
            name=f"{DOC}/doc-1/chunks/c1",
            id="c1",
            content="Généralités: 数据 🚀",
            relevance_score=0.75,
            document_metadata=de.Chunk.DocumentMetadata(
                uri="https://example.com/doc-1",
                title="Doc one",
                struct_data={
                    "lang": "fr",
                    "year": 2024,
                    "ratio": 0.5,
                    "tags": ["a", "b"],
                    "nested": {"ok": True, "none": None},
                },
            ),
            derived_struct_data={"source": "crawler"},
            page_span=de.Chunk.PageSpan(page_start=3, page_end=4),
            chunk_metadata=de.Chunk.ChunkMetadata(
                previous_chunks=[
                    de.Chunk(name=f"{DOC}/doc-1/chunks/c0", id="c0", content="before")
                ],
                next_chunks=[
                    de.Chunk(
                        name=f"{DOC}/doc-1/chunks/c2",
                        id="c2",
                        content="after",
                        relevance_score=0.5,
                        document_metadata=de.Chunk.DocumentMetadata(title="Doc one"),
                    )
                ],
            ),
            annotation_contents=["| a | b |"],
            annotation_metadata=[
                de.Chunk.AnnotationMetadata(
                    structured_content=de.Chunk.StructuredContent(
                        structure_type=de.Chunk.StructureType.CHECKBOX_STRUCTURE, content="[x]"
                    ),
                    image_id="img-1",
                )
            ],
            data_urls=["data:image/png;base64,AAAA"],
        ),
        model_scores={"relevance": de.DoubleList(values=[0.1, 0.2])},
        rank_signals=Signals(
            keyword_similarity_score=1.25,
            semantic_similarity_score=0.5,
            default_rank=2,
            custom_signals=[Signals.CustomSignal(name="bm25", value=1.5)],
        ),
    )


def test_a_chunk_result_keeps_every_field():
    chunk = one(full_result())
    assert chunk == SourceChunk(
        name=f"{DOC}/doc-1/chunks/c1",
        content="Généralités: 数据 🚀",
        id="c1",
        document_id="doc-1",
        document_name=f"{DOC}/doc-1",
        uri="https://example.com/doc-1",
        title="Doc one",
        struct_data={
            "lang": "fr",
            "year": 2024,
            "ratio": 0.5,
            "tags": ["a", "b"],
            "nested": {"ok": True, "none": None},
        },
        derived_struct_data={"source": "crawler"},
        page_span=PageSpan(3, 4),
        previous_chunks=(
            SourceChunk(
                name=f"{DOC}/doc-1/chunks/c0",
                content="before",
                id="c0",
                document_id="doc-1",
                document_name=f"{DOC}/doc-1",
            ),
        ),
        next_chunks=(
            SourceChunk(
                name=f"{DOC}/doc-1/chunks/c2",
                content="after",
                id="c2",
                document_id="doc-1",
                document_name=f"{DOC}/doc-1",
                title="Doc one",
                relevance_score=0.5,
            ),
        ),
        relevance_score=0.75,
        rank_signals=RankSignals(
            keyword_similarity_score=1.25,
            semantic_similarity_score=0.5,
            default_rank=2.0,
            custom_signals={"bm25": 1.5},
        ),
        model_scores={"relevance": (0.1, 0.2)},
        annotation_contents=("| a | b |",),
        annotation_metadata=(AnnotationMetadata("CHECKBOX_STRUCTURE", "[x]", "img-1"),),
        data_urls=("data:image/png;base64,AAAA",),
    )
    assert [type(chunk.struct_data[k]) for k in ("year", "ratio", "tags")] == [int, float, list]
    as_dict = chunk.to_dict()
    assert json.loads(json.dumps(as_dict)) == as_dict
    assert as_dict["page_span"] == {"start": 3, "end": 4}
    assert as_dict["previous_chunks"][0]["content"] == "before"


def test_the_fast_record_builder_makes_the_record_the_constructor_makes():
    # Built at import, the builder every chunk goes through; here built anew to check it.
    expected = one(full_result())
    values = [getattr(expected, f.name) for f in dataclasses.fields(SourceChunk)]
    build = _slot_setter(SourceChunk)
    built = build(*values)
    assert type(built) is SourceChunk
    assert built == SourceChunk(*values) == expected
    # One value short, one too many: refused (zip's strict check), not a half-built record.
    for wrong, words in ((values[:-1], "shorter"), ([*values, None], "longer")):
        with pytest.raises(ValueError, match=words):
            build(*wrong)


def test_a_chunk_with_no_fields_set_is_all_defaults():
    assert one(Result(chunk=de.Chunk(name="n"))) == SourceChunk(name="n", content="")
    bare = one(Result(chunk=de.Chunk(name="n")))
    assert (bare.relevance_score, bare.rank_signals, bare.page_span) == (None, None, None)


@pytest.mark.parametrize("score", [0.0, -0.75, 1.0])
def test_a_relevance_score_that_was_sent_is_kept_even_zero_or_negative(score):
    # Chunk.relevance_score is documented in [-1, 1]; the emulator only sends [0, 1].
    chunk = one(Result(chunk=de.Chunk(name=f"{DOC}/d/chunks/c", relevance_score=score)))
    assert chunk.relevance_score == score
    assert chunk_metadata(chunk)["relevance_score"] == score


@pytest.mark.parametrize(
    ("name", "document_name", "document_id"),
    [
        (f"{DOC}/doc-1/chunks/c1", f"{DOC}/doc-1", "doc-1"),
        (f"{DOC}/chunks/chunks/c1", f"{DOC}/chunks", "chunks"),  # a document named "chunks"
        ("doc-1/chunks/c1", "doc-1", "doc-1"),
        ("no-document", "", ""),
        ("", "", ""),
    ],
)
def test_a_chunk_s_document_is_named_by_its_resource_name(name, document_name, document_id):
    chunk = one(Result(id="result-id", chunk=de.Chunk(name=name, id="c1")))
    assert (chunk.name, chunk.id) == (name, "c1")  # the chunk's id, not the result's
    assert (chunk.document_name, chunk.document_id) == (document_name, document_id)


def test_every_rank_signal_lands_in_its_field():
    result = Result(
        chunk=de.Chunk(name="n"),
        rank_signals=Signals(
            keyword_similarity_score=0.5,
            relevance_score=0.25,
            semantic_similarity_score=0.125,
            pctr_rank=1.5,
            topicality_rank=2.5,
            document_age=3.5,
            boosting_factor=4.5,
            default_rank=5.5,
            custom_signals=[
                Signals.CustomSignal(name="s", value=6.5),
                Signals.CustomSignal(name="t", value=-1.0),
            ],
            precomputed_expression_values=[7.5, 8.5],
        ),
    )
    assert one(result).rank_signals == RankSignals(
        keyword_similarity_score=0.5,
        relevance_score=0.25,
        semantic_similarity_score=0.125,
        pctr_rank=1.5,
        topicality_rank=2.5,
        document_age=3.5,
        boosting_factor=4.5,
        default_rank=5.5,
        custom_signals={"s": 6.5, "t": -1.0},
        precomputed_expression_values=(7.5, 8.5),
    )


@pytest.mark.parametrize(
    "name",
    [
        "keyword_similarity_score",
        "relevance_score",
        "semantic_similarity_score",
        "pctr_rank",
        "topicality_rank",
        "document_age",
        "boosting_factor",
    ],
)
def test_an_optional_rank_signal_sent_as_zero_is_zero_and_the_others_none(name):
    result = pb(Result(chunk=de.Chunk(name="n"), rank_signals=Signals()))
    setattr(result.rank_signals, name, 0.0)
    (chunk,) = chunks_from_results([result])
    assert chunk.rank_signals == RankSignals(**{name: 0.0}, default_rank=0.0)


def test_rank_signals_without_scores_still_have_the_default_rank():
    result = Result(chunk=de.Chunk(name="n"), rank_signals=Signals(relevance_score=0.25))
    assert one(result).rank_signals == RankSignals(relevance_score=0.25, default_rank=0.0)


def test_an_unknown_structure_type_is_kept_as_its_number():
    result = pb(Result(chunk=de.Chunk(name="n")))
    annotation = result.chunk.annotation_metadata.add()
    annotation.structured_content.structure_type = 99
    annotation.structured_content.content = "x"
    (chunk,) = chunks_from_results([result])
    assert chunk.annotation_metadata == (AnnotationMetadata("99", "x", ""),)
    empty = pb(Result(chunk=de.Chunk(name="n")))
    empty.chunk.annotation_metadata.add()
    (chunk,) = chunks_from_results([empty])
    assert chunk.annotation_metadata == (AnnotationMetadata("STRUCTURE_TYPE_UNSPECIFIED"),)


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        (2.0**53 - 1, 2**53 - 1),
        (-(2.0**53) + 1, -(2**53) + 1),
        (2.0**53, 2.0**53),
        (-(2.0**53), -(2.0**53)),
        (0.5, 0.5),
        (0.0, 0),
        (-0.0, 0),
        (-3.0, -3),
        (3.0, 3),
        (1e300, 1e300),
    ],
)
def test_struct_numbers_are_ints_only_where_a_double_is_exact(number, expected):
    result = Result(
        chunk=de.Chunk(name="n", document_metadata={"struct_data": {"n": number, "l": [number]}})
    )
    struct = one(result).struct_data
    assert (struct["n"], struct["l"]) == (expected, [expected])
    assert type(struct["n"]) is type(expected)


def test_chunk_results_ignore_the_document_text_choice():
    result = Result(chunk=de.Chunk(name="n", content="Chunk text."))
    assert one(result, "struct_data").content == "Chunk text."


# -- no shared mutable values ---------------------------------------------------------------

NESTED = {
    "langue": "français",
    "année": 2024,
    "ratio": 0.5,
    "étiquettes": ["数据", "🚀", "a"],
    "imbriqué": {"ok": True, "rien": None, "liste": [{"clé": "valeur"}, [1, 2.5]]},
}
FLAT = {"topic": "コルーチン", "words": 3114, "score": -1.5, "draft": False, "none": None}


def interleaved(document: str, number: int, struct: dict[str, Any], title: str = "") -> Any:
    return pb(
        Result(
            id=document,
            chunk=de.Chunk(
                name=f"{DOC}/{document}/chunks/c{number}",
                id=f"c{number}",
                content=f"Chunk {number} of {document}: ünïcödé 東京",
                relevance_score=0.25 * number,
                document_metadata=de.Chunk.DocumentMetadata(
                    uri=f"https://example.com/{document}",
                    title=title or f"Titre {document} ✓",
                    struct_data=struct,
                ),
            ),
            rank_signals=Signals(keyword_similarity_score=float(number), default_rank=number),
        )
    )


def two_documents() -> list[Any]:
    # Two documents, their chunks interleaved; one with nested struct data, one flat.
    return [
        interleaved("doc-1", 0, NESTED),
        interleaved("doc-2", 0, FLAT),
        interleaved("doc-1", 1, NESTED),
        interleaved("doc-2", 1, FLAT),
        interleaved("doc-1", 2, NESTED),
    ]


def containers(value: Any) -> list[Any]:
    """Every dict and list in ``value``, ``value`` included."""
    if isinstance(value, dict):
        return [value, *(c for v in value.values() for c in containers(v))]
    if isinstance(value, list):
        return [value, *(c for v in value for c in containers(v))]
    return []


def test_the_records_of_a_response_are_those_of_each_result_alone():
    results = two_documents()
    chunks = chunks_from_results(results)
    assert chunks == [chunks_from_results([r])[0] for r in results]
    assert [c.struct_data for c in chunks] == [NESTED, FLAT, NESTED, FLAT, NESTED]
    owned = [id(c) for chunk in chunks for c in containers(chunk.struct_data)]
    assert len(owned) == len(set(owned))  # no two records share a dict or a list


def test_changing_one_chunk_or_its_metadata_changes_no_other():
    first, other, second, _, third = chunks_from_results(two_documents())
    first.struct_data["étiquettes"].append("changé")  # type: ignore[index]
    first.struct_data["imbriqué"]["liste"][0]["clé"] = "changé"  # type: ignore[index]
    metadata = chunk_metadata(second)
    metadata["struct_data"]["imbriqué"]["ok"] = False
    metadata["struct_data"]["nouveau"] = 1
    metadata["rank_signals"]["default_rank"] = 99.0
    assert third.struct_data == NESTED
    assert chunk_metadata(third)["struct_data"] == NESTED
    assert chunk_metadata(other)["rank_signals"] == {
        "keyword_similarity_score": 0.0,
        "default_rank": 0.0,
    }


def test_a_document_sent_with_other_metadata_is_read_again():
    results = [
        interleaved("doc-1", 0, NESTED),
        interleaved("doc-1", 1, FLAT, title="Autre titre"),
        interleaved("doc-1", 2, NESTED),
    ]
    chunks = chunks_from_results(results)
    assert [c.title for c in chunks] == ["Titre doc-1 ✓", "Autre titre", "Titre doc-1 ✓"]
    assert [c.struct_data for c in chunks] == [NESTED, FLAT, NESTED]
    bare = pb(Result(chunk=de.Chunk(name="no-document", content="x")))
    first, _, last = chunks_from_results([bare, results[0], bare])
    assert first.struct_data == {} == last.struct_data
    assert first.struct_data is not last.struct_data


def test_no_two_records_share_an_empty_dict():
    bare = pb(Result(chunk=de.Chunk(name="n", chunk_metadata={"next_chunks": [{"name": "m"}]})))
    bare_document = pb(Result(document=de.Document(name="n")))  # no struct data at all
    chunks = chunks_from_results([bare, bare, bare_document, bare_document])
    neighbours = [c.next_chunks[0] for c in chunks[:2]]
    for name in ("struct_data", "derived_struct_data", "model_scores"):
        values = [getattr(c, name) for c in chunks + neighbours]
        assert values == [{}] * 6
        assert len({id(v) for v in values}) == 6, name


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


@settings(max_examples=50, deadline=None)
@given(
    structs=st.lists(STRUCTS, min_size=1, max_size=3),
    picks=st.lists(st.integers(0, 2), min_size=1, max_size=8),
)
def test_any_unicode_struct_data_in_any_order(structs, picks):
    results = [
        interleaved(f"doc-{pick % len(structs)}", number, structs[pick % len(structs)])
        for number, pick in enumerate(picks)
    ]
    chunks = chunks_from_results(results)
    assert chunks == [chunks_from_results([r])[0] for r in results]
    owned = [id(c) for chunk in chunks for c in containers(chunk.struct_data)]
    assert len(owned) == len(set(owned))


# -- documents mode -----------------------------------------------------------------------------


def document(derived: Any = None, struct: Any = None, **fields: Any) -> Any:
    return Result(
        id=fields.pop("result_id", ""),
        document=de.Document(
            name=fields.pop("name", "n"),
            id=fields.pop("id", "d"),
            derived_struct_data=derived or {},
            struct_data=struct or {},
            **fields,
        ),
    )


def test_a_documents_mode_result_keeps_every_field():
    result = Result(
        id="result-id",
        document=de.Document(
            name=f"{DOC}/doc-1",
            struct_data={"url": "https://example.com/1", "title": "From struct"},
            derived_struct_data={
                "extractive_segments": [{"page": 1}, {"content": "  "}, {"content": 5}],
                "extractive_answers": [{"pageNumber": "2"}, {"content": "The answer."}],
            },
            content=de.Document.Content(mime_type="text/plain"),
        ),
        model_scores={"relevance": de.DoubleList(values=[0.5])},
        rank_signals=Signals(keyword_similarity_score=2.0),
    )
    assert one(result) == SourceChunk(
        name=f"{DOC}/doc-1",
        content="The answer.",
        id="result-id",
        document_id="result-id",
        document_name=f"{DOC}/doc-1",
        uri="https://example.com/1",
        title="From struct",
        mime_type="text/plain",
        struct_data={"url": "https://example.com/1", "title": "From struct"},
        derived_struct_data={
            "extractive_segments": [{"page": 1}, {"content": "  "}, {"content": 5}],
            "extractive_answers": [{"pageNumber": "2"}, {"content": "The answer."}],
        },
        rank_signals=RankSignals(keyword_similarity_score=2.0, default_rank=0.0),
        model_scores={"relevance": (0.5,)},
    )


def test_a_bare_document_has_an_empty_uri_title_and_text():
    assert one(document()) == SourceChunk(
        name="n", content="", id="d", document_id="d", document_name="n"
    )
    no_id = one(document(id="", result_id="r"))
    assert (no_id.id, no_id.document_id) == ("r", "r")  # the result's id, for want of one
    both = one(document(id="d", result_id="r"))
    assert (both.id, both.document_id) == ("d", "d")  # the document's id wins


@pytest.mark.parametrize(
    ("derived", "struct", "uri", "title"),
    [
        (
            {"link": "gs://b/d.pdf", "title": "Derived"},
            {"uri": "u", "url": "w", "title": "S"},
            "gs://b/d.pdf",
            "Derived",
        ),
        ({"link": "", "title": ""}, {"uri": "u", "url": "w", "title": "S"}, "u", "S"),
        ({}, {"uri": "u", "url": "w"}, "u", ""),
        ({}, {"url": "w", "title": "S"}, "w", "S"),
        ({}, {"uri": "", "url": "w"}, "w", ""),
        ({}, {"uri": 5, "title": 2024}, "5", "2024"),  # not text: as text
        ({"link": 7, "title": ["a"]}, {}, "7", "['a']"),
        ({}, {}, "", ""),
    ],
)
def test_a_document_s_uri_and_title_come_from_the_derived_then_the_struct_data(
    derived, struct, uri, title
):
    chunk = one(document(derived, struct))
    assert (chunk.uri, chunk.title) == (uri, title)


@pytest.mark.parametrize(
    ("segments", "score"),
    [
        ([], None),
        ([{"content": "a"}], None),  # no score asked for
        ([{"content": "a", "relevanceScore": 0.25}], 0.25),
        # The best of the segments, whatever their order; non-numbers are not scores.
        ([{"relevanceScore": 0.5}, {"relevanceScore": 0.75}, {"relevanceScore": 0.1}], 0.75),
        ([{"relevanceScore": "0.9"}, {"relevanceScore": True}, "x", {"relevanceScore": 0.0}], 0.0),
        ([{"relevanceScore": -0.5}], -0.5),
        ([{"relevanceScore": 1}], 1.0),  # an exact double reads as an int: still a float score
        ([{"relevanceScore": None}], None),
    ],
)
def test_a_document_scores_as_its_best_extractive_segment(segments, score):
    chunk = one(document({"extractive_segments": segments}))
    assert chunk.relevance_score == score
    assert type(chunk.relevance_score) is (float if score is not None else type(None))


def test_answers_and_snippets_carry_no_document_score():
    chunk = one(
        document({"extractive_answers": [{"content": "a", "relevanceScore": 0.5}], "snippets": []})
    )
    assert chunk.relevance_score is None


SNIPPET = {"snippet": "A <b>bold</b> hit.", "snippet_status": "SUCCESS"}
NO_SNIPPET = {
    "snippet": "No snippet is available for this page.",
    "snippet_status": "NO_SNIPPET_AVAILABLE",
}


@pytest.mark.parametrize(
    ("derived", "text"),
    [
        (
            {
                "snippets": [SNIPPET],
                "extractive_answers": [{"content": "An answer."}],
                "extractive_segments": [{"content": "A segment."}, {"content": "Another."}],
            },
            "A segment.\n\nAnother.",
        ),
        (
            {"snippets": [SNIPPET], "extractive_answers": [{"content": "An <b>answer</b>."}]},
            "An <b>answer</b>.",  # only snippets lose their highlighting
        ),
        ({"snippets": [SNIPPET]}, "A bold hit."),
        ({"snippets": [NO_SNIPPET]}, ""),
        ({"snippets": [NO_SNIPPET, {"snippet": "<b>Yes</b>"}]}, "Yes"),
    ],
    ids=["segments", "answers", "snippets", "no-snippet", "a-snippet-after-none"],
)
def test_auto_prefers_segments_then_answers_then_snippets(derived, text):
    chunk = one(document(derived))
    assert chunk.content == text
    assert chunk.derived_struct_data == derived  # every part kept as it came


# Every content of a documents-mode result, each with a part to skip.
ALL_PARTS = {
    "extractive_segments": [{"content": "Seg 1."}, {"content": " "}, {"content": "Seg 2."}],
    "extractive_answers": [{"content": "Ans <b>1</b>."}, {"pageNumber": "3"}],
    "snippets": [
        NO_SNIPPET,
        {"snippet": "A <b>bold</b> 東京 🚀 hit.", "snippet_status": "SUCCESS"},
    ],
}


@pytest.mark.parametrize(
    ("choice", "text"),
    [
        ("auto", "Seg 1.\n\nSeg 2."),
        ("extractive_segments", "Seg 1.\n\nSeg 2."),
        ("extractive_answers", "Ans <b>1</b>."),
        ("snippets", "A bold 東京 🚀 hit."),
        ("struct_data", "b: [1, 2]\nz: 東京"),
    ],
)
def test_the_text_is_the_chosen_content(choice, text):
    chunk = one(document(ALL_PARTS, {"z": "東京", "b": [1, 2]}), choice)
    assert chunk.content == text
    assert chunk.derived_struct_data == ALL_PARTS  # every content kept, whatever the choice
    assert chunk.struct_data == {"z": "東京", "b": [1, 2]}


def test_the_text_is_auto_s_when_no_content_is_chosen():
    (chunk,) = chunks_from_results([pb(document(ALL_PARTS, {"z": "東京"}))])
    assert chunk.content == "Seg 1.\n\nSeg 2."
    assert chunk == one(document(ALL_PARTS, {"z": "東京"}), "auto")


@pytest.mark.parametrize(
    "choice", ["extractive_segments", "extractive_answers", "snippets", "struct_data"]
)
def test_a_result_without_the_chosen_content_has_an_empty_text(choice):
    assert one(document({"title": "T", "link": "https://x"}), choice).content == ""


@pytest.mark.parametrize(
    ("derived", "text"),
    [
        ({"extractive_segments": "Seg.", "snippets": [{"snippet": "Snip."}]}, "Snip."),
        ({"extractive_segments": {"content": "Seg."}, "extractive_answers": 5}, "a: 1"),
        ({"extractive_segments": [{"content": "  "}]}, "a: 1"),
        ({"extractive_segments": ["Seg.", 5, None, [{"content": "x"}]]}, "a: 1"),
        ({"extractive_segments": [{"text": "Seg."}, {"content": None}]}, "a: 1"),
        ({"snippets": [{"snippet_status": "SUCCESS"}, {"snippet": 3}]}, "a: 1"),
    ],
    ids=["string", "struct-and-number", "blank", "not-dicts", "no-text", "no-snippet-text"],
)
def test_auto_passes_over_content_that_is_not_a_list_of_texts(derived, text):
    assert one(document(derived, {"a": 1}), "auto").content == text
    assert one(document(derived, {"a": 1}), "extractive_segments").content == ""


@pytest.mark.parametrize(
    ("struct", "text"),
    [
        (
            {"title": "Widget", "price": 12, "uri": "https://w"},
            "price: 12\ntitle: Widget\nuri: https://w",
        ),
        ({"z": None, "a": {"b": True}}, "a: {'b': True}\nz: None"),
        ({}, ""),
    ],
)
def test_struct_data_text_is_its_sorted_key_value_lines(struct, text):
    assert one(document(None, struct)).content == text
    assert one(document(None, struct), "struct_data").content == text


@pytest.mark.parametrize(
    ("struct", "text"),
    [
        ({"title": "Widget", "price": 12}, '{"price": 12.0, "title": "Widget"}'),
        ({"n": [1, 2.5], "a": {"b": True}, "z": None}, None),
        ({"名前": "東京 🚀"}, '{"\\u540d\\u524d": "\\u6771\\u4eac \\ud83d\\ude80"}'),
        ({}, "{}"),
    ],
    ids=["numbers-as-floats", "nested", "non-ascii", "empty"],
)
def test_struct_json_text_is_the_peers_json_of_the_struct_data(struct, text):
    result = document(None, struct)
    # langchain-google-community's and LlamaIndex's text of a structured result.
    peers = json.dumps(
        MessageToDict(pb(result).document, preserving_proto_field_name=True).get("struct_data", {})
    )
    assert one(result, "struct_json").content == peers
    assert text is None or peers == text
    assert json.loads(peers) == json.loads(json.dumps(struct))


# -- response-level values ----------------------------------------------------------------------


def test_search_results_keep_every_response_level_value():
    response = de.SearchResponse(
        total_size=42,
        corrected_query="with statement",
        attribution_token="token",
        query_expansion_info={"expanded_query": True, "pinned_result_count": 3},
        facets=[
            {
                "key": "lang",
                "values": [{"value": "en", "count": 7}, {"value": "fr", "count": 1}],
                "dynamic_facet": True,
            },
            {
                "key": "rank",
                "values": [
                    {"interval": {"minimum": 0, "exclusive_maximum": 10}, "count": 4},
                    {"interval": {"exclusive_minimum": 10}, "count": 2},
                    {"count": 1},
                ],
            },
        ],
    )
    chunk = SourceChunk(name="c", content="x")
    assert search_results(pb(response), [chunk]) == SearchResults(
        chunks=(chunk,),
        total_size=42,
        corrected_query="with statement",
        expanded_query=True,
        pinned_result_count=3,
        facets=(
            SearchFacet(
                "lang",
                (FacetValue(count=7, value="en"), FacetValue(count=1, value="fr")),
                dynamic_facet=True,
            ),
            SearchFacet(
                "rank",
                (
                    FacetValue(count=4, interval={"minimum": 0.0, "exclusive_maximum": 10.0}),
                    FacetValue(count=2, interval={"exclusive_minimum": 10.0}),
                    FacetValue(count=1),
                ),
            ),
        ),
        attribution_token="token",
    )
    empty = search_results(pb(de.SearchResponse()), [])
    assert empty == SearchResults(())
    assert type(empty.chunks) is tuple


# -- pages --------------------------------------------------------------------------------------


def page(first: int, size: int) -> de.SearchResponse:
    return de.SearchResponse(results=[Result(id=f"r{n}") for n in range(first, first + size)])


def pages_of(sizes: list[int], pulled: list[int]) -> Iterator[de.SearchResponse]:
    first = 0
    for number, size in enumerate(sizes):
        pulled.append(number)
        yield page(first, size)
        first += size


PAGE_CASES = [
    ([3, 3, 3], 1, 1),
    ([3, 3, 3], 3, 1),  # the k-th result is on the first page: no second one
    ([3, 3, 3], 4, 2),
    ([3, 3, 3], 6, 2),
    ([3, 3, 3], 7, 3),
    ([3, 3, 3], 100, 3),  # the results run out
    ([0, 2, 3], 2, 2),  # an empty page counts nothing
    ([], 5, 0),
]


@pytest.mark.parametrize(("sizes", "k", "taken"), PAGE_CASES)
def test_only_the_pages_up_to_the_k_th_result_are_pulled(sizes, k, taken):
    pulled: list[int] = []
    pages = first_pages(pages_of(sizes, pulled), k)
    assert pulled == list(range(taken))
    assert pages == [page(sum(sizes[:n]), sizes[n]) for n in range(taken)]
    results = list(first_results(pages, k))
    assert [r.id for r in results] == [f"r{n}" for n in range(min(k, sum(sizes)))]
    assert all(type(r) is Result.pb() for r in results)


@pytest.mark.parametrize(("sizes", "k", "taken"), PAGE_CASES)
async def test_the_async_pager_is_pulled_as_far_as_needed_and_closed(sizes, k, taken):
    pulled: list[int] = []

    async def pager():
        for item in pages_of(sizes, pulled):
            yield item

    pages = pager()
    taken_pages = await afirst_pages(pages, k)
    assert pulled == list(range(taken))
    assert taken_pages == [page(sum(sizes[:n]), sizes[n]) for n in range(taken)]
    assert pages.ag_frame is None  # closed: not left for the event loop to close


async def test_the_async_pager_is_closed_when_a_page_fails():
    closed = []

    async def failing():
        try:
            yield page(0, 1)
            raise RuntimeError("the second page failed")
        finally:
            closed.append(True)

    with pytest.raises(RuntimeError, match="second page"):
        await afirst_pages(failing(), 5)
    assert closed == [True]


def test_first_results_takes_k_results_across_pages():
    pages = [page(0, 2), page(2, 2), page(4, 1)]
    assert [r.id for r in first_results(pages, 3)] == ["r0", "r1", "r2"]
    assert [r.id for r in first_results(pages, 9)] == ["r0", "r1", "r2", "r3", "r4"]
    assert list(first_results([], 3)) == []


# -- the emulator's responses -------------------------------------------------------------------


@pytest.fixture(scope="module")
def session_search(emulator: EmulatorServer) -> Iterator[DiscoveryEngineChunkSearch]:
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address)
    yield DiscoveryEngineChunkSearch(connection, data_store_id="test-docs")
    connection.close()


def test_a_chunk_with_its_neighbours_has_every_field_the_service_sent(session_search):
    search = session_search.replace(
        k=1, filter='group: ANY("sequence")', num_previous_chunks=1, num_next_chunks=2
    )
    (chunk,) = search.search("ordinal marker step 3")
    documents = (
        f"projects/{PROJECT}/locations/global/collections/default_collection/dataStores/"
        "test-docs/branches/default_branch/documents"
    )
    assert chunk.name == f"{documents}/sequence/chunks/c3"
    assert (chunk.id, chunk.document_id) == ("c3", "sequence")
    assert chunk.document_name == f"{documents}/sequence"
    assert (chunk.uri, chunk.title) == ("https://example.com/sequence", "Sequence")
    assert chunk.struct_data == {"lang": "en", "group": "sequence"}
    assert chunk.content.startswith("Step 3")
    assert [c.id for c in chunk.previous_chunks] == ["c2"]
    assert [c.id for c in chunk.next_chunks] == ["c4", "c5"]
    assert chunk.next_chunks[0].content.startswith("Step 4")
    assert {c.document_id for c in chunk.previous_chunks + chunk.next_chunks} == {"sequence"}
    assert chunk.relevance_score is not None
    assert 0 < chunk.relevance_score <= 1
    assert chunk.rank_signals is not None
    assert chunk.rank_signals.keyword_similarity_score > 0
    assert chunk.page_span is None


def test_a_chunk_record_takes_its_id_from_the_chunk_not_the_result(session_search):
    # SearchResult.id is the document's id; the record's id stays the chunk's.
    [chunk] = session_search.search("Cape Canaveral", k=1)
    assert (chunk.id, chunk.document_id) == ("c1", "emoji")
    assert chunk.name.endswith("/documents/emoji/chunks/c1")


async def test_the_built_in_corpus_records(emulator):
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address)
    try:
        search = DiscoveryEngineChunkSearch(connection, data_store_id="python-docs", k=3)
        chunks = await search.asearch("assert statement")
    finally:
        await connection.aclose()
    assert chunks[0].uri.endswith("/reference/simple_stmts.html#assert")
    assert chunks[0].struct_data["topic"] == "assert"


def test_documents_mode_text_comes_from_the_content_asked_for(session_search):
    query = "Cape Canaveral rockets launch"
    documents = session_search.replace(k=1, search_mode="documents")
    [snippet] = documents.search(query)
    assert set(snippet.derived_struct_data) == {"link", "title", "snippets"}
    highlighted = snippet.derived_struct_data["snippets"][0]["snippet"]
    assert "<b>Cape Canaveral</b>" in highlighted  # Google's hit highlighting
    assert snippet.content == highlighted.replace("<b>", "").replace("</b>", "")
    [answer] = documents.replace(max_extractive_answer_count=1).search(query)
    assert answer.content == "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month."
    assert answer.derived_struct_data["extractive_answers"] == [
        {"content": answer.content, "pageNumber": ""}
    ]
    [segment] = documents.replace(
        max_extractive_answer_count=1,
        max_extractive_segment_count=1,
        return_extractive_segment_score=True,
    ).search(query)
    # Extractive segments win over answers and snippets; every part is kept as it came.
    [kept] = segment.derived_struct_data["extractive_segments"]
    assert segment.content == kept["content"]
    assert 0 < kept["relevanceScore"] <= 1
    assert segment.relevance_score == kept["relevanceScore"]
    assert set(segment.derived_struct_data) == {
        "link",
        "title",
        "snippets",
        "extractive_answers",
        "extractive_segments",
    }
    [nothing] = documents.replace(return_snippet=False).search(query)
    assert nothing.content == "lang: en\nscript: emoji"  # no text asked for: the struct data


# The content corpus (tests/content_corpus.py), served by an emulator of its own.
server = content_server_fixture()

# Every content asked for: two answers and two segments a result, snippets (the default).
ALL_CONTENT: dict[str, Any] = {
    "search_mode": "documents",
    "max_extractive_answer_count": 2,
    "max_extractive_segment_count": 2,
}
ORDER = ["keeper-manual", "title-only", "no-struct", "tokyo-tower"]
MANUAL_SEGMENTS = (
    "Keeper manual\n\nLamp\n\nThe keeper trims the lamp wick at dusk.",
    "Log\n\nThe keeper writes the logbook at dawn.",
)
TOKYO_SEGMENT = (
    "東京タワー 🗼\n\n東京タワーは一九五八年に完成しました。"
    "The keeper 👩‍🚀 waves a flag 🇯🇵 at night."
)
TOKYO_ANSWER = "The keeper 👩‍🚀 waves a flag 🇯🇵 at night."
TOKYO_SNIPPET = (
    "東京タワー 🗼 東京タワーは一九五八年に完成しました。The keeper 👩‍🚀 waves a flag 🇯🇵 at night."
)
# What each choice gives each document (in ORDER): the emulator's content, verbatim.
EXPECTED = {
    "extractive_segments": [
        "\n\n".join(MANUAL_SEGMENTS),
        "Lamps burn oil every night.",
        "A keeper climbs the stairs.",
        TOKYO_SEGMENT,
    ],
    "extractive_answers": [
        "Keeper manual\n\nThe keeper trims the lamp wick at dusk.",
        "",  # matched through its title: no sentence holds the query, so no answer
        "A keeper climbs the stairs.",
        TOKYO_ANSWER,
    ],
    "snippets": [
        "Keeper manual Lamp The keeper trims the lamp wick at dusk.",
        "Lamps burn oil every night.",
        "A keeper climbs the stairs.",
        TOKYO_SNIPPET,
    ],
    "struct_data": [
        "category: manual\nid: struct-id\nnested: {'level': 2}\nsource: struct-source\n"
        "struct_data: a key named like ours\ntags: ['lamp', 'log']\ntitle: Struct title\n"
        "year: 2024",
        "shelf: 3",
        "",  # no struct data
        "city: 東京\nicon: 🗼\n名前: タワー 👩‍🚀",
    ],
}
EXPECTED["auto"] = EXPECTED["extractive_segments"]  # segments first, when there are any


@pytest.fixture(scope="module")
def content(server: EmulatorServer) -> Iterator[DiscoveryEngineChunkSearch]:
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=server.address)
    yield DiscoveryEngineChunkSearch(connection, data_store_id=CONTENT_DATA_STORE)
    connection.close()


@pytest.mark.parametrize("choice", sorted(EXPECTED))
def test_each_choice_is_that_content_of_the_response(content, choice):
    chunks = content.replace(**ALL_CONTENT, document_text=choice).search(QUERY)
    assert [c.document_id for c in chunks] == ORDER  # one result each, in the search's order
    assert [c.content for c in chunks] == EXPECTED[choice]


def test_struct_json_is_each_results_struct_data_numbers_as_floats(content):
    chunks = content.replace(**ALL_CONTENT, document_text="struct_json").search(QUERY)
    assert [json.loads(c.content) for c in chunks] == [
        json.loads(json.dumps(s), parse_int=float)
        for s in (MANUAL_STRUCT, TITLE_ONLY_STRUCT, {}, TOKYO_STRUCT)
    ]


def test_the_text_is_the_content_the_response_carries(content):
    # The texts above are what the response's derived struct data holds, part by part.
    chunks = {c.document_id: c for c in content.replace(**ALL_CONTENT).search(QUERY)}
    manual = chunks["keeper-manual"].derived_struct_data
    assert [s["content"] for s in manual["extractive_segments"]] == list(MANUAL_SEGMENTS)
    assert [a["content"] for a in manual["extractive_answers"]] == [
        "Keeper manual",
        "The keeper trims the lamp wick at dusk.",
    ]
    tokyo = chunks["tokyo-tower"].derived_struct_data
    assert tokyo["extractive_segments"] == [{"content": TOKYO_SEGMENT, "pageNumber": ""}]
    assert tokyo["extractive_answers"] == [{"content": TOKYO_ANSWER, "pageNumber": ""}]
    highlighted = TOKYO_SNIPPET.replace("The keeper", "The <b>keeper</b>")
    assert tokyo["snippets"] == [{"snippet": highlighted, "snippet_status": "SUCCESS"}]
    assert "extractive_answers" not in chunks["title-only"].derived_struct_data
    assert chunks["keeper-manual"].struct_data == MANUAL_STRUCT
    assert chunks["tokyo-tower"].struct_data == TOKYO_STRUCT
    assert chunks["title-only"].struct_data == TITLE_ONLY_STRUCT
    assert chunks["no-struct"].struct_data == {}


def test_every_choice_keeps_every_other_field(content):
    base = content.replace(**ALL_CONTENT).search(QUERY)
    for choice in EXPECTED:
        chosen = content.replace(**ALL_CONTENT, document_text=choice).search(QUERY)
        for auto, other in zip(base, chosen, strict=True):
            assert other.derived_struct_data == auto.derived_struct_data  # all the content
            assert other == dataclasses.replace(auto, content=other.content)


def test_auto_falls_back_in_order(content):
    # Without segments: the answers, then the snippets for the result that has none.
    answers = content.replace(search_mode="documents", max_extractive_answer_count=2).search(QUERY)
    assert [c.content for c in answers] == [
        EXPECTED["extractive_answers"][0],
        EXPECTED["snippets"][1],
        EXPECTED["extractive_answers"][2],
        TOKYO_ANSWER,
    ]
    # Neither snippets nor extractive content asked for: the struct data.
    bare = content.replace(search_mode="documents", return_snippet=False).search(QUERY)
    assert [c.content for c in bare] == EXPECTED["struct_data"]


def test_the_chosen_content_only_needs_to_be_asked_for(content):
    # Snippets come by default: document_text="snippets" alone is enough.
    only = content.replace(search_mode="documents", document_text="snippets").search(QUERY)
    assert [c.content for c in only] == EXPECTED["snippets"]
    struct = content.replace(
        search_mode="documents", return_snippet=False, document_text="struct_data"
    ).search(QUERY)
    assert [c.content for c in struct] == EXPECTED["struct_data"]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
async def test_search_results_and_k_apply_the_choice(server, asynchronous):
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=server.address)
    search = DiscoveryEngineChunkSearch(
        connection,
        data_store_id=CONTENT_DATA_STORE,
        k=2,
        **ALL_CONTENT,
        document_text="extractive_answers",
    )
    try:
        call = search.asearch_results if asynchronous else search.search_results
        results = await result_of(call, QUERY)
        snippets = await result_of(
            search.replace(document_text="snippets").asearch
            if asynchronous
            else search.replace(document_text="snippets").search,
            QUERY,
            k=4,
        )
    finally:
        connection.close()
        await connection.aclose()
    assert [c.content for c in results.chunks] == EXPECTED["extractive_answers"][:2]
    assert results.total_size == 4
    assert [c.content for c in snippets] == EXPECTED["snippets"]


def test_chunk_mode_text_is_the_chunk_content(content):
    chunks = content.search(QUERY)
    assert {c.name.rpartition("/")[0].endswith("/chunks") for c in chunks} == {True}
    assert [c.content for c in chunks if c.document_id == "no-struct"] == [
        "A keeper climbs the stairs."
    ]
