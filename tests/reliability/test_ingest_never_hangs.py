"""Ingest never hangs and never aborts on one bad input (issue 39, points 6 to 8): a named pipe or
a socket in a corpus folder, a value out of range in a JSONL line or a file's
modification time, and a small PDF that would unpack into megabytes of text are each skipped
with their reason; the rest is ingested and served."""

from __future__ import annotations

import json
import os
import socket
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_emulator.corpus.reading import Skipped, SourceDocument, read_folder
from grounding_emulator.limits import MAX_TEXT_FILE_BYTES
from tests.cli.invoke import run
from tests.emulator.conftest import ONCE, serving_config, versioned_client
from tests.emulator.test_cli import serving
from tests.pdf_files import pdf_file

GOOD = "# Lighthouses\n\nLighthouses guide ships at night."
NOT_READ = "not a regular file, and is not read (reading it could wait forever)"
# A page's text bounded like a text file, in its own words.
PDF_BOUND = (
    f"the emulator reads at most {MAX_TEXT_FILE_BYTES:,} bytes of a PDF's decoded page "
    f"content and of its text, the bound of a text file"
)


def pdf(pages: int, content: bytes, *, to_unicode: bytes | None = None) -> bytes:
    """A PDF of ``pages`` pages that all share one Flate-compressed content stream
    ``content`` (font ``/F1``: Helvetica, with ``to_unicode`` as its ToUnicode CMap)."""
    compressed = zlib.compress(content, 9)
    kids = " ".join(f"{6 + n} 0 R" for n in range(pages)).encode()
    unicode = b" /ToUnicode 5 0 R" if to_unicode is not None else b""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream"
        % (len(compressed), compressed),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica%s >>" % unicode,
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(to_unicode or b""), to_unicode or b""),
    ]
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R "
    objects += [page + b"/Resources << /Font << /F1 4 0 R >> >> >>"] * pages
    return pdf_file(objects)


