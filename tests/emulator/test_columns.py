"""Documents and chunks as memory-mapped columns (``columns.py``, issue 21): a saved and
reloaded snapshot gives exactly the records that were ingested, Unicode included; the BM25
index built from token ids is bm25s' own, array for array; a damaged column file is refused
naming it."""

from __future__ import annotations

import datetime as _dt
import json
import mmap
import random
from pathlib import Path

import bm25s
import numpy as np
import pytest

from grounding_emulator import CorpusError
from grounding_emulator.corpus import columns as columns_module
from grounding_emulator.corpus import index as index_module
from grounding_emulator.corpus.builtin import builtin_documents
from grounding_emulator.corpus.chunking import blocks_from_markdown, chunk_blocks
from grounding_emulator.corpus.columns import ChunkTable, DocumentTable, flatten_struct
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.index import ChunkIndex, PostingsBuilder, Vocabulary
from grounding_emulator.corpus.integrity import file_digests
from grounding_emulator.corpus.reading import SourceDocument
from grounding_emulator.corpus.records import Chunk, Document
from grounding_emulator.corpus.schema import detect_types
from grounding_emulator.corpus.tokens import tokenize
from grounding_emulator.search.engine import _developer_knowledge_fields
from tests.emulator.fake_embedder import FakeEmbedder

UNICODE_TEXTS = [
    "# Ünïcödé\n\nPlain ASCII, then emoji 🚀🧪 and a family 👩‍👩‍👧 in one line.",
    "# 東京\n\n東京都は日本の首都です。京都は古都です。",
    "# Combining\n\nCafe\u0301 and cafe\u0301s: a combining acute, e\u0301\u0301 twice.",
    "# RTL\n\nשלום עולם and مرحبا بالعالم side by side.",
    "# Long\n\n" + " ".join(f"Sentence {n} says ünïcode {n} 🚀." for n in range(120)),
]


def unicode_sources() -> list[SourceDocument]:
    sources = []
    for number, text in enumerate(UNICODE_TEXTS):
        document = Document(
            id=f"doc-{number}-東京-🚀",
            uri=f"https://example.com/{number}/ü/東京#🚀",
            title=text.splitlines()[0].lstrip("# "),
            content=text,
            struct_data={
                "lang": ["ja", "en"],
                "nested": {"emoji": "🧪", "depth": {"n": number}},
                "place": {"latitude": 35.68, "longitude": 139.76},
                "score": number / 3,
                "published": "2024-04-16",
                "none": None,
            },
            mime_type="text/markdown",
            update_time=_dt.datetime(2024, 1, 1 + number, 12, 30, tzinfo=_dt.timezone.utc)
            if number % 2
            else None,
            description=f"dé{number}🚀" if number else "",
        )
        page = number or None  # 1-based pages; the first document has none
        sources.append(SourceDocument(document, tuple(blocks_from_markdown(text, page=page))))
    return sources


def expected_chunks(sources: list[SourceDocument], max_chars: int) -> list[Chunk]:
    """The chunks as the record-per-chunk builder made them."""
    chunks = []
    for position, source in enumerate(sources):
        for ordinal, piece in enumerate(chunk_blocks(source.blocks, max_chars=max_chars)):
            chunks.append(
                Chunk(
                    f"c{ordinal + 1}",
                    position,
                    ordinal,
                    piece.content,
                    piece.heading,
                    piece.page_start,
                    piece.page_end,
                )
            )
    return chunks


@pytest.fixture
def saved(tmp_path: Path) -> tuple[DataStore, Path]:
    snapshot = DataStore.build("columns", unicode_sources(), max_chunk_chars=200)
    folder = tmp_path / "snapshot"
    snapshot.save(folder)
    return snapshot, folder


def test_built_and_reloaded_records_are_the_ingested_ones(saved):
    snapshot, folder = saved
    sources = unicode_sources()
    documents = [s.document for s in sources]
    chunks = expected_chunks(sources, 200)
    assert len(chunks) > len(documents)  # the long document has several chunks
    reloaded = DataStore.load(folder)
    for store in (snapshot, reloaded):
        assert list(store.documents) == documents
        assert list(store.chunks) == chunks
        assert store.documents == documents
        assert store.chunks == chunks
        assert store.chunks[1:3] == tuple(chunks[1:3])
        assert store.documents[-1] == documents[-1]
        assert store.document_chunks[4] == (4, len(chunks))
        assert store.chunk_document.tolist() == [c.document_index for c in chunks]
        assert store.flat_struct(3) == flatten_struct(documents[3].struct_data)
        assert store.struct_types == detect_types(flatten_struct(d.struct_data) for d in documents)
        assert store.struct_fields == {"lang", "nested.emoji", "nested.depth.n", "place"} | {
            "score",
            "published",
            "none",
        }
    assert reloaded.documents == snapshot.documents
    assert reloaded.chunks == snapshot.chunks


