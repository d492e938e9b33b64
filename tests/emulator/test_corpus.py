"""Reading corpora (folders, JSONL, PDF), chunking, tokens, the built-in corpus."""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pytest

from grounding_emulator import CorpusError, CorpusStore
from grounding_emulator.corpus.builtin import builtin_documents
from grounding_emulator.corpus.chunking import (
    Block,
    blocks_from_html,
    blocks_from_markdown,
    blocks_from_plain_text,
    chunk_blocks,
    split_long_text,
)
from grounding_emulator.corpus.reading import (
    Skipped,
    SourceDocument,
    describe_skipped,
    read_corpus,
    read_folder,
    read_jsonl,
)
from grounding_emulator.corpus.records import developer_knowledge_name
from grounding_emulator.corpus.tokens import tokenize
from tests.pdf_files import pdf_file

OTTERS = "Otters swim in rivers and streams all day long."
BEAVERS = "Beavers build dams across the rivers."


def make_pdf(pages: list[str]) -> bytes:
    """A minimal PDF with one text line per line of each page (Helvetica, no compression)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    font = 3 + 2 * len(pages)
    for number, text in enumerate(pages):
        lines = " ".join(f"({line}) Tj T*" for line in text.split("\n"))
        stream = f"BT /F1 12 Tf 72 720 Td 14 TL {lines} ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * number} "
            f"0 R /Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return pdf_file(objects)


def documents_of(items) -> list[SourceDocument]:
    return [s for s in items if isinstance(s, SourceDocument)]


def skipped_of(items) -> list[Skipped]:
    return [s for s in items if isinstance(s, Skipped)]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "guide").mkdir(parents=True)
    (root / "guide" / "intro.md").write_text(
        "# Introduction\n\nOwls hunt at night.\n\n## Details\n\nBadgers dig setts.\n\n"
        "```python\ndef f():\n\n    return 1\n```\n",
        encoding="utf-8",
    )
    (root / "notes.txt").write_text("Plain notes\n===========\n\nHedgehogs eat beetles.\n")
    (root / "page.html").write_text(
        "<html><head><title>Foxes</title><style>p{}</style></head><body><h1>Foxes</h1>"
        "<p>Foxes are <b>clever</b>.</p><script>var x;</script><h2>Diet</h2><p>Mice.</p>"
        "</body></html>",
        encoding="utf-8",
    )
    (root / "report.pdf").write_bytes(make_pdf([OTTERS, BEAVERS]))
    (root / "ignored.bin").write_bytes(b"\x00\x01")
    (root / ".hidden.md").write_text("# secret")
    return root


def test_folder_documents(folder):
    items = list(read_folder(folder))
    documents = {s.document.struct_data["path"]: s for s in documents_of(items)}
    assert sorted(documents) == ["guide/intro.md", "notes.txt", "page.html", "report.pdf"]
    assert skipped_of(items) == [Skipped("ignored.bin", "unsupported type", unsupported=True)]
    assert documents["notes.txt"].origin == "notes.txt"
    intro = documents["guide/intro.md"].document
    assert intro.id == "guide-intro-md"
    assert intro.title == "Introduction"
    assert intro.mime_type == "text/markdown"
    assert intro.uri == (folder / "guide" / "intro.md").resolve().as_uri()
    assert intro.struct_data == {"path": "guide/intro.md", "directory": "guide", "extension": "md"}
    assert intro.description == "Owls hunt at night."
    html = documents["page.html"].document
    assert html.title == "Foxes"
    assert "Foxes are clever." in html.content
    assert "var x" not in html.content
    assert documents["notes.txt"].document.title == "Plain notes"
    pdf = documents["report.pdf"]
    assert [(b.text, b.page) for b in pdf.blocks] == [
        (OTTERS, 1),
        (BEAVERS, 2),
    ]


def test_base_uri(folder):
    items = read_folder(folder, base_uri="https://example.com/docs/")
    uris = {s.document.uri for s in documents_of(items)}
    assert "https://example.com/docs/guide/intro.md" in uris


def test_pdf_chunks_carry_page_spans(folder):
    for size, expected in ((50, [(1, 1), (2, 2)]), (1000, [(1, 2)])):
        snapshot = CorpusStore(max_chunk_chars=size).ingest("docs", folder)
        first, end = snapshot.document_chunks[snapshot.document_index("report-pdf")]
        spans = [(c.page_start, c.page_end) for c in snapshot.chunks[first:end]]
        assert spans == expected
    assert all(c.page_start is None for c in snapshot.chunks[:first])


def test_paths_outside_the_root_are_refused(tmp_path, folder):
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n\nTop secret.")
    os.symlink(outside, folder / "link.md")
    os.symlink(tmp_path, folder / "loop")
    items = list(read_folder(folder))
    paths = {s.document.struct_data["path"] for s in documents_of(items)}
    assert "link.md" not in paths
    assert not any(p.startswith("loop") for p in paths)
    assert Skipped(
        "link.md",
        f"it leads outside the corpus folder {folder.resolve()}: copy the file into the folder, "
        "or serve its own folder as a corpus too",
    ) in skipped_of(items)


def test_chunk_ids_are_stable_across_runs(folder):
    first = CorpusStore().ingest("docs", folder)
    second = CorpusStore().ingest("docs", folder)
    assert [(first.documents[c.document_index].id, c.id, c.content) for c in first.chunks] == [
        (second.documents[c.document_index].id, c.id, c.content) for c in second.chunks
    ]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("not json", "not valid JSON (Expecting value at column 2)"),
        ('{"title": "x"}', "content is required and must be a string"),
        (
            '{"content": "x", "id": "bad id"}',
            "id 'bad id' is not a valid document id: use letters, digits, '-' and '_', at most 63 "
            "characters, starting with a letter or digit",
        ),
        ('{"content": "x", "struct_data": [1]}', "struct_data must be a JSON object"),
        ('{"content": "x", "update_time": "soon"}', "update_time 'soon' is not RFC 3339"),
        (
            '{"content": "x", "mime_type": "image/png"}',
            "mime_type 'image/png' is not supported: use text/plain, text/markdown or text/html",
        ),
        ('{"content": "x", "title": 3}', "title must be a string, got int"),
        ("[1]", "expected a JSON object, got list"),
    ],
)
def test_a_bad_jsonl_line_is_skipped_naming_it(tmp_path, line, reason):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"id": "good", "content": OTTERS}) + "\n " + line + "\n")
    items = list(read_jsonl(path))
    assert [s.document.id for s in documents_of(items)] == ["good"]
    assert documents_of(items)[0].origin == "line 1"
    assert skipped_of(items) == [Skipped("line 2", reason)]


def test_document_from_mapping_names_where(tmp_path):
    from grounding_emulator.corpus.reading import document_from_mapping

    with pytest.raises(CorpusError, match=r"^kb line 7: content is required"):
        document_from_mapping({"title": "x"}, where="kb line 7", number=7)
    assert document_from_mapping({"content": "x"}, where="kb", number=7).origin == "kb"


def test_jsonl_duplicate_ids(tmp_path):
    path = tmp_path / "dup.jsonl"
    path.write_text(
        json.dumps({"id": "a", "content": "x"}) + "\n\n" + json.dumps({"id": "a", "content": "y"})
    )
    assert len(documents_of(read_jsonl(path))) == 2  # the store skips the second
    snapshot = CorpusStore(semantic=False).ingest("dup", path)
    assert [d.content for d in snapshot.documents] == ["x"]
    assert snapshot.skipped == (
        Skipped(
            "line 3", "duplicate document id 'a' (first: line 1): give each document its own id"
        ),
    )


def test_missing_corpus(tmp_path):
    with pytest.raises(CorpusError, match="does not exist"):
        CorpusStore().ingest("docs", tmp_path / "nowhere")


def test_markdown_blocks():
    blocks = blocks_from_markdown(
        "Title\n=====\n\nIntro text.\n\n## Sub\n\n```\ncode\n\nmore code\n```\n\nLast words.\n"
    )
    assert [(b.kind, b.level, b.text) for b in blocks] == [
        ("heading", 1, "Title"),
        ("paragraph", 0, "Intro text."),
        ("heading", 2, "Sub"),
        ("code", 0, "```\ncode\n\nmore code\n```"),
        ("paragraph", 0, "Last words."),
    ]


def test_plain_text_headings_follow_first_use():
    text = "Top\n***\n\nText.\n\nSection\n=======\n\nMore.\n\nOther\n*****\n\nShort\n**\n"
    blocks = blocks_from_plain_text(text)
    assert [(b.text, b.level) for b in blocks if b.kind == "heading"] == [
        ("Top", 1),
        ("Section", 2),
        ("Other", 1),
    ]


def test_html_blocks():
    title, blocks = blocks_from_html("<title>T</title><h2>A</h2><p>x<br>y</p><pre>  a\n  b</pre>")
    assert title == "T"
    assert [(b.kind, b.text) for b in blocks] == [
        ("heading", "A"),
        ("paragraph", "x y"),
        ("code", "  a\n  b"),
    ]


def test_chunks_follow_headings_and_respect_the_limit():
    blocks = [
        Block("heading", "Guide", 1),
        Block("heading", "Part A", 2),
        Block("paragraph", "alpha " * 30),
        Block("paragraph", "beta " * 30),
        Block("heading", "Part B", 2),
        Block("paragraph", "gamma " * 100),
    ]
    chunks = chunk_blocks(blocks, max_chars=200)
    assert all(len(c.content) <= 200 for c in chunks)
    assert chunks[0].content.startswith("Guide\n\nPart A\n\nalpha")
    assert chunks[0].heading == "Guide > Part A"
    assert chunks[1].content.startswith("beta")
    assert chunks[1].heading == "Guide > Part A"
    part_b = [c for c in chunks if c.heading == "Guide > Part B"]
    assert part_b[0].content.startswith("Part B\n\ngamma")
    assert len(part_b) >= 3


def test_long_text_is_cut_at_sentence_ends_and_never_inside_a_character():
    text = "Short sentence one. " * 10 + "x" * 50
    pieces = split_long_text(text, 100)
    assert all(len(p) <= 100 for p in pieces)
    assert pieces[0].endswith("one.")
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "")
    combining = "e\u0301" * 80  # no space, no sentence end: a hard cut
    pieces = split_long_text(combining, 51)
    assert all(not unicodedata.combining(p[0]) for p in pieces)
    assert "".join(pieces) == combining
    family = "👩\u200d👩\u200d👧" * 30
    pieces = split_long_text(family, 40)
    assert "".join(pieces) == family
    assert all(not p.startswith("\u200d") and not p.endswith("\u200d") for p in pieces)


def test_cjk_text_is_cut_at_full_stops():
    text = "東京都は日本の首都です。" * 20
    pieces = split_long_text(text, 50)
    assert all(p.endswith("。") for p in pieces)
    assert "".join(pieces) == text


def test_tokens():
    assert tokenize("Generators yield values") == ["generat", "yield", "valu"]
    assert tokenize("the for statement") == ["for", "statement"]  # keywords stay
    assert tokenize("Cafe\u0301s") == tokenize("cafés") == ["café"]
    assert tokenize("ＡＢＣ") == ["abc"]  # NFKC
    assert tokenize("北京") == ["北", "京", "北京"]
    assert tokenize("👩‍🚀") == []


def test_developer_knowledge_names():
    assert developer_knowledge_name("https://a.example/x/y#z") == "documents/a.example/x/y#z"
    assert developer_knowledge_name("urn:document:a") == "documents/urn:document:a"


def test_builtin_corpus():
    documents = {s.document.id: s.document for s in builtin_documents()}
    assert len(documents) >= 70
    for_statement = documents["for"]
    assert for_statement.uri.endswith("/reference/compound_stmts.html#for")
    assert for_statement.uri.startswith("https://docs.python.org/3.")
    assert for_statement.title == 'The "for" statement'
    assert for_statement.struct_data["category"] == "statements"
    assert for_statement.struct_data["section"] == "reference"
    assert isinstance(for_statement.struct_data["words"], int)
    assert documents["typesseq"].struct_data["section"] == "library"
    assert for_statement.update_time is not None


def test_skipped_files_are_listed_and_described(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / ".hidden").mkdir()
    for name in ("a.md", "sub/b.TXT", "data.csv", "sub/notes.json", ".secret.csv", ".hidden/x.py"):
        (tmp_path / name).write_text(OTTERS, encoding="utf-8")
    for number in range(5):
        (tmp_path / f"z{number}.docx").write_text("x", encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    items = list(read_folder(tmp_path))
    skipped = skipped_of(items)
    # Hidden files stay unlisted (skipped as documented); the others in path order.
    assert [s.where for s in skipped if s.unsupported] == [
        "data.csv",
        *(f"z{n}.docx" for n in range(5)),
        "sub/notes.json",
    ]
    assert describe_skipped(tmp_path, skipped) == (
        f"{tmp_path}: skipped 7 files of unsupported types (data.csv, z0.docx, z1.docx, z2.docx, "
        "z3.docx, ...); supported: .md, .markdown, .txt, .text, .rst, .html, .htm, .pdf",
        f"{tmp_path}: skipped latin1.txt: it is not UTF-8 text (byte 3: unexpected end of "
        "data): convert it to UTF-8",
    )
    assert describe_skipped(tmp_path, [Skipped("one.csv", "unsupported type", True)]) == (
        f"{tmp_path}: skipped 1 file of unsupported types (one.csv); supported: .md, .markdown, "
        ".txt, .text, .rst, .html, .htm, .pdf",
    )
    assert describe_skipped(tmp_path, []) == ()
    assert [s.document.struct_data["path"] for s in documents_of(items)] == ["a.md", "sub/b.TXT"]


@pytest.mark.parametrize("names", [(), ("data.csv", "notes.json")])
def test_a_folder_without_a_supported_file_is_refused(tmp_path, names):
    for name in names:
        (tmp_path / name).write_text("x", encoding="utf-8")
    (tmp_path / ".notes.md").write_text(OTTERS, encoding="utf-8")  # hidden: does not count
    others = f"; it has {len(names)} of other types" if names else ""
    with pytest.raises(CorpusError) as excinfo:
        read_corpus(tmp_path)
    assert str(excinfo.value) == (
        f"corpus folder {tmp_path} has no file of a supported type (.md, .markdown, .txt, .text, "
        f".rst, .html, .htm, .pdf){others}: add such files, or convert the others (a .jsonl "
        "file of documents is a corpus too)"
    )


def test_the_store_logs_skipped_files_in_one_line(tmp_path, caplog):
    (tmp_path / "a.md").write_text(f"# Otters\n\n{OTTERS}", encoding="utf-8")
    (tmp_path / "data.csv").write_text("a,b", encoding="utf-8")
    with caplog.at_level("INFO", logger="grounding_emulator.corpus.store"):
        snapshot = CorpusStore(semantic=False).ingest("otters", tmp_path)
    assert len(snapshot.documents) == 1
    skipped = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
    assert skipped == [
        f"data store otters: {tmp_path}: skipped 1 file of unsupported types (data.csv); "
        "supported: .md, .markdown, .txt, .text, .rst, .html, .htm, .pdf"
    ]
