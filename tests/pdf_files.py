"""PDF files written by hand for the tests: the objects given, numbered from 1, with their
cross-reference table (PDF 1.4, "7.5 File Structure"). Object 1 is the catalog."""

from __future__ import annotations


def pdf_file(objects: list[bytes]) -> bytes:
    """A PDF of ``objects`` (each the body of ``N 0 obj``, ``N`` its place from 1)."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    start = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        start,
    )
    return bytes(out)
