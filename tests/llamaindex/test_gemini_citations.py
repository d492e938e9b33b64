"""``cite_gemini``: a google-genai response's grounding as LlamaIndex ``CitationBlock``s and
nodes (shapes: see ``tests/core/grounding/test_gemini.py``)."""

from __future__ import annotations

from types import SimpleNamespace as NS

from llama_index.core.base.llms.types import CitationBlock, TextBlock

from llamaindex_grounding.gemini_citations import cite_gemini

ANSWER = "Cafe\u0301 opens at 8. שלום."
RESPONSE = {
    "candidates": [
        {
            "content": {"parts": [{"text": ANSWER}]},
            "grounding_metadata": {
                "grounding_chunks": [
                    {
                        "retrieved_context": {
                            "uri": "gs://b/cafe.txt",
                            "title": "Café",
                            "text": "The café opens at 8.",
                        }
                    },
                    {"web": {"uri": "https://he.example", "title": "שלום"}},
                ],
                "grounding_supports": [
                    {
                        "segment": {"end_index": 18},
                        "grounding_chunk_indices": [0, 1],
                        "confidence_scores": [0.6, 0.9],
                    },
                    {
                        "segment": {"start_index": 19, "end_index": 28},
                        "grounding_chunk_indices": [1],
                        "confidence_scores": [0.5],
                    },
                ],
            },
        }
    ]
}


def test_citation_blocks_and_nodes_with_char_spans_of_the_answer():
    cited = cite_gemini(RESPONSE)
    first, second = "Cafe\u0301 opens at 8.", "שלום."
    assert cited.citation_blocks == [
        CitationBlock(
            cited_content=TextBlock(text="The café opens at 8."),
            source="gs://b/cafe.txt",
            title="Café",
            additional_location_info={
                "start_char_idx": 0,
                "end_char_idx": 17,
                "source_index": 0,
                "claim_index": 0,
            },
        ),
        CitationBlock(
            cited_content=TextBlock(text=""),
            source="https://he.example",
            title="שלום",
            additional_location_info={
                "start_char_idx": 0,
                "end_char_idx": 17,
                "source_index": 1,
                "claim_index": 0,
            },
        ),
        CitationBlock(
            cited_content=TextBlock(text=""),
            source="https://he.example",
            title="שלום",
            additional_location_info={
                "start_char_idx": 18,
                "end_char_idx": 23,
                "source_index": 1,
                "claim_index": 1,
            },
        ),
    ]
    assert [
        ANSWER[
            b.additional_location_info["start_char_idx"] : b.additional_location_info[
                "end_char_idx"
            ]
        ]
        for b in cited.citation_blocks
    ] == [first, first, second]
    assert cited.message.content == ANSWER
    assert [b.block_type for b in cited.message.blocks] == [
        "text",
        "citation",
        "citation",
        "citation",
    ]
    assert cited.message.additional_kwargs["grounding"] == cited.grounding.metadata()
    assert [
        (n.node.text, n.node.id_, n.node.metadata["chunk_type"], n.score)
        for n in cited.source_nodes
    ] == [
        ("The café opens at 8.", "0", "retrieved_context", 0.9),
        ("", "1", "web", 0.9),
    ]


def test_a_llamaindex_chat_response_whose_raw_is_gemini_is_read():
    cited = cite_gemini(NS(raw=RESPONSE))
    assert [b.additional_location_info["end_char_idx"] for b in cited.citation_blocks] == [
        17,
        17,
        23,
    ]