def drawing(size: int) -> bytes:
    """``size`` bytes of page content that draw lines (and show no text)."""
    line = b"0 0 m 10 10 l S\n"
    return (line * (size // len(line) + 1))[: size - 1] + b"\n"


def expanding_text(codes: int, chars_per_code: int) -> tuple[bytes, bytes]:
    """Page content of one string of ``codes`` bytes, each shown as ``chars_per_code``
    characters of text (through the font's ToUnicode CMap, whose strings pypdf takes up to 512
    bytes long), and that CMap."""
    text = ("lighthouse " * chars_per_code)[:chars_per_code].encode("utf-16-be").hex()
    cmap = (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange "
        b"<00> <FF> endcodespacerange 1 beginbfchar <01> <%s> endbfchar endcmap end end"
        % text.encode()
    )
    return b"BT /F1 12 Tf 72 720 Td (" + b"\x01" * codes + b") Tj ET", cmap


def read(root: Path) -> tuple[list[SourceDocument], list[Skipped]]:
    items = list(read_folder(root))
    return (
        [i for i in items if isinstance(i, SourceDocument)],
        [i for i in items if isinstance(i, Skipped)],
    )


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    root.mkdir()
    (root / "good.md").write_text(GOOD, encoding="utf-8")
    return root


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A folder with a short path: a Unix socket's path is at most 107 bytes."""
    with tempfile.TemporaryDirectory(prefix="gk-") as folder:
        yield Path(folder)


# -- named pipes, sockets and devices (point 7) -------------------------------------------------


def test_a_named_pipe_in_a_corpus_folder_is_skipped_and_the_rest_is_ingested(kb, tmp_path, capsys):
    os.mkfifo(kb / "pipe.md")  # nothing ever writes to it: reading it would wait forever
    code, out, _ = run(capsys, "ingest", "--no-state", "--corpus", str(kb))
    assert code == 1  # a file was skipped as bad
    assert out.splitlines()[-2:] == [
        "data store kb: 1 document, 1 chunk",
        f"{kb}: skipped pipe.md: it is a named pipe, {NOT_READ}: put the content in a regular file",
    ]


def test_a_socket_in_a_corpus_folder_is_skipped(short_tmp):
    (short_tmp / "good.md").write_text(GOOD, encoding="utf-8")
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(short_tmp / "socket.md"))
    try:
        documents, skipped = read(short_tmp)
    finally:
        listening.close()
    assert [d.origin for d in documents] == ["good.md"]
    assert [str(s) for s in skipped] == [
        f"socket.md: it is a socket, {NOT_READ}: put the content in a regular file"
    ]


# -- values out of range (point 6) ------------------------------------------------------------


@pytest.mark.parametrize(
    "update_time",
    ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00"],
    ids=["past-year-9999-in-utc", "before-year-1-in-utc"],
)
def test_a_jsonl_update_time_out_of_range_skips_its_line(tmp_path, capsys, update_time):
    corpus = tmp_path / "kb.jsonl"
    lines = [
        {"id": "far", "content": "Fog horns.", "update_time": update_time},
        {"id": "edge", "content": "Lighthouses.", "update_time": "9999-12-31T23:59:59Z"},
    ]
    corpus.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    code, out, _ = run(capsys, "ingest", "--no-state", "--corpus", str(corpus))
    assert code == 1
    assert out.splitlines()[-2:] == [
        "data store kb: 1 document, 1 chunk",  # the last second of year 9999 (UTC) is kept
        f"{corpus}: skipped line 1: update_time {update_time!r} is outside the range of a "
        "Timestamp (google.protobuf.Timestamp: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z): "
        "give a time within it",
    ]


def test_a_modification_time_no_timestamp_carries_skips_its_file():
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as d:
        root = Path(d)
        (root / "good.md").write_text(GOOD, encoding="utf-8")
        far = root / "far.md"
        far.write_text(GOOD, encoding="utf-8")
        os.utime(far, (2**40, 2**40))  # the year 36812
        if far.stat().st_mtime != 2**40:
            pytest.skip("this file system cannot keep a modification time past the year 9999")
        documents, skipped = read(root)
    assert [d.origin for d in documents] == ["good.md"]
    assert len(skipped) == 1
    assert skipped[0].where == "far.md"
    assert skipped[0].reason.startswith(
        "its modification time (1099511627776 s from 1970) is outside the years 1 to 9999 that "
        "a Timestamp carries ("
    )
    assert skipped[0].reason.endswith("): touch it")


def test_serve_serves_a_corpus_beside_a_named_pipe_and_a_line_out_of_range(kb, tmp_path):
    os.mkfifo(kb / "pipe.md")
    corpus = tmp_path / "notes.jsonl"
    lines = [
        {"id": "far", "content": "Fog horns.", "update_time": "9999-12-31T23:59:59-01:00"},
        {"id": "horns", "content": "Fog horns warn ships."},
    ]
    corpus.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    arguments = ("--no-builtin", "--no-state", "--corpus", str(kb), "--corpus", str(corpus))
    with serving(*arguments) as (address, lines_printed):
        printed = "".join(lines_printed)
        assert f"{kb}: skipped pipe.md: it is a named pipe" in printed
        assert f"{corpus}: skipped line 1: update_time" in printed
        client = versioned_client(de, "SearchServiceClient", address)
        for data_store, query, found in (
            ("kb", "lighthouses", "good-md"),
            ("notes", "fog", "horns"),
        ):
            request = de.SearchRequest(serving_config=serving_config(data_store), query=query)
            assert [r.id for r in client.search(request=request, **ONCE).results] == [found]


# -- PDFs whose text would be far larger than the file (point 8) -------------------------------


def test_a_small_pdf_of_pages_sharing_one_big_content_stream_is_refused_page_by_page(kb):
    # The probe: 10 pages share one content stream of 2 MB, a PDF of a few KB.
    hostile = pdf(10, drawing(2_000_000))
    assert len(hostile) < 10_000
    (kb / "hostile.pdf").write_bytes(hostile)
    documents, skipped = read(kb)
    assert [d.origin for d in documents] == ["good.md"]
    assert [str(s) for s in skipped] == [
        f"hostile.pdf: its decoded page content passes {MAX_TEXT_FILE_BYTES:,} bytes at page 6: "
        f'{PDF_BOUND} ("Prepare data for ingesting"): split the PDF'
    ]


@pytest.mark.parametrize(("size", "read_whole"), [(5_000_000, True), (5_000_001, False)])
def test_a_pdf_page_content_bound_is_the_text_file_bound(tmp_path, size, read_whole):
    # Two pages sharing one stream: exactly the bound, then one byte over at page 2.
    (tmp_path / "two.pdf").write_bytes(pdf(2, drawing(size)))
    documents, skipped = read(tmp_path)
    assert (len(documents), len(skipped)) == ((1, 0) if read_whole else (0, 1))
    if not read_whole:
        assert skipped[0].reason.startswith(
            f"its decoded page content passes {MAX_TEXT_FILE_BYTES:,} bytes at page 2:"
        )


@pytest.mark.parametrize(("codes", "read_whole"), [(40_000, True), (40_001, False)])
def test_a_pdf_text_bound_is_the_text_file_bound(tmp_path, codes, read_whole):
    # 40,000 bytes of content shown as 250 characters each: exactly 10,000,000 bytes of text.
    content, cmap = expanding_text(codes, 250)
    (tmp_path / "dense.pdf").write_bytes(pdf(1, content, to_unicode=cmap))
    documents, skipped = read(tmp_path)
    if read_whole:
        assert skipped == []
        assert len(documents[0].document.content.encode()) == MAX_TEXT_FILE_BYTES
    else:
        assert documents == []
        assert [str(s) for s in skipped] == [
            f"dense.pdf: its text (UTF-8) passes {MAX_TEXT_FILE_BYTES:,} bytes at page 1: "
            f'{PDF_BOUND} ("Prepare data for ingesting"): split the PDF'
        ]
