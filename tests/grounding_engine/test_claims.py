"""The claim splitter: one sentence (or list item, or table row) is one claim; spans are exact."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_emulator.grounding.claims import SegmentKind, split_claims, split_segments


def claims(text: str) -> list[str]:
    return [text[start:end] for start, end in split_claims(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "Dr. Smith joined Google in 2010. Mr. Lee left. Prof. Ng stayed.",
            ["Dr. Smith joined Google in 2010.", "Mr. Lee left.", "Prof. Ng stayed."],
            id="titles",
        ),
        pytest.param(
            "Use a managed service, e.g. Cloud Run, i.e. no servers. Then deploy.",
            ["Use a managed service, e.g. Cloud Run, i.e. no servers.", "Then deploy."],
            id="latin-abbreviations",
        ),
        pytest.param(
            "The U.S. Government uses it. It runs in the U.S. It is fast.",
            ["The U.S. Government uses it.", "It runs in the U.S.", "It is fast."],
            id="initialisms",
        ),
        pytest.param(
            "Es wurde am 23. April 1516 erlassen. Koch lebte im 19. Jahrhundert. "
            "It shipped in version 2. March came next.",
            [
                "Es wurde am 23. April 1516 erlassen.",
                "Koch lebte im 19. Jahrhundert.",
                "It shipped in version 2.",
                "March came next.",
            ],
            id="german-ordinals",
        ),
        pytest.param(
            "Il vise 1,5 °C. Les parties doivent communiquer.",
            ["Il vise 1,5 °C.", "Les parties doivent communiquer."],
            id="degrees-before-a-period",
        ),
        pytest.param(
            "ถ้ายื่นออนไลน์ จะได้เวลาเพิ่มอีก 15 วัน ต้องยื่นแบบ ภ.ง.ด.90 ภายในวันที่ 31",
            ["ถ้ายื่นออนไลน์ จะได้เวลาเพิ่มอีก 15 วัน", "ต้องยื่นแบบ ภ.ง.ด.90 ภายในวันที่ 31"],
            id="thai-clauses",
        ),
        pytest.param(
            "Билет стоит 890 руб. — это дороже. Поезд идёт 2 ч.",
            ["Билет стоит 890 руб. — это дороже.", "Поезд идёт 2 ч."],
            id="russian-abbreviations",
        ),
        pytest.param(
            "Python 3.5 added async. Upgrade to v1.2.3 or 10.0.0.1 first. Pi is 3.14159.",
            ["Python 3.5 added async.", "Upgrade to v1.2.3 or 10.0.0.1 first.", "Pi is 3.14159."],
            id="decimals-and-versions",
        ),
        pytest.param(
            "See https://cloud.google.com/run/docs/start. It explains www.example.com/a.b too.",
            [
                "See https://cloud.google.com/run/docs/start.",
                "It explains www.example.com/a.b too.",
            ],
            id="urls",
        ),
        pytest.param(
            "Call `client.search(). Then` first. Mail ops@example.co.uk. Done.",
            ["Call `client.search(). Then` first.", "Mail ops@example.co.uk.", "Done."],
            id="code-span-and-email",
        ),
        pytest.param(
            "Wait... is it fast? Yes! It scales… Really well.",
            ["Wait... is it fast?", "Yes!", "It scales…", "Really well."],
            id="ellipses",
        ),
        pytest.param(
            'He said "Stop." Then he left. She asked (why?) twice.',
            ['He said "Stop."', "Then he left.", "She asked (why?) twice."],
            id="quotes",
        ),
        pytest.param(
            "東京は日本の首都です。大阪は大きい！本当ですか？はい。",
            ["東京は日本の首都です。", "大阪は大きい！", "本当ですか？", "はい。"],
            id="cjk-no-spaces",
        ),
        pytest.param(
            "هل هذا صحيح؟ نعم، هذا صحيح. یہ درست ہے۔ یہ بھی۔",
            ["هل هذا صحيح؟", "نعم، هذا صحيح.", "یہ درست ہے۔", "یہ بھی۔"],
            id="arabic-and-urdu",
        ),
        pytest.param(
            "यह सही है। वह गलत है॥ ठीक है।",
            ["यह सही है।", "वह गलत है॥", "ठीक है।"],
            id="devanagari",
        ),
        pytest.param(
            "กรุงเทพเป็นเมืองหลวง ประเทศไทยอยู่ในเอเชีย",
            ["กรุงเทพเป็นเมืองหลวง", "ประเทศไทยอยู่ในเอเชีย"],
            id="thai-spaces",
        ),
        pytest.param(
            "Cloud Run is fast! 🚀 It is cheap. 💰",
            ["Cloud Run is fast! 🚀", "It is cheap. 💰"],
            id="trailing-emoji",
        ),
        pytest.param(
            "It costs etc. The end. Apples, pears, etc. are fruit.",
            ["It costs etc.", "The end.", "Apples, pears, etc. are fruit."],
            id="etc",
        ),
        pytest.param(
            "Install it with pip, then\nrun the server.\nNext step here.",
            ["Install it with pip, then\nrun the server.", "Next step here."],
            id="line-breaks",
        ),
    ],
)
def test_sentences(text, expected):
    assert claims(text) == expected


def test_bullets_and_numbered_items_are_claims_without_their_markers():
    text = (
        "Here is what I found:\n"
        "- Cloud Run scales to zero.\n"
        "* It supports GPUs. It bills per 100 ms.\n"
        "+ It has a free tier\n"
        "• It runs containers\n"
        "1. Build the image.\n"
        "2) Deploy it.\n"
        "a) Check the logs.\n"
        "- [x] Done\n"
        "> Quoted advice here."
    )
    segments = split_segments(text)
    assert [text[s.start : s.end] for s in segments] == [
        "Here is what I found:",
        "Cloud Run scales to zero.",
        "It supports GPUs.",
        "It bills per 100 ms.",
        "It has a free tier",
        "It runs containers",
        "Build the image.",
        "Deploy it.",
        "Check the logs.",
        "Done",
        "Quoted advice here.",
    ]
    assert segments[0].kind == SegmentKind.SENTENCE
    assert {s.kind for s in segments[1:10]} == {SegmentKind.LIST_ITEM}


def test_headings_tables_and_code_blocks():
    text = (
        "## Pricing ##\n"
        "**Storage classes**\n"
        "| Tier | Price |\n"
        "|:---|---:|\n"
        "| Standard | $0.02 |\n"
        "\n"
        "```bash\n"
        "gcloud run deploy. Not a sentence end.\n"
        "```\n"
        "Done."
    )
    segments = split_segments(text)
    assert [(text[s.start : s.end], s.kind) for s in segments] == [
        ("Pricing", SegmentKind.HEADING),
        ("Storage classes", SegmentKind.HEADING),
        ("| Tier | Price |", SegmentKind.TABLE_HEADER),
        ("| Standard | $0.02 |", SegmentKind.TABLE_ROW),
        ("```bash\ngcloud run deploy. Not a sentence end.\n```", SegmentKind.CODE),
        ("Done.", SegmentKind.SENTENCE),
    ]


def test_spans_slice_the_text_exactly_with_non_ascii():
    text = "  Café 😀 costs €3.50.\r\n\r\n- naïve résumé ✅\n\n東京。 "
    spans = split_claims(text)
    assert [text[s:e] for s, e in spans] == ["Café 😀 costs €3.50.", "naïve résumé ✅", "東京。"]
    encoded = text.encode("utf-8")
    for start, end in spans:
        byte_start = len(text[:start].encode("utf-8"))
        byte_end = len(text[:end].encode("utf-8"))
        assert encoded[byte_start:byte_end].decode("utf-8") == text[start:end]


@pytest.mark.parametrize("text", ["", "   ", "\n\n", "🎉", "---", "| --- |", "...", "```"])
def test_nothing_to_claim(text):
    assert split_claims(text) == []


_PIECES = st.sampled_from(
    [
        "Dr.",
        "e.g.",
        "U.S.",
        "3.5",
        "v1.2.3",
        "https://x.io/a.b",
        "`x.y()`",
        "- ",
        "1. ",
        "\n",
        "\n\n",
        "...",
        "…",
        '"',
        "。",
        "؟",
        "।",
        "! ",
        "? ",
        ". ",
        " ",
        "|",
        "```",
        "#",
        "😀",
        "\u200d",
        "\ufe0f",
        "a",
        "Word",
        "東京",
        "กรุงเทพ ",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(), st.lists(st.one_of(_PIECES, st.text(max_size=3))).map("".join)))
def test_spans_are_ordered_disjoint_and_non_empty(text):
    previous_end = 0
    for start, end in split_claims(text):
        assert previous_end <= start < end <= len(text)
        claim = text[start:end]
        assert claim.strip() == claim
        assert claim
        previous_end = end


def test_hard_wrapped_prose_keeps_its_sentences_whole():
    text = (
        'The "with" statement is used to wrap the execution of a block with\n'
        "methods defined by a context manager (see section With Statement\n"
        "Context Managers). This allows common patterns to be reused.\n"
        "A short title\n"
        "Then a new sentence."
    )
    assert [text[s:e] for s, e in split_claims(text)] == [
        'The "with" statement is used to wrap the execution of a block with\n'
        "methods defined by a context manager (see section With Statement\n"
        "Context Managers).",
        "This allows common patterns to be reused.",
        "A short title",
        "Then a new sentence.",
    ]