def test_byte_lengths_come_from_the_offsets(saved):
    snapshot, folder = saved
    reloaded = DataStore.load(folder)
    for number, text in enumerate(UNICODE_TEXTS):
        assert reloaded.documents.content_length(number) == len(text.encode("utf-8"))
        assert reloaded.documents[number].content_length_bytes == len(text.encode("utf-8"))
        assert snapshot.documents.content_length(number) == len(text.encode("utf-8"))


def test_records_built_lately_are_kept_and_equal_to_fresh_ones(saved):
    _, folder = saved
    reloaded = DataStore.load(folder)
    first = reloaded.documents[2]
    assert reloaded.documents[2] is first  # kept: not decoded again
    assert reloaded.documents[-3] is first  # a negative index is the same record
    assert first == reloaded.documents._record(2)
    chunk = reloaded.chunks[1]
    assert reloaded.chunks[1] is chunk
    assert reloaded.chunks[0:2][1] is chunk  # slices take kept records too
    assert chunk == reloaded.chunks._record(1)


def test_records_kept_are_bounded_by_their_text(monkeypatch, saved):
    _, folder = saved
    # Room for one record of the long document's text, plus the per-record allowance.
    longest = max(len(text) for text in UNICODE_TEXTS)
    monkeypatch.setattr(columns_module, "RECENT_CHARACTERS", longest + 256)
    reloaded = DataStore.load(folder)
    documents = reloaded.documents
    long_one = documents[4]
    assert documents[4] is long_one
    small = documents[0]  # over the bound together: the least recent one goes
    assert documents[0] is small
    assert documents[4] is not long_one
    assert documents[4] == long_one
    assert documents[0] is not small  # ... and so on: never more than the bound
    assert documents[0] == small


def test_a_record_larger_than_the_bound_is_built_each_time(monkeypatch, saved):
    _, folder = saved
    longest = max(len(text) for text in UNICODE_TEXTS)
    monkeypatch.setattr(columns_module, "RECENT_CHARACTERS", longest)  # no room with its allowance
    reloaded = DataStore.load(folder)
    assert reloaded.documents[4] is not reloaded.documents[4]
    assert reloaded.documents[4] == reloaded.documents[4]
    assert reloaded.documents[0] is reloaded.documents[0]  # the others are still kept


def test_a_developer_knowledge_filter_reads_the_columns_not_the_documents(saved):
    _, folder = saved
    reloaded = DataStore.load(folder)
    fields = [_developer_knowledge_fields(reloaded, i) for i in range(len(UNICODE_TEXTS))]
    assert len(reloaded.documents._recent) == 0  # no document built, no content decoded
    for number, document in enumerate(s.document for s in unicode_sources()):
        stamp = document.update_time
        assert fields[number] == {
            "data_source": "example.com",
            "uri": document.uri,
            "update_time": stamp.timestamp() if stamp else None,
            "content_length_bytes": len(document.content.encode("utf-8")),
        }
    assert (
        fields[1]["update_time"]
        == _dt.datetime(2024, 1, 2, 12, 30, tzinfo=_dt.timezone.utc).timestamp()
    )
    assert fields[0]["update_time"] is None


def test_reloaded_columns_are_memory_mapped(saved):
    _, folder = saved
    reloaded = DataStore.load(folder)
    column = reloaded.documents._columns["content"]
    assert isinstance(column.data, mmap.mmap)
    assert isinstance(column.offsets.base, np.memmap)


def test_lookups_by_id_and_by_name(saved):
    snapshot, folder = saved
    for store in (snapshot, DataStore.load(folder)):
        for number, source in enumerate(unicode_sources()):
            document = source.document
            assert store.document_index(document.id) == number
            assert store.document_by_name(document.developer_knowledge_name) == document
        assert store.document_index("doc-9") is None
        assert store.document_index("") is None
        assert store.document_by_name("documents/nowhere") is None


