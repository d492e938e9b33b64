"""``grounding_core._convert``: reading Google's response messages, the parts every API shares.

Covers struct values as plain values (``struct_to_dict``, ``json_value``: integers where a double
is exact, nested lists and dicts; Hypothesis: any JSON value round-trips), the optional-field
readers (``struct_field``, ``optional``, ``timestamp``, ``enum_name``), ``struct_text``,
``content_digest``, ``chunk_from_developer_knowledge`` (every field; a chunk without an id named
by its document and content), ``Spans`` (byte spans to string spans; a span outside the text or
inside a character repaired outwards, a span slicing other text repaired to the claim's own text,
each with a warning in the log that names it), ``resolve`` (an index past the end is left
unresolved, with a warning), ``unique_names`` (a shared name gets the content's digest, then a
number), ``skipped_reasons`` and ``segments``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import logging
import math

import pytest
from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import types as dk
from google.protobuf import struct_pb2
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_core import SourceChunk
from grounding_core._convert import (
    NO_DATA,
    Spans,
    content_digest,
    enum_name,
    json_value,
    optional,
    resolve,
    segments,
    skipped_reasons,
    struct_field,
    struct_text,
    struct_to_dict,
    timestamp,
    unique_names,
)

LOGGER = "grounding_core._convert"
CLAIM = "claims[0] start_pos/end_pos"


def pb(message):
    return type(message).pb(message)


def warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# -- struct values ------------------------------------------------------------------------------


def struct(value: dict) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(value)
    return message


def test_a_struct_becomes_plain_dicts_lists_and_numbers():
    value = {
        "lang": "fr",
        "year": 2024,
        "ratio": 0.5,
        "tags": ["a", 1, None, True],
        "nested": {"ok": True, "none": None, "deep": {"list": [[1.5]]}},
        "empty": {},
        "nothing": [],
    }
    converted = struct_to_dict(struct(value))
    assert converted == value
    assert type(converted) is dict
    assert type(converted["tags"]) is list
    assert type(converted["nested"]["deep"]) is dict
    assert type(converted["year"]) is int
    assert type(converted["tags"][3]) is bool


def test_an_unset_value_is_none():
    assert json_value(struct_pb2.Value()) is None


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.text(max_size=8)
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=8,
)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.text(max_size=5), JSON, max_size=5))
def test_any_json_value_round_trips_through_a_struct(value):
    assert struct_to_dict(struct(value)) == value


# -- optional fields, enums, texts and digests --------------------------------------------------


def test_struct_field_reads_a_set_struct_and_gives_no_data_otherwise():
    document = pb(de.Document(struct_data={"k": [1, "x"]}))
    assert struct_field(document, "struct_data") == {"k": [1, "x"]}
    assert struct_field(document, "derived_struct_data") == {}
    assert struct_field(document, "derived_struct_data") is NO_DATA


def test_optional_tells_unset_from_zero():
    assert optional(pb(de.Chunk(relevance_score=0.0)), "relevance_score") == 0.0
    assert optional(pb(de.Chunk(relevance_score=0.75)), "relevance_score") == 0.75
    assert optional(pb(de.Chunk()), "relevance_score") is None


def test_timestamp_reads_a_set_time_as_an_aware_datetime():
    document = pb(dk.Document(update_time={"seconds": 60, "nanos": 5000}))
    assert timestamp(document, "update_time") == dt.datetime(
        1970, 1, 1, 0, 1, 0, 5, tzinfo=dt.timezone.utc
    )
    assert timestamp(pb(dk.Document()), "update_time") is None


def test_enum_name_gives_the_name_or_the_number_of_an_unknown_value():
    answer = pb(de.Answer(state=de.Answer.State.SUCCEEDED))
    assert enum_name(answer, "state", answer.state) == "SUCCEEDED"
    assert enum_name(answer, "state", 0) == "STATE_UNSPECIFIED"
    assert enum_name(answer, "state", 99) == "99"


def test_struct_text_is_one_sorted_line_per_field():
    assert struct_text({"title": "Widget", "price": 12, "tags": [1, 2]}) == (
        "price: 12\ntags: [1, 2]\ntitle: Widget"
    )
    assert struct_text({}) == ""


@pytest.mark.parametrize("content", ["", "A.", "東京 🚀"])
def test_content_digest_is_sixteen_hex_digits_of_the_sha256(content):
    assert content_digest(content) == hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]
    assert len(content_digest(content)) == 16


# -- Spans --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("Paris is in France.", "is in"),
        ("東京は日本の首都です。", "日本"),
        ("Rockets 🚀 fly.", "🚀 fly"),
    ],
)
def test_a_valid_span_slices_the_text_in_any_script(caplog, text, part):
    start = text.index(part)
    byte_start = len(text[:start].encode())
    byte_end = byte_start + len(part.encode())
    spans = Spans(text)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert spans.span(byte_start, byte_end, what=CLAIM) == (start, start + len(part))
        assert spans.span(byte_start, byte_end, what=CLAIM, expected=part) == (
            start,
            start + len(part),
        )
    assert spans.bytes_of(start, start + len(part)) == (byte_start, byte_end)
    assert warnings(caplog) == []


def test_an_empty_span_is_valid():
    assert Spans("日本").span(3, 3, what=CLAIM) == (1, 1)


@pytest.mark.parametrize(
    ("byte_start", "byte_end", "span"),
    [
        (0, 2, (0, 1)),
        (1, 4, (0, 2)),
        (4, 5, (1, 2)),
        (2, 2, (0, 1)),
        (1, 99, (0, 2)),
        (-3, 1, (0, 1)),
    ],
)
def test_offsets_inside_characters_or_outside_the_text_round_outwards(
    caplog, byte_start, byte_end, span
):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert Spans("日本").span(byte_start, byte_end, what=CLAIM, expected="zz") == span
    (warning,) = warnings(caplog)
    assert warning.startswith(f"{CLAIM}: the service sent bytes [{byte_start}, {byte_end}), ")
    assert "which do not fit the text" in warning
    assert warning.endswith(f"using characters [{span[0]}, {span[1]}) instead")


def test_a_reversed_span_is_repaired_to_an_empty_one(caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert Spans("abcdef").span(4, 2, what=CLAIM) == (4, 4)
    assert "byte span end 2 is before its start 4" in warnings(caplog)[0]


def test_the_repair_warning_says_why_the_bytes_do_not_fit(caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        Spans("日本").span(1, 3, what="citations[0]")
        Spans("日本").span(0, 9, what="grounding_supports[0]")
    assert warnings(caplog) == [
        "citations[0]: the service sent bytes [1, 3), which do not fit the text (byte offset 1 "
        "falls inside the 3-byte character '日' (U+65E5) at string index 0, which spans bytes "
        "0..3); using characters [0, 1) instead",
        "grounding_supports[0]: the service sent bytes [0, 9), which do not fit the text (byte "
        "offset 9 is outside the text (0..6 bytes, 2 characters)); using characters [0, 2) "
        "instead",
    ]


def test_offsets_counted_in_characters_are_repaired_from_the_claim_text(caplog):
    answer = "Ünïcödé first. Second ✓ claim."
    start = answer.index("Second")  # a buggy server that counted characters, not bytes
    spans = Spans(answer)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        repaired = spans.span(start, start + 15, what=CLAIM, expected="Second ✓ claim.")
    assert answer[slice(*repaired)] == "Second ✓ claim."
    assert answer.encode()[slice(*spans.bytes_of(*repaired))].decode() == "Second ✓ claim."
    (warning,) = warnings(caplog)
    assert warning.startswith(f"{CLAIM}: the service sent bytes [{start}, {start + 15}), ")
    assert "not to the claim text 'Second ✓ claim.'" in warning


def test_repeated_claim_text_is_repaired_to_the_next_occurrence(caplog):
    # Offsets counted in characters: every claim after the "é" is off by one byte.
    answer = "é. Yes. Yes. Yes."
    spans = Spans(answer)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        found = [spans.span(0, 3, what="claims[0]", expected="é.")]
        found += [
            spans.span(s, s + 4, what=f"claims[{n}]", expected="Yes.")
            for n, s in enumerate((3, 8, 13), 1)
        ]
    assert found == [(0, 2), (3, 7), (8, 12), (13, 17)]
    assert [spans.bytes_of(*span) for span in found] == [(0, 3), (4, 8), (9, 13), (14, 18)]
    assert warnings(caplog) == [
        f"claims[{n}]: the service sent bytes [{s}, {s + 4}), which slice to ' Yes', not to the "
        f"claim text 'Yes.'; using characters [{s}, {s + 4}) instead"
        for n, s in enumerate((3, 8, 13), 1)
    ]


def test_repeated_text_after_a_valid_span_is_searched_after_it():
    spans = Spans("ab. ab. cd.")
    assert spans.span(0, 3, what=CLAIM, expected="ab.") == (0, 3)
    assert spans.span(8, 11, what=CLAIM, expected="ab.") == (4, 7)  # slices "cd."


def test_claim_text_only_before_the_last_span_is_found_from_the_start():
    spans = Spans("A. A. B.")
    assert spans.span(6, 8, what=CLAIM, expected="B.") == (6, 8)
    assert spans.span(6, 8, what=CLAIM, expected="A.") == (0, 2)  # slices "B."


@pytest.mark.parametrize(
    ("answer", "byte_start", "byte_end", "expected", "span"),
    [
        ("ab. ab.", 1, 4, "ab.", (0, 3)),  # slices other text; the text is at 0 and later
        ("ab. cd.", 4, 7, "ab.", (0, 3)),  # a valid span with the text found at the start
        ("Ünï. Rest.", 0, 4, "Ünï.", (0, 4)),  # offset 4 is inside the 'ï' (bytes 3..5)
    ],
)
def test_a_claim_is_repaired_to_its_text_at_the_very_start(
    answer, byte_start, byte_end, expected, span
):
    assert Spans(answer).span(byte_start, byte_end, what=CLAIM, expected=expected) == span


def test_a_valid_span_whose_claim_text_is_nowhere_is_kept_with_a_warning(caplog):
    spans = Spans("ab. cd.")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert spans.span(4, 7, what=CLAIM, expected="xy.") == (4, 7)
    assert warnings(caplog) == [
        f"{CLAIM}: bytes [4, 7) slice to 'cd.', not to the claim text 'xy.'"
    ]


def test_a_bad_span_whose_claim_text_is_nowhere_rounds_outwards():
    assert Spans("ab. cd.").span(5, 99, what=CLAIM, expected="xy.") == (5, 7)


# -- references --------------------------------------------------------------------------------


def test_resolve_keeps_the_items_in_range_in_order(caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert resolve([2, 0, 2], ["a", "b", "c"], "citations[0].sources") == ("c", "a", "c")
        assert resolve([], [], "x") == ()
    assert warnings(caplog) == []


@pytest.mark.parametrize("index", [1, 5, -1])
def test_an_index_out_of_range_is_left_unresolved_with_a_warning(caplog, index):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert resolve([0, index], ["f"], "claims[0].citation_indices") == ("f",)
    assert warnings(caplog) == [
        f"claims[0].citation_indices points at index {index}, but only 1 exist; left unresolved"
    ]


def chunk(name: str, content: str) -> SourceChunk:
    return SourceChunk(name=name, content=content)


def test_unique_names_are_kept():
    references = (chunk("a", "One."), chunk("b", "One."), chunk("c", "Two."))
    assert unique_names(references) == references


def test_shared_names_get_the_content_digest_and_then_a_number():
    x = f"docs/x#{digest('One.')}"
    taken = f"{x}~2"  # a unique name that looks like a numbered one
    references = [
        chunk("docs/x", "One."),
        chunk(taken, "Other."),
        chunk("docs/x", "Two."),
        chunk("docs/x", "One."),
        chunk("docs/y", "One."),
        chunk("", ""),
        chunk("", ""),
        chunk("", ""),
    ]
    renamed = unique_names(references)
    assert [r.name for r in renamed] == [
        x,
        taken,
        f"docs/x#{digest('Two.')}",
        f"{x}~3",
        "docs/y",
        f"#{digest('')}",
        f"#{digest('')}~2",
        f"#{digest('')}~3",
    ]
    # Only the names change.
    assert [dataclasses.replace(r, name="") for r in renamed] == [
        dataclasses.replace(r, name="") for r in references
    ]
    assert renamed[4] is references[4]


def test_a_name_that_ends_with_its_digest_is_numbered_not_digested_again():
    a = f"documents/d#{digest('A.')}"
    b = f"documents/d#{digest('B.')}"
    references = [chunk(a, "A."), chunk(b, "B."), chunk(a, "A."), chunk("c9", "A."), chunk(a, "A.")]
    assert [r.name for r in unique_names(references)] == [a, b, f"{a}~2", "c9", f"{a}~3"]


@pytest.mark.parametrize(
    ("text", "reasons", "expected"),
    [
        ("", [], ("EMPTY_ANSWER",)),
        (" \n", [], ("EMPTY_ANSWER",)),
        ("Yes.", [], ()),
        ("", ["NO_RELEVANT_CONTENT"], ("NO_RELEVANT_CONTENT",)),
        ("Not now.", ["A", "B"], ("A", "B")),
    ],
)
def test_skipped_reasons_are_the_services_or_empty_answer(text, reasons, expected):
    assert skipped_reasons(text, iter(reasons)) == expected  # any iterable, read once


# -- segments ------------------------------------------------------------------------------------


def test_segments_give_each_cited_segment_its_span_and_references(caplog):
    text = "Ça va. Très bien."
    items = [
        de.Answer.Citation.pb()(start_index=0, end_index=7),
        de.Answer.Citation.pb()(start_index=8, end_index=19),
        de.Answer.Citation.pb()(start_index=1, end_index=3),
    ]
    references = [chunk("r0", "zero"), chunk("r1", "one")]
    indices = {0: (0,), 1: (1, 0, 4), 2: ()}
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        found = segments(
            text,
            items,
            what="citations",
            indices=lambda item: indices[items.index(item)],
            references=references,
        )
    assert [item for item, _ in found] == items
    assert [fields for _, fields in found] == [
        {
            "start": 0,
            "end": 6,
            "byte_start": 0,
            "byte_end": 7,
            "text": "Ça va.",
            "reference_indices": (0,),
            "references": (references[0],),
        },
        {
            "start": 7,
            "end": 17,
            "byte_start": 8,
            "byte_end": 19,
            "text": "Très bien.",
            "reference_indices": (1, 0, 4),
            "references": (references[1], references[0]),
        },
        {
            "start": 0,
            "end": 2,
            "byte_start": 0,
            "byte_end": 3,
            "text": "Ça",
            "reference_indices": (),
            "references": (),
        },
    ]
    assert warnings(caplog) == [
        "citations[1].sources points at index 4, but only 2 exist; left unresolved",
        "citations[2]: the service sent bytes [1, 3), which do not fit the text (byte offset 1 "
        "falls inside the 2-byte character 'Ç' (U+00C7) at string index 0, which spans bytes "
        "0..2); using characters [0, 2) instead",
    ]


def test_a_struct_of_non_finite_numbers_keeps_them_as_floats():
    converted = struct_to_dict(struct({"inf": math.inf, "-inf": -math.inf}))
    assert converted == {"inf": math.inf, "-inf": -math.inf}
