"""Standard ``Citation`` annotations on the messages the checker returns (issue #18), on the
emulator, and ``cited_content`` over every content shape a chat model gives."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage

from grounding_core import CitationSpan
from langchain_grounding import GroundingChecker
from langchain_grounding.citations import citation_annotation, cited_content, cited_message

PARIS = "Paris is the capital of France."
LYON = "Lyon is a city in France."
MOON = "The moon is made of cheese."
DOCS = [
    Document(
        id="doc-paris",
        page_content=PARIS,
        metadata={"title": "Paris", "uri": "https://example.com/paris"},
    ),
    Document(id="doc-lyon", page_content=LYON, metadata={"title": "Lyon"}),
]
ANSWER = f"{LYON} {MOON} {PARIS}"


def span(start, end, source_index=0, claim_index=0):
    return CitationSpan(start, end, "cited", source_index, f"s{source_index}", "", "", claim_index)


def test_a_checked_aimessage_carries_one_citation_per_supported_claim(emulator):
    checker = GroundingChecker(project_id="p", emulator_host=emulator.address)
    message = AIMessage(content=ANSWER, id="run-1", response_metadata={"model": "m"})
    out = checker.invoke({"answer": message, "documents": DOCS})
    cited = out["answer"]
    assert (cited.id, cited.text, cited.response_metadata["model"]) == ("run-1", ANSWER, "m")
    [block] = cited.content_blocks
    annotations = block["annotations"]
    assert [
        (a["type"], block["text"][a["start_index"] : a["end_index"]], a.get("url"), a["title"])
        for a in annotations
    ] == [
        ("citation", LYON, None, "Lyon"),
        ("citation", PARIS, "https://example.com/paris", "Paris"),
    ]
    assert [a["cited_text"] for a in annotations] == [LYON, PARIS]
    assert [a["extras"] for a in annotations] == [
        {"source_index": 1, "source_id": "doc-lyon", "claim_index": 0},
        {"source_index": 0, "source_id": "doc-paris", "claim_index": 2},
    ]
    assert all(a["id"].startswith("lc_") for a in annotations)
    grounding = cited.response_metadata["grounding"]
    assert grounding == out["grounding"].metadata()
    assert [(a["start_index"], a["end_index"]) for a in grounding["citation_annotations"]] == [
        (a["start_index"], a["end_index"]) for a in annotations
    ]


def test_checking_a_cited_message_again_replaces_its_citations(emulator):
    checker = GroundingChecker(project_id="p", emulator_host=emulator.address)
    once = checker.invoke({"answer": AIMessage(ANSWER), "documents": DOCS})["answer"]
    twice = checker.invoke({"answer": once, "documents": DOCS[:1]})["answer"]
    [block] = twice.content_blocks
    assert [a["title"] for a in block["annotations"]] == ["Paris"]
    assert twice.text == ANSWER


def test_a_string_becomes_one_text_block_and_no_span_adds_no_annotations():
    assert cited_content("abc", []) == [{"type": "text", "text": "abc"}]
    assert cited_content("", []) == [{"type": "text", "text": ""}]


def test_spans_go_on_the_text_block_they_fall_in_relative_to_it():
    reasoning = {"type": "reasoning", "reasoning": "thinking"}
    provider = {"type": "citation", "url": "https://web", "start_index": 0, "end_index": 2}
    content = [reasoning, "ab", {"type": "text", "text": "cdé", "annotations": [provider]}]
    # "abcdé": a span over "bcd" is cited in both text blocks.
    blocks = cited_content(content, [span(1, 4), span(4, 5, source_index=1, claim_index=1)])
    assert blocks[0] is reasoning
    assert [(a["start_index"], a["end_index"]) for a in blocks[1]["annotations"]] == [(1, 2)]
    assert blocks[2]["annotations"][0] is provider
    assert [
        (a["start_index"], a["end_index"], a["extras"]["source_index"])
        for a in blocks[2]["annotations"][1:]
    ] == [(0, 2, 0), (2, 3, 1)]
    assert content[1] == "ab"
    assert len(content[2]["annotations"]) == 1


@pytest.mark.parametrize("character", ["é", "€", "😀", "e\u0301", "ש"])
def test_spans_index_characters_whatever_their_utf8_width(character):
    text = f"{character}x{character}"
    message = cited_message(AIMessage(text), [span(len(character), len(text))], {"passed": True})
    [block] = message.content_blocks
    [annotation] = block["annotations"]
    assert block["text"][annotation["start_index"] : annotation["end_index"]] == f"x{character}"


def test_a_citation_without_url_or_title_leaves_them_out_and_keeps_the_rest():
    annotation = citation_annotation(CitationSpan(0, 3, "src", 2, "id-2", "", "", None))
    assert {k: v for k, v in annotation.items() if k != "id"} == {
        "type": "citation",
        "start_index": 0,
        "end_index": 3,
        "cited_text": "src",
        "extras": {"source_index": 2, "source_id": "id-2"},
    }