def test_the_last_of_documents_sharing_a_name_is_found():
    """As the ``{name: index}`` dict it replaces: the last one wins."""
    documents = [
        Document(id=f"d{n}", uri=f"https://example.com/{n % 3}", title="t", content="c")
        for n in range(9)
    ]
    table = DocumentTable.from_records(documents)
    expected = {d.developer_knowledge_name: n for n, d in enumerate(documents)}
    for name, number in expected.items():
        assert table.index_of_name(name) == number
    assert [table.index_of(f"d{n}") for n in range(9)] == list(range(9))


def test_an_empty_store_round_trips(tmp_path):
    empty = DataStore.build("empty", [])
    empty.save(tmp_path / "empty")
    reloaded = DataStore.load(tmp_path / "empty")
    assert len(reloaded.documents) == len(reloaded.chunks) == 0
    assert reloaded.document_index("x") is None
    assert list(reloaded.document_chunks) == []


def test_a_chunk_id_must_follow_its_ordinal():
    with pytest.raises(ValueError, match="chunk id 'x' is not c1"):
        ChunkTable.from_records([Chunk("x", 0, 0, "text")])


# -- the BM25 index from token ids ----------------------------------------------------------------


def bm25s_index(token_lists: list[list[str]]) -> bm25s.BM25:
    reference = bm25s.BM25(method="lucene")
    reference.index(token_lists, show_progress=False)
    return reference


def assert_same_index(mine: bm25s.BM25, reference: bm25s.BM25) -> None:
    """Same vocabulary, and every token's posting list the same rows and the same float32s
    (token ids differ: bm25s numbers them in set order)."""
    assert mine.vocab_dict.keys() == reference.vocab_dict.keys()
    assert mine.scores["num_docs"] == reference.scores["num_docs"]
    for name in ("data", "indices", "indptr"):
        assert mine.scores[name].dtype == reference.scores[name].dtype
    for token, theirs in reference.vocab_dict.items():
        if token == "":
            continue
        ours = mine.vocab_dict[token]
        a = slice(*reference.scores["indptr"][theirs : theirs + 2])
        b = slice(*mine.scores["indptr"][ours : ours + 2])
        assert np.array_equal(reference.scores["indices"][a], mine.scores["indices"][b]), token
        assert np.array_equal(reference.scores["data"][a], mine.scores["data"][b]), token


def index_of(token_lists: list[list[str]]) -> ChunkIndex:
    """The index an ingest builds of these token lists (one row each)."""
    vocabulary = Vocabulary()
    builder = PostingsBuilder(vocabulary)
    for tokens in token_lists:
        builder.add(vocabulary.ids(tokens))
    return builder.build()


@pytest.mark.parametrize("block", [1, 7, 1 << 15])
def test_the_index_is_bm25s_own_array_for_array(monkeypatch, block):
    monkeypatch.setattr(index_module, "_BLOCK_ROWS", block)
    rng = random.Random(block)
    words = [f"w{n}" for n in range(200)] + ["東", "京", "東京", "🚀"]
    token_lists = [[rng.choice(words) for _ in range(rng.randint(0, 40))] for _ in range(500)]
    token_lists += [[], ["only"], ["only", "only"]]
    mine = index_of(token_lists)
    assert_same_index(mine._bm25, bm25s_index(token_lists))


def test_a_built_store_scores_as_bm25s_over_the_old_token_lists():
    """Tokens are now counted per part (title + heading once, then the content); the index
    must still be the one of ``tokenize("title\\nheading\\ncontent")`` per chunk."""
    sources = list(builtin_documents()) + unicode_sources()
    snapshot = DataStore.build("same", sources)
    old_tokens = [
        tokenize(f"{snapshot.documents[c.document_index].title}\n{c.heading}\n{c.content}")
        for c in snapshot.chunks
    ]
    old_headings = [
        tokenize(f"{snapshot.documents[c.document_index].title}\n{c.heading}")
        for c in snapshot.chunks
    ]
    assert_same_index(snapshot.index._bm25, bm25s_index(old_tokens))
    assert_same_index(snapshot.heading_index._bm25, bm25s_index(old_headings))
    reference = ChunkIndex(bm25s_index(old_tokens), len(old_tokens))
    for query in ["generator yield", "東京", "🚀 ünïcode", "context manager exception", "zzz"]:
        tokens = tokenize(query)
        ours, theirs = snapshot.index.scores(tokens), reference.scores(tokens)
        assert np.array_equal(ours[0], theirs[0])  # raw BM25
        assert np.array_equal(ours[1], theirs[1])  # relevance


def test_the_whole_document_index_is_bm25s_over_title_and_chunks():
    """The hybrid build's document index, and the one ``with_semantic`` adds, are bm25s' index
    of each document's title tokens followed by its chunks' content tokens."""
    sources = list(builtin_documents())[:12] + unicode_sources()
    hybrid = DataStore.build("hybrid", sources, embedder=FakeEmbedder())
    plain = DataStore.build("plain", sources)
    tokens = [tokenize(d.title) for d in plain.documents]
    for chunk in plain.chunks:
        tokens[chunk.document_index].extend(tokenize(chunk.content))
    reference = bm25s_index(tokens)
    assert hybrid.semantic is not None
    added = plain.with_semantic(hybrid.semantic)
    for store in (hybrid, added):
        assert len(store.document_text_index) == len(plain.documents)
        assert_same_index(store.document_text_index._bm25, reference)


# -- damaged files --------------------------------------------------------------------------------


def reseal(folder: Path) -> None:
    """Record the files as they now are in the manifest: what only the structural checks
    can catch (a manifest rewritten with the damage)."""
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"] = file_digests(folder)
    (folder / "manifest.json").write_text(json.dumps(manifest))


def cut_content(folder: Path) -> None:
    path = folder / "documents" / "content.utf8"
    path.write_bytes(path.read_bytes()[:-5])


def pad_headings(folder: Path) -> None:
    path = folder / "chunks" / "heading.utf8"
    path.write_bytes(path.read_bytes() + b"x")


def reshape_offsets(folder: Path) -> None:
    path = folder / "documents" / "offsets.npy"
    np.save(path, np.load(path)[:, :-1])


def foreign_document(folder: Path) -> None:
    path = folder / "chunks" / "numbers.npy"
    numbers = np.load(path)
    numbers[-1, 0] = 99
    np.save(path, numbers)


def drop_an_id(folder: Path) -> None:
    path = folder / "documents" / "by_id.npy"
    np.save(path, np.load(path)[:-1])


def unordered_chunks(folder: Path) -> None:
    path = folder / "chunks" / "numbers.npy"
    numbers = np.load(path)
    numbers[0, 0] = numbers[-1, 0]  # the first chunk of the last document, then the others
    np.save(path, numbers)


def drop_a_name(folder: Path) -> None:
    path = folder / "documents" / "by_name.npy"
    np.save(path, np.load(path).astype(np.int64))


def unreadable_schema(folder: Path) -> None:
    (folder / "documents" / "schema.json").write_text("{not json", encoding="utf-8")


def unknown_schema_type(folder: Path) -> None:
    (folder / "documents" / "schema.json").write_text('{"lang": ["colour"]}', encoding="utf-8")


def listed_schema(folder: Path) -> None:
    (folder / "documents" / "schema.json").write_text('["lang"]', encoding="utf-8")


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (cut_content, "documents/content.utf8 has "),
        (pad_headings, "chunks/heading.utf8 has "),
        (reshape_offsets, "documents/offsets.npy holds 4 documents, not 5"),
        (foreign_document, "chunks/numbers.npy names documents that documents/ does not hold"),
        (drop_an_id, "documents/by_id.npy holds int32 (4,), not int32 (5,)"),
        (unordered_chunks, "chunks/numbers.npy names documents that documents/ does not hold"),
        (drop_a_name, "documents/by_name.npy holds int64 (5,), not int32 (5,)"),
        (unreadable_schema, "documents/schema.json is not JSON"),
        (unknown_schema_type, "documents/schema.json is not {field: [type, ...]} with types"),
        (listed_schema, "documents/schema.json is not {field: [type, ...]} with types"),
    ],
)
def test_a_damaged_column_is_refused_naming_its_file(saved, damage, problem):
    _, folder = saved
    damage(folder)
    with pytest.raises(CorpusError, match=r"does not match its checksum|has .* bytes, the manif"):
        DataStore.load(folder)
    reseal(folder)
    with pytest.raises(CorpusError) as info:
        DataStore.load(folder)
    assert problem in str(info.value)
    assert str(folder) in str(info.value)
    assert isinstance(info.value.__cause__, CorpusError)


def test_a_folder_of_the_json_lines_format_is_refused_saying_so(saved):
    _, folder = saved
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["format"] = 4
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(CorpusError, match="index format 4 is not 5 \\(written by another"):
        DataStore.load(folder)
